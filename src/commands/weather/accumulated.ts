import type { WeatherServices } from '../../bot/context.js';
import { localize } from '../../bot/i18n/index.js';
import { WEATHER_COMMAND_TEXT } from '../../bot/i18n/weather.js';
import { renderAccumulated } from '../../bot/render/weather.js';
import type { Subcommand } from '../../bot/subcommands.js';
import { parseDateTime, resolveDayRange } from '../../domain/weather/dates.js';
import { getAccumulatedWeather } from '../../domain/weather/reports.js';
import { toKelvin } from '../../domain/weather/units.js';
import { deferWithPlace, placeAutocomplete, placeOption, weatherRequest } from './shared.js';

const { options } = WEATHER_COMMAND_TEXT;

/** The usual base for growing degree days: 10 °C. */
const DEFAULT_THRESHOLD_K = 283.15;

export default {
  name: 'accumulated',
  build: (sub) =>
    localize(sub, WEATHER_COMMAND_TEXT.subcommands.accumulated)
      .addStringOption((option) =>
        localize(option, options.accumulatedStart).setRequired(true).setMaxLength(40),
      )
      .addStringOption(placeOption())
      .addStringOption((option) => localize(option, options.accumulatedEnd).setMaxLength(40))
      .addNumberOption((option) => localize(option, options.threshold).setMinValue(-100).setMaxValue(400)),
  autocomplete: placeAutocomplete,
  async execute(interaction, weather, ctx) {
    const endText = interaction.options.getString('end');
    const range = resolveDayRange(
      {
        start: parseDateTime('start', interaction.options.getString('start', true)),
        end: endText === null ? undefined : parseDateTime('end', endText),
      },
      Math.floor(ctx.now() / 1000),
    );
    const request = await weatherRequest(interaction, weather, ctx);
    const threshold = interaction.options.getNumber('threshold');
    const thresholdK = threshold === null ? DEFAULT_THRESHOLD_K : toKelvin(threshold, request.render.units);
    const place = await deferWithPlace(interaction, weather, request);
    const report = await getAccumulatedWeather(weather.client, place, { range, thresholdK });
    await interaction.editReply({ embeds: [renderAccumulated(report, request.render)] });
  },
} satisfies Subcommand<WeatherServices>;
