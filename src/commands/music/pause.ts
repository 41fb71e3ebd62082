import { MessageFlags } from 'discord.js';
import { renderPlayerOutcome } from '../../bot/render/player.js';
import type { MusicServices } from '../../bot/context.js';
import type { Subcommand } from '../../bot/subcommands.js';
import { pausePlayback } from '../../domain/music/player.js';
import { myDeviceChoices } from './choices.js';
import { depsOf, ensureLinked, guarded } from './shared.js';

export default {
  name: 'pause',
  build: (sub) =>
    sub
      .setDescription('Pause playback')
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
    const outcome = await pausePlayback(depsOf(music, ctx), interaction.user.id, device);
    await interaction.editReply(renderPlayerOutcome(outcome));
  }),
  autocomplete: myDeviceChoices,
} satisfies Subcommand<MusicServices>;
