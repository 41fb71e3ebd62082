import { MessageFlags } from 'discord.js';
import type { WeatherServices } from '../../bot/context.js';
import { langOf, localize } from '../../bot/i18n/index.js';
import { SCHEDULE_TEXT } from '../../bot/i18n/schedules.js';
import { botPauseReason } from '../../bot/render/schedules.js';
import type { Subcommand } from '../../bot/subcommands.js';
import {
  BotTimedOutError,
  PostRefusedError,
  PostRejectedError,
  WeatherRefusedError,
} from '../../services/schedules/runner.js';
import {
  findSchedule,
  idOption,
  requireManager,
  SCHEDULE_GROUP,
  scheduleIdAutocomplete,
} from './schedule-shared.js';
import { requireBotInServer } from './schedule-standing.js';
import { describeWeatherProblem, MAX_CONTENT_LENGTH } from './shared.js';
import { fit } from '../../bot/render/weather.js';

export default {
  group: SCHEDULE_GROUP,
  name: 'test',
  build: (sub) => localize(sub, SCHEDULE_TEXT.subcommands.test).addStringOption(idOption),
  autocomplete: (interaction, weather) => scheduleIdAutocomplete(interaction, weather),
  async execute(interaction, weather) {
    const { guildId, t } = requireManager(interaction);
    requireBotInServer(interaction, t);
    // Acknowledged before the storage read, which may wait on locks or Redis.
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const schedule = await findSchedule(weather, guildId, interaction.options.getString('id', true), t);
    try {
      await weather.schedules.postNow(schedule);
    } catch (error) {
      // What this command is for: the reason a scheduled post would fail, in the words the
      // schedule list uses when it pauses one (the weather refusal as `/weather` says it).
      const reason =
        error instanceof PostRejectedError
          ? `${botPauseReason(error.code, error.missing, t)}.`
          : error instanceof WeatherRefusedError
            ? (describeWeatherProblem(error.cause, langOf(interaction.locale)) ?? error.message)
            : error instanceof BotTimedOutError
              ? t.timedOut(Math.floor(error.until / 1000))
              : error instanceof PostRefusedError
                ? t.postRefused(error.detail)
                : undefined;
      if (reason === undefined) throw error;
      // The reason may quote the weather service or Discord at any length.
      await interaction.editReply({
        content: fit(t.couldNotPost(schedule.channelId, reason), MAX_CONTENT_LENGTH),
      });
      return;
    }
    await interaction.editReply({ content: t.posted(schedule.channelId) });
  },
} satisfies Subcommand<WeatherServices>;
