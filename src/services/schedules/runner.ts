/**
 * Runs the schedules: at each slot, fetches the weather once per (place, units, language, kind)
 * due, then posts to every channel due, paced under Discord's global rate limit, exactly once:
 * a lease is taken per (schedule, slot) before posting, a "done" marker written after, and every
 * try of a slot carries the same message nonce, so a retry after a crash is dropped by Discord if
 * the first try got through. Posting goes through a callback; this module never touches Discord.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';
import { keepClaim, retryStorage, type Storage } from '../../storage/index.js';
import type { ScheduleStore } from './store.js';
import { nonceFor, runsAt } from './timing.js';
import {
  hasKnownZone,
  postsFrom,
  type BotPauseCode,
  type PauseReason,
  type Schedule,
  type ScheduleKind,
} from './types.js';

/**
 * What one group of due posts shows. Posts in one group share one weather call. Units are not part
 * of it: the weather is fetched in standard units and each post converts, so schedules that differ
 * only in units cost one call.
 */
export interface WeatherRequest {
  lat: number;
  lon: number;
  lang: string;
  kind: ScheduleKind;
}

/** One schedule's post that is due: the run it belongs to, and that run's slot key. */
interface DuePost {
  schedule: Schedule;
  run: Date;
  slot: string;
}

/** Logged (at error level) when the weather service refuses the bot's key for a scheduled post. */
export const KEY_REFUSED_LOG =
  'scheduled posts skipped: the weather service refuses the configured key (WEATHER_API_KEY; a new key can take a few hours to be activated)';

/** What the owner reads for posts skipped on a refusal that did not come from the service itself. */
export const FOREIGN_REFUSAL_LOG =
  "scheduled posts skipped: a weather request was refused with a 400 or 404 that is not the weather service's own answer (a proxy or gateway between them?); the schedules stay as they are";

/** How posts skipped for a refusal of each scope that pauses nothing are told to the owner. */
export const SKIPPED_LOGS = {
  all: { level: 'error', message: KEY_REFUSED_LOG },
  slot: { level: 'warn', message: FOREIGN_REFUSAL_LOG },
} as const satisfies Record<Exclude<WeatherRefusedError['scope'], 'schedule'>, unknown>;

/** Logged once per schedule whose time zone this runtime does not know (see `hasKnownZone`). */
export const UNKNOWN_ZONE_LOG =
  "schedule skipped: its time zone is not one this runtime knows (damaged, or stored by a runtime with other time zone data); it is kept as stored, and its server's /weather schedule list says to remove it and add it again";

/** Logged once per schedule whose runs cannot be computed for another reason. */
export const UNTIMEABLE_LOG = 'schedule skipped: its runs cannot be computed; it is kept as stored';

/**
 * Times schedules one at a time, so that one that cannot be timed here (a time zone this runtime
 * does not know) is skipped rather than stopping every other server's posts, as `ScheduleStore.all`
 * does for a server list it cannot read. Each such schedule is logged once with its id and server,
 * not at every look at the schedules.
 */
export function createTimingGuard(logger: Pick<Logger, 'error'>) {
  const reported = new Set<string>();
  function report(schedule: Schedule, error?: unknown): void {
    if (reported.has(schedule.id)) return;
    reported.add(schedule.id);
    const fields = {
      scheduleId: schedule.id,
      guildId: schedule.guildId,
      // A damaged value may be anything: a readable piece of it is enough.
      timezone: schedule.timezone.slice(0, 100),
    };
    if (error === undefined) logger.error(fields, UNKNOWN_ZONE_LOG);
    else logger.error({ ...fields, err: error }, UNTIMEABLE_LOG);
  }
  /** Whether the schedule can be timed here; reported once when not. */
  function runnable(schedule: Schedule): boolean {
    if (hasKnownZone(schedule)) return true;
    report(schedule);
    return false;
  }
  return {
    runnable,
    /** `compute(schedule)`, or undefined (reported once) when the schedule cannot be timed here. */
    timed<T>(schedule: Schedule, compute: (schedule: Schedule) => T): T | undefined {
      if (!runnable(schedule)) return undefined;
      try {
        return compute(schedule);
      } catch (error) {
        report(schedule, error);
        return undefined;
      }
    },
  };
}

/**
 * The channel is gone or closed to the bot: the schedule is paused with this reason (the message, in
 * English, and its code), no retries.
 */
