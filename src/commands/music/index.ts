import { SlashCommandBuilder } from '@discordjs/builders';
import { UserError } from '../../bot/errors.js';
import type { Command } from '../../bot/types.js';
import link from './link.js';
import { musicOf, type MusicSubcommand } from './shared.js';
import status from './status.js';
import unlink from './unlink.js';

const subcommands: readonly MusicSubcommand[] = [link, unlink, status];

const data = new SlashCommandBuilder()
  .setName('music')
  .setDescription('Your music account: browse, play, playlists');
for (const sub of subcommands) data.addSubcommand((builder) => sub.build(builder.setName(sub.name)));

export default {
  data,
  requires: 'music',
  async execute(interaction, ctx) {
    const group = interaction.options.getSubcommandGroup(false);
    const name = interaction.options.getSubcommand();
    const sub = subcommands.find((candidate) => candidate.name === (group ? `${group} ${name}` : name));
    if (!sub) throw new UserError('This music command is not known to the bot any more.');
    await sub.execute(interaction, musicOf(ctx), ctx);
  },
} satisfies Command;
