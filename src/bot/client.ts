import { Client, GatewayIntentBits, Partials, REST, type RESTOptions } from 'discord.js';

export interface DiscordClientOptions {
  /** Discord's REST base without the version segment, e.g. `https://discord.com/api`. */
  apiUrl: string;
  /** Shards this process runs; by default all of them, in this process. */
  shards?: number | number[] | 'auto';
  shardCount?: number;
}

/**
 * Requests go through global fetch, which encodes uploads (chart PNGs) itself. discord.js's default,
 * undici 6's `request`, hands its FormData to the process-wide dispatcher, which the services' undici
 * 7 installs when it loads first, and that dispatcher cannot encode another version's FormData
 * ("action is not a function").
 */
const makeRequest = fetch as unknown as RESTOptions['makeRequest'];

/** The discord.js client with the few intents the bot needs (it reads no message content). */
export function createDiscordClient(options: DiscordClientOptions): Client {
  const client = new Client({
    intents: [GatewayIntentBits.Guilds],
    partials: [Partials.Channel],
    rest: { api: options.apiUrl, makeRequest },
    ...(options.shards === undefined ? {} : { shards: options.shards }),
    ...(options.shardCount === undefined ? {} : { shardCount: options.shardCount }),
  });
  exemptInteractionWebhooks(client, options.apiUrl);
  return client;
}

/**
 * Discord does not count interaction responses (`editReply`, `followUp`: webhook routes with the
 * interaction token, sent without the bot's authorization) against the global limit of 50
 * requests per second, but @discordjs/rest queues them behind it, so under load every deferred
 * command waits for the others. These requests go through a second REST manager without the
 * global cap; their per-route buckets still apply. Everything sent as the bot (channel messages,
 * command registration) stays on the bot's own manager and its global limit.
 */
function exemptInteractionWebhooks(client: Client, apiUrl: string): void {
  const interactions = new REST({
    api: apiUrl,
    globalRequestsPerSecond: Number.MAX_SAFE_INTEGER,
    makeRequest,
  });
  const bot = client.rest;
  const queue = bot.queueRequest.bind(bot);
  bot.queueRequest = (request) =>
    request.auth === false && request.fullRoute.startsWith('/webhooks/')
      ? interactions.queueRequest(request)
      : queue(request);
}

/** Discord REST without a gateway, as the bot: what the web process uses to edit `/music link` replies. */
export function createDiscordRest(options: { apiUrl: string; token: string }): REST {
  return new REST({ api: options.apiUrl, makeRequest }).setToken(options.token);
}
