import type { WeatherServices } from '../../bot/context.js';
import { localize } from '../../bot/i18n/index.js';
import { WEATHER_COMMAND_TEXT } from '../../bot/i18n/weather.js';
import { renderWeatherHistory } from '../../bot/render/weather.js';
import type { Subcommand } from '../../bot/subcommands.js';
import { HISTORY_MAX_HOURS, parseDateTime, resolveHistoryRange } from '../../domain/weather/dates.js';
import { InvalidRangeError } from '../../domain/weather/errors.js';
import { getWeatherHistory } from '../../domain/weather/reports.js';
import { deferWithPlace, placeAutocomplete, placeOption, weatherRequest } from './shared.js';

const { options } = WEATHER_COMMAND_TEXT;

export default {
  name: 'history',
  build: (sub) =>
    localize(sub, WEATHER_COMMAND_TEXT.subcommands.history)
      .addStringOption(placeOption())
      .addStringOption((option) => localize(option, options.historyStart).setMaxLength(40))
      .addStringOption((option) => localize(option, options.historyEnd).setMaxLength(40))
      .addIntegerOption((option) =>
        localize(option, options.historyHours).setMinValue(1).setMaxValue(HISTORY_MAX_HOURS),
      ),
  autocomplete: placeAutocomplete,
  async execute(interaction, weather, ctx) {
    const startText = interaction.options.getString('start');
    const endText = interaction.options.getString('end');
    const range = {
      start: startText === null ? undefined : parseDateTime('start', startText),
      end: endText === null ? undefined : parseDateTime('end', endText),
      hours: interaction.options.getInteger('hours') ?? undefined,
    };
    if (range.start && range.end && range.hours !== undefined) throw new InvalidRangeError('end-and-hours');
    const request = await weatherRequest(interaction, weather, ctx);
    const place = await deferWithPlace(interaction, weather, request);
    const report = await getWeatherHistory(weather.client, place, (clock) =>
      resolveHistoryRange(range, { nowSec: Math.floor(ctx.now() / 1000), clock }),
    );
    await interaction.editReply(renderWeatherHistory(report, request.render));
  },
} satisfies Subcommand<WeatherServices>;
