/**
 * When a schedule is due, with IANA time zones and daylight-saving changes handled by croner:
 * a 02:30 schedule posts at 03:00 on the spring-forward day (02:30 does not exist) and once on the
 * fall-back day (02:30 happens twice; the first is taken).
 *
 * Croner (11.0) loses the day where a gap ends at midnight: Greenland (America/Nuuk,
 * America/Scoresbysund) springs from 23:00 on Saturday to 00:00 on Sunday, and a 23:30 post found
 * no run that Saturday at all. `gapRunBetween` puts it at the end of the gap, as croner does with
 * every other gap, and `slotKey` counts that run for the Saturday, so Sunday's own 23:30 still
 * posts.
 */
import { createHash } from 'node:crypto';
import { Cron } from 'croner';
import { zoneOffset } from '../../domain/weather/zones.js';
import type { Schedule } from './types.js';

export { isTimeZone } from '../../domain/weather/zones.js';

/** What decides when a schedule runs. */
type Timed = Pick<Schedule, 'time' | 'days' | 'timezone'>;

export function cronPattern(schedule: Pick<Schedule, 'time' | 'days'>): string {
  const [hour, minute] = schedule.time.split(':').map(Number);
  const days = schedule.days.length === 0 ? '*' : [...new Set(schedule.days)].sort().join(',');
  return `${minute} ${hour} * * ${days}`;
}

function cronOf(schedule: Timed): Cron {
  return new Cron(cronPattern(schedule), { timezone: schedule.timezone, paused: true });
}

/** The first run strictly after `after`. */
export function nextRun(schedule: Timed, after: Date): Date | undefined {
  return withGapRun(schedule, after.getTime(), cronOf(schedule).nextRun(after) ?? undefined, 'first');
}

/**
 * Croner jobs by pattern and zone, for `nextRunOfPattern`: one per distinct schedule time, at most
 * {@link PATTERN_CRONS_MAX} (past that it starts again, so schedules moved to new times over the
 * months cannot grow it without bound; a job costs only its construction to make again).
 */
const patternCrons = new Map<string, Cron>();
const PATTERN_CRONS_MAX = 4096;

/**
 * The first run of a cron `pattern` in `timezone` strictly after `afterMs`, as `nextRun` computes
 * it: for the queue scheduler, so BullMQ's job schedulers tick when the local runner would.
 * BullMQ's own strategy (cron-parser) loses the day's tick where a daylight-saving gap starts at
 * midnight or lasts half an hour (America/Santiago in September, Africa/Cairo in April,
 * Australia/Lord_Howe in October) and puts a time inside a gap at its end plus the gap, where
 * croner posts at the end of the gap.
 */
export function nextRunOfPattern(pattern: string, timezone: string | undefined, afterMs: number) {
  const key = `${pattern}|${timezone ?? ''}`;
  let cron = patternCrons.get(key);
  if (!cron) {
    cron = new Cron(pattern, { paused: true, ...(timezone ? { timezone } : {}) });
    if (patternCrons.size >= PATTERN_CRONS_MAX) patternCrons.clear();
    patternCrons.set(key, cron);
  }
  const next = cron.nextRun(new Date(afterMs)) ?? undefined;
  const timed = timedOfPattern(pattern, timezone);
  return (timed ? withGapRun(timed, afterMs, next, 'first') : next)?.getTime();
}

/** The schedule a pattern of `cronPattern` stands for, or undefined for any other pattern. */
function timedOfPattern(pattern: string, timezone: string | undefined): Timed | undefined {
  const match = /^(\d{1,2}) (\d{1,2}) \* \* (\*|[0-6](?:,[0-6])*)$/.exec(pattern);
  if (!match) return undefined;
  const [, minute, hour, days] = match;
  return {
    time: `${hour!.padStart(2, '0')}:${minute!.padStart(2, '0')}`,
    days: days === '*' ? [] : days!.split(',').map(Number),
    timezone: timezone ?? 'UTC',
  };
}

/** The latest run at or before `at`. */
export function latestRun(schedule: Timed, at: Date): Date | undefined {
  const latest = cronOf(schedule).previousRuns(1, new Date(at.getTime() + 1))[0];
  return withGapRun(schedule, at.getTime() + 1, latest, 'last');
}

const DAY_MS = 86_400_000;

/**
 * Croner's run, or the run it skipped in a gap that ends at midnight if that comes between it and
 * `from`: the first one after `from` (`'first'`; `croner` is croner's next run) or the last one
 * before `from` (`'last'`; `croner` is croner's latest run).
 */
function withGapRun(
  schedule: Timed,
  from: number,
  croner: Date | undefined,
  which: 'first' | 'last',
): Date | undefined {
  // A week either way holds the next or latest run of any schedule that has one.
  const other = croner?.getTime() ?? (which === 'first' ? from + 8 * DAY_MS : from - 8 * DAY_MS);
  const [start, end] = which === 'first' ? [from, other] : [other, from];
  const gap = gapRunBetween(schedule, start, end, which);
  return gap === undefined ? croner : new Date(gap);
}

