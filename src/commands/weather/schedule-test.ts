import { MessageFlags } from 'discord.js';
import type { WeatherServices } from '../../bot/context.js';
import { localize } from '../../bot/i18n/index.js';
import { SCHEDULE_TEXT } from '../../bot/i18n/schedules.js';
import type { Subcommand } from '../../bot/subcommands.js';
import {
  findSchedule,
  idOption,
  requireManager,
  SCHEDULE_GROUP,
  scheduleIdAutocomplete,
} from './schedule-shared.js';

export default {
  group: SCHEDULE_GROUP,
  name: 'test',
  build: (sub) => localize(sub, SCHEDULE_TEXT.subcommands.test).addStringOption(idOption),
  autocomplete: (interaction, weather) => scheduleIdAutocomplete(interaction, weather),
  async execute(interaction, weather) {
    const { guildId } = requireManager(interaction);
    const schedule = await findSchedule(weather, guildId, interaction.options.getString('id', true));
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    await weather.schedules.postNow(schedule);
    await interaction.editReply({ content: `Posted it in <#${schedule.channelId}>.` });
  },
} satisfies Subcommand<WeatherServices>;
