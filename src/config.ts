/**
 * The bot's configuration: one zod schema for the whole environment, grouped by service.
 * This module is the only reader of `process.env`.
 */
import { z } from 'zod';

/** An empty string counts as missing: `FOO=` in a `.env` file means "not set". */
const blankToUndefined = (value: unknown): unknown =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;

const optionalString = z.preprocess(blankToUndefined, z.string().optional());

/** A value wrapped whole in one kind of quotes. */
const QUOTED = /^(["']).*\1$/s;

/**
 * Quotes around a value, as Docker's `--env-file` and some service managers keep them (Node's
 * `--env-file` takes them off): said for any key, by name and never with the value, rather than as
 * whatever the quoted text fails (`must be a whole number`), or for a secret or id, by the service
 * later, in a member's command.
 */
const IN_QUOTES = 'is in quotes: remove the quotes around the value (Docker’s --env-file keeps them)';

const requiredString = (what: string) =>
  z.preprocess(blankToUndefined, z.string({ error: `is required (${what})` }));

/** The weather hosts' product paths (`/data/2.5`, `/geo/1.0`), which the bot adds itself. */
const WEATHER_VERSIONED = {
  path: /\/(data|geo)\/\d+(\.\d+)?$/,
  example: 'https://api.openweathermap.org, not https://api.openweathermap.org/data/2.5',
};

/**
 * A service's http(s) base URL, stored without a trailing slash so paths can be appended. `versioned` matches the path the bot adds itself (an API version): a URL
 * that ends with it would have it twice (`/api/v10/v10/…`), which fails later as a bare 404.
 */
const baseUrl = (
  fallback: string,
  versioned?: { path: RegExp; example: string },
  { carriesSecrets = true }: { carriesSecrets?: boolean } = {},
) =>
  z.preprocess(
    blankToUndefined,
    z
      .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
      .default(fallback)
      .transform((url) => url.replace(/\/+$/, ''))
      .refine((url) => versioned === undefined || !versioned.path.test(new URL(url).pathname), {
        error: `must leave out the API version, which the bot adds (for example ${versioned?.example ?? fallback})`,
      })
      // The bot's token, the music app's secret, members' tokens and the weather key go there:
      // never in the clear across a network. Plain http stays for the emulators on this machine.
      .refine((url) => !carriesSecrets || !plainHttpElsewhere(url), {
        error:
          'must be https://, or http:// only on this machine (127.0.0.1, [::1] or localhost): the bot sends its secrets there',
      }),
  );

const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', '[::1]', 'localhost']);
const plainHttpElsewhere = (url: string) => {
  const { protocol, hostname } = new URL(url);
  return protocol === 'http:' && !LOOPBACK_HOSTS.has(hostname);
};

const optionalUrl = (protocol: RegExp, what: string) =>
  z.preprocess(blankToUndefined, z.url({ protocol, error: `must be ${what}` }).optional());

/**
 * What is wrong with REDIS_URL as the Redis client reads it, never with the URL, which may hold a
 * password: the client's own errors (`Invalid URL`, `Invalid pathname`, `URI malformed`) name
 * neither the setting nor what to write.
 */
function redisUrlProblems(text: string, context: z.RefinementCtx): void {
  const problem = (message: string) => context.addIssue({ code: 'custom', message });
  const url = URL.canParse(text) ? new URL(text) : undefined;
  if (url === undefined || !['redis:', 'rediss:'].includes(url.protocol) || url.hostname === '') {
    // `#`, `/` and `?` end the part of a URL the password is in: the rest no longer parses.
    problem(
      /^rediss?:\/\/.*@/s.test(text)
        ? 'must be a redis:// or rediss:// URL: if its password has #, / or ? in it, write them percent-encoded (# as %23, / as %2F, ? as %3F)'
        : 'must be a redis:// or rediss:// URL',
    );
    return;
  }
  // `redis://user:12/ab@host`: a `/` in the password ends the host part there, and the rest (with
  // its `@`) reads as a path.
  if (url.pathname.includes('@') || url.search.includes('@') || url.hash.includes('@'))
    problem(
      'must be a redis:// or rediss:// URL: if its password has #, / or ? in it, write them percent-encoded (# as %23, / as %2F, ? as %3F)',
    );
  else if (!/^(\/\d*)?$/.test(url.pathname))
    problem(
      'must end with a database number after the host and port, 0 to 15 (redis://HOST:PORT/0), or with nothing (database 0)',
    );
  try {
    decodeURIComponent(url.username);
    decodeURIComponent(url.password);
  } catch {
    problem('has a % in its user or password that starts no percent-encoded character: write % as %25');
  }
}

/** One of a few words; the message lists them, never the value that was given. */
const oneOf = <const T extends readonly [string, ...string[]]>(values: T, fallback: T[number]) =>
  z.preprocess(
    blankToUndefined,
    z.enum(values, { error: `must be one of: ${values.join(', ')}` }).default(fallback),
  );

const integer = (fallback: number, min: number, max: number) =>
  z.preprocess(
    blankToUndefined,
    z.coerce
      .number({ error: 'must be a whole number' })
      .int({ error: 'must be a whole number' })
      .min(min, { error: `must be at least ${min}` })
      .max(max, { error: `must be at most ${max}` })
      .default(fallback),
  );

/** A Discord id (a snowflake: 17 digits for the first ids, 20 at most), and where to copy it from. */
const snowflake = (source: string) =>
  z.string().regex(/^\d{17,20}$/, { error: `must be a Discord id: 17 to 20 digits (${source})` });

/** Discord's own REST base: DISCORD_API_URL when it is not set. */
export const DISCORD_API = 'https://discord.com/api';

const envSchema = z.object({
  // Discord
  // Only its shape is checked here (Discord says whether it is right at login). The value is never
  // put in a message. A pasted "Bot " in front is taken off, as discord.js's login does.
  DISCORD_TOKEN: requiredString('the bot token from the Discord developer portal').pipe(
    z
      .string()
      .trim()
      .transform((token) => token.replace(/^bot\s+/i, ''))
      // Tokens are base64url and dots. A character outside that (most often an invisible one, such
      // as a zero-width space copied with it from a web page) would be refused by Discord as a
      // malformed header, which names neither the setting nor the fix.
      .superRefine((token, context) => {
        if (/[ \t\r\n"']/.test(token))
          context.addIssue({
            code: 'custom',
            message: 'must not contain spaces or quotes: copy the token again from the developer portal',
          });
        else if (!/^[\w.-]+$/.test(token))
          context.addIssue({
            code: 'custom',
            message:
              'contains a character no token has (an invisible one, perhaps copied with it): copy it again from the Developer Portal (Bot → Reset Token)',
          });
      }),
  ),
  DISCORD_APPLICATION_ID: z.preprocess(
    blankToUndefined,
    z
      .string({ error: 'is required (the application id from the Discord developer portal)' })
      .pipe(snowflake('Developer Portal → General Information → Application ID')),
  ),
  DISCORD_GUILD_ID: z.preprocess(
    blankToUndefined,
    snowflake('in Discord, right-click the server → Copy Server ID, with Developer Mode on').optional(),
  ),
  DISCORD_API_URL: baseUrl(DISCORD_API, {
    path: /\/v\d+$/,
    example: 'https://discord.com/api, not https://discord.com/api/v10',
  }),

  // Music service. Defaults are the real service's hosts; point them at the emulator to run offline.
  MUSIC_CLIENT_ID: optionalString,
  MUSIC_CLIENT_SECRET: optionalString,
  MUSIC_API_URL: baseUrl('https://api.spotify.com', {
    path: /\/v1$/,
    example: 'https://api.spotify.com, not https://api.spotify.com/v1',
  }),
  MUSIC_AUTH_URL: baseUrl('https://accounts.spotify.com'),
  /**
   * `classic` uses the spec's paths; `2026` the newer ones (`/items`, `/me/library`) of
   * upstream-facts.md. Unset: see `musicDefaultsFor`.
   */
  MUSIC_API_VARIANT: z.preprocess(
    blankToUndefined,
    z.enum(['classic', '2026'], { error: 'must be one of: classic, 2026' }).optional(),
  ),
  /** The scheme of the service's resource URIs; unset: see `musicDefaultsFor`. */
  MUSIC_URI_SCHEME: z.preprocess(
    blankToUndefined,
    z
      .string()
      .regex(/^[a-z][a-z0-9]{0,31}$/, { error: 'must be a lowercase word, such as spotify' })
      .optional(),
  ),

  // Weather service
  WEATHER_API_KEY: optionalString,
  WEATHER_API_URL: baseUrl('https://api.openweathermap.org', WEATHER_VERSIONED),
  WEATHER_PRO_URL: baseUrl('https://pro.openweathermap.org', WEATHER_VERSIONED),
  WEATHER_HISTORY_URL: baseUrl('https://history.openweathermap.org', WEATHER_VERSIONED),
  WEATHER_BULK_URL: baseUrl('https://bulk.openweathermap.org'),
  // Only icon addresses are made from it, shown in Discord: no secret goes there.
  WEATHER_SITE_URL: baseUrl('https://openweathermap.org', undefined, { carriesSecrets: false }),

  // Callback server (account linking)
  HTTP_HOST: z.preprocess(blankToUndefined, z.string().default('127.0.0.1')),
  HTTP_PORT: integer(8787, 0, 65_535),
  /** Where members' browsers reach the callback server; the music redirect URI is `${PUBLIC_URL}/callback`. */
  PUBLIC_URL: optionalUrl(/^https?$/, 'an http:// or https:// URL'),

  // Storage
  DATA_DIR: z.preprocess(blankToUndefined, z.string().default('./data')),
  REDIS_URL: z.preprocess(blankToUndefined, z.string().superRefine(redisUrlProblems).optional()),
  /** Prefix of every key in Redis, so several bots can share one server. */
  REDIS_PREFIX: z.preprocess(
    blankToUndefined,
    z
      .string()
      .regex(/^[A-Za-z0-9_.:-]{1,64}$/, { error: 'must be letters, digits and _ . : - (at most 64)' })
      .default('bot'),
  ),
  /** 32 bytes, base64 or hex: encrypts music tokens at rest. Without it, account linking is off. */
  TOKEN_ENCRYPTION_KEY: optionalString,
  /** Previous keys, comma-separated, still accepted for reading while links are re-encrypted. */
  TOKEN_ENCRYPTION_KEYS_OLD: optionalString,

  // Schedules
  SCHEDULES_PER_GUILD: integer(25, 1, 1_000),
  /**
   * At least 1: the grace window is also how late an on-time post may start (the runner wakes a few
   * milliseconds after the minute), so 0 would make every post "missed".
   */
  SCHEDULE_GRACE_MINUTES: integer(30, 1, 24 * 60),
  /** `local`: one runner per process over shared storage; `queue`: BullMQ job schedulers (needs REDIS_URL). */
  SCHEDULER: oneOf(['local', 'queue'], 'local'),

  // Scaling out
  /** Shards of the whole bot, over every process and host. */
  SHARD_COUNT: integer(1, 1, 16_384),
  /** Shards this process runs, as `0,1` or `2-3`; all of them by default. */
  SHARD_IDS: optionalString,
  /** The shard id discord.js's ShardingManager gives each process it forks (`src/shards.ts`). */
  SHARDS: optionalString,
  /** `off`: this process does not serve the callback server (a separate `npm run start:web` does). */
  WEB: oneOf(['on', 'off'], 'on'),

  // Logging
  LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
});

type Env = z.output<typeof envSchema>;

export interface MusicConfig {
  clientId: string;
  clientSecret: string;
  apiUrl: string;
  authUrl: string;
  variant: 'classic' | '2026';
  /** The first word of the service's resource URIs (`<scheme>:track:<id>`). */
  uriScheme: string;
  redirectUri: string;
  /** Undefined without TOKEN_ENCRYPTION_KEY: catalog commands work, account linking is off. */
  encryption: { current: Buffer; previous: Buffer[] } | undefined;
}

export interface WeatherConfig {
  apiKey: string;
  apiUrl: string;
  proUrl: string;
  historyUrl: string;
  bulkUrl: string;
  siteUrl: string;
}

export interface Config {
  discord: { token: string; applicationId: string; guildId: string | undefined; apiUrl: string };
  /** `undefined` when the music service is not configured: its commands answer that it is switched off. */
  music: MusicConfig | undefined;
  /** `undefined` when the weather service is not configured. */
  weather: WeatherConfig | undefined;
  /** `publicUrlGiven`: PUBLIC_URL was set (else `publicUrl` is the default, this machine's loopback). */
  http: { host: string; port: number; publicUrl: string; publicUrlGiven?: boolean };
  storage: { dataDir: string; redisUrl: string | undefined; redisPrefix: string };
  schedules: { perGuildLimit: number; graceMinutes: number; scheduler: 'local' | 'queue' };
  /** The shards this process runs (`ids`) out of `count`. */
  shards: { count: number; ids: number[] };
  /** Whether the bot process serves the callback server itself. */
  web: boolean;
  log: { level: Env['LOG_LEVEL'] };
}

/** Thrown when the environment is incomplete or malformed; lists every problem at once. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: readonly string[]) {
    super(
      `Invalid configuration (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n` +
        problems.map((p) => `  - ${p}`).join('\n'),
    );
  }
}

function decodeKey(raw: string): Buffer | undefined {
  const candidates = [
    /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : undefined,
    // Node's decoder skips characters that are not base64, so a key with typos in it would decode
    // to some other 32 bytes: only a well-formed one (standard or URL-safe alphabet) is read.
    /^[A-Za-z0-9+/]{43}=?$|^[A-Za-z0-9_-]{43}=?$/.test(raw) ? Buffer.from(raw, 'base64') : undefined,
  ];
  return candidates.find((key) => key?.length === 32);
}

/**
 * What MUSIC_URI_SCHEME and MUSIC_API_VARIANT are when unset, for the service at `apiUrl`:
 * - The real service at the default MUSIC_API_URL writes its own name in URIs, and answers 400 to a
 *   URI with another scheme; the spec writes `service` (`service:album:<id>`), and so does the
 *   emulator.
 * - Every app made on the real service since February 2026 starts in development mode, where the
 *   spec's playlist-item and library paths answer 403 (upstream-facts.md, "2026 changes"): a server
 *   owner's new app needs `2026`. Apps with extended quota may set `classic` (it keeps artist top
 *   tracks). The emulator serves the spec, so `classic` for any other host.
 */
export function musicDefaultsFor(apiUrl: string): { uriScheme: string; variant: 'classic' | '2026' } {
  return new URL(apiUrl).hostname === 'api.spotify.com'
    ? { uriScheme: 'spotify', variant: '2026' }
    : { uriScheme: 'service', variant: 'classic' };
}

/**
 * Why the music service would refuse `${PUBLIC_URL}/callback` as a redirect URI (upstream-facts.md):
 * it takes HTTPS, or plain http only on a loopback IP literal, and never `localhost`.
 */
function redirectProblem(url: URL): string | undefined {
  if (url.hostname === 'localhost') {
    return 'must not use localhost, which the music service refuses in a redirect URI: use http://127.0.0.1:PORT';
  }
  if (url.protocol === 'https:' || ['127.0.0.1', '[::1]'].includes(url.hostname)) return undefined;
  return 'must be https://, or http:// on 127.0.0.1 or [::1]: the music service refuses any other redirect URI';
}

/** Whether `host` (a host name, or an address with or without brackets) is this machine's loopback. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  return bare === 'localhost' || bare === '::1' || /^127\.\d+\.\d+\.\d+$/.test(bare);
}

/** `0,1`, `2-3` or a mix, each below `count`, without repeats; undefined when malformed. */
export function parseShardIds(text: string, count: number): number[] | undefined {
  const ids: number[] = [];
  for (const part of text.split(',').map((p) => p.trim())) {
    const match = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!match) return undefined;
    const from = Number(match[1]);
    const to = match[2] === undefined ? from : Number(match[2]);
    if (to < from || to >= count) return undefined;
    for (let id = from; id <= to; id++) ids.push(id);
  }
  return ids.length > 0 && new Set(ids).size === ids.length ? ids : undefined;
}

/**
 * Reads and validates the environment. Every missing or malformed key is reported in one
 * {@link ConfigError}; values are never echoed, since some of them are secrets.
 */
export function loadConfig(environment: Record<string, string | undefined> = process.env): Config {
  // Spaces around a value are never part of it (a `.env` line with a trailing blank).
  const env = Object.fromEntries(Object.entries(environment).map(([key, value]) => [key, value?.trim()]));
  const quoted = new Set(Object.keys(envSchema.shape).filter((key) => QUOTED.test(env[key] ?? '')));
  const parsed = envSchema.safeParse(env);
  const problems: string[] = [];
  // A quoted key is said once, as quoted, in the place of whatever its quotes made it fail.
  const issues = parsed.error?.issues ?? [];
  problems.push(
    ...issues.filter((issue) => issue.path.length === 0).map((issue) => `(environment) ${issue.message}`),
  );
  for (const key of Object.keys(envSchema.shape)) {
    if (quoted.has(key)) problems.push(`${key} ${IN_QUOTES}`);
    else
      for (const issue of issues.filter((issue) => issue.path[0] === key))
        problems.push(`${issue.path.join('.')} ${issue.message}`);
  }
  const raw = parsed.data;
  const present = (key: string) => blankToUndefined(env[key]) !== undefined;

  // A half-configured service is a mistake worth failing on; an absent one is simply off.
  const musicKeys = ['MUSIC_CLIENT_ID', 'MUSIC_CLIENT_SECRET'] as const;
  const musicWanted = present('MUSIC_CLIENT_ID') || present('MUSIC_CLIENT_SECRET');
  if (musicWanted) {
    for (const key of musicKeys) {
      if (!present(key)) problems.push(`${key} is required when the music service is configured`);
    }
  }
  let encryptionKey: Buffer | undefined;
  const rawKey = blankToUndefined(env['TOKEN_ENCRYPTION_KEY']);
  if (typeof rawKey === 'string' && !quoted.has('TOKEN_ENCRYPTION_KEY')) {
    encryptionKey = decodeKey(rawKey);
    if (!encryptionKey) {
      problems.push(
        'TOKEN_ENCRYPTION_KEY must be 32 bytes, as 64 hex digits or base64 (openssl rand -base64 32)',
      );
    }
  }
  const previousKeys: Buffer[] = [];
  const rawOld = blankToUndefined(env['TOKEN_ENCRYPTION_KEYS_OLD']);
  if (typeof rawOld === 'string') {
    for (const [index, part] of rawOld.split(',').entries()) {
      const key = decodeKey(part.trim());
      if (key) previousKeys.push(key);
      else
        problems.push(
          `TOKEN_ENCRYPTION_KEYS_OLD entry ${index + 1} must be 32 bytes, as 64 hex digits or base64`,
        );
    }
  }

  // The checks across keys read each key on its own, so that they are reported together with
  // every other problem rather than after it is fixed.
  const field = <K extends keyof typeof envSchema.shape>(key: K) =>
    (quoted.has(key) ? undefined : envSchema.shape[key].safeParse(env[key]).data) as
      z.output<(typeof envSchema.shape)[K]> | undefined;

  if (field('SCHEDULER') === 'queue' && !present('REDIS_URL')) {
    problems.push('SCHEDULER=queue requires REDIS_URL (the job schedulers live in Redis)');
  }
  let shardIds: number[] | undefined;
  // SHARDS is what discord.js's ShardingManager sets in each process it forks; it wins.
  const shardKey = present('SHARDS') ? 'SHARDS' : 'SHARD_IDS';
  const shardText = blankToUndefined(env[shardKey]);
  const shardCount = field('SHARD_COUNT');
  if (typeof shardText === 'string' && shardCount !== undefined) {
    shardIds = parseShardIds(shardText, shardCount);
    if (!shardIds) {
      problems.push(
        `${shardKey} must be shard numbers below SHARD_COUNT (${shardCount}), as a list or range: 0,1 or 2-3`,
      );
    }
  }
  const publicUrlSetting = field('PUBLIC_URL');
  if (publicUrlSetting !== undefined) {
    const url = new URL(publicUrlSetting);
    // `/callback` and the link pages are appended to it: `https://x/?a=1/callback` is no address.
    if (url.search !== '' || url.hash !== '')
      problems.push(
        'PUBLIC_URL must not have a query (?…) or fragment (#…): only scheme, host, port and path',
      );
    // The bot appends `/callback` itself: the redirect URI would be `…/callback/callback`.
    if (/\/callback\/*$/.test(url.pathname))
      problems.push('PUBLIC_URL must be the bot’s base address, without /callback (the bot adds it)');
    const problem = musicWanted ? redirectProblem(url) : undefined;
    if (problem) problems.push(`PUBLIC_URL ${problem}`);
  } else if (
    musicWanted &&
    present('TOKEN_ENCRYPTION_KEY') &&
    !present('PUBLIC_URL') &&
    field('HTTP_PORT') === 0 &&
    field('WEB') !== 'off'
  ) {
    // Port 0 is any free port, which no redirect URI registered beforehand can name (linking on).
    problems.push(
      'PUBLIC_URL is required with HTTP_PORT=0: the redirect URI registered with the music service must name the port members reach',
    );
  }

  if (problems.length > 0 || !raw) throw new ConfigError(problems);

  const publicUrl = (raw.PUBLIC_URL ?? `http://127.0.0.1:${raw.HTTP_PORT}`).replace(/\/+$/, '');
  const musicDefaults = musicDefaultsFor(raw.MUSIC_API_URL);
  return {
    discord: {
      token: raw.DISCORD_TOKEN,
      applicationId: raw.DISCORD_APPLICATION_ID,
      guildId: raw.DISCORD_GUILD_ID,
      apiUrl: raw.DISCORD_API_URL,
    },
    music:
      musicWanted && raw.MUSIC_CLIENT_ID && raw.MUSIC_CLIENT_SECRET
        ? {
            clientId: raw.MUSIC_CLIENT_ID,
            clientSecret: raw.MUSIC_CLIENT_SECRET,
            apiUrl: raw.MUSIC_API_URL,
            authUrl: raw.MUSIC_AUTH_URL,
            variant: raw.MUSIC_API_VARIANT ?? musicDefaults.variant,
            uriScheme: raw.MUSIC_URI_SCHEME ?? musicDefaults.uriScheme,
            redirectUri: `${publicUrl}/callback`,
            encryption: encryptionKey ? { current: encryptionKey, previous: previousKeys } : undefined,
          }
        : undefined,
    weather: raw.WEATHER_API_KEY
      ? {
          apiKey: raw.WEATHER_API_KEY,
          apiUrl: raw.WEATHER_API_URL,
          proUrl: raw.WEATHER_PRO_URL,
          historyUrl: raw.WEATHER_HISTORY_URL,
          bulkUrl: raw.WEATHER_BULK_URL,
          siteUrl: raw.WEATHER_SITE_URL,
        }
      : undefined,
    http: {
      host: raw.HTTP_HOST,
      port: raw.HTTP_PORT,
      publicUrl,
      publicUrlGiven: raw.PUBLIC_URL !== undefined,
    },
    storage: { dataDir: raw.DATA_DIR, redisUrl: raw.REDIS_URL, redisPrefix: raw.REDIS_PREFIX },
    schedules: {
      perGuildLimit: raw.SCHEDULES_PER_GUILD,
      graceMinutes: raw.SCHEDULE_GRACE_MINUTES,
      scheduler: raw.SCHEDULER,
    },
    shards: {
      count: raw.SHARD_COUNT,
      ids: shardIds ?? Array.from({ length: raw.SHARD_COUNT }, (_, id) => id),
    },
    web: raw.WEB === 'on',
    log: { level: raw.LOG_LEVEL },
  };
}
