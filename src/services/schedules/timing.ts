/**
 * When a schedule is due, with IANA time zones and daylight-saving changes handled by croner:
 * a 02:30 schedule posts at 03:00 on the spring-forward day (02:30 does not exist) and once on the
 * fall-back day (02:30 happens twice; the first is taken).
 */
import { createHash } from 'node:crypto';
import { Cron } from 'croner';
import type { Schedule } from './types.js';

/** Whether `zone` is an IANA time zone this runtime knows. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return zone.length > 0;
  } catch {
    return false;
  }
}

/** Every IANA time zone name this runtime knows, for autocomplete. */
export function timeZones(): string[] {
  return Intl.supportedValuesOf('timeZone');
}

export function cronPattern(schedule: Pick<Schedule, 'time' | 'days'>): string {
  const [hour, minute] = schedule.time.split(':').map(Number);
  const days = schedule.days.length === 0 ? '*' : [...new Set(schedule.days)].sort().join(',');
  return `${minute} ${hour} * * ${days}`;
}

function cronOf(schedule: Pick<Schedule, 'time' | 'days' | 'timezone'>): Cron {
  return new Cron(cronPattern(schedule), { timezone: schedule.timezone, paused: true });
}

/** The first run strictly after `after`. */
export function nextRun(
  schedule: Pick<Schedule, 'time' | 'days' | 'timezone'>,
  after: Date,
): Date | undefined {
  return cronOf(schedule).nextRun(after) ?? undefined;
}

/** The latest run at or before `at`. */
export function latestRun(
  schedule: Pick<Schedule, 'time' | 'days' | 'timezone'>,
  at: Date,
): Date | undefined {
  return cronOf(schedule).previousRuns(1, new Date(at.getTime() + 1))[0];
}

/**
 * The slot a run belongs to: the local calendar date in the schedule's zone. One post per
 * schedule per local day, so a wall-clock time that happens twice still posts once.
 */
export function slotKey(schedule: Pick<Schedule, 'timezone'>, run: Date): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone: schedule.timezone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(run);
}

/** A Discord message nonce (at most 25 characters) that is the same for every try of one slot. */
export function nonceFor(scheduleId: string, slot: string): string {
  return createHash('sha256').update(`${scheduleId}|${slot}`).digest('base64url').slice(0, 25);
}
