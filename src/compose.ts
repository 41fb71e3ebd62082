/**
 * The wiring both entry points share: config → logger → storage → metrics → music client and
 * account linking → weather client → callback server. `src/index.ts` (the bot) adds the gateway and
 * the scheduler on top; `src/web.ts` (the web process) runs only the callback server. Nothing here
 * connects to Discord's gateway: the link notifier gets a REST handle.
 */
import { pathToFileURL } from 'node:url';
import type { REST } from 'discord.js';
import { collectDefaultMetrics, Counter, Registry } from 'prom-client';
import { createLinking, disabledLinking, LinkingOffError } from './auth/linking.js';
import { MusicOAuth } from './auth/oauth.js';
import { Keyring } from './auth/seal.js';
import { startCallbackServer, type CallbackServer, type LinkingParts } from './auth/server.js';
import { LinkStates } from './auth/states.js';
import { createTokenSource } from './auth/tokens.js';
import { TokenVault } from './auth/vault.js';
import type { MusicServices } from './bot/context.js';
import { createLinkNotifier } from './bot/notify.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createLogger, type Logger } from './logger.js';
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

function secretsOf(config: Config): string[] {
  return [config.discord.token, config.music?.clientSecret, config.weather?.apiKey].filter(
    (secret): secret is string => typeof secret === 'string',
  );
}

export async function createCore(config: Config, options: CoreOptions): Promise<Core> {
  const logger =
    options.logger ?? createLogger({ level: config.log.level, secrets: () => secretsOf(config) });
  const storage = await createStorage({
    dataDir: config.storage.dataDir,
    redisUrl: config.storage.redisUrl,
    redisPrefix: config.storage.redisPrefix,
    onError: (error, namespace) => logger.error({ err: error, namespace }, 'storage error'),
  });

  const features = { music: config.music !== undefined, weather: config.weather !== undefined };
  if (!features.music) {
    logger.info(
      'music commands are off: set MUSIC_CLIENT_ID, MUSIC_CLIENT_SECRET and TOKEN_ENCRYPTION_KEY to turn them on',
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
    const vault = keyring && new TokenVault(storage, keyring);
    const oauth = new MusicOAuth({
      authUrl: musicConfig.authUrl,
      clientId: musicConfig.clientId,
      redirectUri: musicConfig.redirectUri,
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
          ...(options.now ? { now: options.now } : {}),
        })
      : undefined;
    const musicClient = createMusicClient({
      apiUrl: musicConfig.apiUrl,
      authUrl: musicConfig.authUrl,
      clientId: musicConfig.clientId,
      clientSecret: musicConfig.clientSecret,
      variant: musicConfig.variant,
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
      await Promise.all(closers.map((close) => close()));
      await storage.close();
    },
  };
}

/** The callback server (account linking, health, metrics) over the core's parts. */
export async function startWebServer(config: Config, core: Core): Promise<CallbackServer> {
  const http = await startCallbackServer({
    host: config.http.host,
    port: config.http.port,
    publicUrl: config.http.publicUrl,
    linking: core.linkingParts,
    registry: core.registry,
    logger: core.logger,
  });
  core.logger.info({ url: http.url, publicUrl: config.http.publicUrl }, 'callback server listening');
  return http;
}

/**
 * Runs an entry point when its module is the one Node was started with: loads the configuration
 * (a readable list of problems and exit 1 when it is wrong), starts, and stops cleanly on SIGINT
 * and SIGTERM.
 */
export function runMain(
  moduleUrl: string,
  start: (config: Config) => Promise<{ logger: Logger; stop(): Promise<void> }>,
): void {
  if (!process.argv[1] || moduleUrl !== pathToFileURL(process.argv[1]).href) return;
  const main = async () => {
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
    const app = await start(config);
    const shutdown = (signal: string) => {
      app.logger.info({ signal }, 'shutting down');
      app.stop().then(
        () => process.exit(0),
        (error: unknown) => {
          app.logger.error({ err: error }, 'unclean shutdown');
          process.exit(1);
        },
      );
    };
    process.once('SIGINT', () => shutdown('SIGINT'));
    process.once('SIGTERM', () => shutdown('SIGTERM'));
  };
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
