/** Reading what a server owner types for a schedule: a time of day and days of the week. */

/** A time of day as written, on the 24-hour clock; `exists` is false for one no clock shows. */
export interface TypedTime {
  hour: number;
  minute: number;
  /** False for `24:00`, `7:75`, `13 pm`: written as a time, but none a day has. */
  exists: boolean;
}

/**
 * A time in the forms `parseTimeOfDay` reads, also when it is none a day has (`24:00`, `13 pm`), so
 * that a caller can say why it is refused; undefined when the text is not written as a time.
 */
export function readTimeOfDay(input: string): TypedTime | undefined {
  const match = /^\s*(\d{1,2})(?:[:.h](\d{2}))?\s*(am|pm|uhr|h)?\s*$/i.exec(input);
  if (!match) return undefined;
  const hour = Number(match[1]);
  const minute = match[2] === undefined ? 0 : Number(match[2]);
  const suffix = match[3]?.toLowerCase();
  if (suffix === 'am' || suffix === 'pm') {
    return {
      hour: (hour % 12) + (suffix === 'pm' ? 12 : 0),
      minute,
      exists: hour >= 1 && hour <= 12 && minute <= 59,
    };
  }
  // A bare number that could be morning or evening.
  if (match[2] === undefined && suffix === undefined && hour < 13) return undefined;
  return { hour, minute, exists: hour <= 23 && minute <= 59 };
}

/**
 * `7:05`, `07:05`, `19:30`, `7pm`, `7:30 am`, `19 Uhr`, `7.30 Uhr`, `19h`, `19` → `HH:MM` (24 h), or
 * undefined when it is not a time. A bare hour is read only from 13 on: `7` could be morning or
 * evening, `19` cannot; with `Uhr` or `h` (German and French usage) an hour is a 24-hour one.
 */
export function parseTimeOfDay(input: string): string | undefined {
  const time = readTimeOfDay(input);
  if (!time?.exists) return undefined;
  return `${String(time.hour).padStart(2, '0')}:${String(time.minute).padStart(2, '0')}`;
}

const DAY_NAMES: Record<string, number> = {
  sun: 0,
  sunday: 0,
  so: 0,
  sonntag: 0,
  su: 0,
  mon: 1,
  monday: 1,
  mo: 1,
  montag: 1,
  tue: 2,
  tues: 2,
  tuesday: 2,
  di: 2,
  dienstag: 2,
  tu: 2,
  wed: 3,
  weds: 3,
  wednesday: 3,
  mi: 3,
  mittwoch: 3,
  we: 3,
  thu: 4,
  thur: 4,
  thurs: 4,
  thursday: 4,
  do: 4,
  donnerstag: 4,
  th: 4,
  fri: 5,
  friday: 5,
  fr: 5,
  freitag: 5,
  sat: 6,
  saturday: 6,
  sa: 6,
  samstag: 6,
};
const GROUPS: Record<string, number[]> = {
  weekdays: [1, 2, 3, 4, 5],
  weekday: [1, 2, 3, 4, 5],
  werktags: [1, 2, 3, 4, 5],
  werktage: [1, 2, 3, 4, 5],
  wochentags: [1, 2, 3, 4, 5],
  wochentage: [1, 2, 3, 4, 5],
  weekends: [0, 6],
  weekend: [0, 6],
  wochenende: [0, 6],
  wochenenden: [0, 6],
  daily: [],
  everyday: [],
  täglich: [],
};
/** German's full day names, whose `-s` form says "on Mondays" (`montags`, `mittwochs`). */
const GERMAN_DAYS: ReadonlySet<string> = new Set([
  'sonntag',
  'montag',
  'dienstag',
  'mittwoch',
  'donnerstag',
  'freitag',
  'samstag',
]);

/** A day's number from its name, English or German, short or long, or German's `montags` form. */
function dayOf(word: string): number | undefined {
  const day = lookUp(DAY_NAMES, word);
  if (day !== undefined) return day;
  const singular = word.slice(0, -1);
  return word.endsWith('s') && GERMAN_DAYS.has(singular) ? lookUp(DAY_NAMES, singular) : undefined;
}
/** `every day`, `jeden Tag`, `alle Tage`: two words for every day. */
const EVERY_DAY = /^\s*(every\s+day|jeden\s+tag|alle\s+tage)\s*$/i;

/**
 * A word's entry in a table of words, its own only: `constructor` or `__proto__`, typed by a
 * member, must not find what every object inherits (a range to `constructor` never ended).
 */
function lookUp<T>(table: Record<string, T>, word: string): T | undefined {
  return Object.hasOwn(table, word) ? table[word] : undefined;
}

/**
 * `mon,wed,fri`, `mo,we,fr`, `weekdays`, `wochentags`, `Werktage`, `mon-fri`, `mon – fri`, `mon to
 * fri`, `Mo bis Fr`, `sat sun`, `Sat and Sun`, `Sa+So`, `Mo-Fr`, `Mo., Mi.`, `montags`, `every day` →
 * sorted day numbers (0 = Sunday); `[]` means every day. Throws with the word it could not read.
 */
export function parseDays(input: string): number[] {
  const days = new Set<number>();
  if (EVERY_DAY.test(input)) return [];
  const words = input
    .toLowerCase()
    // `Mo., Mi.` and `Mo.-Fr.`, as German abbreviations are written: the dots are no part of a day
    // (taken out first, so that `Mo.bis Fr.` reads as `Mo bis Fr`).
    .replace(/\./g, ' ')
    // `mon to fri`, `Mo bis Fr`: a range in words, as `mon-fri` is.
    .replace(/\s+(?:to|through|thru|bis)\s+/g, '-')
    // `Sat and Sun`, `Samstag und Sonntag`, `Sa & So`, `Sa+So`: a list, as `sat,sun` is.
    .replace(/\s+(?:and|und)\s+/g, ',')
    .replace(/[&+]/g, ',')
    // `mon – fri`, as phones type a dash: one range, as `mon-fri` is.
    .replace(/\s*[-\u2010-\u2015\u2212]\s*/g, '-')
    .split(/[\s,;]+/)
    .filter(Boolean);
  if (words.length === 0) {
    // Nothing but dots is no day: left as nothing at all, it would mean every day.
    if (input.includes('.')) throw new Error(`"${input.trim()}" is not a day of the week`);
    return [];
  }
  for (const word of words) {
    const group = lookUp(GROUPS, word);
    if (group) {
      if (group.length === 0) return [];
      group.forEach((day) => days.add(day));
      continue;
    }
    const range = /^([a-zä]+)-([a-zä]+)$/.exec(word);
    if (range) {
      const from = dayOf(range[1]!);
      const to = dayOf(range[2]!);
      if (from === undefined || to === undefined) throw new Error(`"${word}" is not a range of days`);
      for (let day = from; ; day = (day + 1) % 7) {
        days.add(day);
        if (day === to) break;
      }
      continue;
    }
    const day = dayOf(word);
    if (day === undefined) throw new Error(`"${word}" is not a day of the week`);
    days.add(day);
  }
  return days.size === 7 ? [] : [...days].sort((a, b) => a - b);
}

/**
 * The hour of a bare `1` to `12` that {@link parseTimeOfDay} refuses because it could be morning
 * or evening (`7`), so the refusal can say so; undefined for anything else.
 */
export function ambiguousHour(input: string): number | undefined {
  const match = /^\s*(\d{1,2})\s*$/.exec(input);
  const hour = Number(match?.[1]);
  return match !== null && hour >= 1 && hour <= 12 ? hour : undefined;
}
