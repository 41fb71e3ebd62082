import type { WeatherServices } from '../../bot/context.js';
import { localize } from '../../bot/i18n/index.js';
import { WEATHER_COMMAND_TEXT } from '../../bot/i18n/weather.js';
import { answerPrivatelySoon } from '../../bot/private-answer.js';
import type { Subcommand } from '../../bot/subcommands.js';
import { clearServerHome } from '../../domain/weather/prefs.js';
import { manageableGuildId } from './home-server.js';
import { weatherRequest } from './shared.js';

export default {
  name: 'server-clear',
  group: 'home',
  build: (sub) => localize(sub, WEATHER_COMMAND_TEXT.subcommands.homeServerClear),
  async execute(interaction, weather, ctx) {
    const guildId = manageableGuildId(interaction);
    await answerPrivatelySoon(interaction, async () => {
      const { t, storage } = await weatherRequest(interaction, weather, ctx);
      const had = await clearServerHome(storage, guildId);
      return { content: had ? t.serverHomeCleared : t.serverHomeNotSet };
    });
  },
} satisfies Subcommand<WeatherServices>;
