import { SlashCommandBuilder } from '@discordjs/builders';
import { MessageFlags } from 'discord.js';
import { renderHelp } from '../bot/render/help.js';
import type { Command } from '../bot/types.js';

export default {
  data: new SlashCommandBuilder().setName('help').setDescription('List every command of this bot'),
  async execute(interaction, ctx) {
    const entries = ctx.commands.map((command) => ({
      command: command.data.toJSON(),
      switchedOff: command.requires !== undefined && !ctx.features[command.requires],
    }));
    await interaction.reply({ embeds: [renderHelp(entries)], flags: MessageFlags.Ephemeral });
  },
} satisfies Command;
