/**
 * The wiring both entry points share: config → logger → storage → metrics → music client and
 * account linking → weather client → callback server. `src/index.ts` (the bot) adds the gateway and
 * the scheduler on top; `src/web.ts` (the web process) runs only the callback server. Nothing here
 * connects to Discord's gateway: the link notifier gets a REST handle.
 */
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import type { REST } from 'discord.js';
import { collectDefaultMetrics, Counter, Registry } from 'prom-client';
import { createLinking, disabledLinking, LinkingOffError } from './auth/linking.js';
import { MusicOAuth } from './auth/oauth.js';
import { Keyring, seal, sealedKeyId } from './auth/seal.js';
import { startCallbackServer, type CallbackServer, type LinkingParts } from './auth/server.js';
import { LinkStates } from './auth/states.js';
import { createTokenSource } from './auth/tokens.js';
import { TokenVault } from './auth/vault.js';
import type { MusicServices } from './bot/context.js';
import { createLinkNotifier } from './bot/notify.js';
import { ConfigError, isLoopbackHost, loadConfig, type Config } from './config.js';
import { createLogger, ownerNotice, type Logger } from './logger.js';
import { redactText } from './services/http/redact.js';
import type { ExchangeInfo } from './services/http/transport.js';
import { createMusicClient, createStorageRateGate } from './services/music/index.js';
import { createWeatherClient, type WeatherClient } from './services/weather/index.js';
import { createStorage, type Storage } from './storage/index.js';

export interface Core {
  logger: Logger;
  storage: Storage;
  registry: Registry;
  features: { music: boolean; weather: boolean };
  /** Present when the music service is configured. */
  music: MusicServices | undefined;
  /** What the callback server needs to complete links; undefined when linking is off. */
  linkingParts: LinkingParts | undefined;
  /** Present when the weather service is configured. */
  weather: WeatherClient | undefined;
  /** Closes the service clients, then storage. */
  close(): Promise<void>;
}

export interface CoreOptions {
  logger?: Logger | undefined;
  /** Discord REST as the bot, for editing a member's `/music link` reply once the link is made. */
  discordRest: REST;
  /** The clock for token expiry and link states; the demo's time control moves it. */
  now?: (() => number) | undefined;
}

/**
 * Every secret in the configuration, as it may appear in text: what the logger strips wherever it
 * finds it. The encryption keys in both of their written forms; the Redis password as written in
 * the URL and decoded.
 */
export function secretsOf(config: Config): string[] {
  const keys = config.music?.encryption
    ? [config.music.encryption.current, ...config.music.encryption.previous]
    : [];
  const redisPassword = config.storage.redisUrl ? new URL(config.storage.redisUrl).password : '';
  return [
    config.discord.token,
    config.music?.clientSecret,
    config.weather?.apiKey,
    // Every form the configuration reads a key in (see `decodeKey`).
    ...keys.flatMap((key) => {
      const base64 = key.toString('base64');
      return [base64, base64.replace(/=+$/, ''), key.toString('base64url'), key.toString('hex')];
    }),
    redisPassword,
    redisPassword && decodeURIComponent(redisPassword),
  ].filter((secret): secret is string => typeof secret === 'string' && secret !== '');
}

/** The longest `Core.close` waits for the service clients before closing storage. */
const CLOSE_CLIENTS_MS = 1_000;

/** Sealed for this owner, which no Discord user id can be: the key check is never taken for a link. */
const KEY_CHECK_OWNER = 'keyring-check';
/** With no key check stored yet, this many links (read for at most this long) are looked at instead. */
const KEY_CHECK_SAMPLE = { links: 100, ms: 2_000 } as const;

/**
 * Fails start-up when the music links in storage were encrypted with a key this process does not
 * have (a mistyped or regenerated TOKEN_ENCRYPTION_KEY): otherwise the bot would start and every
 * linked member's command fail, one at a time. A value sealed with the current key (the key check)
 * records that the links were readable with a key of this keyring, so a normal start reads one
 * value; when it is missing or names another key, a sample of the links decides, and start-up fails
 * only when there are links and none of them can be read. Only key fingerprints (`Keyring.idOf`,
 * not secret) are compared and named.
 */
