/**
 * The composition root: config → logger → storage → service clients → bot. The only place that
 * constructs and wires instances. `startApp` is what `npm start`, the demo and the tests run.
 */
import { pathToFileURL } from 'node:url';
import type { Client } from 'discord.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { createStorage, type Storage } from './storage/index.js';
import { createDiscordClient } from './bot/client.js';
import type { BotContext } from './bot/context.js';
import { startBot } from './bot/index.js';
import { createInteractionRouter } from './bot/router.js';
import { buttons, commands } from './commands/index.js';

export interface App {
  client: Client;
  storage: Storage;
  logger: Logger;
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
    onError: (error, namespace) => logger.error({ err: error, namespace }, 'storage error'),
  });

  const features = { music: config.music !== undefined, weather: config.weather !== undefined };
  if (!features.music) {
    logger.info(
      'music commands are off: set MUSIC_CLIENT_ID, MUSIC_CLIENT_SECRET and TOKEN_ENCRYPTION_KEY to turn them on',
    );
  }
  if (!features.weather) logger.info('weather commands are off: set WEATHER_API_KEY to turn them on');

  const ctx: BotContext = { logger, storage, features, commands };
  const client = createDiscordClient({ apiUrl: config.discord.apiUrl });
  const route = createInteractionRouter({ commands, buttons, ctx });

  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      await client.destroy();
      await storage.close();
      logger.info('stopped');
    })());

  try {
    await startBot({ client, token: config.discord.token, route, logger });
  } catch (error) {
    await stop();
    throw error;
  }
  return { client, storage, logger, stop };
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
