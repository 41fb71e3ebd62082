import type { WeatherServices } from '../../bot/context.js';
import { localize } from '../../bot/i18n/index.js';
import { WEATHER_COMMAND_TEXT } from '../../bot/i18n/weather.js';
import { md } from '../../bot/render/music-text.js';
import type { Subcommand } from '../../bot/subcommands.js';
import { saveMemberHome } from '../../domain/weather/prefs.js';
import { deferWithPlace, placeAutocomplete, placeOption, weatherRequest } from './shared.js';

export default {
  name: 'set',
  group: 'home',
  build: (sub) =>
    localize(sub, WEATHER_COMMAND_TEXT.subcommands.homeSet).addStringOption(
      placeOption(WEATHER_COMMAND_TEXT.options.placeRequired, true),
    ),
  autocomplete: placeAutocomplete,
  async execute(interaction, weather, ctx) {
    const request = await weatherRequest(interaction, weather, ctx);
    const place = await deferWithPlace(interaction, weather, request, { ephemeral: true, required: true });
    await saveMemberHome(request.storage, interaction.user.id, place);
    await interaction.editReply({ content: request.t.homeSaved(md(place.label, 100)) });
  },
} satisfies Subcommand<WeatherServices>;