async function checkEncryptionKey(storage: Storage, keyring: Keyring, config: Config): Promise<void> {
  const checks = storage.ns<string>('keyring');
  const checkKeyId = sealedKeyId((await checks.get('check')) ?? '');
  if (checkKeyId === keyring.currentId) return;
  if (checkKeyId === undefined || !keyring.get(checkKeyId)) {
    const unknownKeys = new Set<string>();
    let readable = 0;
    let seen = 0;
    const until = Date.now() + KEY_CHECK_SAMPLE.ms;
    for await (const [, value] of storage.ns<string>('links').iterator?.(undefined) ?? []) {
      const keyId = typeof value === 'string' ? sealedKeyId(value) : undefined;
      if (keyId !== undefined && keyring.get(keyId)) readable++;
      else unknownKeys.add(keyId ?? '?');
      if (++seen >= KEY_CHECK_SAMPLE.links || Date.now() > until) break;
    }
    if (unknownKeys.size > 0 && readable === 0)
      throw new Error(keyMismatch([...unknownKeys], keyring, config));
  }
  // From now on, links are written with the current key (after a rotation too).
  await checks.set('check', seal(keyring, KEY_CHECK_OWNER, { keyId: keyring.currentId }));
}

/**
 * After a key rotation (TOKEN_ENCRYPTION_KEYS_OLD set), seals every link still sealed with an old
 * key again with TOKEN_ENCRYPTION_KEY, beside the bot's start, and tells the owner when the old keys
 * are no longer needed. Without it, a link is sealed again only when next refreshed, and dropping an
 * old key broke the links of every member who had not used the bot since; the start-up key check
 * cannot see that, once it has been written with the new key.
 */
async function resealLinks(vault: TokenVault, logger: Logger, signal: AbortSignal): Promise<void> {
  try {
    const { resealed, failed } = await vault.reseal(signal);
    if (signal.aborted) return;
    if (resealed > 0) logger.info({ resealed }, 'music links sealed again with TOKEN_ENCRYPTION_KEY');
    // Looked at again, twice and a second apart when clean: a link written meanwhile by a process
    // still on the old key, or passed over by a scan that rows deleted under it shifted (SQLite
    // pages with an offset), counts too.
    let { stale, unreadable } = await vault.sealedWithOldKeys(signal);
    if (stale.length === 0 && failed === 0) {
      await delay(1_000, undefined, { signal, ref: false }).catch(() => undefined);
      if (signal.aborted) return;
      ({ stale, unreadable } = await vault.sealedWithOldKeys(signal));
    }
    if (signal.aborted) return;
    if (unreadable > 0) logger.warn({ unreadable }, UNREADABLE_LINKS_LOG);
    if (failed > 0 || stale.length > 0)
      logger.warn(
        { left: stale.length },
        'music links are still sealed with a key of TOKEN_ENCRYPTION_KEYS_OLD: keep it, the next start tries again',
      );
    else
      logger.info(
        'no music link needs TOKEN_ENCRYPTION_KEYS_OLD any more: it can be removed once every process of the bot runs with this configuration',
      );
  } catch (error) {
    logger.warn({ err: error }, 'could not look for music links sealed with an old key');
  }
}

const UNREADABLE_LINKS_LOG =
  'music links are sealed with a key in neither TOKEN_ENCRYPTION_KEY nor TOKEN_ENCRYPTION_KEYS_OLD: put the key they were sealed with in TOKEN_ENCRYPTION_KEYS_OLD, or those members must link again';

/**
 * Without TOKEN_ENCRYPTION_KEYS_OLD, a link still sealed with a key the bot no longer has (an old key
 * dropped before every link was sealed again) cannot be read: its member hears of it only at their
 * next command, and the start-up key check, satisfied by the other links, says nothing. Looked for
 * beside the start, so the owner hears of it while the old key may still be at hand.
 */
async function reportUnreadableLinks(vault: TokenVault, logger: Logger, signal: AbortSignal): Promise<void> {
  try {
    const { unreadable } = await vault.sealedWithOldKeys(signal);
    if (!signal.aborted && unreadable > 0) logger.warn({ unreadable }, UNREADABLE_LINKS_LOG);
  } catch (error) {
    logger.warn({ err: error }, 'could not look for music links sealed with another key');
  }
}