export class PostRejectedError extends Error {
  override readonly name = 'PostRejectedError';
  /** For a missing permission: which, when the bot could tell (see `PauseReason.missing`). */
  readonly missing: string[] | undefined;
  constructor(
    message: string,
    readonly code: BotPauseCode,
    options?: ErrorOptions & { missing?: string[] | undefined },
  ) {
    super(message, options);
    this.missing = options?.missing;
  }
}

/**
 * Discord refused one post for a reason retrying cannot mend (STYLE: never retry a 400, 401, 403 or
 * 404), other than the channel's (`PostRejectedError`): a message it finds malformed, say. That
 * slot of the schedule is skipped and logged, not tried again every few seconds for the grace
 * window; the schedule stays as it is, and its next run posts as usual.
 */
export class PostRefusedError extends Error {
  override readonly name: string = 'PostRefusedError';
  constructor(
    message: string,
    options?: ErrorOptions & {
      /** What Discord said, for the schedule list (`400 Message was blocked by automatic moderation`). */
      detail?: string;
    },
  ) {
    super(message, options);
    this.detail = options?.detail ?? message;
  }
  readonly detail: string;
}

/**
 * The bot may not post on the schedule's server until `until` (milliseconds): a moderator has
 * timed it out. Posts due meanwhile are skipped as refused ones are; the schedule is not paused, so
 * it posts again by itself once the timeout ends.
 */
export class BotTimedOutError extends PostRefusedError {
  override readonly name = 'BotTimedOutError';
  constructor(
    readonly until: number,
    options?: ErrorOptions,
  ) {
    super(`the bot is timed out on this server until ${new Date(until).toISOString()}`, options);
  }
}

/**
 * The weather service refused a group's request for a reason retrying cannot mend (STYLE: never
 * retry a 400, 401, 403 or 404). `schedule`: the request itself is refused (a product the bot's plan
 * lacks, a place the service rejects): the schedules are paused with the message as their reason.
 * `all`: the bot's key is refused, for every schedule alike: the slot is skipped, not retried, and
 * the schedules stay as they are, so they post again once the owner has mended the key. `slot`: the
 * request was refused, but not in the service's own words (a 400 or 404 from something in front of
 * it), so it says nothing about the schedule: this slot is skipped, and the schedules stay as they are.
 */
export class WeatherRefusedError extends Error {
  override readonly name = 'WeatherRefusedError';
  /** The pause's code, for scope `schedule`. */
  readonly code: BotPauseCode | undefined;
  constructor(
    message: string,
    readonly scope: 'schedule' | 'all' | 'slot',
    { code, ...options }: ErrorOptions & { code?: BotPauseCode | undefined } = {},
  ) {
    super(message, options);
    this.code = code;
  }

  /** The reason its schedules are paused with. */
  get pauseReason(): PauseReason {
    return this.code === undefined ? { reason: this.message } : { reason: this.message, code: this.code };
  }
}

export interface ScheduleRunnerOptions {
  store: ScheduleStore;
  storage: Storage;
  logger: Pick<Logger, 'info' | 'warn' | 'error' | 'debug'>;
  /** Fetches the weather for one group; called once per group per slot. */
  fetch(request: WeatherRequest): Promise<unknown>;
  /** Posts one schedule's message with the slot's nonce. */
  post(schedule: Schedule, weather: unknown, nonce: string): Promise<void>;
  /** A post missed while the bot was down is made on start if at most this late. */
  graceMs: number;
  now?: () => number;
  /** How long a process may hold a post before another may take it over (after a crash). */
  leaseMs?: number;
  /**
   * How long a post that went out keeps trying to write its "done" marker (its lease kept
   * meanwhile) when storage refuses it, before the slot is left to a later try (default 5 s).
   */
  markRetryMs?: number;
  postsPerSecond?: number;
  /** The longest the runner sleeps between looks at the schedules (picks up other processes' changes). */
  pollMs?: number;
  /**
   * How old the runner's read of the schedules may be when a post's turn comes before it reads them
   * again, for one paused or removed while the slot's posts go out (default 1 s; see `freshSchedules`).
   */
  recheckMs?: number;
  /**
   * How soon to look again after a failed post or one held by another process; the wait doubles
   * while the looks after it fail too, up to `maxRetryMs`.
   */
  retryMs?: number;
  maxRetryMs?: number;
}

