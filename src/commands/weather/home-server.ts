import { PermissionFlagsBits, type ChatInputCommandInteraction } from 'discord.js';
import type { WeatherServices } from '../../bot/context.js';
import { UserError } from '../../bot/errors.js';
import { langOf, localize } from '../../bot/i18n/index.js';
import { WEATHER_COMMAND_TEXT, weatherMessages } from '../../bot/i18n/weather.js';
import { md } from '../../bot/render/music-text.js';
import type { Subcommand } from '../../bot/subcommands.js';
import { saveServerHome } from '../../domain/weather/prefs.js';
import { deferWithPlace, placeAutocomplete, placeOption, weatherRequest } from './shared.js';

/** The server this is run in, when the member may manage it. */
export function manageableGuildId(interaction: ChatInputCommandInteraction): string {
  const t = weatherMessages(langOf(interaction.locale));
  if (interaction.guildId === null) throw new UserError(t.serverOnly);
  if (!interaction.memberPermissions?.has(PermissionFlagsBits.ManageGuild)) {
    throw new UserError(t.manageServerNeeded);
  }
  return interaction.guildId;
}

export default {
  name: 'server',
  group: 'home',
  build: (sub) =>
    localize(sub, WEATHER_COMMAND_TEXT.subcommands.homeServer).addStringOption(
      placeOption(WEATHER_COMMAND_TEXT.options.placeRequired, true),
    ),
  autocomplete: placeAutocomplete,
  async execute(interaction, weather, ctx) {
    const guildId = manageableGuildId(interaction);
    const request = await weatherRequest(interaction, weather, ctx);
    const place = await deferWithPlace(interaction, weather, request, { ephemeral: true, required: true });
    await saveServerHome(request.storage, guildId, place);
    await interaction.editReply({ content: request.t.serverHomeSaved(md(place.label, 100)) });
  },
} satisfies Subcommand<WeatherServices>;
