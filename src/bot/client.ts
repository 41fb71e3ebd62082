import { STATUS_CODES } from 'node:http';
import {
  Client,
  DefaultRestOptions,
  DiscordAPIError,
  GatewayIntentBits,
  HTTPError,
  Options,
  Partials,
  REST,
  type InternalRequest,
  type RESTOptions,
  type ResponseLike,
} from 'discord.js';
import { DISCORD_API } from '../config.js';
import { InteractionTransport, readRateLimit } from './interaction-transport.js';
import { bindPayloadGetters } from './payload-getters.js';

export interface DiscordClientOptions {
  /** Discord's REST base without the version segment, e.g. `https://discord.com/api`. */
  apiUrl: string;
  /** Shards this process runs; by default all of them, in this process. */
  shards?: number | number[] | 'auto';
  shardCount?: number;
  /** How often DM channels leave the cache; {@link DM_CHANNEL_SWEEP_MS} by default. */
  dmChannelSweepMs?: number;
}

/**
 * Uploads (chart PNGs) go through global fetch, which encodes FormData itself: discord.js's default,
 * undici 6's `request`, hands its FormData to the process-wide dispatcher, which the services' undici
 * 7 installs when it loads first, and that dispatcher cannot encode another version's FormData
 * ("action is not a function"). Everything else keeps discord.js's default, which is lighter per
 * request than fetch.
 */
const defaultRequest = DefaultRestOptions.makeRequest;
const send: RESTOptions['makeRequest'] = (url, init) =>
  init.body instanceof FormData ? fetch(url, init as unknown as RequestInit) : defaultRequest(url, init);
const makeRequest: RESTOptions['makeRequest'] = async (url, init) => {
  const response = await send(url, init);
  return response.status === 429 ? readable429(response) : response;
};

/**
 * A 429 as @discordjs/rest can read it. The library takes the wait from the `Retry-After` header
 * alone (without it, 0) and calls a 429 global when it has an `X-RateLimit-Global` header, whatever
 * that says; Discord documents the wait in the header or the body's `retry_after`. So the answer is
 * handed on with the `Retry-After` and `X-RateLimit-Global` headers that say what
 * {@link readRateLimit} reads from it (none when it gives no wait), and its body unchanged.
 */
