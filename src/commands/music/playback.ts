/** `/music pause` and `/music next`: the same command around a different player call. */
import { MessageFlags } from 'discord.js';
import { renderPlayerOutcome } from '../../bot/render/player.js';
import type { MusicServices } from '../../bot/context.js';
import type { Subcommand } from '../../bot/subcommands.js';
import type { MusicDeps } from '../../domain/music/deps.js';
import { pausePlayback, skipToNext, type PlayerOutcome } from '../../domain/music/player.js';
import { myDeviceChoices } from './choices.js';
import { depsOf, ensureLinked, guarded } from './shared.js';

function playbackCommand(
  name: string,
  description: string,
  run: (deps: MusicDeps, userId: string, device?: string) => Promise<PlayerOutcome>,
): Subcommand<MusicServices> {
  return {
    name,
    build: (sub) =>
      sub
        .setDescription(description)
        .addStringOption((option) =>
          option
            .setName('device')
            .setDescription('Which device (your active one if left out)')
            .setAutocomplete(true),
        ),
    execute: guarded(async (interaction, music, ctx) => {
      if (!(await ensureLinked(interaction, music))) return;
      await interaction.deferReply({ flags: MessageFlags.Ephemeral });
      const device = interaction.options.getString('device') ?? undefined;
      const outcome = await run(depsOf(music, ctx), interaction.user.id, device);
      await interaction.editReply(renderPlayerOutcome(outcome));
    }),
    autocomplete: myDeviceChoices,
  };
}

export const pause = playbackCommand('pause', 'Pause playback', pausePlayback);
export const next = playbackCommand('next', 'Skip to the next track', skipToNext);
