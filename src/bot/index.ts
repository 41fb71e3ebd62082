import {
  DiscordAPIError,
  DiscordjsErrorCodes,
  Events,
  Routes,
  type Client,
  type Interaction,
} from 'discord.js';
import { z } from 'zod';
import type { Logger } from '../logger.js';
import { notDiscordsApi, unreachableDiscord } from './client.js';

export interface StartBotOptions {
  client: Client;
  token: string;
  route: (interaction: Interaction) => Promise<void>;
  logger: Logger;
  /**
   * How long to wait for the gateway without progress: for the first shard to be ready, then for
   * each next one. Discord lets a bot identify one shard per 5 s (per `max_concurrency` bucket), so
   * a process with many shards takes longer than this in all, and may.
   */
  readyTimeoutMs?: number;
}

/** Logs in, routes interactions, resolves once the client is ready (every shard of this process). */
export async function startBot({ client, token, route, logger, readyTimeoutMs = 30_000 }: StartBotOptions) {
  await ensureSessionStarts(client, token).catch((error: unknown) => {
    throw loginFailure(error, client.rest.options.api);
  });
  client.on(Events.InteractionCreate, (interaction) => {
    void route(interaction);
  });
  client.on(Events.Error, (error) => logger.error({ err: error }, 'discord client error'));
  // discord.js emits this only for a close it will not reconnect after: the shard stays offline.
  client.on(Events.ShardDisconnect, (event, shardId) =>
    logger.error(
      { shardId, code: event.code, fix: GATEWAY_CLOSE_FIXES[event.code] ?? 'restart the bot' },
      'Discord closed a shard for good: it will not reconnect by itself',
    ),
  );
  client.on(Events.ShardResume, (shardId) => logger.info({ shardId }, 'gateway resumed'));

  // Given up on only when no shard has become ready for `readyTimeoutMs`.
  let timer: NodeJS.Timeout | undefined;
  let giveUp: (error: Error) => void = () => {};
  const wait = () => {
    clearTimeout(timer);
    timer = setTimeout(
      () => giveUp(new Error(`Discord's gateway got no shard ready for ${readyTimeoutMs / 1000} s`)),
      readyTimeoutMs,
    );
  };
  const onShardReady = (shardId: number) => {
    logger.debug({ shardId }, 'shard ready');
    wait();
  };
  const ready = new Promise<void>((resolve, reject) => {
    giveUp = reject;
    client.once(Events.ClientReady, () => resolve());
  });
  client.on(Events.ShardReady, onShardReady);
  wait();
  try {
    await Promise.all([client.login(token), ready]);
  } catch (error) {
    throw loginFailure(error, client.rest.options.api);
  } finally {
    clearTimeout(timer);
    client.off(Events.ShardReady, onShardReady);
  }
  logger.info({ user: client.user?.tag, guilds: client.guilds.cache.size }, 'connected to Discord');
}

/** What the check below reads of `GET /gateway/bot` (Discord's "Get Gateway Bot"). */
const gatewayBotSchema = z.object({
  shards: z.number().int().nonnegative(),
  session_start_limit: z.object({
    total: z.number().int().nonnegative(),
    remaining: z.number().int().nonnegative(),
    reset_after: z.number().nonnegative(),
  }),
});

/**
 * Session starts (IDENTIFYs) kept in hand: the bot does not log in when starting its shards would
 * leave fewer than this many of Discord's daily allowance.
 */
const SESSION_STARTS_KEPT = 5;

/**
 * Refuses to log in when Discord's daily allowance of session starts (1,000 for most bots; one per
 * shard at each start, none for a resume) is nearly used up. Discord's gateway docs: "Upon hitting
 * this limit, all active sessions for the app will be terminated, the bot token will be reset, and
 * the owner will receive an email notification". A bot that crashes soon after each start, under a
 * supervisor that restarts it every few seconds, gets there in a few hours, and then runs on no
 * token at all; refusing first keeps the token. discord.js itself refuses only once too few are left
 * for its shards, which is already past that point. The same request as discord.js makes at login
 * (`GET /gateway/bot`), made once more; an answer without the figures is left to discord.js.
 */
async function ensureSessionStarts(client: Client, token: string): Promise<void> {
  client.rest.setToken(token);
  const gateway = gatewayBotSchema.safeParse(await client.rest.get(Routes.gatewayBot()));
  if (!gateway.success) return;
  const { total, remaining, reset_after: resetAfter } = gateway.data.session_start_limit;
  const ids = client.options.shards;
  const needed = Array.isArray(ids) ? ids.length : typeof ids === 'number' ? 1 : gateway.data.shards;
  if (remaining - needed >= SESSION_STARTS_KEPT) return;
  const resetAt = new Date(Date.now() + resetAfter).toISOString();
  throw new Error(
    `Discord allows this bot ${total} logins (session starts) a day and only ${remaining} are left ` +
      `until ${resetAt}: the bot does not log in with so few, because Discord resets the bot's token ` +
      `once they are used up. Something started the bot very often (a restart loop?): find why in the ` +
      `log, then start it again after ${resetAt}`,
  );
}

/** What to do about each close code discord.js does not reconnect after (Discord's gateway docs). */
const GATEWAY_CLOSE_FIXES: Readonly<Record<number, string>> = {
  4004: 'DISCORD_TOKEN was refused: copy the token again from the Developer Portal, then restart',
  4010: 'an invalid shard was sent: check SHARD_IDS and SHARD_COUNT, then restart',
  4011: 'Discord requires more shards for this many servers: raise SHARD_COUNT (README, Scaling out), then restart',
  4012: 'an invalid gateway version: update the bot',
  4013: 'invalid intents were sent: update the bot',
  4014: 'an intent is not enabled for this application in the Developer Portal: enable it there, then restart',
};

/**
 * A failed login said in the owner's terms: a token Discord refuses names `DISCORD_TOKEN` and where
 * a new one comes from (discord.js says only "An invalid token was provided."). The token itself is
 * never in the message; Discord not reached, or something other than Discord answering at
 * DISCORD_API_URL, says where it was looked for. Anything else is passed on as it is.
 */
function loginFailure(error: unknown, api: string): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const unreachable = unreachableDiscord(error, api);
  if (unreachable !== undefined) return new Error(unreachable, { cause: error });
  const elsewhere = notDiscordsApi(error, api, 'the bot’s login');
  if (elsewhere !== undefined) return new Error(elsewhere, { cause: error });
  const refused =
    code === DiscordjsErrorCodes.TokenInvalid || (error instanceof DiscordAPIError && error.status === 401);
  if (!refused) return error;
  return new Error(
    'Discord refused DISCORD_TOKEN: copy the bot’s token again from the Developer Portal ' +
      '(your application → Bot → Reset Token) into .env, whole',
    { cause: error },
  );
}
