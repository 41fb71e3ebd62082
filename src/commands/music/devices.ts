import { MessageFlags } from 'discord.js';
import { renderDevices } from '../../bot/render/player.js';
import type { MusicServices } from '../../bot/context.js';
import type { Subcommand } from '../../bot/subcommands.js';
import { listDevices } from '../../domain/music/player.js';
import { depsOf, ensureLinked, guarded } from './shared.js';

export default {
  name: 'devices',
  build: (sub) => sub.setDescription('List your devices'),
  execute: guarded(async (interaction, music, ctx) => {
    if (!(await ensureLinked(interaction, music))) return;
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const devices = await listDevices(depsOf(music, ctx), interaction.user.id);
    await interaction.editReply(renderDevices(devices));
  }),
} satisfies Subcommand<MusicServices>;
