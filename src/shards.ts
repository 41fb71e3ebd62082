/**
 * Several shard processes on one host (`node dist/src/shards.js`): discord.js's ShardingManager
 * forks the bot (`index`) once per shard of `SHARD_IDS` (all by default) out of `SHARD_COUNT` and
 * respawns one that dies after it was ready (one that exits before it was ever ready fails the
 * start); this process serves the callback server, so the forks run with `WEB=off`.
 * The forks share state through `REDIS_URL` (or the SQLite file under `DATA_DIR` on one host).
 *
 * Across hosts, run this (or `npm start`, one process for all its shards) on each host with a
 * disjoint `SHARD_IDS` and the same `SHARD_COUNT`, and `WEB=off` on all but one, or a separate
 * `npm run start:web`.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ShardingManager } from 'discord.js';
import {
  configureProcess,
  createShutdown,
  reportStartFailure,
  STOP_DEADLINE_MS,
  watchProcess,
} from './compose.js';
import type { Logger } from './logger.js';
import { startWeb, type WebApp } from './web.js';

/**
 * Signals every shard process to stop and waits until each has exited: a shard stops within its own
 * deadline, and one that has not exited a little after it is killed.
 */
async function stopShards(manager: ShardingManager, logger: Logger): Promise<void> {
  manager.respawn = false;
  const children = [...manager.shards.values()]
    .map((shard) => shard.process)
    .filter(
      (child): child is ChildProcess =>
        child !== null && child.exitCode === null && child.signalCode === null,
    );
  await Promise.all(
    children.map(async (child) => {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => {
        logger.warn({ pid: child.pid }, 'shard process did not stop in time: killing it');
        child.kill('SIGKILL');
      }, STOP_DEADLINE_MS + 1_000);
      try {
        await exited;
      } finally {
        clearTimeout(timer);
      }
    }),
  );
}

async function main(): Promise<void> {
  const { config, logger } = configureProcess();
  // `index.js` next to this file once built; `index.ts` under tsx, with tsx passed on to the forks.
  const self = fileURLToPath(import.meta.url);
  const manager = new ShardingManager(path.join(path.dirname(self), `index${path.extname(self)}`), {
    token: config.discord.token,
    totalShards: config.shards.count,
    shardList: config.shards.ids,
    execArgv: process.execArgv,
    // Turned on once every shard is ready: a shard that exits before it was ever ready (a refused
    // token, storage that cannot be opened) would exit again the same way, so the start fails
    // instead. One that was ready and dies while later ones start is started again (below).
    respawn: false,
  });
  let web: WebApp | undefined;
  // The manager stops only once its shards have: a supervisor that sees it exit (a container's
  // first process, a service unit) would otherwise kill them in the middle of their own stop.
  const stop = async () => {
    await stopShards(manager, logger);
    await web?.stop();
  };
  const stopOnce = createShutdown(logger, stop, { deadlineMs: STOP_DEADLINE_MS + 3_000 });
  /** Set once a stop is asked for: the shards then end their start, which is not a failure. */
  let stopping = false;
  const shutdown = (reason: string, exitCode?: number) => {
    stopping = true;
    stopOnce(reason, exitCode);
  };
  watchProcess(logger, shutdown);

  manager.on('shardCreate', (shard) => {
    // discord.js types `env` as unknown; it is the fork's environment (a copy of ours plus SHARDS).
    (shard.env as NodeJS.ProcessEnv)['WEB'] = 'off';
    // The fork's exit code or signal says why (1: it logged why it stopped; SIGKILL: killed, as
    // by the kernel's out-of-memory killer).
    let wasReady = false;
    shard.on('ready', () => {
      wasReady = true;
    });
    shard.on('death', (child) => {
      const exit = 'exitCode' in child ? { exitCode: child.exitCode, signal: child.signalCode } : {};
      if (stopping) return;
      if (manager.respawn) {
        logger.warn({ shardId: shard.id, ...exit }, 'shard process died; respawning');
        return;
      }
      if (wasReady) {
        // Ready once, so it can start: killed (out of memory, say) while later shards start, it
        // is started again as discord.js would once all are ready. After the death event, as
        // discord.js lets go of the dead process only then.
        logger.warn({ shardId: shard.id, ...exit }, 'shard process died; respawning');
        setImmediate(() => {
          if (stopping) return;
          shard.spawn(60_000).catch((error: unknown) => shard.emit('error', error));
        });
        return;
      }
      // The shard's own log line says why it stopped.
      logger.error(
        { shardId: shard.id, ...exit },
        'a shard process exited before it was ever ready: stopping the others, without starting it again',
      );
      shutdown('start-up failed', 1);
    });
    // A respawn that fails is told here by discord.js (an 'error' without a listener would end up
    // an unhandled rejection); while stopping, a shard's start cut short is expected.
    shard.on('error', (error) => {
      if (!stopping)
        logger.error({ err: error, shardId: shard.id }, 'shard process could not be started again');
    });
    logger.info({ shardId: shard.id, shardCount: config.shards.count }, 'shard process started');
  });

  try {
    if (config.web) web = await startWeb(config, { logger });
    await manager.spawn({ timeout: 60_000 });
    manager.respawn = true;
  } catch (error) {
    // Stopped while the shards were starting (a signal, or a shard that exited, told above): their
    // start ends there, and the stop goes on.
    if (stopping) return;
    reportStartFailure(logger, config, error);
    shutdown('start-up failed', 1);
    return;
  }
  logger.info({ shards: config.shards.ids, shardCount: config.shards.count }, 'every shard process is ready');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
