/**
 * Schedules on BullMQ (`SCHEDULER=queue`): one job scheduler per active schedule, keyed by the
 * schedule's id with its cron pattern and time zone, and a worker in every process. BullMQ makes one
 * job per tick whichever process upserted the scheduler; the worker posts it through the same lease,
 * done marker and nonce as the local runner, so a job run twice (a stalled worker, a retry) still
 * posts once.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { Queue, Worker, type Job, type JobSchedulerJson } from 'bullmq';
import { Redis } from 'ioredis';
import {
  SKIPPED_LOGS,
  WeatherRefusedError,
  createSlotPoster,
  createTimingGuard,
  weatherGroupKey,
  weatherRequestOf,
  type ScheduleRunnerOptions,
  type Scheduler,
} from './runner.js';
import { ownerNotice } from '../../logger.js';
import { withinMs } from '../time-limit.js';
import { cronPattern, nextRunOfPattern, runsAt, slotKey } from './timing.js';
import { hasKnownZone, postsFrom, type Schedule } from './types.js';

export interface QueueSchedulerOptions extends Pick<
  ScheduleRunnerOptions,
  | 'store'
  | 'storage'
  | 'logger'
  | 'fetch'
  | 'post'
  | 'graceMs'
  | 'now'
  | 'leaseMs'
  | 'markRetryMs'
  | 'postsPerSecond'
> {
  redisUrl: string;
  /** BullMQ's key prefix: `REDIS_PREFIX`, so several bots share one Redis. */
  prefix: string;
  /** Jobs one worker runs at once. */
  concurrency?: number;
  /**
   * Tries per job (a failed post, or one held by another process). By default enough to keep trying
   * through the grace window, as the local runner does: the waits double from `retryDelayMs` up to
   * {@link MAX_RETRY_DELAY_MS}, and a try past the window records the post missed.
   */
  attempts?: number;
  /** The first wait before trying a job again. */
  retryDelayMs?: number;
}

/** The longest wait between two tries of a job: about the local runner's look at the schedules. */
const MAX_RETRY_DELAY_MS = 60_000;
/**
 * How long other jobs of the tick remember that the weather service refused their group: they run
 * within seconds of each other (a slot of 2,000 posts takes under a minute); a retry or catch-up
 * after the key was mended and the bot restarted fetches again.
 */
const REFUSAL_TTL_MS = 5 * 60_000;
/** A refused key, or a refusal from something in front of the service, is logged at most this often, not once per job. */
const SKIPPED_LOG_MS = 60_000;
/**
 * How often each process makes the job schedulers match the stored schedules again, beside doing so
 * at start: a scheduler change that failed (Redis unreachable for a moment after the store was
 * written) is mended within this, and a tick it cost is caught up within the grace window.
 */
const RECONCILE_EVERY_MS = 5 * 60_000;
/**
 * The longest a scheduler change waits for Redis, under its server's lock (held 10 s). BullMQ's
 * connection queues commands while Redis is out of reach rather than failing them: without a limit
 * a member's change would wait for Redis for as long as it is gone.
 */
const SYNC_LIMIT_MS = 5_000;

export interface PostJobData {
  guildId: string;
  scheduleId: string;
}

export const QUEUE_NAME = 'scheduled-posts';

/** Thrown so BullMQ tries the job again later (the grace window still bounds it). */
class RetryLater extends Error {
  override readonly name = 'RetryLater';
}

/** When the job's tick was due: BullMQ keeps the scheduler's millis in `prevMillis`. */
function dueAt(job: Job<PostJobData>): number {
  return job.opts.prevMillis ?? job.timestamp + (job.opts.delay ?? 0);
}

export interface QueueScheduler extends Scheduler {
  readonly queue: Queue<PostJobData>;
  /**
   * Makes the job schedulers match the stored schedules (done by `start`, which also catches up
   * every owed tick, and every 5 minutes after it).
   */
  reconcile(): Promise<void>;
  start(): Promise<void>;
}