async function readable429(response: ResponseLike): Promise<ResponseLike> {
  const bytes = await response.arrayBuffer();
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    body = undefined;
  }
  const headers = new Headers(response.headers);
  const { retryAfterSeconds, global } = readRateLimit((name) => headers.get(name), body);
  if (retryAfterSeconds === undefined) headers.delete('retry-after');
  else headers.set('retry-after', String(retryAfterSeconds));
  if (global) headers.set('x-ratelimit-global', 'true');
  else headers.delete('x-ratelimit-global');
  return new Response(bytes, {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}

/** The longest a request waits out a rate limit Discord asks it to (see {@link rejectOnRateLimit}). */
const MAX_RATE_LIMIT_WAIT_MS = 60_000;

/**
 * Which rate limits fail a request (with discord.js's `RateLimitError`) instead of being waited
 * out. A 429 that says nothing about how long to wait (no `Retry-After` header, no `retry_after` in
 * its body and no `X-RateLimit-Reset-After`, so that the wait reads as 0: a proxy's, or a server
 * other than Discord's) would have it send the request again at once, and again, for ever; one that
 * asks for more than a minute (Cloudflare's block of a host that made too many bad requests asks
 * for an hour) would hold the member's reply or the scheduled post that long. Failed now, a
 * scheduled post is tried again within its grace window, and a member is told. Any other wait,
 * wherever the 429 gives it (see `readable429` and the interaction transport), is waited out.
 */
export const rejectOnRateLimit: NonNullable<RESTOptions['rejectOnRateLimit']> = (limit) =>
  !(limit.retryAfter > 0) || limit.retryAfter > MAX_RATE_LIMIT_WAIT_MS;

/**
 * Every interaction brings its member and user, which discord.js would keep for as long as the
 * process runs: one per member of every server who ever used a command. Handlers read them from the
 * interaction itself; from the caches the bot reads only its own member (permission checks).
 *
 * Messages are not kept either: discord.js caches each reply it edits (`editReply`) and each
 * message a button was pressed on, up to 200 per channel (its default), and never sweeps them, so
 * a busy bot grew by some 5 KB per reply until every channel it answered in held 200. The bot never
 * reads a message from the cache (a button's message comes with its interaction).
 */
const makeCache = Options.cacheWithLimits({
  ...Options.DefaultMakeCacheSettings,
  MessageManager: 0,
  GuildMemberManager: { maxSize: 0, keepOverLimit: (member) => member.id === member.client.user?.id },
  UserManager: { maxSize: 0, keepOverLimit: (user) => user.id === user.client.user?.id },
});

/** How often direct-message channels are dropped from the cache (see {@link sweepDirectMessages}). */
export const DM_CHANNEL_SWEEP_MS = 30 * 60_000;

/**
 * A command used in the bot's DMs adds that DM channel to discord.js's channel cache (the Channel
 * partial, which DMs need), where it stays for as long as the process runs: one per member who ever
 * used the bot in DMs, and discord.js can neither cap nor sweep that cache. Nothing the bot does
 * reads a DM channel from it (replies go by interaction token), so they are dropped every
 * {@link DM_CHANNEL_SWEEP_MS}. Server channels stay: the bot reads them for permission checks.
 */
function sweepDirectMessages(client: Client, everyMs: number): void {
  const timer = setInterval(() => {
    client.channels.cache.sweep((channel) => channel.isDMBased());
  }, everyMs);
  timer.unref();
  const destroy = client.destroy.bind(client);
  client.destroy = async () => {
    clearInterval(timer);
    await destroy();
  };
}

/** The discord.js client with the few intents the bot needs (it reads no message content). */
export function createDiscordClient(options: DiscordClientOptions): Client {
  bindPayloadGetters();
  const client = new Client({
    intents: [GatewayIntentBits.Guilds],
    partials: [Partials.Channel],
    makeCache,
    // Replies quote what members typed and what the services send (place and playlist names):
    // nothing the bot sends pings anyone, whatever text it carries.
    allowedMentions: { parse: [], repliedUser: false },
    rest: { api: options.apiUrl, makeRequest, rejectOnRateLimit },
    ...(options.shards === undefined ? {} : { shards: options.shards }),
    ...(options.shardCount === undefined ? {} : { shardCount: options.shardCount }),
  });
  exemptInteractionWebhooks(client, options.apiUrl);
  sweepDirectMessages(client, options.dmChannelSweepMs ?? DM_CHANNEL_SWEEP_MS);
  return client;
}

const INTERACTION_QUEUE_SWEEP_MS = 60_000;
/** The longest an edit or follow-up waits for the acknowledgements sent before it. */
const ACKS_FIRST_MAX_WAIT_MS = 1_000;
/**
 * Edits and follow-ups wait for the acknowledgements in flight only in a burst: more of them in
 * flight than this, or the oldest unanswered for {@link ACKS_FIRST_BACKLOG_MS}.
 */
const ACKS_FIRST_BURST = 30;
const ACKS_FIRST_BACKLOG_MS = 250;

/**
 * Discord does not count interaction responses (`editReply`, `followUp`: webhook routes with the
 * interaction token, sent without the bot's authorization) against the global limit of 50
 * requests per second, but @discordjs/rest queues them behind it, so under load every deferred
 * command waits for the others. Acknowledgements and these responses go through the bot's own
 * {@link InteractionTransport} (no global cap, no per-token queue; see there for what it leaves to
 * the library), and what it hands back goes through a second REST manager without the global cap,
 * whose per-route buckets still apply. Everything sent as the bot (channel messages, command
 * registration) stays on the bot's own manager and its global limit.
 *
 * Acknowledgements go first: Discord fails an interaction whose first response (the
 * `/interactions/{id}/{token}/callback` route) comes later than 3 s, while edits and follow-ups
 * have the token's 15 minutes. In a burst, a deferred command's edit would otherwise be sent while
 * other interactions still wait for their acknowledgement, and compete with them for the bot's
 * event loop and Discord's answer. So in a burst (more than {@link ACKS_FIRST_BURST}
 * acknowledgements in flight, or the oldest unanswered for {@link ACKS_FIRST_BACKLOG_MS}), an edit
 * or follow-up waits until the acknowledgements already in flight when it is queued are answered
 * (not those that come after it, so it cannot starve), or until the burst is over, for at most
 * {@link ACKS_FIRST_MAX_WAIT_MS}. With a few in flight, answered promptly, it goes at once: held
 * until every acknowledgement was answered, edits left the bot idle while Discord answered the
 * acknowledgements and Discord idle while the bot then sent every edit at once, which raised the
 * completion p99 of 100 deferred commands in flight in side-by-side runs (bench/README.md).
 *
 * @discordjs/rest keeps one queue per webhook token, so one per interaction it answers through
 * `editReply` or `followUp`, and drops idle queues only in an hourly sweep: under steady load that
 * is an hour of interactions. A token is good for 15 minutes and its queue is idle once its last
 * request is answered, so the second manager sweeps idle queues every minute. (The transport keeps
 * a token only while a request on it is in flight, or until its bucket refills when an answer said
 * it was used up.)
 */
function exemptInteractionWebhooks(client: Client, apiUrl: string): void {
  const interactions = new REST({
    api: apiUrl,
    globalRequestsPerSecond: Number.MAX_SAFE_INTEGER,
    handlerSweepInterval: INTERACTION_QUEUE_SWEEP_MS,
    makeRequest,
    rejectOnRateLimit,
  });
  const bot = client.rest;
  const queue = bot.queueRequest.bind(bot);
  const lean = new InteractionTransport(bot.options);
  const destroy = client.destroy.bind(client);
  client.destroy = async () => {
    await destroy();
    await lean.close();
  };
  const webhook = (request: InternalRequest) => lean.send(request, (r) => interactions.queueRequest(r));
  const acks = new AcksFirst(ACKS_FIRST_MAX_WAIT_MS, ACKS_FIRST_BURST, ACKS_FIRST_BACKLOG_MS);
  bot.queueRequest = (request) => {
    if (request.fullRoute.startsWith('/interactions/')) return acks.track(lean.send(request, queue));
    if (request.auth !== false || !request.fullRoute.startsWith('/webhooks/')) return queue(request);
    const turn = acks.turn();
    return turn ? turn.then(() => webhook(request)) : webhook(request);
  };
}

/**
 * Orders interaction responses behind the acknowledgements sent before them in a burst. Each
 * acknowledgement gets the next number; a response that waits notes the last number given out, and
 * goes once every acknowledgement up to it is answered, its wait is over, or the burst is over.
 * Numbers are given out in order, so the oldest unanswered one decides who goes, and the waiting
 * responses form a queue in the order they came: a burst of a hundred deferred commands costs one
 * check per answer, not a hundred.
 */
class AcksFirst {
  #given = 0;
  /**
   * When each acknowledgement not yet answered was sent, by number, oldest first (a Map keeps
   * insertion order).
   */
  readonly #unanswered = new Map<number, number>();
  readonly #waiting: { after: number; until: number; go: () => void }[] = [];
  #next = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly maxWaitMs: number,
    /** More acknowledgements in flight than this make a burst. */
    private readonly burst: number,
    /** So does the oldest in flight unanswered for this long. */
    private readonly backlogMs: number,
  ) {}

  track<T>(acknowledgement: Promise<T>): Promise<T> {
    const number = ++this.#given;
    this.#unanswered.set(number, Date.now());
    const answered = () => {
      this.#unanswered.delete(number);
      this.#release(Date.now());
    };
    acknowledgement.then(answered, answered);
    return acknowledgement;
  }

  /** Undefined when the acknowledgements in flight are no burst; else resolves when the response may go. */
  turn(): Promise<void> | undefined {
    const now = Date.now();
    if (this.#oldest(now) === undefined) return undefined;
    return new Promise((go) => {
      this.#waiting.push({ after: this.#given, until: now + this.maxWaitMs, go });
      this.#timer ??= this.#arm();
    });
  }

  /** The number of the oldest acknowledgement in flight if those in flight make a burst. */
  #oldest(now: number): number | undefined {
    const oldest = this.#unanswered.entries().next().value;
    if (oldest === undefined) return undefined;
    return this.#unanswered.size > this.burst || now - oldest[1] >= this.backlogMs ? oldest[0] : undefined;
  }

  #release(now: number): void {
    const oldest = this.#oldest(now) ?? Infinity;
    while (this.#next < this.#waiting.length) {
      const head = this.#waiting[this.#next]!;
      if (head.after >= oldest && head.until > now) break;
      this.#next++;
      head.go();
    }
    if (this.#next === this.#waiting.length) {
      this.#waiting.length = 0;
      this.#next = 0;
      clearTimeout(this.#timer);
      this.#timer = undefined;
    } else if (this.#next > 1024 && this.#next * 2 > this.#waiting.length) {
      // Under steady load the queue may never run dry: drop what has gone, now and then.
      this.#waiting.splice(0, this.#next);
      this.#next = 0;
    }
  }

  /** One timer, for the response at the head of the queue (later ones wait no less). */
  #arm(): NodeJS.Timeout {
    const head = this.#waiting[this.#next]!;
    return setTimeout(
      () => {
        this.#timer = undefined;
        this.#release(Date.now());
        if (this.#next < this.#waiting.length) this.#timer = this.#arm();
      },
      Math.max(head.until - Date.now(), 0),
    ).unref();
  }
}