export interface TickReport {
  posted: number;
  /** Already posted by this or another process. */
  alreadyDone: number;
  /** Too late (beyond the grace window). */
  missed: number;
  /** Failed this time; tried again on a later tick within the grace window. */
  failed: number;
  /**
   * Not made: the weather service refused the request for good (see `WeatherRefusedError`), or
   * Discord refused the post (see `PostRefusedError`).
   */
  refused: number;
  /** Held by another process (or a crashed one whose lease has not run out yet). */
  busy: number;
  /** Not started: the runner was stopping. Left for the next start, within the grace window. */
  stopped: number;
  /** Not made: the schedule was paused or removed while its weather was fetched. */
  withdrawn: number;
  weatherCalls: number;
}

const DONE_TTL_MS = 8 * 24 * 3600_000;

/**
 * Scheduled posts per second, for the whole bot: processes sharing storage share the pace. Discord
 * allows a bot 50 requests per second in all; the rest is left for what commands send meanwhile.
 */
export const DEFAULT_POSTS_PER_SECOND = 47;
/** Posts of one slot in flight at once: enough to hide storage and network round trips behind the pace. */
const POSTS_IN_FLIGHT = 8;
/** Weather calls of one slot in flight at once. */
const FETCHES_IN_FLIGHT = 4;
/** Missed runs recorded at once (a storage claim each). */
const MARKS_IN_FLIGHT = 16;
/** "Done" markers read in one storage round trip. */
const DONE_BATCH = 500;

/** Runs `work` over `items` with at most `limit` in flight. */
async function forEachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * Orders posts so that consecutive ones go to different channels where possible: Discord limits
 * messages per channel too, and a slot's posts would otherwise arrive grouped by place.
 */
export function interleaveByChannel<T extends { schedule: Schedule }>(posts: readonly T[]): T[] {
  const byChannel = new Map<string, T[]>();
  for (const post of posts) {
    const list = byChannel.get(post.schedule.channelId);
    if (list) list.push(post);
    else byChannel.set(post.schedule.channelId, [post]);
  }
  const queues = [...byChannel.values()];
  const out: T[] = [];
  for (let round = 0; out.length < posts.length; round++) {
    for (const queue of queues) if (round < queue.length) out.push(queue[round]!);
  }
  return out;
}

/** What became of one (schedule, slot) post. */
export type PostOutcome = 'posted' | 'alreadyDone' | 'busy' | 'failed' | 'refused' | 'stopped' | 'withdrawn';

export type SlotPosterOptions = Pick<
  ScheduleRunnerOptions,
  'store' | 'storage' | 'logger' | 'post' | 'now' | 'leaseMs' | 'markRetryMs' | 'postsPerSecond'
>;

/** Which weather call a schedule's posts share. */
export function weatherRequestOf(schedule: Schedule): WeatherRequest {
  return { lat: schedule.place.lat, lon: schedule.place.lon, lang: schedule.lang, kind: schedule.kind };
}

export function weatherGroupKey(request: WeatherRequest): string {
  return [request.lat.toFixed(2), request.lon.toFixed(2), request.lang, request.kind].join('|');
}

/** Whether each post's slot was marked done (by any process): one storage round trip per few hundred. */
async function postsDone(
  storage: Pick<Storage, 'ns'>,
  posts: readonly { scheduleId: string; slot: string }[],
): Promise<boolean[]> {
  const markers = storage.ns<true>('schedule-markers');
  const done: boolean[] = [];
  for (let from = 0; from < posts.length; from += DONE_BATCH) {
    const keys = posts.slice(from, from + DONE_BATCH).map((p) => `done:${p.scheduleId}:${p.slot}`);
    for (const value of await markers.getMany(keys)) done.push(value === true);
  }
  return done;
}

/**
 * The exactly-once part shared by the local runner and the queue worker: a lease per
 * (schedule, slot) before posting, a "done" marker after, and the slot's nonce on every try.
 */
