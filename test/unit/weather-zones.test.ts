/** A place's wall clock in other seasons, when the service tells only today's offset. */
import { describe, expect, it } from 'vitest';
import { parseDateTime, resolveHistoryRange } from '../../src/domain/weather/dates.js';
import {
  canonicalTimeZone,
  countryOfLabel,
  offsetAt,
  placeClock,
  timeZoneNames,
  timeZonesMatching,
  wallToUnix,
  zoneOffset,
} from '../../src/domain/weather/zones.js';

const HOUR = 3600;
const unix = (...parts: [number, number, number, number?, number?]) =>
  Date.UTC(parts[0], parts[1] - 1, parts[2], parts[3] ?? 0, parts[4] ?? 0) / 1000;
/** Wall-clock time as if local time were UTC. */
const wall = unix;

/** What current weather says in Berlin on 15 July 2026 at noon UTC. */
const BERLIN_IN_JULY = placeClock(2 * HOUR, unix(2026, 7, 15, 12), 'DE');

describe('a place’s clock', () => {
  it('reads IANA offsets, daylight saving and half hours included', () => {
    expect(zoneOffset('Europe/Berlin', unix(2026, 1, 15, 12))).toBe(HOUR);
    expect(zoneOffset('Europe/Berlin', unix(2026, 7, 15, 12))).toBe(2 * HOUR);
    expect(zoneOffset('Asia/Kolkata', unix(2026, 7, 15, 12))).toBe(5.5 * HOUR);
    expect(zoneOffset('America/St_Johns', unix(2026, 1, 15, 12))).toBe(-3.5 * HOUR);
  });

  it('gives Berlin, seen in July, its winter offset in January', () => {
    expect(offsetAt(BERLIN_IN_JULY, unix(2026, 1, 15, 7))).toBe(HOUR);
    expect(offsetAt(BERLIN_IN_JULY, unix(2026, 7, 20, 7))).toBe(2 * HOUR);
  });

  it('reads a January morning in Berlin as UTC+1, asked in July', () => {
    const range = resolveHistoryRange(
      { start: parseDateTime('start', '2026-01-15 08:00'), hours: 3 },
      { nowSec: unix(2026, 7, 15, 12), clock: BERLIN_IN_JULY },
    );
    expect(range).toEqual({ start: unix(2026, 1, 15, 7), end: unix(2026, 1, 15, 9) });
  });

  it('takes the first of a repeated hour and reads a skipped one just after the gap', () => {
    // 26 October 2025, 02:30 happens twice in Berlin (00:30 and 01:30 UTC).
    expect(wallToUnix(BERLIN_IN_JULY, wall(2025, 10, 26, 2, 30))).toBe(unix(2025, 10, 26, 0, 30));
    // 30 March 2025, 02:30 does not happen: 03:30 CEST, 01:30 UTC.
    expect(wallToUnix(BERLIN_IN_JULY, wall(2025, 3, 30, 2, 30))).toBe(unix(2025, 3, 30, 1, 30));
    expect(wallToUnix(BERLIN_IN_JULY, wall(2025, 3, 30, 4))).toBe(unix(2025, 3, 30, 2));
  });

  it('keeps the present offset where the country’s zones that show it disagree at the date', () => {
    // UTC−7 in July is Los Angeles (PDT) and Phoenix (MST, no daylight saving) alike; in January
    // they differ by an hour.
    const west = placeClock(-7 * HOUR, unix(2026, 7, 15, 12), 'US');
    expect(west.zones).toEqual(expect.arrayContaining(['America/Los_Angeles', 'America/Phoenix']));
    expect(offsetAt(west, unix(2026, 7, 20, 12))).toBe(-7 * HOUR);
    expect(offsetAt(west, unix(2026, 1, 15, 12))).toBe(-7 * HOUR);
    // UTC−5 in July is the Central zones only, which agree in January too.
    const central = placeClock(-5 * HOUR, unix(2026, 7, 15, 12), 'US');
    expect(central.zones).toContain('America/Chicago');
    expect(offsetAt(central, unix(2026, 1, 15, 12))).toBe(-6 * HOUR);
  });

  it('takes the zone at the place’s coordinates, where its country’s zones disagree', () => {
    // Asked on 4 April 2025: Sydney and Lord Howe Island both say UTC+11 until 6 April, then
    // UTC+10 and UTC+10:30.
    const asked = unix(2025, 4, 4, 12);
    const after = unix(2025, 4, 7, 12);
    const sydney = placeClock(11 * HOUR, asked, 'AU', { lat: -33.8688, lon: 151.2093 });
    expect(offsetAt(sydney, after)).toBe(10 * HOUR);
    const lordHowe = placeClock(11 * HOUR, asked, 'AU', { lat: -31.5553, lon: 159.0821 });
    expect(offsetAt(lordHowe, after)).toBe(10.5 * HOUR);
  });

  it('falls back to the country’s zones when the zone at the coordinates does not show the service’s offset', () => {
    // Coordinates in Berlin, but the service says UTC−5 in July, in the US: the Central zones.
    const clock = placeClock(-5 * HOUR, unix(2026, 7, 15, 12), 'US', { lat: 52.52, lon: 13.405 });
    expect(clock.zones).toContain('America/Chicago');
    expect(offsetAt(clock, unix(2026, 1, 15, 12))).toBe(-6 * HOUR);
  });

  it('keeps the present offset without a known country or a zone showing it', () => {
    expect(placeClock(HOUR, unix(2026, 7, 15, 12), undefined)).toEqual({ timezone: HOUR });
    expect(placeClock(HOUR, unix(2026, 7, 15, 12), 'ZZ')).toEqual({ timezone: HOUR });
    // Berlin never says UTC+3.
    const odd = placeClock(3 * HOUR, unix(2026, 7, 15, 12), 'DE');
    expect(offsetAt(odd, unix(2026, 1, 15, 12))).toBe(3 * HOUR);
  });

  it('finds the country at the end of a place’s label only', () => {
    expect(countryOfLabel('Berlin, Berlin, DE')).toBe('DE');
    expect(countryOfLabel('Mumbai, IN')).toBe('IN');
    expect(countryOfLabel('Somewhere, Very Long Na…')).toBeUndefined();
    expect(countryOfLabel('My place')).toBeUndefined();
  });
});

