import {
  ApplicationIntegrationType,
  DiscordAPIError,
  InteractionContextType,
  REST,
  RESTJSONErrorCodes,
  Routes,
  type RESTPutAPIApplicationCommandsResult,
} from 'discord.js';
import { rejectOnRateLimit, unreachableDiscord } from './client.js';
import { botInviteUrl } from './post-permissions.js';
import type { Command } from './types.js';

export interface RegisterOptions {
  token: string;
  applicationId: string;
  /** Register in one guild (shows at once; for development). Without it, globally (up to an hour). */
  guildId?: string | undefined;
  apiUrl: string;
  commands: readonly Command[];
}

/**
 * Where the commands are offered, said outright rather than left to Discord's default (which has
 * changed before): in servers and in members' DMs with the bot, for a bot installed to servers.
 * Every command answers in a DM; those that belong to a server (schedules, the server's home place)
 * say so there. Discord documents both fields for global commands only: guild commands, which appear
 * in their guild alone, are sent without them.
 */
const OFFERED = {
  contexts: [InteractionContextType.Guild, InteractionContextType.BotDM],
  integration_types: [ApplicationIntegrationType.GuildInstall],
};

/** Replaces the application's commands with the registry's, in one guild or globally. */
export async function registerCommands(
  options: RegisterOptions,
): Promise<RESTPutAPIApplicationCommandsResult> {
  const rest = new REST({ api: options.apiUrl, rejectOnRateLimit }).setToken(options.token);
  const body = options.commands.map((command) => ({
    ...command.data.toJSON(),
    ...(options.guildId ? {} : OFFERED),
  }));
  const route = options.guildId
    ? Routes.applicationGuildCommands(options.applicationId, options.guildId)
    : Routes.applicationCommands(options.applicationId);
  return (await rest.put(route, { body })) as RESTPutAPIApplicationCommandsResult;
}

/**
 * Why registering failed, in the owner's terms: which setting to check, and how to mend it.
 * Anything Discord says that is not one of these is given as it said it.
 */
export function describeRegisterFailure(
  error: unknown,
  where: { guildId: string | undefined; apiUrl?: string | undefined; applicationId: string },
): string {
  const unreachable = unreachableDiscord(error, where.apiUrl ?? 'https://discord.com/api');
  if (unreachable !== undefined) return unreachable;
  if (error instanceof DiscordAPIError) {
    if (error.status === 401)
      return 'Discord refused DISCORD_TOKEN: copy the bot’s token again from the Developer Portal (your application → Bot → Reset Token).';
    // 10002 for an id that is no application; 20012 for another application's id (the usual slip:
    // a second bot's id, or the token of one app with the id of another).
    if (
      error.code === RESTJSONErrorCodes.UnknownApplication ||
      error.code === RESTJSONErrorCodes.NotAuthorizedToPerformThisActionOnThisApplication
    )
      return 'DISCORD_APPLICATION_ID is not this bot’s application: copy the Application ID from the Developer Portal (your application → General Information).';
    if (
      where.guildId !== undefined &&
      (error.code === RESTJSONErrorCodes.MissingAccess || error.code === RESTJSONErrorCodes.UnknownGuild)
    )
      // The app is not installed there at all (commands need only its applications.commands scope):
      // the link that adds it, the server chosen, as /weather schedule add gives in a server without
      // the bot. Only once the id is known to be this bot's application's (20012 and 10002 above).
      return `The bot cannot register commands in the server DISCORD_GUILD_ID names (${where.guildId}): add it there with ${botInviteUrl(where.applicationId, where.guildId)} or correct the id.`;
    return `Discord refused the commands: ${error.status} ${error.message}`;
  }
  return error instanceof Error ? error.message : String(error);
}