export function createSlotPoster(options: SlotPosterOptions) {
  const now = options.now ?? Date.now;
  const leaseMs = options.leaseMs ?? 30_000;
  const markRetryMs = options.markRetryMs ?? 5_000;
  const gapMs = 1000 / (options.postsPerSecond ?? DEFAULT_POSTS_PER_SECOND);
  const markers = options.storage.ns<true>('schedule-markers');
  const { logger } = options;
  let nextStartAt = 0;
  /**
   * Posts this process made (or settled: refused, paused) whose "done" marker could not be written,
   * by `<schedule>:<slot>`, with when they were made. A later try writes the marker instead of
   * posting again: the slot's nonce only makes Discord drop a second sending for a few minutes, and
   * storage may be down for longer. Another process, or this one after a restart, does not know of
   * them (README).
   */
  const unmarked = new Map<string, number>();

  /**
   * Waits for this post's turn. Turns are handed out in order through storage, so posts in flight
   * together, and every process posting the same slot, keep one pace between them (Discord's limit
   * counts the whole bot). If storage cannot be asked, this process keeps the pace on its own.
   */
  async function pace(signal: AbortSignal | undefined): Promise<void> {
    let wait: number;
    try {
      wait = await options.storage.nextTurn('schedule-markers', 'post-pace', gapMs);
    } catch {
      const at = performance.now();
      const start = Math.max(at, nextStartAt);
      nextStartAt = start + gapMs;
      wait = start - at;
    }
    if (wait <= 0) return;
    try {
      await delay(wait, undefined, { signal });
    } catch {
      // Aborted: the caller looks at the signal.
    }
  }

  /**
   * Writes a post's "done" marker; refused (a storage blip), tries again for `markRetryMs` while the
   * caller keeps the post's lease, unless `signal` is aborted (the process is stopping). Another
   * process finds no marker once the lease is gone, and may post the slot again after Discord has
   * forgotten its nonce: this process's own note of it ({@link unmarked}) is known to it alone.
   */
  function markDone(id: string, signal: AbortSignal | undefined): Promise<void> {
    return retryStorage(
      () => markers.set(`done:${id}`, true, DONE_TTL_MS).then(() => undefined),
      markRetryMs,
      signal,
    );
  }

  /** Drops what {@link unmarked} holds of slots past any retry (a done marker lives as long). */
  function forgetOldUnmarked(): void {
    for (const [id, at] of unmarked) if (now() - at > DONE_TTL_MS) unmarked.delete(id);
  }

  /**
   * Keeps (or, once a post has gone out, clears) the schedule's last refusal, for the list. Best
   * effort: a storage that cannot take it now costs the note, never the post's outcome.
   */
  async function noteRefusal(schedule: Schedule, refusal: Schedule['lastRefused']): Promise<void> {
    try {
      await options.store.change(schedule.guildId, schedule.id, ({ lastRefused: _last, ...kept }) =>
        refusal === undefined ? kept : { ...kept, lastRefused: refusal },
      );
    } catch (error) {
      logger.warn({ err: error, scheduleId: schedule.id }, 'could not note a refused post on its schedule');
    }
  }

  /** Pauses a schedule that cannot post (its channel, or the weather service, refuses it), logged. */
  async function pause(schedule: Schedule, why: PauseReason): Promise<void> {
    const after = await options.store.pause(schedule.guildId, schedule.id, why, false, now());
    const fields = { scheduleId: schedule.id, guildId: schedule.guildId, reason: why.reason };
    // A member's pause made meanwhile is kept (see `ScheduleStore.pause`): logged as what happened.
    if (after?.paused?.byUser === true)
      logger.warn(fields, 'post refused; schedule was already paused by a member');
    else if (after !== undefined) logger.warn(fields, 'schedule paused');
  }

  return {
    /** Whether the post of this slot was made (by any process). */
    async isDone(scheduleId: string, slot: string): Promise<boolean> {
      return (await markers.get(`done:${scheduleId}:${slot}`)) === true;
    },

    /** `isDone` for many posts at once: one storage round trip per few hundred. */
    doneOf(posts: readonly { scheduleId: string; slot: string }[]): Promise<boolean[]> {
      return postsDone(options.storage, posts);
    },

    /** Logs a slot skipped for being too late, once across processes; true when this call logged it. */
    async markMissed(scheduleId: string, slot: string, lateMs: number): Promise<boolean> {
      if (!(await options.storage.claim('schedule-markers', `missed:${scheduleId}:${slot}`, DONE_TTL_MS))) {
        return false;
      }
      logger.warn({ scheduleId, slot, lateMs }, 'scheduled post missed: too late, skipped');
      return true;
    },

    pause,

    /**
     * Makes one post unless `signal` is aborted before it starts (`stopped`: neither posted nor
     * marked, so a later try makes it); a post already handed to `post` is finished. `stillWanted`,
     * asked once the post's turn has come (the pace's wait can be long in a big slot), says whether
     * the schedule is still there and not paused: `withdrawn` otherwise, neither posted nor marked.
     */
    async postOne(
      schedule: Schedule,
      slot: string,
      weather: unknown,
      signal?: AbortSignal,
      stillWanted?: () => Promise<boolean>,
    ): Promise<PostOutcome> {
      if (signal?.aborted) return 'stopped';
      const id = `${schedule.id}:${slot}`;
      const owner = randomUUID();
      if (!(await options.storage.claim('schedule-markers', `lease:${id}`, leaseMs, owner))) return 'busy';
      // Kept while this process works on the post (the pace's wait, a slow or rate-limited Discord):
      // run out meanwhile, it let another process take the slot and post it a second time.
      const stopKeeping = keepClaim(options.storage, 'schedule-markers', `lease:${id}`, leaseMs, owner);
      try {
        if (await markers.get(`done:${id}`)) return 'alreadyDone';
        if (unmarked.has(id)) {
          await markers.set(`done:${id}`, true, DONE_TTL_MS);
          unmarked.delete(id);
          return 'alreadyDone';
        }
        await pace(signal);
        if (signal?.aborted) return 'stopped';
        // The turn's wait can be long (minutes, in a big slot), and a process frozen or cut off from
        // storage meanwhile could not keep its lease: another process may have taken the slot and
        // posted it, longer ago than Discord remembers the nonce. The lease still held is what says
        // no one has (a lease taken by another is no longer this process's to extend).
        if (!(await options.storage.extend('schedule-markers', `lease:${id}`, leaseMs, owner))) return 'busy';
        if (stillWanted && !(await stillWanted())) return 'withdrawn';
        let outcome: PostOutcome = 'posted';
        /** What to note of a refusal on the schedule, once the slot is marked done (null: clear it). */
        let refusal: Schedule['lastRefused'] | null | undefined;
        try {
          await options.post(schedule, weather, nonceFor(schedule.id, slot));
        } catch (error) {
          if (error instanceof PostRejectedError) {
            await pause(schedule, {
              reason: error.message,
              code: error.code,
              ...(error.missing?.length ? { missing: error.missing } : {}),
            });
            outcome = 'refused';
          } else if (error instanceof BotTimedOutError) {
            logger.warn(
              { scheduleId: schedule.id, guildId: schedule.guildId, slot, until: new Date(error.until) },
              'scheduled post skipped: the bot is timed out on the server',
            );
            outcome = 'refused';
          } else if (error instanceof PostRefusedError) {
            // Most often the server's AutoMod: the server's to mend, and the list says so.
            logger.warn(
              { err: error, ...postContext(schedule, slot) },
              'scheduled post refused by Discord: skipped for this run, not tried again',
            );
            refusal = { at: now(), reason: error.detail };
            outcome = 'refused';
          } else throw error;
        }
        if (outcome === 'posted' && schedule.lastRefused) refusal = null;
        try {
          await markDone(id, signal);
        } catch (error) {
          forgetOldUnmarked();
          unmarked.set(id, now());
          throw error;
        }
        // After the marker: a post that went out is recorded before anything else can fail or wait
        // on a lock (a stop in between would post it again once the lease lapsed).
        if (refusal !== undefined) await noteRefusal(schedule, refusal ?? undefined);
        return outcome;
      } catch (error) {
        logger.warn({ err: error, ...postContext(schedule, slot) }, 'scheduled post failed; will try again');
        return 'failed';
      } finally {
        stopKeeping();
        // A lease that cannot be given up runs out by itself: the post's outcome stands (a throw
        // here would end the slot's run while its other posts were still being made).
        await options.storage.release('schedule-markers', `lease:${id}`, owner).catch(() => {});
      }
    },
  };
}

