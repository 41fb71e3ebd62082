/**
 * Dates as members type them (`2025-03-01`, `2025-03-01 14:00`, `1.3.2025 14 Uhr`) and the ranges the
 * history products accept. Times are local to the place; accumulated values count whole UTC days, as
 * the service does.
 */
import {
  DateBeforeRecordsError,
  InvalidDateError,
  InvalidRangeError,
  NoSuchDateError,
  type DateField,
} from './errors.js';
import { readTimeOfDay } from '../../services/schedules/input.js';
import { offsetAt, wallToUnix, type PlaceClock } from './zones.js';

export interface LocalDateTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  /** False when only a date was typed: a start then means 00:00 and an end the day's last hour. */
  hasTime: boolean;
}

const HOUR = 3600;
const DAY = 86_400;
/** UTC+14 (Kiribati's Line Islands): where a calendar day begins first. */
const EASTERNMOST_OFFSET = 14 * HOUR;

/** Upstream answers at most a week of hourly history per call. */
export const HISTORY_MAX_HOURS = 168;
/**
 * The most hourly records a history range may hold: a week on the place's clock (Monday 00:00 to
 * Sunday 23:00) holds one more than {@link HISTORY_MAX_HOURS} when the autumn change repeats an hour.
 */
export const HISTORY_MAX_RECORDS = HISTORY_MAX_HOURS + 1;
export const HISTORY_DEFAULT_HOURS = 24;
/** The longest range of accumulated values the service answers. */
export const ACCUMULATED_MAX_DAYS = 366;
/**
 * The service's records begin with Unix time 0 (1970-01-01 UTC); the client refuses to ask for an
 * earlier time.
 */
export const RECORDS_BEGIN_YEAR = 1970;

/** A date, then after a space (a `T`, a comma) the time of day, if any. */
const ISO = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:T|,?\s+)(\S.*))?$/;
const GERMAN = /^(\d{1,2})\.(\d{1,2})\.(\d{4})(?:,?\s+(\S.*))?$/;

/**
 * Reads `YYYY-MM-DD[ time]` or `DD.MM.YYYY[ time]`, the time in the forms schedules take (`14:00`,
 * `14.00`, `14 Uhr`, `2:30 pm`; see `readTimeOfDay`); throws `InvalidDateError` for anything else,
 * `NoSuchDateError` for a day or time written so but that does not exist (`2026-11-31`, `24:00`),
 * and `DateBeforeRecordsError` for a day before {@link RECORDS_BEGIN_YEAR}.
 */
export function parseDateTime(field: Exclude<DateField, 'date'>, text: string): LocalDateTime {
  const trimmed = text.trim();
  const iso = ISO.exec(trimmed);
  const german = iso ? undefined : GERMAN.exec(trimmed);
  const parts = iso
    ? { year: iso[1], month: iso[2], day: iso[3], time: iso[4] }
    : german
      ? { year: german[3], month: german[2], day: german[1], time: german[4] }
      : undefined;
  if (!parts) throw new InvalidDateError(field, text);
  const typedTime = parts.time;
  const time = typedTime === undefined ? undefined : readTimeOfDay(typedTime);
  if (typedTime !== undefined && time === undefined) throw new InvalidDateError(field, text);
  const value: LocalDateTime = {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: time?.hour ?? 0,
    minute: time?.minute ?? 0,
    hasTime: time !== undefined,
  };
  const { year, month, day } = value;
  if (month < 1 || month > 12) throw new NoSuchDateError(field, { kind: 'month', month });
  // Not `Date.UTC`, which reads the years 0 to 99 as 1900 to 1999: `0001-01-01` is a date too.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) {
    throw new NoSuchDateError(field, { kind: 'date', year, month, day });
  }
  if (typedTime !== undefined && time?.exists === false) {
    throw new NoSuchDateError(field, { kind: 'time', time: typedTime });
  }
  if (value.year < RECORDS_BEGIN_YEAR) throw new DateBeforeRecordsError(field, trimmed);
  return value;
}

/** The Unix time of a local date and time at a place, with the offset its clock had then. */
export function localToUnix(value: LocalDateTime, clock: PlaceClock): number {
  return wallToUnix(clock, Date.UTC(value.year, value.month - 1, value.day, value.hour, value.minute) / 1000);
}

