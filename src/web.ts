/**
 * The web process (`npm run start:web`): the callback server on its own, without a Discord gateway,
 * for deployments where bot processes run with `WEB=off`. It completes account links into the shared
 * storage (Redis), so whichever shard gets the member's next command finds the link, and edits the
 * member's `/music link` reply through Discord REST.
 */
import type { CallbackServer } from './auth/server.js';
import { createDiscordRest } from './bot/client.js';
import { createCore, runMain, startWebServer } from './compose.js';
import type { Config } from './config.js';
import type { Logger } from './logger.js';

export interface WebApp {
  logger: Logger;
  http: CallbackServer;
  /** Stops the server and closes storage. Safe to call twice. */
  stop(): Promise<void>;
}

export async function startWeb(config: Config, options: { logger?: Logger } = {}): Promise<WebApp> {
  const discordRest = createDiscordRest({ apiUrl: config.discord.apiUrl, token: config.discord.token });
  const core = await createCore(config, { logger: options.logger, discordRest });
  if (config.storage.redisUrl === undefined) {
    core.logger.warn(
      'the web process runs without REDIS_URL: links it makes are seen only by bot processes on the same SQLite file',
    );
  }
  let http: CallbackServer;
  try {
    http = await startWebServer(config, core);
  } catch (error) {
    await core.close();
    throw error;
  }
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      await http.close();
      await core.close();
      core.logger.info('stopped');
    })());
  return { logger: core.logger, http, stop };
}

runMain(import.meta.url, startWeb);