/** BullMQ job schedulers and a worker; see the module comment. */
export function createQueueScheduler(options: QueueSchedulerOptions): QueueScheduler {
  const now = options.now ?? Date.now;
  const { logger, store } = options;
  const slots = createSlotPoster(options);
  const guard = createTimingGuard(logger);
  // BullMQ requires `maxRetriesPerRequest: null` on its connections (the worker blocks on Redis).
  const connection = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  // While Redis is out of reach, its clients fail every few hundred milliseconds: each part of the
  // queue says so at error once a minute, the repeats at debug (see `ownerNotice`).
  const outage = (kind: string) => (error: unknown) =>
    logger[ownerNotice(logger, kind) ? 'error' : 'debug']({ err: error }, kind);
  connection.on('error', outage('queue redis error'));
  // The next tick of a job scheduler as the local runner computes it (see `nextRunOfPattern`); the
  // queue computes the first tick, the worker every later one, so both need it.
  const repeatStrategy = (millis: number, repeat: { pattern?: string; tz?: string }) =>
    repeat.pattern === undefined ? undefined : nextRunOfPattern(repeat.pattern, repeat.tz, millis);
  const queue = new Queue<PostJobData>(QUEUE_NAME, {
    connection,
    prefix: options.prefix,
    settings: { repeatStrategy },
  });
  queue.on('error', outage('schedule queue error'));
  const retryDelayMs = options.retryDelayMs ?? 5_000;
  const attempts = options.attempts ?? Math.ceil(options.graceMs / MAX_RETRY_DELAY_MS) + 6;
  const backoff = { type: 'custom' } as const;
  const refusals = options.storage.ns<{
    message: string;
    scope: WeatherRefusedError['scope'];
    code?: WeatherRefusedError['code'];
  }>('schedule-markers');
  /** When a refusal of each scope that pauses nothing was last logged. */
  const skipLoggedAt = new Map<keyof typeof SKIPPED_LOGS, number>();
  let worker: Worker<PostJobData> | undefined;
  let reconcileTimer: NodeJS.Timeout | undefined;
  let reconciling: Promise<void> | undefined;
  let stopping = false;

  async function upsert(schedule: Schedule): Promise<void> {
    await queue.upsertJobScheduler(
      schedule.id,
      { pattern: cronPattern(schedule), tz: schedule.timezone },
      {
        name: 'post',
        data: { guildId: schedule.guildId, scheduleId: schedule.id },
        opts: {
          attempts,
          backoff,
          removeOnComplete: 1_000,
          removeOnFail: 1_000,
        },
      },
    );
  }

  /**
   * Makes the job schedulers of some of a server's schedules match the store: from the schedules as
   * stored when this runs, under the server's lock (see `ScheduleStore.withCurrent`, one read for
   * all of them), not from what the caller saw. Two
   * members pausing and resuming one schedule at once, or a member resuming it while a worker
   * pauses it, otherwise left the scheduler of whichever call reached Redis last: an active schedule
   * that never posted, until a restart.
   */
  async function sync(guildId: string, ids: readonly string[]): Promise<ReadonlySet<string>> {
    const unreadable = new Set<string>();
    await store.withCurrent(guildId, async (schedules, unreadIds) => {
      const byId = new Map(schedules.map((schedule) => [schedule.id, schedule]));
      const changes = ids.map((id) => {
        // Stored in a form only a later version reads (during a rolling upgrade): its job scheduler
        // is that version's to keep, not an orphan to remove.
        if (unreadIds.has(id) && !byId.has(id)) {
          unreadable.add(id);
          return Promise.resolve();
        }
        const current = byId.get(id);
        // One whose time zone this runtime does not know has no ticks here (see `hasKnownZone`).
        const active = current && !current.paused && hasKnownZone(current);
        return active ? upsert(current) : queue.removeJobScheduler(id);
      });
      await withinMs(Promise.all(changes), SYNC_LIMIT_MS, `Redis did not answer within ${SYNC_LIMIT_MS} ms`);
    });
    return unreadable;
  }

  /**
   * Whether a job scheduler's template makes jobs with this version's retry policy. One written by
   * an older version (six tries five seconds apart) would give up on a failing post long before the
   * grace window ends.
   */
  function templateIsCurrent(scheduler: JobSchedulerJson): boolean {
    const opts = scheduler.template?.opts;
    const kind = typeof opts?.backoff === 'object' ? opts.backoff.type : undefined;
    return opts?.attempts === attempts && kind === backoff.type;
  }

  /**
   * Makes the job schedulers match the stored schedules. An existing scheduler with the right
   * pattern and template is left alone: upserting it again would replace a tick that is due but not
   * yet run (every process down). What must change is changed through `sync`, from the store under
   * the server's lock, so a member's change since `all()` was read is not undone. When a scheduler
   * is made or upserted, `catchUp` queues its tick again while it is still owed within the grace
   * window; at start (`catchUpAll`), every active schedule's is, as no process may have run it.
   */
  async function reconcile(catchUpAll: boolean): Promise<void> {
    const active = new Map<string, Schedule>();
    for (const schedule of await store.all()) {
      // One that cannot be timed here is reported and left out: its job scheduler, if any, removed.
      if (!schedule.paused && guard.runnable(schedule)) active.set(schedule.id, schedule);
    }
    // What must change, by server: one lock and one read of its list for all of them.
    const toSync = new Map<string, string[]>();
    const change = (guildId: string, id: string) => {
      const ids = toSync.get(guildId);
      if (ids) ids.push(id);
      else toSync.set(guildId, [id]);
    };
    const seen = new Set<string>();
    for (const scheduler of await queue.getJobSchedulers(0, -1)) {
      const schedule = active.get(scheduler.key);
      if (!schedule) {
        const guildId = (scheduler.template?.data as Partial<PostJobData> | undefined)?.guildId;
        if (guildId) change(guildId, scheduler.key);
        else await queue.removeJobScheduler(scheduler.key);
        continue;
      }
      seen.add(scheduler.key);
      const changed = scheduler.pattern !== cronPattern(schedule) || scheduler.tz !== schedule.timezone;
      if (changed || !templateIsCurrent(scheduler)) change(schedule.guildId, schedule.id);
    }
    for (const schedule of active.values()) if (!seen.has(schedule.id)) change(schedule.guildId, schedule.id);
    const mended: Schedule[] = [];
    for (const [guildId, ids] of toSync) {
      if (stopping) return;
      try {
        await sync(guildId, ids);
        mended.push(...ids.flatMap((id) => active.get(id) ?? []));
      } catch (error) {
        // Its lock held, Redis slow, its list unreadable (its schedulers are kept as they are): left
        // to the next check, so one server never stops the start or the others.
        logger.warn(
          { err: error, guildId },
          'could not update a server’s job schedulers; the next check will',
        );
      }
    }
    await catchUp(catchUpAll ? [...active.values()] : mended);
  }

  /**
   * A tick missed while no process ran it (or before its job scheduler existed) is queued once more
   * if still within the grace window; the job id and the done marker keep it to one post.
   */
  async function catchUp(schedules: Schedule[]): Promise<void> {
    const at = now();
    const runs = runsAt(new Date(at));
    for (const schedule of schedules) {
      const latest = guard.timed(schedule, runs.latest);
      if (!latest) continue;
      const { run, slot } = latest;
      // Not before it was made, nor a tick that fell due while it was paused (see `postsFrom`).
      if (run.getTime() < postsFrom(schedule) || at - run.getTime() > options.graceMs) continue;
      if (await slots.isDone(schedule.id, slot)) continue;
      await queue.add(
        'post',
        { guildId: schedule.guildId, scheduleId: schedule.id },
        {
          jobId: `catch-up:${schedule.id}:${slot}`,
          prevMillis: run.getTime(),
          attempts,
          backoff,
          removeOnComplete: 1_000,
          removeOnFail: 1_000,
        },
      );
    }
  }

  /**
   * The weather for one group in one slot. Each process coalesces its own calls through the weather
   * cache (on Redis, shared); the first job to claim the group's slot fetches at once and the others
   * give it a moment to fill the cache (or, for a duplicate of the same tick, to post), so a slot
   * costs about one call per group.
   */
  async function fetchFor(
    schedule: Schedule,
    slot: string,
    due: number,
  ): Promise<{ weather: unknown } | undefined> {
    const request = weatherRequestOf(schedule);
    const group = `${weatherGroupKey(request)}@${slot}`;
    if (!(await options.storage.claim('locks', `scheduled-weather:${group}`, 60_000))) {
      await delay(1_000);
      if (await slots.isDone(schedule.id, slot)) return undefined;
    }
    // A refusal for good is remembered for the group's other jobs of the same tick: one call, not one
    // each. Not for the group's schedules at other times of the day: the key may have been mended
    // (and the bot restarted) since, and those fetch again, as the local runner does.
    const tick = `refused:${weatherGroupKey(request)}@${due}`;
    const refused = await refusals.get(tick);
    if (refused) throw new WeatherRefusedError(refused.message, refused.scope, { code: refused.code });
    try {
      return { weather: await options.fetch(request) };
    } catch (error) {
      if (error instanceof WeatherRefusedError) {
        await refusals.set(
          tick,
          { message: error.message, scope: error.scope, ...(error.code ? { code: error.code } : {}) },
          REFUSAL_TTL_MS,
        );
      }
      throw error;
    }
  }

  /** A post the weather service refused for good: not tried again; see `WeatherRefusedError`. */
  async function refuse(schedule: Schedule, slot: string, error: WeatherRefusedError): Promise<string> {
    if (error.scope === 'schedule') {
      await slots.pause(schedule, error.pauseReason);
      await sync(schedule.guildId, [schedule.id]);
    } else if (now() - (skipLoggedAt.get(error.scope) ?? Number.NEGATIVE_INFINITY) >= SKIPPED_LOG_MS) {
      skipLoggedAt.set(error.scope, now());
      const { level, message } = SKIPPED_LOGS[error.scope];
      logger[level]({ err: error, scheduleId: schedule.id, slot }, message);
    }
    return 'refused';
  }

  async function process(job: Job<PostJobData>): Promise<string> {
    const { guildId, scheduleId } = job.data;
    const schedule = (await store.list(guildId)).find((s) => s.id === scheduleId);
    if (!schedule || schedule.paused || !hasKnownZone(schedule)) {
      // Deleted or paused by a process that did not get to remove the scheduler (or paused after a
      // 403), or with a time zone this runtime does not know (reported by `reconcile`).
      const unreadable = await sync(guildId, [scheduleId]);
      // One only a later version reads: tried again, for a worker of that version to post.
      if (unreadable.has(scheduleId))
        throw new RetryLater('schedule stored in a form this version cannot read');
      return 'gone';
    }
    const due = dueAt(job);
    if (due < postsFrom(schedule)) return 'not-active-then';
    const slot = slotKey(schedule, new Date(due));
    if (await slots.isDone(schedule.id, slot)) return 'alreadyDone';
    if (now() - due > options.graceMs) {
      await slots.markMissed(schedule.id, slot, now() - due);
      return 'missed';
    }
    let fetched: { weather: unknown } | undefined;
    try {
      fetched = await fetchFor(schedule, slot, due);
    } catch (error) {
      if (error instanceof WeatherRefusedError) return refuse(schedule, slot, error);
      logger.warn(
        { err: error, guildId, scheduleId, channelId: schedule.channelId, slot },
        'weather unavailable for a scheduled post; will try again',
      );
      throw new RetryLater('weather unavailable', { cause: error });
    }
    if (!fetched) return 'alreadyDone';
    // Paused or removed while the weather was fetched or the post waited for its turn (the member
    // was told it is): not posted, as the local runner does not post it either.
    const outcome = await slots.postOne(schedule, slot, fetched.weather, undefined, async () => {
      const current = (await store.list(guildId)).find((s) => s.id === scheduleId);
      return current !== undefined && !current.paused;
    });
    if (outcome === 'failed' || outcome === 'busy') throw new RetryLater(`post ${outcome}`);
    // One line a post, thousands a slot on a large bot: at debug, as the local runner's are.
    if (outcome === 'posted')
      logger.debug({ guildId, scheduleId, channelId: schedule.channelId, slot }, 'scheduled post made');
    return outcome;
  }

  return {
    queue,
    reconcile: () => reconcile(false),
    /** Reconciles the job schedulers, then starts this process's worker. */
    async start(): Promise<void> {
      await reconcile(true);
      worker = new Worker<PostJobData>(QUEUE_NAME, process, {
        connection,
        prefix: options.prefix,
        concurrency: options.concurrency ?? 10,
        settings: {
          repeatStrategy,
          backoffStrategy: (attemptsMade: number) =>
            Math.min(retryDelayMs * 2 ** Math.max(0, attemptsMade - 1), MAX_RETRY_DELAY_MS),
        },
      });
      worker.on('error', outage('schedule worker error'));
      worker.on('failed', (job, error) => {
        if (job && job.attemptsMade >= attempts) {
          logger.warn(
            { err: error, guildId: job.data.guildId, scheduleId: job.data.scheduleId },
            'scheduled post given up',
          );
        }
      });
      reconcileTimer = setInterval(() => {
        // One at a time: a check still running (a slow Redis) is not joined by another.
        reconciling ??= reconcile(false)
          .catch((error: unknown) =>
            logger.warn(
              { err: error },
              'could not check the job schedulers against the schedules: tried again within 5 minutes',
            ),
          )
          .finally(() => {
            reconciling = undefined;
          });
      }, RECONCILE_EVERY_MS).unref();
    },
    /**
     * The schedule is stored already, so a failure here is logged, not thrown: the member's change
     * stands (an error would have them add it again, and both copies post), and the next
     * reconcile mends its job scheduler.
     */
    async changed(schedule: Schedule): Promise<void> {
      try {
        await sync(schedule.guildId, [schedule.id]);
      } catch (error) {
        logger.error(
          { err: error, scheduleId: schedule.id },
          'could not update a schedule’s job scheduler: the next check of them all, within 5 minutes, will',
        );
      }
    },
    async stop(): Promise<void> {
      stopping = true;
      clearInterval(reconcileTimer);
      // A check in progress stops at its next schedule; with Redis gone it may not get there.
      if (reconciling) await Promise.race([reconciling, delay(SYNC_LIMIT_MS, undefined, { ref: false })]);
      // With Redis out of reach, closing waits for it to come back: the worker is closed without
      // waiting for its jobs, whose posts are then left to their leases, as after a crash.
      const reachable = connection.status === 'ready';
      await worker?.close(!reachable);
      await queue.close();
      connection.disconnect();
    },
  };
}
