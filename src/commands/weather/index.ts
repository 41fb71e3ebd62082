import { SlashCommandSubcommandGroupBuilder } from '@discordjs/builders';
import type { WeatherServices } from '../../bot/context.js';
import { localize } from '../../bot/i18n/index.js';
import { SCHEDULE_TEXT } from '../../bot/i18n/schedules.js';
import { WEATHER_COMMAND_TEXT } from '../../bot/i18n/weather.js';
import { commandGroup, type Subcommand } from '../../bot/subcommands.js';
import accumulated from './accumulated.js';
import daily from './daily.js';
import history from './history.js';
import homeClear from './home-clear.js';
import homeServerClear from './home-server-clear.js';
import homeServer from './home-server.js';
import homeSet from './home-set.js';
import homeShow from './home-show.js';
import hourly from './hourly.js';
import now from './now.js';
import stats from './stats.js';
import units from './units.js';
import scheduleAdd from './schedule-add.js';
import { schedulePause, scheduleRemove, scheduleResume } from './schedule-change.js';
import scheduleList from './schedule-list.js';
import scheduleTest from './schedule-test.js';
import { withWeatherErrors } from './shared.js';

const subcommands: readonly Subcommand<WeatherServices>[] = [
  now,
  hourly,
  daily,
  history,
  stats,
  accumulated,
  units,
  homeSet,
  homeClear,
  homeShow,
  homeServer,
  homeServerClear,
  scheduleAdd,
  scheduleList,
  scheduleRemove,
  schedulePause,
  scheduleResume,
  scheduleTest,
].map(withWeatherErrors);

const { command, groups } = WEATHER_COMMAND_TEXT;

export default commandGroup({
  name: command.name.en,
  description: command.description.en,
  groups: { home: groups.home.description.en, schedule: SCHEDULE_TEXT.group.description.en },
  requires: 'weather',
  services: (ctx) => ctx.weather,
  subcommands,
  configure(builder) {
    localize(builder, command);
    for (const option of builder.options) {
      if (option instanceof SlashCommandSubcommandGroupBuilder && option.name === groups.home.name.en) {
        localize(option, groups.home);
      }
      if (
        option instanceof SlashCommandSubcommandGroupBuilder &&
        option.name === SCHEDULE_TEXT.group.name.en
      ) {
        localize(option, SCHEDULE_TEXT.group);
      }
    }
  },
});
