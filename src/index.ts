/**
 * The composition root of a bot process: the shared core (storage, service clients, account
 * linking; `compose.ts`) → Discord client for this process's shards → scheduler → callback server
 * (unless `WEB=off`) → gateway. `startApp` is what `npm start`, the demo and the tests run.
 *
 * Scaling out: every bot process runs `startApp` with the shard ids it owns (`SHARD_IDS` out of
 * `SHARD_COUNT`), so hosts run disjoint shard ranges and share everything else through Redis
 * (`REDIS_URL`). One process may own several shards; discord.js runs them over one client. A
 * separate web process (`npm run start:web`, `src/web.ts`) may serve the callback server, with
 * `WEB=off` on the bot processes. Scheduled posts are made by any process: exactly once through
 * the shared markers, and with `SCHEDULER=queue` through BullMQ job schedulers.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Client, Interaction } from 'discord.js';
import type { Config } from './config.js';
import { createCore, runMain, startWebServer } from './compose.js';
import { oncePer, type Logger } from './logger.js';
import type { CallbackServer } from './auth/server.js';
import { createScheduleRunner, unpostedRuns, type Scheduler } from './services/schedules/runner.js';
import { ScheduleStore } from './services/schedules/store.js';
import { nonceFor } from './services/schedules/timing.js';
import { createScheduledPoster, fetchScheduledWeather } from './bot/scheduled-post.js';
import { pauseUnpostableSchedules } from './bot/schedule-channels.js';
import type { Storage } from './storage/index.js';
import { createDiscordClient } from './bot/client.js';
import type { BotContext } from './bot/context.js';
import { startBot } from './bot/index.js';
import { createInteractionRouter } from './bot/router.js';
import { buttons, commands } from './commands/index.js';

export interface App {
  client: Client;
  storage: Storage;
  logger: Logger;
  /** The callback server (account linking, health, metrics); undefined with `WEB=off`. */
  http: CallbackServer | undefined;
  /** The clock was moved (the demo's time control): scheduled posts look again at once. */
  clockMoved(): void;
  /**
   * Stops everything: takes no more interactions, lets those in flight and the scheduled posts
   * being made finish (for at most `drainMs`), then closes the gateway, the HTTP server and storage.
   * Safe to call twice.
   */
  stop(): Promise<void>;
}

export interface StartAppOptions {
  /** Where logs go; stdout by default. */
  logger?: Logger;
  /**
   * The clock for schedules, token expiry and link states; `Date.now` by default. Only the offline
   * demo moves it, together with the emulators' clocks.
   */
  now?: () => number;
  /** How long `stop` waits for interactions and scheduled posts in flight; 10 s by default. */
  drainMs?: number;
}

const DRAIN_MS = 10_000;

