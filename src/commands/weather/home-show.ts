import type { WeatherServices } from '../../bot/context.js';
import { localize } from '../../bot/i18n/index.js';
import { WEATHER_COMMAND_TEXT } from '../../bot/i18n/weather.js';
import { renderWeatherSettings } from '../../bot/render/weather.js';
import { answerPrivatelySoon } from '../../bot/private-answer.js';
import type { Subcommand } from '../../bot/subcommands.js';
import { getServerPrefs } from '../../domain/weather/prefs.js';
import { weatherRequest } from './shared.js';

export default {
  name: 'show',
  group: 'home',
  build: (sub) => localize(sub, WEATHER_COMMAND_TEXT.subcommands.homeShow),
  async execute(interaction, weather, ctx) {
    await answerPrivatelySoon(interaction, async () => {
      const { storage, render, member } = await weatherRequest(interaction, weather, ctx);
      const server =
        interaction.guildId === null ? undefined : await getServerPrefs(storage, interaction.guildId);
      return { embeds: [renderWeatherSettings({ member, server, units: render.units }, render)] };
    });
  },
} satisfies Subcommand<WeatherServices>;
