import type { WeatherServices } from '../../bot/context.js';
import { localize } from '../../bot/i18n/index.js';
import { WEATHER_COMMAND_TEXT } from '../../bot/i18n/weather.js';
import { answerPrivatelySoon } from '../../bot/private-answer.js';
import type { Subcommand } from '../../bot/subcommands.js';
import { clearMemberHome } from '../../domain/weather/prefs.js';
import { weatherRequest } from './shared.js';

export default {
  name: 'clear',
  group: 'home',
  build: (sub) => localize(sub, WEATHER_COMMAND_TEXT.subcommands.homeClear),
  async execute(interaction, weather, ctx) {
    await answerPrivatelySoon(interaction, async () => {
      const { t, storage } = await weatherRequest(interaction, weather, ctx);
      const had = await clearMemberHome(storage, interaction.user.id);
      return { content: had ? t.homeCleared : t.homeNotSet };
    });
  },
} satisfies Subcommand<WeatherServices>;