export type SlotPoster = ReturnType<typeof createSlotPoster>;

/** A schedule's latest run that has not gone out (see {@link unpostedRuns}). */
export interface UnpostedRun {
  /** When it fell due (epoch ms). */
  run: number;
  /** When its grace window ends: it may still go out until then, and is missed after. */
  until: number;
  missed: boolean;
}

/**
 * For the list: the schedules whose latest run has not gone out, read from the markers the posting
 * writes (a run posted, or settled by a refusal, is marked done by whichever process made it), in
 * one storage round trip. Still due (being made, or tried again after a failure) within the grace
 * window, missed after it: nothing else tells a server why its channel got nothing. Not told: a
 * paused schedule's run, one before the schedule was made or last resumed, one in a time zone this
 * runtime does not know or that cannot be timed, and one older than the markers live.
 */
export async function unpostedRuns(
  storage: Pick<Storage, 'ns'>,
  schedules: readonly Schedule[],
  at: number,
  graceMs: number,
): Promise<Map<string, UnpostedRun>> {
  const runs = runsAt(new Date(at));
  // The runner's guard, silent: the runner itself reports a schedule it cannot time.
  const guard = createTimingGuard({ error() {} });
  const due: { scheduleId: string; slot: string; run: number }[] = [];
  for (const schedule of schedules) {
    if (schedule.paused) continue;
    const latest = guard.timed(schedule, runs.latest);
    const run = latest?.run.getTime();
    if (run === undefined || run < postsFrom(schedule) || at - run >= DONE_TTL_MS) continue;
    due.push({ scheduleId: schedule.id, slot: latest!.slot, run });
  }
  const found = new Map<string, UnpostedRun>();
  if (due.length === 0) return found;
  const done = await postsDone(storage, due);
  for (const [index, { scheduleId, run }] of due.entries()) {
    if (!done[index]) found.set(scheduleId, { run, until: run + graceMs, missed: at - run > graceMs });
  }
  return found;
}

