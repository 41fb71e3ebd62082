import {
  ApplicationIntegrationType,
  DiscordAPIError,
  InteractionContextType,
  RateLimitError,
  RESTJSONErrorCodes,
  Routes,
  type RESTPutAPIApplicationCommandsResult,
} from 'discord.js';
import { DISCORD_API } from '../config.js';
import { createDiscordRest, notDiscordsApi, unreachableDiscord } from './client.js';
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
  // The bot's own REST set-up: a 429 whose wait is in its body only is waited out, not refused.
  const rest = createDiscordRest({ apiUrl: options.apiUrl, token: options.token });
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
  const unreachable = unreachableDiscord(error, where.apiUrl ?? DISCORD_API);
  if (unreachable !== undefined) return unreachable;
  const elsewhere = notDiscordsApi(error, where.apiUrl ?? DISCORD_API, 'the commands’ registration');
  if (elsewhere !== undefined) return elsewhere;
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
  if (error instanceof RateLimitError) return rateLimited(error.retryAfter, where.guildId === undefined);
  return error instanceof Error ? error.message : String(error);
}

/**
 * A rate limit registering did not wait out (over a minute, or with no wait given): how long, and,
 * for global commands, the daily limit on creating them that is the likeliest cause.
 */
function rateLimited(retryAfterMs: number, global: boolean): string {
  // Less the library's own margin (50 ms), so that an hour reads as 60 minutes, not 61.
  const minutes = Math.ceil(Math.max(0, retryAfterMs - 1_000) / 60_000);
  const when =
    retryAfterMs > 0
      ? `try again in ${minutes >= 120 ? `about ${Math.round(minutes / 60)} hours` : `${minutes} minute${minutes === 1 ? '' : 's'}`}`
      : 'try again later';
  return (
    `Discord is rate-limiting command registration: ${when}.` +
    (global
      ? ' Discord allows 200 creations of global commands a day; while setting up, register in one server (DISCORD_GUILD_ID) instead.'
      : '')
  );
}