function keyMismatch(found: string[], keyring: Keyring, config: Config): string {
  const where = config.storage.redisUrl
    ? `the Redis keys ${config.storage.redisPrefix}:links:* and ${config.storage.redisPrefix}:keyring:check`
    : `the rows of ${path.resolve(config.storage.dataDir, 'bot.sqlite')} whose key starts with links: or is keyring:check`;
  return (
    `the stored music links were encrypted with key ${found.join(', ')}, but TOKEN_ENCRYPTION_KEY is ` +
    `key ${keyring.currentId} and TOKEN_ENCRYPTION_KEYS_OLD holds no other match (key fingerprints shown). ` +
    `Set the key they were written with, as TOKEN_ENCRYPTION_KEY or in TOKEN_ENCRYPTION_KEYS_OLD; ` +
    `if it is lost, the links cannot be read: delete ${where}, and members link their accounts again`
  );
}

export async function createCore(config: Config, options: CoreOptions): Promise<Core> {
  const logger =
    options.logger ?? createLogger({ level: config.log.level, secrets: () => secretsOf(config) });
  const storage = await createStorage({
    dataDir: config.storage.dataDir,
    redisUrl: config.storage.redisUrl,
    redisPrefix: config.storage.redisPrefix,
    // While Redis is away, its client fails every reconnect (every 2 s) and every read: one line a
    // minute per namespace says so at error, rather than several a second; the rest at debug.
    onError: (error, namespace) => {
      logger[ownerNotice(logger, `storage:${namespace}`) ? 'error' : 'debug'](
        { err: error, namespace },
        'storage error (repeats within a minute are logged at debug)',
      );
    },
    onRecovered: (where, { restarted, emptied }) => {
      if (emptied) {
        logger.error(
          { redis: where, restarted },
          'storage reconnected, but Redis came back empty: the music links, schedules and settings stored there are gone (keep its data on disk: appendonly yes)',
        );
      } else logger.info({ redis: where, restarted }, 'storage reconnected: Redis answers again');
    },
    onWarning: (message) => logger.warn(message),
  });

  const features = { music: config.music !== undefined, weather: config.weather !== undefined };
  if (!features.music) {
    logger.info(
      'music commands are off: set MUSIC_CLIENT_ID and MUSIC_CLIENT_SECRET to turn them on (account linking also needs TOKEN_ENCRYPTION_KEY)',
    );
  }
  if (!features.weather) logger.info('weather commands are off: set WEATHER_API_KEY to turn them on');

  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const upstreamCalls = new Counter({
    name: 'bot_upstream_requests_total',
    help: 'HTTP exchanges with the music and weather services, by service and status',
    labelNames: ['service', 'status'] as const,
    registers: [registry],
  });
  const onExchange = (info: ExchangeInfo) => {
    upstreamCalls.inc({ service: info.service, status: String(info.status ?? 'error') });
    logger.debug(info, 'upstream exchange');
  };
  const closers: (() => Promise<void>)[] = [];

  let music: MusicServices | undefined;
  let linkingParts: LinkingParts | undefined;
  if (config.music) {
    const musicConfig = config.music;
    const keyring =
      musicConfig.encryption && new Keyring(musicConfig.encryption.current, musicConfig.encryption.previous);
    if (keyring) {
      try {
        await checkEncryptionKey(storage, keyring, config);
      } catch (error) {
        await storage.close();
        throw error;
      }
    }
    const vault = keyring && new TokenVault(storage, keyring);
    if (vault && musicConfig.encryption) {
      const stop = new AbortController();
      const pass =
        musicConfig.encryption.previous.length > 0
          ? resealLinks(vault, logger, stop.signal)
          : reportUnreadableLinks(vault, logger, stop.signal);
      closers.push(async () => {
        stop.abort();
        await pass;
      });
    }
    const oauth = new MusicOAuth({
      authUrl: musicConfig.authUrl,
      clientId: musicConfig.clientId,
      redirectUri: musicConfig.redirectUri,
      secrets: () => [musicConfig.clientSecret],
    });
    const refreshes = new Counter({
      name: 'bot_music_token_refreshes_total',
      help: 'Music access-token refreshes, by outcome',
      labelNames: ['outcome'] as const,
      registers: [registry],
    });
    const tokens = vault
      ? createTokenSource({
          vault,
          oauth,
          storage,
          onRefresh: (outcome) => refreshes.inc({ outcome }),
          onStoredLater: (outcome) => {
            if (outcome === 'stored') logger.info('a refreshed music link was stored once storage took it');
            else if (outcome === 'lost') {
              logger.error(
                'a refreshed music link could not be stored (storage refused it for an hour, or the bot stopped first): its member will have to link again',
              );
            }
          },
          ...(options.now ? { now: options.now } : {}),
        })
      : undefined;
    if (tokens) closers.push(() => tokens.close());
    const musicClient = createMusicClient({
      apiUrl: musicConfig.apiUrl,
      authUrl: musicConfig.authUrl,
      clientId: musicConfig.clientId,
      clientSecret: musicConfig.clientSecret,
      variant: musicConfig.variant,
      uriScheme: musicConfig.uriScheme,
      // After a 429, every process pauses music calls until the wait ends.
      rateGate: createStorageRateGate(storage.ns('rate-limits'), 'music', {
        onError: (error) => logger.warn({ err: error }, 'music rate-limit pause: storage error'),
      }),
      getAccessToken: (userId, rejected) =>
        tokens ? tokens.getAccessToken(userId, rejected) : Promise.reject(new LinkingOffError()),
      transport: { onExchange },
    });
    closers.push(() => musicClient.close());
    if (keyring && vault) {
      const states = new LinkStates(storage, keyring, options.now);
      music = {
        client: musicClient,
        linking: createLinking({ states, vault, publicUrl: config.http.publicUrl }),
      };
      linkingParts = {
        states,
        vault,
        oauth,
        cookieKey: keyring,
        fetchProfile: async (accessToken) => {
          const me = await musicClient.users.meWithToken(accessToken);
          return {
            accountId: me.account_id ?? me.id,
            displayName: me.display_name,
            product: me.product,
            country: me.country,
          };
        },
        onLinked: createLinkNotifier(options.discordRest),
      };
    } else {
      logger.warn(
        'music account linking is off: set TOKEN_ENCRYPTION_KEY (openssl rand -base64 32) to turn it on',
      );
      music = { client: musicClient, linking: disabledLinking() };
    }
  }

  let weather: WeatherClient | undefined;
  if (config.weather) {
    const weatherClient = createWeatherClient({
      apiUrl: config.weather.apiUrl,
      proUrl: config.weather.proUrl,
      historyUrl: config.weather.historyUrl,
      bulkUrl: config.weather.bulkUrl,
      apiKey: config.weather.apiKey,
      cache: storage.ns('weather-cache'),
      // Identical requests from several processes sharing storage make one call.
      cacheLock: {
        claim: (key, ttlMs, owner) => storage.claim('locks', key, ttlMs, owner),
        held: (key) => storage.held('locks', key),
        release: (key, owner) => storage.release('locks', key, owner),
      },
      // After a 429, every process pauses weather calls until the wait ends (the limit is per key).
      rateGate: createStorageRateGate(storage.ns('rate-limits'), 'weather', {
        onError: (error) => logger.warn({ err: error }, 'weather rate-limit pause: storage error'),
      }),
      transport: { onExchange },
    });
    closers.push(() => weatherClient.close());
    weather = weatherClient;
  }

  return {
    logger,
    storage,
    registry,
    features,
    music,
    linkingParts,
    weather,
    async close() {
      // A client's pool waits for its requests in flight to be answered: those have had their time
      // (the bot's drain), and storage closes after at most a second more whatever upstream does.
      await Promise.race([
        Promise.allSettled(closers.map((close) => close())),
        delay(CLOSE_CLIENTS_MS, undefined, { ref: false }),
      ]);
      await storage.close();
    },
  };
}