export interface UnixRange {
  /** Unix seconds, inclusive. */
  start: number;
  end: number;
}

export interface HistoryRequest {
  start?: LocalDateTime | undefined;
  end?: LocalDateTime | undefined;
  /** How many hours, counted from `start`, back from `end`, or back from now. */
  hours?: number | undefined;
}

/**
 * The hours to fetch: from `start` to `end`, or `hours` from `start` or back from `end` (or now);
 * 24 hours when nothing is given. The service lists whole hours (`dt` on the hour) within the
 * range, so a range counted in hours is laid on that grid: the last 24 hours at 14:35 run from
 * 15:00 yesterday, and 24 records come back rather than 23. The end is cut at now, and the start
 * at the beginning of the records (1970-01-01 00:00 local is before it east of Greenwich); an end
 * before that beginning, and more than a week, are refused. A week is 168 hours in UTC or on the
 * place's clock: the week of the autumn change holds 169 records (see `historyCalls`).
 */
export function resolveHistoryRange(
  request: HistoryRequest,
  where: { nowSec: number; clock: PlaceClock },
): UnixRange {
  const { start, end, hours } = request;
  if (start && end && hours !== undefined) throw new InvalidRangeError('end-and-hours');
  const span = ((hours ?? HISTORY_DEFAULT_HOURS) - 1) * HOUR;
  const startSec = start ? localToUnix(start, where.clock) : undefined;
  const endSec = end
    ? end.hasTime
      ? localToUnix(end, where.clock)
      : lastRecordOf(end, where.clock)
    : undefined;
  if (end && endSec !== undefined && endSec < 0) throw new DateBeforeRecordsError('end', formatLocal(end));
  let range: UnixRange;
  if (startSec !== undefined && endSec !== undefined) range = { start: startSec, end: endSec };
  else if (startSec !== undefined) range = { start: startSec, end: Math.ceil(startSec / HOUR) * HOUR + span };
  else {
    const last = endSec ?? where.nowSec;
    range = { start: Math.floor(last / HOUR) * HOUR - span, end: last };
  }
  if (range.start > where.nowSec) throw new InvalidRangeError('future');
  range.start = Math.max(range.start, 0);
  range.end = Math.min(range.end, where.nowSec);
  if (range.end < range.start) throw new InvalidRangeError('order');
  // The records are the whole hours from the start rounded up to the end rounded down (14:30 to
  // 14:30 a week later holds 168, not 169); the week on the place's clock runs between them.
  const first = Math.ceil(range.start / HOUR) * HOUR;
  const last = Math.floor(range.end / HOUR) * HOUR;
  const hoursFrom = (from: number, to: number) => Math.floor((to - from) / HOUR) + 1;
  const wall = (unix: number) => unix + offsetAt(where.clock, unix);
  const records = hoursFrom(first, last);
  if (
    records > HISTORY_MAX_HOURS &&
    (records > HISTORY_MAX_RECORDS || hoursFrom(wall(first), wall(last)) > HISTORY_MAX_HOURS)
  ) {
    throw new InvalidRangeError('too-long', { max: HISTORY_MAX_HOURS, unit: 'hours' });
  }
  return range;
}

/**
 * A history range in the service's calls, each of at most {@link HISTORY_MAX_HOURS} hourly records,
 * the most it answers at once. A week on the place's clock that holds the autumn change has 169
 * records: it is asked in two calls and their lists joined, rather than cutting an hour the member
 * asked for (and saying so) from a range typed as Monday to Sunday. That costs a second call in the
 * one week a year it happens; the pieces lie on whole hours, so neither repeats nor leaves out a record.
 */
export function historyCalls(range: UnixRange): UnixRange[] {
  const calls: UnixRange[] = [];
  let start = range.start;
  for (;;) {
    const last = Math.ceil(start / HOUR) * HOUR + (HISTORY_MAX_HOURS - 1) * HOUR;
    // The range's last record is its end rounded down: an end at 14:35 has its last at 14:00.
    if (last >= Math.floor(range.end / HOUR) * HOUR) return [...calls, { start, end: range.end }];
    calls.push({ start, end: last });
    start = last + HOUR;
  }
}

