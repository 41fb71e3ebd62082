import { SlashCommandBuilder } from '@discordjs/builders';
import { MessageFlags } from 'discord.js';
import { HELP_DESCRIPTION } from '../bot/i18n/help.js';
import { localizationMap } from '../bot/i18n/index.js';
import { renderHelp } from '../bot/render/help.js';
import type { Command } from '../bot/types.js';

export default {
  data: new SlashCommandBuilder()
    .setName('help')
    .setDescription(HELP_DESCRIPTION.en)
    .setDescriptionLocalizations(localizationMap(HELP_DESCRIPTION)),
  async execute(interaction, ctx) {
    const entries = ctx.commands.map((command) => ({
      command: command.data.toJSON(),
      switchedOff: command.requires !== undefined && !ctx.features[command.requires],
    }));
    await interaction.reply({
      embeds: [renderHelp(entries, interaction.locale)],
      flags: MessageFlags.Ephemeral,
    });
  },
} satisfies Command;