/** The callback server (account linking, health, metrics) over the core's parts. */
export async function startWebServer(config: Config, core: Core): Promise<CallbackServer> {
  let http: CallbackServer;
  try {
    http = await startCallbackServer({
      host: config.http.host,
      port: config.http.port,
      publicUrl: config.http.publicUrl,
      linking: core.linkingParts,
      registry: core.registry,
      logger: core.logger,
    });
  } catch (error) {
    const where = `cannot serve the callback server on ${config.http.host}:${config.http.port}`;
    switch ((error as NodeJS.ErrnoException).code) {
      case 'EADDRINUSE':
        throw new Error(
          `${where}: another process listens there. ` +
            'Set HTTP_PORT to a free port, or WEB=off when a separate web process serves it',
          { cause: error },
        );
      case 'EADDRNOTAVAIL':
      case 'ENOTFOUND':
        throw new Error(
          `${where}: this machine has no such address. Set HTTP_HOST to one of its own addresses ` +
            '(127.0.0.1 behind a reverse proxy on the same machine, 0.0.0.0 for every address)',
          { cause: error },
        );
      case 'EACCES':
        throw new Error(
          `${where}: the system refuses this port to this user (ports below 1024 need root). ` +
            'Set HTTP_PORT to 1024 or above, and let a reverse proxy serve ports 80 and 443',
          { cause: error },
        );
      default:
        throw error;
    }
  }
  // The redirect URI to register in the music app's dashboard, exactly.
  core.logger.info(
    {
      url: http.url,
      publicUrl: config.http.publicUrl,
      ...(config.music ? { redirectUri: config.music.redirectUri } : {}),
    },
    'callback server listening',
  );
  const { host, publicUrl } = config.http;
  const links = new URL(publicUrl);
  const linksPort = Number(links.port || (links.protocol === 'https:' ? 443 : 80));
  const listening = Number(new URL(http.url).port);
  if (!core.linkingParts || !isLoopbackHost(links.hostname)) return http;
  if (!isLoopbackHost(host) && config.http.publicUrlGiven !== true) {
    // PUBLIC_URL left out: the links' default address. One set to this machine was chosen (a
    // container's port published on the host's loopback, say).
    core.logger.warn(
      { host, publicUrl },
      `HTTP_HOST ${host} lets other machines reach the callback server, but the /music link buttons point at ` +
        `${publicUrl}, which only this machine can open: set PUBLIC_URL to the address members' browsers ` +
        'reach (such as https://bot.example.org, behind a reverse proxy)',
    );
  } else if (isLoopbackHost(host) && linksPort !== listening) {
    // Only a tunnel (ssh -L) or a proxy on this machine can bring a browser from one port to the other.
    core.logger.warn(
      { host, publicUrl, port: listening },
      `PUBLIC_URL names port ${linksPort} of this machine, but the callback server listens on port ${listening}: ` +
        'unless a tunnel or a proxy here forwards one to the other, the /music link buttons lead nowhere ' +
        `(give both the same port: PUBLIC_URL=${links.protocol}//${links.host.replace(/:\d+$/, '')}:${listening}, or HTTP_PORT=${linksPort})`,
    );
  }
  return http;
}

