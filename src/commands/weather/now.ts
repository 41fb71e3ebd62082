import type { WeatherServices } from '../../bot/context.js';
import { localize } from '../../bot/i18n/index.js';
import { WEATHER_COMMAND_TEXT } from '../../bot/i18n/weather.js';
import { renderCurrentWeather } from '../../bot/render/weather.js';
import type { Subcommand } from '../../bot/subcommands.js';
import { getCurrentWeather } from '../../domain/weather/reports.js';
import { deferWithPlace, placeAutocomplete, placeOption, weatherRequest } from './shared.js';

export default {
  name: 'now',
  build: (sub) => localize(sub, WEATHER_COMMAND_TEXT.subcommands.now).addStringOption(placeOption()),
  autocomplete: placeAutocomplete,
  async execute(interaction, weather, ctx) {
    const request = await weatherRequest(interaction, weather, ctx);
    const place = await deferWithPlace(interaction, weather, request);
    const report = await getCurrentWeather(weather.client, place, { lang: request.serviceLang });
    await interaction.editReply({ embeds: [renderCurrentWeather(report, request.render)] });
  },
} satisfies Subcommand<WeatherServices>;
