import type { WeatherServices } from '../../bot/context.js';
import { localize } from '../../bot/i18n/index.js';
import { WEATHER_COMMAND_TEXT } from '../../bot/i18n/weather.js';
import { RENDER_LIMITS, renderDailyForecast } from '../../bot/render/weather.js';
import type { Subcommand } from '../../bot/subcommands.js';
import { getDailyForecast } from '../../domain/weather/reports.js';
import { deferWithPlace, placeAutocomplete, placeOption, weatherRequest } from './shared.js';

const DAYS = { min: 1, max: RENDER_LIMITS.days, default: 7 } as const;

export default {
  name: 'daily',
  build: (sub) =>
    localize(sub, WEATHER_COMMAND_TEXT.subcommands.daily)
      .addStringOption(placeOption())
      .addIntegerOption((option) =>
        localize(option, WEATHER_COMMAND_TEXT.options.days).setMinValue(DAYS.min).setMaxValue(DAYS.max),
      ),
  autocomplete: placeAutocomplete,
  async execute(interaction, weather, ctx) {
    const days = interaction.options.getInteger('days') ?? DAYS.default;
    const request = await weatherRequest(interaction, weather, ctx);
    const place = await deferWithPlace(interaction, weather, request);
    const report = await getDailyForecast(weather.client, place, {
      days,
      lang: request.serviceLang,
      nowSec: Math.floor(ctx.now() / 1000),
    });
    await interaction.editReply(renderDailyForecast(report, request.render));
  },
} satisfies Subcommand<WeatherServices>;
