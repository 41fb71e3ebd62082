import { renderPlayerPanel } from '../../bot/render/player.js';
import type { MusicServices } from '../../bot/context.js';
import type { Subcommand } from '../../bot/subcommands.js';
import { listDevices } from '../../domain/music/player.js';
import { depsOf, ensureLinked, guarded } from './shared.js';

export default {
  name: 'player',
  build: (sub) => sub.setDescription('Open a player panel with Pause and Next'),
  execute: guarded(async (interaction, music, ctx) => {
    if (!(await ensureLinked(interaction, music))) return;
    await interaction.deferReply();
    const devices = await listDevices(depsOf(music, ctx), interaction.user.id);
    await interaction.editReply(renderPlayerPanel({ ownerId: interaction.user.id, devices }));
  }),
} satisfies Subcommand<MusicServices>;
