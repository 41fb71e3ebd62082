/**
 * Several shard processes on one host (`node dist/src/shards.js`): discord.js's ShardingManager
 * forks the bot (`index`) once per shard of `SHARD_IDS` (all by default) out of `SHARD_COUNT` and
 * respawns one that dies; this process serves the callback server, so the forks run with `WEB=off`.
 * The forks share state through `REDIS_URL` (or the SQLite file under `DATA_DIR` on one host).
 *
 * Across hosts, run this (or `npm start`, one process for all its shards) on each host with a
 * disjoint `SHARD_IDS` and the same `SHARD_COUNT`, and `WEB=off` on all but one, or a separate
 * `npm run start:web`.
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ShardingManager } from 'discord.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createLogger } from './logger.js';
import { startWeb, type WebApp } from './web.js';

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
  const logger = createLogger({ level: config.log.level, secrets: () => [config.discord.token] });
  // `index.js` next to this file once built; `index.ts` under tsx, with tsx passed on to the forks.
  const self = fileURLToPath(import.meta.url);
  const manager = new ShardingManager(path.join(path.dirname(self), `index${path.extname(self)}`), {
    token: config.discord.token,
    totalShards: config.shards.count,
    shardList: config.shards.ids,
    execArgv: process.execArgv,
    respawn: true,
  });
  manager.on('shardCreate', (shard) => {
    // discord.js types `env` as unknown; it is the fork's environment (a copy of ours plus SHARDS).
    (shard.env as NodeJS.ProcessEnv)['WEB'] = 'off';
    shard.on('death', () => logger.warn({ shardId: shard.id }, 'shard process died; respawning'));
    logger.info({ shardId: shard.id, shardCount: config.shards.count }, 'shard process started');
  });

  let web: WebApp | undefined;
  if (config.web) web = await startWeb(config, { logger });
  const shutdown = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    for (const shard of manager.shards.values()) shard.kill();
    (web?.stop() ?? Promise.resolve()).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  await manager.spawn({ timeout: 60_000 });
  logger.info({ shards: config.shards.ids, shardCount: config.shards.count }, 'every shard process is ready');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