/**
 * The last record of a local day: the last whole UTC hour before the next local midnight. That is
 * 23:00 local where the offset is whole hours, and 23:30 in India or Adelaide, where 23:00 would
 * leave the day's last record out.
 */
function lastRecordOf(day: LocalDateTime, clock: PlaceClock): number {
  const nextMidnight = wallToUnix(clock, Date.UTC(day.year, day.month - 1, day.day + 1) / 1000);
  return Math.floor((nextMidnight - 1) / HOUR) * HOUR;
}

const pad = (value: number, length = 2) => String(value).padStart(length, '0');

/** `1970-01-01 00:30`, or the date alone when no time was typed. */
function formatLocal(value: LocalDateTime): string {
  const date = `${pad(value.year, 4)}-${pad(value.month)}-${pad(value.day)}`;
  return value.hasTime ? `${date} ${pad(value.hour)}:${pad(value.minute)}` : date;
}

/**
 * Whole UTC days from `start` to `end` (default: today), up to now: an end after today is cut at now,
 * as a history range is, and the service sums the days that are over. A range of more than
 * {@link ACCUMULATED_MAX_DAYS} days asked for is refused, as is one that starts after today.
 */
export function resolveDayRange(
  request: { start: LocalDateTime; end?: LocalDateTime | undefined },
  nowSec: number,
): UnixRange {
  const dayOf = (value: LocalDateTime) => Date.UTC(value.year, value.month - 1, value.day) / 1000;
  const start = dayOf(request.start);
  if (start < 0) throw new DateBeforeRecordsError('start', formatLocal(request.start));
  const lastDay = request.end ? dayOf(request.end) : Math.floor(nowSec / DAY) * DAY;
  if (start > nowSec) {
    // The first UTC day may already be today east of UTC (Sydney's morning): then say why it is
    // refused. Only once it has begun somewhere: the easternmost zones are 14 hours ahead of UTC.
    throw new InvalidRangeError(start <= nowSec + EASTERNMOST_OFFSET ? 'utc-future' : 'future');
  }
  if (lastDay < start) throw new InvalidRangeError('order');
  if ((lastDay - start) / DAY + 1 > ACCUMULATED_MAX_DAYS) {
    throw new InvalidRangeError('too-long', { max: ACCUMULATED_MAX_DAYS, unit: 'days' });
  }
  return { start, end: Math.min(lastDay + DAY - 1, nowSec) };
}

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

/**
 * The last day of a month whose statistics the service keeps: 28 February, as its year has 365
 * days ("all 365 days of the entire year"), though 29 February is a calendar day of some years.
 */
const LAST_DAY_WITH_STATISTICS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

/**
 * The calendar day `/weather stats` shows when a member leaves out the month, the day or both: the
 * place's today for what is left out, the day kept within the month asked for and its statistics
 * (31 July with month 2 is 28 February; 29 February is shown only when asked for, and says the
 * service has none). A day the month of today lacks (31 in November) is refused saying the month
 * was not given.
 */
export function defaultCalendarDay(
  today: { month: number; day: number },
  asked: { month: number | null; day: number | null },
): { month: number; day: number } {
  const month = asked.month ?? today.month;
  const day = asked.day ?? Math.min(today.day, LAST_DAY_WITH_STATISTICS[month - 1] ?? today.day);
  return checkCalendarDay(month, day, asked.month !== null);
}

/**
 * A calendar day of any year (29 February included); throws `NoSuchDateError` for 31 April, saying
 * whether the member gave the month (`monthGiven`) or it was today's.
 */
export function checkCalendarDay(
  month: number,
  day: number,
  monthGiven = true,
): { month: number; day: number } {
  const days = DAYS_IN_MONTH[month - 1];
  if (days === undefined) throw new NoSuchDateError('date', { kind: 'month', month });
  if (!Number.isInteger(day) || day < 1 || day > days) {
    throw new NoSuchDateError('date', { kind: 'calendar-day', month, day, monthGiven });
  }
  return { month, day };
}
