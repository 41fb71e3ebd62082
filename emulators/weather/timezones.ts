/**
 * Civil time at a location: the shift from UTC (`timezone` in the service's answers) and local dates
 * and times. The real service gives a place's actual civil offset at the instant concerned, daylight
 * saving and half-hour zones included (Berlin 3600 in winter and 7200 in summer, Mumbai 19800), so
 * the emulator reads it from the IANA time-zone database through `Intl`.
 */
import tzLookup from '@photostructure/tz-lookup';
import { nearbyPlaces } from './places.js';

const HOUR = 3600;
const DAY = 86_400;

/**
 * How far from a gazetteer place coordinates may lie and still keep its clock, when the zone map
 * below has no zone for them (it has one for every point on Earth, so this is a last resort).
 */
export const ZONE_RADIUS_KM = 100;

/** Where civil time is asked for: the coordinates and, when known, the IANA zone. */
export interface Clock {
  lon: number;
  timeZone: string | undefined;
}

/**
 * The IANA zone for coordinates: the zone whose borders hold the point
 * (@photostructure/tz-lookup, a compact map of the zone borders: Vancouver, which the gazetteer
 * lacks, keeps Pacific time with its daylight saving; the open sea gets the `Etc/GMT±n` zones of
 * nautical time, whole hours by longitude), else the nearest place's within the radius.
 */
export function timeZoneFor(lat: number, lon: number): string | undefined {
  try {
    const zone = tzLookup(lat, lon);
    zoneOffset(zone, 0);
    return zone;
  } catch {
    return nearbyPlaces(lat, lon, ZONE_RADIUS_KM)[0]?.timeZone;
  }
}

const formats = new Map<string, Intl.DateTimeFormat>();
const offsets = new Map<string, number>();

/** `GMT+05:30`, `GMT-03:00`, `GMT` → seconds east of UTC. */
function parseOffset(text: string): number {
  const match = /^GMT(?:([+-])(\d{1,2})(?::(\d{2}))?)?$/.exec(text.replace('−', '-'));
  if (!match) throw new Error(`unexpected time-zone offset ${text}`);
  const [, sign, hours = '0', minutes = '0'] = match;
  return (sign === '-' ? -1 : 1) * (Number(hours) * HOUR + Number(minutes) * 60);
}

/** The shift from UTC, in seconds, of IANA zone `timeZone` at Unix time `t`. */
export function zoneOffset(timeZone: string, t: number): number {
  // Offsets change only at transitions, and every zone's transitions fall on a quarter hour (UTC):
  // one look-up per quarter hour keeps a 96-hour forecast from formatting 96 dates.
  const key = `${timeZone}|${Math.floor(t / 900)}`;
  const known = offsets.get(key);
  if (known !== undefined) return known;
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' });
    formats.set(timeZone, format);
  }
  const name = format.formatToParts(new Date(t * 1000)).find((part) => part.type === 'timeZoneName');
  const offset = parseOffset(name?.value ?? 'GMT');
  if (offsets.size >= 10_000) offsets.clear();
  offsets.set(key, offset);
  return offset;
}

/** The shift from UTC (seconds) at `clock` at Unix time `t`: `timezone` in the service's answers. */
export function utcOffset(clock: Clock, t: number): number {
  return clock.timeZone === undefined ? Math.round(clock.lon / 15) * HOUR : zoneOffset(clock.timeZone, t);
}

/**
 * The Unix time at which the local wall clock shows `wall` (seconds since the epoch as if local time
 * were UTC). A wall time skipped by a spring-forward change maps past the gap (by the length of the
 * gap); a repeated one to either of its occurrences. Midnight and 6, 12 and 18 h, the times the daily
 * forecast asks for, fall in neither in the gazetteer's zones, except where a zone changes at midnight.
 */
export function localToUnix(clock: Clock, wall: number): number {
  const guess = wall - utcOffset(clock, wall);
  const t = wall - utcOffset(clock, guess);
  // Inside the spring-forward gap the two look-ups disagree: take the later instant, past the gap.
  return utcOffset(clock, t) === utcOffset(clock, guess) ? t : Math.max(t, guess);
}

/** The local date (whole days since 1970-01-01, local) that contains Unix time `t`. */
export function localDay(clock: Clock, t: number): number {
  return Math.floor((t + utcOffset(clock, t)) / DAY);
}

/** `YYYY-MM-DD HH:MM:SS` in UTC. */
export function utcDateTimeText(t: number): string {
  return new Date(t * 1000).toISOString().slice(0, 19).replace('T', ' ');
}
