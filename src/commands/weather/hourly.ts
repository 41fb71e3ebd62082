import type { WeatherServices } from '../../bot/context.js';
import { localize } from '../../bot/i18n/index.js';
import { WEATHER_COMMAND_TEXT } from '../../bot/i18n/weather.js';
import { RENDER_LIMITS, renderHourlyForecast } from '../../bot/render/weather.js';
import type { Subcommand } from '../../bot/subcommands.js';
import { getHourlyForecast } from '../../domain/weather/reports.js';
import { deferWithPlace, placeAutocomplete, placeOption, weatherRequest } from './shared.js';

const HOURS = { min: 24, max: RENDER_LIMITS.hours, default: 24 } as const;

export default {
  name: 'hourly',
  build: (sub) =>
    localize(sub, WEATHER_COMMAND_TEXT.subcommands.hourly)
      .addStringOption(placeOption())
      .addIntegerOption((option) =>
        localize(option, WEATHER_COMMAND_TEXT.options.hours).setMinValue(HOURS.min).setMaxValue(HOURS.max),
      ),
  autocomplete: placeAutocomplete,
  async execute(interaction, weather, ctx) {
    const hours = interaction.options.getInteger('hours') ?? HOURS.default;
    const request = await weatherRequest(interaction, weather, ctx);
    const place = await deferWithPlace(interaction, weather, request);
    const report = await getHourlyForecast(weather.client, place, {
      hours,
      lang: request.serviceLang,
      nowSec: Math.floor(ctx.now() / 1000),
    });
    await interaction.editReply(renderHourlyForecast(report, request.render));
  },
} satisfies Subcommand<WeatherServices>;