/** Discord REST without a gateway, as the bot: what the web process uses to edit `/music link` replies. */
export function createDiscordRest(options: { apiUrl: string; token: string }): REST {
  return new REST({ api: options.apiUrl, makeRequest, rejectOnRateLimit }).setToken(options.token);
}

/** Network errors that mean Discord was never reached. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * `cannot reach Discord at …` when `error` says Discord was never reached (a network error), with
 * what to check; undefined for any other error.
 */
export function unreachableDiscord(error: unknown, api: string): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !UNREACHABLE.has(code)) return undefined;
  const origin = URL.canParse(api) ? new URL(api).origin : api;
  return (
    `cannot reach Discord at ${origin} (${(error as Error).message}): check the network, and ` +
    'DISCORD_API_URL if it is set'
  );
}

/**
 * `Discord at … answered 404 Not Found to …` when DISCORD_API_URL is set to something other than
 * Discord's own API and an HTTP error came back that is not Discord's word on the request itself:
 * an error without a Discord error code (a 5xx, a page that is no JSON, Discord's `404: Not Found`
 * for a path it has no route for) means the URL does not lead to Discord's API. A 401 is left to
 * the message naming the token. Undefined for any other error.
 */
export function notDiscordsApi(error: unknown, api: string, what: string): string | undefined {
  if (api === DISCORD_API || !(error instanceof DiscordAPIError || error instanceof HTTPError))
    return undefined;
  if (error.status === 401) return undefined;
  if (error instanceof DiscordAPIError && typeof error.code === 'number' && error.code !== 0)
    return undefined;
  // Without a user and password, should the URL hold them.
  const base = URL.canParse(api) ? new URL(api) : undefined;
  const where = base ? `${base.origin}${base.pathname}`.replace(/\/$/, '') : api;
  const path = URL.canParse(error.url) ? new URL(error.url).pathname : '';
  const status = `${error.status}${STATUS_CODES[error.status] ? ` ${STATUS_CODES[error.status]}` : ''}`;
  // A 5xx may be Discord's own trouble passed on by a proxy the owner put there on purpose.
  const failing = error.status >= 500 ? 'Discord (or a proxy before it) may be failing; if not, ' : '';
  return (
    `Discord at ${where} answered ${status} to ${what} (${error.method.toUpperCase()} ${path}): ${failing}` +
    `DISCORD_API_URL must be Discord's REST base, ending in /api (${DISCORD_API}), or be left unset`
  );
}