/**
 * A run that croner leaves out in (`start`, `end`): a day of the schedule whose time does not
 * exist in its zone, run at the end of the gap. Cheap where the offset is the same at both ends.
 */
function gapRunBetween(schedule: Timed, start: number, end: number, which: 'first' | 'last') {
  const zone = schedule.timezone;
  if (offsetAt(zone, start - DAY_MS) === offsetAt(zone, end + DAY_MS)) return undefined;
  const [hour, minute] = schedule.time.split(':').map(Number) as [number, number];
  const found: number[] = [];
  const first = localParts(zone, start - DAY_MS);
  const last = Date.UTC(...localParts(zone, end).date);
  for (let day = Date.UTC(...first.date); day <= last; day += DAY_MS) {
    const date = new Date(day);
    if (schedule.days.length > 0 && !schedule.days.includes(date.getUTCDay())) continue;
    const run = gapEnd(zone, day + (hour * 60 + minute) * 60_000);
    if (run !== undefined && run > start && run < end) found.push(run);
  }
  return which === 'first' ? found[0] : found.at(-1);
}

/**
 * Where the wall-clock time `wall` (its fields read as UTC) falls in a daylight-saving gap of
 * `zone`: the instant the gap ends. Undefined where that time exists.
 */
function gapEnd(zone: string, wall: number): number | undefined {
  const before = offsetAt(zone, wall - DAY_MS);
  const after = offsetAt(zone, wall + DAY_MS);
  if (after <= before) return undefined;
  // Read with the offset before the change it is past the change; with the one after, before it.
  let lo = wall - after * 60_000;
  let hi = wall - before * 60_000;
  if (offsetAt(zone, lo) !== before || offsetAt(zone, hi) !== after) return undefined;
  while (hi - lo > 60_000) {
    const mid = lo + Math.floor((hi - lo) / 120_000) * 60_000;
    if (offsetAt(zone, mid) === before) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** The wall clock of `zone` at `ms`: its date (as `Date.UTC` takes it) and its minutes since midnight. */
function localParts(zone: string, ms: number) {
  const wall = new Date(ms + offsetAt(zone, ms) * 60_000);
  const date = [wall.getUTCFullYear(), wall.getUTCMonth(), wall.getUTCDate()] as [number, number, number];
  return { date, minutes: wall.getUTCHours() * 60 + wall.getUTCMinutes() };
}

/** The offset of `zone` from UTC at `ms`, in minutes (`zoneOffset` caches it per quarter hour). */
function offsetAt(zone: string, ms: number): number {
  return zoneOffset(zone, Math.floor(ms / 1000)) / 60;
}

/**
 * The slot a run belongs to: the local calendar date in the schedule's zone. One post per
 * schedule per local day, so a wall-clock time that happens twice still posts once. A run at the
 * end of a gap that ends at midnight (see the module comment) belongs to the day before.
 */
export function slotKey(schedule: Timed, run: Date): string {
  const { date, minutes } = localParts(schedule.timezone, run.getTime());
  const [hour, minute] = schedule.time.split(':').map(Number) as [number, number];
  let day = Date.UTC(...date);
  if (
    minutes < hour * 60 + minute &&
    gapEnd(schedule.timezone, day - DAY_MS + (hour * 60 + minute) * 60_000) === run.getTime()
  )
    day -= DAY_MS;
  return new Date(day).toISOString().slice(0, 10);
}

/**
 * `latestRun` (with its slot) and `nextRun` of many schedules at one instant, each distinct
 * (time, days, time zone) computed once: croner builds date formatters on every call, and a pass
 * over 10,000 schedules one by one took 0.4 s and 250 MB of garbage, every minute. Schedules mostly
 * share a few times, so a pass costs a few calls.
 */
export function runsAt(at: Date) {
  const perTime = <T>(compute: (schedule: Timed) => T) => {
    const known = new Map<string, T>();
    return (schedule: Timed): T => {
      const key = `${cronPattern(schedule)}|${schedule.timezone}`;
      if (known.has(key)) return known.get(key)!;
      const value = compute(schedule);
      known.set(key, value);
      return value;
    };
  };
  return {
    latest: perTime((schedule): { run: Date; slot: string } | undefined => {
      const run = latestRun(schedule, at);
      return run && { run, slot: slotKey(schedule, run) };
    }),
    next: perTime((schedule) => nextRun(schedule, at)),
  };
}

/** A Discord message nonce (at most 25 characters) that is the same for every try of one slot. */
export function nonceFor(scheduleId: string, slot: string): string {
  return createHash('sha256').update(`${scheduleId}|${slot}`).digest('base64url').slice(0, 25);
}
