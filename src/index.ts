/**
 * The composition root: config → logger → storage → service clients → bot. The only place that
 * constructs and wires instances. `startApp` is what `npm start`, the demo and the tests run.
 */
import { pathToFileURL } from 'node:url';
import type { Client } from 'discord.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { collectDefaultMetrics, Counter, Registry } from 'prom-client';
import { createLinking, disabledLinking, LinkingOffError } from './auth/linking.js';
import { Keyring } from './auth/seal.js';
import { MusicOAuth } from './auth/oauth.js';
import { startCallbackServer, type CallbackServer, type LinkingParts } from './auth/server.js';
import { LinkStates } from './auth/states.js';
import { createTokenSource } from './auth/tokens.js';
import { TokenVault } from './auth/vault.js';
import { createMusicClient, createStorageRateGate } from './services/music/index.js';
import { createScheduleRunner, type ScheduleRunner } from './services/schedules/runner.js';
import { ScheduleStore } from './services/schedules/store.js';
import { nonceFor } from './services/schedules/timing.js';
import { createWeatherClient } from './services/weather/index.js';
import { createScheduledPoster, fetchScheduledWeather } from './bot/scheduled-post.js';
import type { ExchangeInfo } from './services/http/transport.js';
import { createStorage, type Storage } from './storage/index.js';
import { createDiscordClient } from './bot/client.js';
import type { BotContext } from './bot/context.js';
import { startBot } from './bot/index.js';
import { createLinkNotifier } from './bot/notify.js';
import { createInteractionRouter } from './bot/router.js';
import { buttons, commands } from './commands/index.js';

export interface App {
  client: Client;
  storage: Storage;
  logger: Logger;
  /** The callback server (account linking, health, metrics). */
  http: CallbackServer;
  /** Stops everything: gateway, HTTP servers, storage. Safe to call twice. */
  stop(): Promise<void>;
}

export interface StartAppOptions {
  /** Where logs go; stdout by default. */
  logger?: Logger;
}

function secretsOf(config: Config): string[] {
  return [config.discord.token, config.music?.clientSecret, config.weather?.apiKey].filter(
    (secret): secret is string => typeof secret === 'string',
  );
}

export async function startApp(config: Config, options: StartAppOptions = {}): Promise<App> {
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

  const client = createDiscordClient({ apiUrl: config.discord.apiUrl });
  const closers: (() => Promise<void>)[] = [];
  const ctx: BotContext = {
    logger,
    storage,
    features,
    commands,
    scheduleLimit: config.schedules.perGuildLimit,
  };

  let linkingParts: LinkingParts | undefined;
  if (config.music) {
    const music = config.music;
    const keyring = music.encryption && new Keyring(music.encryption.current, music.encryption.previous);
    const vault = keyring && new TokenVault(storage, keyring);
    const oauth = new MusicOAuth({
      authUrl: music.authUrl,
      clientId: music.clientId,
      redirectUri: music.redirectUri,
    });
    const refreshes = new Counter({
      name: 'bot_music_token_refreshes_total',
      help: 'Music access-token refreshes, by outcome',
      labelNames: ['outcome'] as const,
      registers: [registry],
    });
    const tokens = vault
      ? createTokenSource({ vault, oauth, storage, onRefresh: (outcome) => refreshes.inc({ outcome }) })
      : undefined;
    const musicClient = createMusicClient({
      apiUrl: music.apiUrl,
      authUrl: music.authUrl,
      clientId: music.clientId,
      clientSecret: music.clientSecret,
      variant: music.variant,
      // After a 429, every process pauses music calls until the wait ends.
      rateGate: createStorageRateGate(storage.ns('rate-limits'), 'music', {
        onError: (error) => logger.warn({ err: error }, 'music rate-limit pause: storage error'),
      }),
      getAccessToken: (userId) =>
        tokens ? tokens.getAccessToken(userId) : Promise.reject(new LinkingOffError()),
      transport: { onExchange },
    });
    closers.push(() => musicClient.close());
    if (keyring && vault) {
      const states = new LinkStates(storage, keyring);
      ctx.music = {
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
        onLinked: createLinkNotifier(client),
      };
    } else {
      logger.warn(
        'music account linking is off: set TOKEN_ENCRYPTION_KEY (openssl rand -base64 32) to turn it on',
      );
      ctx.music = { client: musicClient, linking: disabledLinking() };
    }
  }

  let runner: ScheduleRunner | undefined;
  if (config.weather) {
    const weather = config.weather;
    const weatherClient = createWeatherClient({
      apiUrl: weather.apiUrl,
      proUrl: weather.proUrl,
      historyUrl: weather.historyUrl,
      bulkUrl: weather.bulkUrl,
      apiKey: weather.apiKey,
      cache: storage.ns('weather-cache'),
      transport: { onExchange },
    });
    closers.push(() => weatherClient.close());
    const store = new ScheduleStore(storage, config.schedules.perGuildLimit);
    const poster = createScheduledPoster(client, weather.siteUrl);
    runner = createScheduleRunner({
      store,
      storage,
      logger,
      graceMs: config.schedules.graceMinutes * 60_000,
      fetch: (request) => fetchScheduledWeather(weatherClient, request),
      post: poster,
    });
    ctx.weather = {
      client: weatherClient,
      siteUrl: weather.siteUrl,
      schedules: {
        store,
        runner,
        async postNow(schedule) {
          const request = { ...schedule.place, lang: schedule.lang, kind: schedule.kind };
          const fetched = await fetchScheduledWeather(weatherClient, request);
          await poster(schedule, fetched, nonceFor(schedule.id, `test-${Date.now()}`));
        },
      },
    };
  }

  const http = await startCallbackServer({
    host: config.http.host,
    port: config.http.port,
    publicUrl: config.http.publicUrl,
    linking: linkingParts,
    registry,
    logger,
  });
  logger.info({ url: http.url, publicUrl: config.http.publicUrl }, 'callback server listening');
  const route = createInteractionRouter({ commands, buttons, ctx });

  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      await runner?.stop();
      await client.destroy();
      await http.close();
      await Promise.all(closers.map((close) => close()));
      await storage.close();
      logger.info('stopped');
    })());

  try {
    await startBot({ client, token: config.discord.token, route, logger });
    runner?.start();
  } catch (error) {
    await stop();
    throw error;
  }
  return { client, storage, logger, http, stop };
}

async function main(): Promise<void> {
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
  const app = await startApp(config);
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
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
