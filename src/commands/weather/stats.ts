import type { WeatherServices } from '../../bot/context.js';
import { localize, localizedChoice } from '../../bot/i18n/index.js';
import { WEATHER_COMMAND_TEXT } from '../../bot/i18n/weather.js';
import { renderDayStatistics } from '../../bot/render/weather.js';
import type { Subcommand } from '../../bot/subcommands.js';
import { checkCalendarDay, defaultCalendarDay } from '../../domain/weather/dates.js';
import { getDayStatistics } from '../../domain/weather/reports.js';
import { localCalendarDay } from '../../domain/weather/zones.js';
import { deferWithPlace, placeAutocomplete, placeOption, weatherRequest } from './shared.js';

const { options } = WEATHER_COMMAND_TEXT;

export default {
  name: 'stats',
  build: (sub) =>
    localize(sub, WEATHER_COMMAND_TEXT.subcommands.stats)
      .addStringOption(placeOption())
      .addIntegerOption((option) =>
        localize(option, options.month).addChoices(
          ...WEATHER_COMMAND_TEXT.months.map((name, index) => localizedChoice(name, index + 1)),
        ),
      )
      .addIntegerOption((option) => localize(option, options.day).setMinValue(1).setMaxValue(31)),
  autocomplete: placeAutocomplete,
  async execute(interaction, weather, ctx) {
    const asked = {
      month: interaction.options.getInteger('month'),
      day: interaction.options.getInteger('day'),
    };
    // A day given in full is checked before anything is asked.
    if (asked.month !== null && asked.day !== null) checkCalendarDay(asked.month, asked.day);
    const request = await weatherRequest(interaction, weather, ctx);
    const place = await deferWithPlace(interaction, weather, request);
    // "Today" is the place's: in Sydney on the morning of 5 July, while it is still 4 July in UTC.
    const day = defaultCalendarDay(localCalendarDay(place, Math.floor(ctx.now() / 1000)), asked);
    const report = await getDayStatistics(weather.client, place, day);
    await interaction.editReply({ embeds: [renderDayStatistics(report, request.render)] });
  },
} satisfies Subcommand<WeatherServices>;