/** Posts every schedule due, by looking at all of them at each slot (one process, or several sharing storage). */
export function createScheduleRunner(options: ScheduleRunnerOptions) {
  const now = options.now ?? Date.now;
  const pollMs = options.pollMs ?? 60_000;
  const retryMs = options.retryMs ?? 5_000;
  // As the queue's jobs back off (`MAX_RETRY_DELAY_MS` there): a weather service or Discord that is
  // down is asked every minute at most, not every 5 s for the whole grace window.
  const maxRetryMs = options.maxRetryMs ?? 60_000;
  const recheckMs = options.recheckMs ?? 1_000;
  /** Looks in a row that left posts to try again (0 after one that left none). */
  let retries = 0;
  const slots = createSlotPoster(options);
  const { logger } = options;
  const guard = createTimingGuard(logger);
  let running: Promise<TickReport> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = true;
  /** Aborted by `stop`: the tick in progress starts no more posts, weather calls or missed marks. */
  let halt = new AbortController();
  /** Bumped by `refresh`, so an older loop does not set a second timer. */
  let generation = 0;

  /**
   * What this process already knows is settled, by schedule: the slot it posted (or saw posted), or
   * the run it found too late, as `slot@time` (a later run in the same slot, after the schedule's
   * time is changed, may still post). Saves asking storage again about every schedule every minute;
   * rebuilt at each tick with the schedules that still exist.
   */
  let settled = new Map<string, string>();

  async function tickOnce(): Promise<TickReport> {
    const { signal } = halt;
    const at = now();
    const report: TickReport = {
      posted: 0,
      alreadyDone: 0,
      missed: 0,
      failed: 0,
      refused: 0,
      busy: 0,
      stopped: 0,
      withdrawn: 0,
      weatherCalls: 0,
    };
    const groups = new Map<string, { request: WeatherRequest; due: DuePost[] }>();
    const runs = runsAt(new Date(at));
    const known = new Map<string, string>();
    const candidates: DuePost[] = [];
    // Cheap when nothing changed since the last read: the store keeps it (see `ScheduleStore.all`).
    for (const schedule of await options.store.all()) {
      if (schedule.paused) continue;
      const latest = guard.timed(schedule, runs.latest);
      // Not before it was made, nor a run that fell due while it was paused.
      if (!latest || latest.run.getTime() < postsFrom(schedule)) continue;
      const { run, slot } = latest;
      const before = settled.get(schedule.id);
      if (before === slot || before === `${slot}@${run.getTime()}`) known.set(schedule.id, before);
      else candidates.push({ schedule, run, slot });
    }
    settled = known;
    const missed: DuePost[] = [];
    const done = await slots.doneOf(candidates.map((c) => ({ scheduleId: c.schedule.id, slot: c.slot })));
    for (const [index, { schedule, run, slot }] of candidates.entries()) {
      if (done[index]) {
        known.set(schedule.id, slot);
        continue;
      }
      if (at - run.getTime() > options.graceMs) {
        missed.push({ schedule, run, slot });
        continue;
      }
      const request = weatherRequestOf(schedule);
      const key = weatherGroupKey(request);
      const group = groups.get(key) ?? { request, due: [] };
      group.due.push({ schedule, run, slot });
      groups.set(key, group);
    }

    // Every group's weather first, then the posts at Discord's pace, a few in flight.
    const ready: { schedule: Schedule; slot: string; weather: unknown }[] = [];
    const refused: { error: WeatherRefusedError; due: DuePost[] }[] = [];
    await forEachLimited([...groups.values()], FETCHES_IN_FLIGHT, async ({ request, due }) => {
      if (signal.aborted) {
        report.stopped += due.length;
        return;
      }
      let weather: unknown;
      try {
        report.weatherCalls++;
        weather = await options.fetch(request);
      } catch (error) {
        if (error instanceof WeatherRefusedError) {
          refused.push({ error, due });
          return;
        }
        // Not marked done: a later tick within the grace window tries again; after it, the slot is
        // skipped and logged (no "weather unavailable" note is posted).
        report.failed += due.length;
        logger.warn(
          { err: error, place: request },
          'weather unavailable for scheduled posts; will try again',
        );
        return;
      }
      for (const { schedule, slot } of due) ready.push({ schedule, slot, weather });
    });
    await settleRefused(refused, report, known);
    // Read again once the weather is in (one read, cheap when nothing changed: see
    // `ScheduleStore.all`): a schedule paused or removed while it was fetched is not posted, as its
    // member was told. Read per post instead, it cost bench/schedule-slot.ts a sixth of its pace.
    // The posts then go out at Discord's pace (40 s for 2,000): read again when a post's turn comes
    // `recheckMs` or more after the last read, so one paused or removed meanwhile is not posted either.
    const changes = options.store.changesMade;
    const current = freshSchedules(ready.length === 0 ? [] : await options.store.all(), changes);
    const posting = ready.filter(({ schedule }) => current.wanted(schedule.id));
    report.withdrawn += ready.length - posting.length;
    await forEachLimited(
      interleaveByChannel(posting),
      POSTS_IN_FLIGHT,
      async ({ schedule, slot, weather }) => {
        const outcome = await slots.postOne(schedule, slot, weather, signal, () =>
          current.stillWanted(schedule.id),
        );
        report[outcome]++;
        if (outcome === 'posted' || outcome === 'alreadyDone') known.set(schedule.id, slot);
      },
    );
    // Runs found too late, recorded last and a few at a time: after a long downtime there may be
    // thousands (one storage claim each), and the posts still due should not wait behind them.
    // Once stopping, they are left for the next start, which finds them too late again.
    await forEachLimited(missed, MARKS_IN_FLIGHT, async ({ schedule, run, slot }) => {
      if (signal.aborted) return;
      if (await slots.markMissed(schedule.id, slot, at - run.getTime())) report.missed++;
      known.set(schedule.id, `${slot}@${run.getTime()}`);
    });
    return report;
  }

  /**
   * The schedules as read once a slot's weather is in, read again (`ScheduleStore.all`: the version
   * key alone when nothing changed) when asked about a post `recheckMs` or more after the last
   * read, or once this process has changed a schedule since (`changesMade`: a member's pause or
   * remove handled here stops a post due within the second, with no read of storage per post), one
   * read at a time. A read that fails keeps the last one (logged at debug): the post goes out as it
   * would have before.
   */
  function freshSchedules(first: readonly Schedule[], changesAtFirst: number) {
    const byId = (list: readonly Schedule[]) => new Map(list.map((s) => [s.id, s]));
    let known = byId(first);
    let readAt = performance.now();
    let changesSeen = changesAtFirst;
    let reading: Promise<void> | undefined;
    const wanted = (id: string) => {
      const schedule = known.get(id);
      return schedule !== undefined && !schedule.paused;
    };
    return {
      wanted,
      async stillWanted(id: string): Promise<boolean> {
        if (performance.now() - readAt >= recheckMs || options.store.changesMade !== changesSeen) {
          const changes = options.store.changesMade;
          reading ??= options.store
            .all()
            .then(
              (list) => void (known = byId(list)),
              (error: unknown) =>
                logger.debug({ err: error }, 'the schedules could not be read again before a post'),
            )
            .finally(() => {
              readAt = performance.now();
              changesSeen = changes;
              reading = undefined;
            });
          await reading;
        }
        return wanted(id);
      },
    };
  }

  /**
   * Groups the weather service refused for good: their schedules are settled for this slot in this
   * process (not tried again until their next run), and paused with the reason when the refusal is
   * theirs alone. A refused key is logged once per tick, however many groups it stopped.
   */
  async function settleRefused(
    refused: readonly { error: WeatherRefusedError; due: readonly DuePost[] }[],
    report: TickReport,
    known: Map<string, string>,
  ): Promise<void> {
    const skipped = new Map<keyof typeof SKIPPED_LOGS, { error: WeatherRefusedError; posts: number }>();
    for (const { error, due } of refused) {
      report.refused += due.length;
      for (const { schedule, run, slot } of due) known.set(schedule.id, `${slot}@${run.getTime()}`);
      if (error.scope === 'schedule') {
        for (const { schedule } of due) await slots.pause(schedule, error.pauseReason);
      } else {
        const posts = (skipped.get(error.scope)?.posts ?? 0) + due.length;
        skipped.set(error.scope, { error, posts });
      }
    }
    for (const [scope, { error, posts }] of skipped) {
      const { level, message } = SKIPPED_LOGS[scope];
      logger[level]({ err: error, posts }, message);
    }
  }

  /** Looks at every schedule once and makes the posts that are due. Overlapping calls share one run. */
  function tick(): Promise<TickReport> {
    running ??= tickOnce().finally(() => (running = undefined));
    return running;
  }

  /** When the runner should next look: the earliest next run, or the poll interval, whichever is first. */
  async function nextWake(): Promise<number> {
    const schedules = await options.store.all();
    const at = now();
    let wake = at + pollMs;
    const runs = runsAt(new Date(at));
    for (const schedule of schedules) {
      if (schedule.paused) continue;
      const next = guard.timed(schedule, runs.next);
      if (next && next.getTime() < wake) wake = next.getTime();
    }
    return wake;
  }

  async function loop(mine: number): Promise<void> {
    if (stopped || mine !== generation) return;
    let again = false;
    try {
      const report = await tick();
      const made = report.posted + report.failed + report.missed + report.refused;
      if (made + report.stopped + report.withdrawn > 0) logger.info(report, 'scheduled posts');
      // Failed posts, or posts held by a process that may have crashed: look again soon.
      again = report.failed + report.busy > 0;
    } catch (error) {
      logger.error({ err: error }, 'schedule runner failed; trying again shortly');
      again = true;
    }
    if (stopped || mine !== generation) return;
    let wake: number;
    try {
      wake = await nextWake();
    } catch {
      wake = now() + 5_000;
    }
    if (stopped || mine !== generation) return;
    clearTimeout(timer);
    retries = again ? retries + 1 : 0;
    const retryWait = again ? Math.min(retryMs * 2 ** (retries - 1), maxRetryMs) : Number.POSITIVE_INFINITY;
    const wait = Math.min(wake - now(), pollMs, retryWait);
    timer = setTimeout(() => void loop(mine), Math.max(0, wait) + 5);
  }

  return {
    tick,
    nextWake,
    /** Starts posting: at once (posts missed within the grace window), then at every slot. */
    start() {
      if (!stopped) return;
      stopped = false;
      if (halt.signal.aborted) halt = new AbortController();
      void loop(++generation);
    },
    /** A schedule changed: look again now so the timer fits the new set. */
    refresh() {
      if (stopped) return;
      clearTimeout(timer);
      void loop(++generation);
    },
    clockMoved() {
      this.refresh();
    },
    changed(_schedule: Schedule, _removed?: boolean): Promise<void> {
      this.refresh();
      return Promise.resolve();
    },
    /**
     * Stops: the tick in progress starts no more posts, and this resolves once the posts it had
     * started are made. Posts it did not start are left for the next start, within the grace window.
     */
    async stop() {
      stopped = true;
      halt.abort();
      clearTimeout(timer);
      await running;
    },
  };
}

export type ScheduleRunner = ReturnType<typeof createScheduleRunner>;

/**
 * What runs the schedules, as the composition root and the commands see it: the local runner
 * (`SCHEDULER=local`) or BullMQ job schedulers (`SCHEDULER=queue`).
 */
export interface Scheduler {
  start(): void | Promise<void>;
  /** A schedule was added, paused, resumed or (`removed`) deleted. */
  changed(schedule: Schedule, removed?: boolean): Promise<void>;
  /** The clock jumped (the offline demo's time control): look at the schedules again now. */
  clockMoved?(): void;
  stop(): Promise<void>;
}

/** What a log line about one post names: the schedule, its server and channel, the slot. */
function postContext(schedule: Schedule, slot: string) {
  return { scheduleId: schedule.id, guildId: schedule.guildId, channelId: schedule.channelId, slot };
}