export async function startApp(config: Config, options: StartAppOptions = {}): Promise<App> {
  const client = createDiscordClient({
    apiUrl: config.discord.apiUrl,
    shards: config.shards.ids,
    shardCount: config.shards.count,
  });
  const core = await createCore(config, {
    logger: options.logger,
    discordRest: client.rest,
    now: options.now,
  });
  const { logger, storage } = core;
  const ctx: BotContext = {
    logger,
    storage,
    now: options.now ?? Date.now,
    features: core.features,
    commands,
    scheduleLimit: config.schedules.perGuildLimit,
    music: core.music,
  };

  let scheduler: Scheduler | undefined;
  if (config.weather && core.weather) {
    const weatherClient = core.weather;
    const siteUrl = config.weather.siteUrl;
    // Every read of all schedules meets the same unreadable list again (each minute, and more):
    // said at error once an hour per server, the repeats at debug.
    const tell = oncePer(UNREADABLE_TOLD_EVERY_MS);
    const store = new ScheduleStore(storage, config.schedules.perGuildLimit, Date.now, (guildId, error) => {
      logger[tell(guildId) ? 'error' : 'debug'](
        { err: error, guildId },
        'could not read a server’s scheduled posts (all, or those the error counts): they are skipped until they can be',
      );
    });
    const poster = createScheduledPoster(client, siteUrl, options.now ?? Date.now, logger);
    const parts = {
      store,
      storage,
      logger,
      graceMs: config.schedules.graceMinutes * 60_000,
      fetch: (request: Parameters<typeof fetchScheduledWeather>[1]) =>
        fetchScheduledWeather(weatherClient, request, options.now ?? Date.now),
      post: poster,
      ...(options.now ? { now: options.now } : {}),
    };
    if (config.schedules.scheduler === 'queue' && config.storage.redisUrl) {
      // BullMQ and its Redis client (some 25 MB) load only for the queue scheduler.
      const { createQueueScheduler } = await import('./services/schedules/queue.js');
      scheduler = createQueueScheduler({
        ...parts,
        redisUrl: config.storage.redisUrl,
        prefix: config.storage.redisPrefix,
      });
    } else {
      scheduler = createScheduleRunner(parts);
    }
    pauseUnpostableSchedules(
      client,
      { store, scheduler },
      {
        now: options.now ?? Date.now,
        logger,
        // Like an interaction: waited for by a stop, and not started once stopping.
        run: (work) => {
          if (!accepting) return;
          const running = work().finally(() => inFlight.delete(running));
          inFlight.add(running);
        },
      },
    );
    ctx.weather = {
      client: weatherClient,
      siteUrl,
      schedules: {
        store,
        scheduler,
        async postNow(schedule) {
          const request = { ...schedule.place, lang: schedule.lang, kind: schedule.kind };
          const fetched = await fetchScheduledWeather(weatherClient, request, ctx.now);
          await poster(schedule, fetched, nonceFor(schedule.id, `test-${ctx.now()}`));
        },
        // A note the list can do without: markers that cannot be read now cost the note, not the list.
        unposted: (schedules) =>
          unpostedRuns(storage, schedules, ctx.now(), parts.graceMs).catch((error: unknown) => {
            logger.warn({ err: error }, 'could not read which scheduled posts went out, for the list');
            return new Map();
          }),
      },
    };
  }

  // Interactions being handled, so a stop lets them finish their replies and storage writes.
  const inFlight = new Set<Promise<void>>();
  let accepting = true;
  const routeInteraction = createInteractionRouter({ commands, buttons, ctx });
  const route = (interaction: Interaction): Promise<void> => {
    // Stopping: Discord tells the member the app did not answer, rather than a half-done command.
    if (!accepting) return Promise.resolve();
    const handling = routeInteraction(interaction).finally(() => inFlight.delete(handling));
    inFlight.add(handling);
    return handling;
  };

  let http: CallbackServer | undefined;
  let started = false;
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      accepting = false;
      // The callback server takes no new connections from now on, and a callback in progress
      // (trading its code, storing the link) has the drain's time to finish, as interactions do:
      // cut short, it would have used up the member's link state for nothing.
      const httpClosed = http?.close();
      const drainMs = options.drainMs ?? DRAIN_MS;
      // True once everything in flight has settled; false when the drain time ran out first.
      const drained = await Promise.race([
        Promise.allSettled([...inFlight, scheduler?.stop()]).then(() => true),
        delay(drainMs, false, { ref: false }),
      ]);
      if (!drained) {
        logger.warn(
          { interactions: inFlight.size, drainMs },
          'stopping with work still in flight: interactions or scheduled posts did not finish in time',
        );
      }
      // Each part is closed whatever the one before did: a failed start must not leave the port or
      // storage open, nor have a second failure hide the first.
      const parts: [string, () => Promise<unknown> | undefined][] = [
        ['the Discord client', () => client.destroy()],
        ['the callback server', () => httpClosed],
        ['storage and the service clients', () => core.close()],
      ];
      for (const [part, close] of parts) {
        try {
          await close();
        } catch (error) {
          logger.warn({ err: error, part }, 'could not close a part of the bot while stopping');
        }
      }
      // A failed start is reported once, by whoever started it.
      if (started) logger.info('stopped');
    })());

  try {
    if (config.web) http = await startWebServer(config, core);
    await startBot({ client, token: config.discord.token, route, logger });
    logger.info({ shards: config.shards.ids, shardCount: config.shards.count }, 'shards ready');
    await scheduler?.start();
    started = true;
    logger.info(startSummary(config, scheduler !== undefined), 'bot started');
  } catch (error) {
    await stop();
    throw error;
  }
  return { client, storage, logger, http, stop, clockMoved: () => scheduler?.clockMoved?.() };
}

/** How often an unreadable schedule list of one server is logged again. */
const UNREADABLE_TOLD_EVERY_MS = 60 * 60_000;

/**
 * What this process runs, in one line at start, for the owner reading the log: where it stores, how
 * it schedules, which features are on. Redis is named by its host alone (its URL may hold a password).
 */
function startSummary(config: Config, scheduling: boolean) {
  const redis = config.storage.redisUrl;
  return {
    storage: redis ? `redis ${new URL(redis).host}` : `sqlite ${config.storage.dataDir}`,
    scheduler: scheduling ? config.schedules.scheduler : 'off (weather is off)',
    music: config.music === undefined ? 'off' : config.music.encryption ? 'on' : 'on, linking off',
    weather: config.weather === undefined ? 'off' : 'on',
    callbackServer: config.web ? 'on' : 'off (WEB=off)',
  };
}

runMain(import.meta.url, startApp);