/** What an entry point's start returns: its logger, and how to stop it. */
export interface Stoppable {
  logger: Logger;
  stop(): Promise<void>;
}

/**
 * How long a graceful stop may take before the process exits anyway: the bot's drain (10 s) and its
 * closing, within the README's systemd `TimeoutStopSec=20`.
 */
export const STOP_DEADLINE_MS = 15_000;

export interface ShutdownOptions {
  deadlineMs?: number;
  /**
   * The process is a shard forked by `src/shards.ts`: a repeated signal is expected (the terminal or
   * the service manager signals the whole process group, and the manager signals its shards too) and
   * does not cut the stop short; the manager kills a shard that does not stop in time.
   */
  forked?: boolean;
}

/**
 * A repeat this soon after the first signal is the same request delivered twice (to the process and
 * to its group), not someone asking again.
 */
const REPEAT_WINDOW_MS = 1_000;

/**
 * Stops the process once, whatever asks first (a signal, a fatal error, the sharding manager going
 * away): runs `stop`, then exits 0, or 1 when stopping failed, took longer than the deadline, or was
 * asked for by a fatal error. Asked again while stopping (Ctrl-C twice), it exits at once with 1.
 */
export function createShutdown(
  logger: Logger,
  stop: () => Promise<void>,
  options: ShutdownOptions = {},
): (reason: string, exitCode?: number) => void {
  let startedAt: number | undefined;
  return (reason, exitCode = 0) => {
    if (startedAt !== undefined) {
      if (exitCode === 0 && (options.forked || Date.now() - startedAt < REPEAT_WINDOW_MS)) {
        logger.info({ reason }, 'already shutting down');
        return;
      }
      logger.warn({ reason }, 'asked again while shutting down: exiting without waiting');
      process.exit(1);
    }
    startedAt = Date.now();
    logger.info({ reason }, 'shutting down');
    const deadlineMs = options.deadlineMs ?? STOP_DEADLINE_MS;
    setTimeout(() => {
      logger.error({ deadlineMs }, 'shutdown did not finish in time: exiting without waiting');
      process.exit(1);
    }, deadlineMs).unref();
    stop().then(
      () => process.exit(exitCode),
      (error: unknown) => {
        logger.error({ err: error }, 'unclean shutdown');
        process.exit(1);
      },
    );
  };
}