describe('time zones as members type them', () => {
  it('are spelled as IANA spells them, whatever the case typed', () => {
    expect(canonicalTimeZone('america/chicago')).toBe('America/Chicago');
    expect(canonicalTimeZone(' EUROPE/BERLIN ')).toBe('Europe/Berlin');
    expect(canonicalTimeZone('AMERICA/PORT-AU-PRINCE')).toBe('America/Port-au-Prince');
    expect(canonicalTimeZone('utc')).toBe('UTC');
    // Typed with spaces, as the suggestions read them.
    expect(canonicalTimeZone('America/New York')).toBe('America/New_York');
    expect(canonicalTimeZone('america/argentina/buenos  aires')).toBe('America/Argentina/Buenos_Aires');
    expect(canonicalTimeZone('etc/gmt+5')).toBe('Etc/GMT+5');
  });

  it('are not abbreviations, which the runtime reads as zones people rarely mean', () => {
    for (const typed of ['EST', 'cst', 'IST', 'BST', 'GMT', 'CET', 'MST', 'pdt'])
      expect(canonicalTimeZone(typed), typed).toBeUndefined();
    expect(canonicalTimeZone('US/Eastern')).toBe('America/New_York');
    // Legacy names of one place keep that place's clock, summer time included.
    for (const [typed, like] of [
      ['EST5EDT', 'America/New_York'],
      ['Japan', 'Asia/Tokyo'],
    ] as const) {
      const zone = canonicalTimeZone(typed);
      expect(zone, typed).toBeDefined();
      for (const month of [0, 6]) {
        const at = Date.UTC(2026, month, 15) / 1000;
        expect(zoneOffset(zone!, at), `${typed} in month ${month + 1}`).toBe(zoneOffset(like, at));
      }
    }
  });

  it('are spelled as autocomplete offers them, old names as the current ones', () => {
    for (const { name, aliases } of timeZoneNames()) {
      expect(canonicalTimeZone(name.toLowerCase())).toBe(name);
      for (const alias of aliases) expect(canonicalTimeZone(alias.toLowerCase()), alias).toBe(name);
    }
  });

  it('keep the current name of a renamed zone, where Node 20 resolves it to the old one', () => {
    const current = [
      'Europe/Kyiv',
      'America/Nuuk',
      'Asia/Kolkata',
      'Asia/Kathmandu',
      'Asia/Ho_Chi_Minh',
      'Asia/Yangon',
      'Pacific/Kanton',
    ];
    for (const zone of current) {
      expect(canonicalTimeZone(zone), zone).toBe(zone);
      expect(canonicalTimeZone(zone.toUpperCase()), zone).toBe(zone);
    }
    expect(canonicalTimeZone('europe/kiev')).toBe('Europe/Kyiv');
    expect(canonicalTimeZone('Asia/Calcutta')).toBe('Asia/Kolkata');
    expect(canonicalTimeZone('America/Godthab')).toBe('America/Nuuk');
    // Linked to Kyiv since tzdb 2022g; the runtime resolves it to the old name.
    expect(canonicalTimeZone('Europe/Uzhgorod')).toBe('Europe/Kyiv');
    expect(canonicalTimeZone('etc/utc')).toBe('UTC');
  });

  it('are refused when no such zone exists', () => {
    for (const typed of ['', '   ', 'Mars/Olympus_Mons', 'America/Chicago/']) {
      expect(canonicalTimeZone(typed), typed).toBeUndefined();
    }
  });
});

describe('time zones offered in autocomplete', () => {
  it('are current IANA names this runtime accepts, UTC among them', () => {
    const names = timeZoneNames().map((zone) => zone.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'UTC',
        'Asia/Kolkata',
        'Europe/Kyiv',
        'America/Nuuk',
        'Asia/Kathmandu',
        'Asia/Ho_Chi_Minh',
        'Asia/Yangon',
        'Pacific/Kanton',
        'Europe/Berlin',
      ]),
    );
    expect(names).not.toContain('Asia/Calcutta');
    expect(names).not.toContain('Europe/Kiev');
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) {
      expect(() => new Intl.DateTimeFormat('en', { timeZone: name }), name).not.toThrow();
    }
  });

  it('are found by their old names too, in any case and with spaces for underscores', () => {
    expect(timeZonesMatching('utc')).toEqual(['UTC']);
    expect(timeZonesMatching('kolkata')).toEqual(['Asia/Kolkata']);
    expect(timeZonesMatching('Calcutta')).toEqual(['Asia/Kolkata']);
    expect(timeZonesMatching('kiev')).toEqual(['Europe/Kyiv']);
    expect(timeZonesMatching('godthab')).toEqual(['America/Nuuk']);
    expect(timeZonesMatching('ho chi')).toEqual(['Asia/Ho_Chi_Minh']);
    expect(timeZonesMatching('berl')).toEqual(['Europe/Berlin']);
  });
});