/**
 * Routes what Node would print to stderr itself, unredacted (an error's message may hold a token),
 * through the logger: an uncaught exception leaves the process in an unknown state, so it stops
 * (exit 1); an unhandled rejection is one failed operation, so it is logged and the process goes on.
 * Signals start a graceful stop (see {@link createShutdown}).
 */
export function watchProcess(
  logger: Logger,
  shutdown: (reason: string, exitCode?: number) => void,
  options: { forked?: boolean } = {},
): void {
  process.on('uncaughtException', (error) => {
    logger.fatal({ err: error }, 'uncaught exception');
    shutdown('uncaught exception', 1);
  });
  process.on('unhandledRejection', (reason) => {
    logger.error({ err: reason }, 'unhandled promise rejection');
  });
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  if (options.forked) {
    // A shard whose manager is gone (killed, crashed) would otherwise run on unmanaged, and a new
    // manager would start a second process for the same shard.
    process.once('disconnect', () => shutdown('the sharding manager is gone'));
    // discord.js's shard reports its gateway's state to the manager without a callback, so a report
    // over a closed channel arrives here; without a listener it would end the process mid-stop.
    process.on('error', (error) => logger.debug({ err: error }, 'message to the sharding manager not sent'));
  }
}

/**
 * An entry point's configuration and logger: a wrong configuration is a readable list of problems
 * on stderr and exit 1 (there is no logger yet to say it).
 */
export function configureProcess(): { config: Config; logger: Logger } {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`${error.message}\n\nSee .env.example for every setting.`);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger({ level: config.log.level, secrets: () => secretsOf(config) });
  return { config, logger };
}

/**
 * Runs an entry point when its module is the one Node was started with: loads the configuration
 * (a readable list of problems and exit 1 when it is wrong), starts, and stops cleanly on SIGINT
 * and SIGTERM. A failed start is one log line naming the cause, and exit 1.
 */
export function runMain(
  moduleUrl: string,
  start: (config: Config, options: { logger: Logger }) => Promise<Stoppable>,
): void {
  if (!process.argv[1] || moduleUrl !== pathToFileURL(process.argv[1]).href) return;
  const { config, logger } = configureProcess();
  // Forked with an IPC channel: a shard process of `src/shards.ts`.
  const forked = process.send !== undefined;
  let app: Stoppable | undefined;
  // Asked to stop while starting: nothing is in flight yet, and what has started stops with it.
  const shutdown = createShutdown(logger, () => app?.stop() ?? Promise.resolve(), { forked });
  watchProcess(logger, shutdown, { forked });
  start(config, { logger }).then(
    (started) => {
      app = started;
    },
    (error: unknown) => {
      reportStartFailure(logger, config, error);
      process.exit(1);
    },
  );
}

/**
 * A failed start, in one log line naming the cause. Said on stderr too when the log level keeps
 * even that line back (`LOG_LEVEL=silent`): an owner must learn why the bot did not start.
 */
export function reportStartFailure(logger: Logger, config: Config, error: unknown): void {
  const message = `could not start: ${error instanceof Error ? error.message : String(error)}`;
  logger.fatal({ err: error }, message);
  if (!logger.isLevelEnabled('fatal')) console.error(redactText(message, secretsOf(config)));
}
