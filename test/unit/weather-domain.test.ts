/** What the weather replies are made from: chosen place values, typed dates, ranges, units. */
import { describe, expect, it } from 'vitest';
import {
  checkCalendarDay,
  parseDateTime,
  resolveDayRange,
  resolveHistoryRange,
  defaultCalendarDay,
  historyCalls,
} from '../../src/domain/weather/dates.js';
import {
  DateBeforeRecordsError,
  InvalidDateError,
  InvalidRangeError,
  NoSuchDateError,
  WeatherKeyRejectedError,
} from '../../src/domain/weather/errors.js';
import {
  decodePlace,
  encodePlace,
  placeFromLocation,
  placeLabel,
  resolvePlace,
  suggestPlaces,
} from '../../src/domain/weather/places.js';
import { HttpError } from '../../src/services/http/errors.js';
import {
  WeatherForbiddenError,
  WeatherInvalidKeyError,
  WeatherNotFoundError,
  type WeatherClient,
} from '../../src/services/weather/index.js';
import { defaultUnitsFor, fromKelvin, toKelvin } from '../../src/domain/weather/units.js';
import { localCalendarDay } from '../../src/domain/weather/zones.js';

const HOUR = 3600;
/** 2025-03-10 12:00 UTC. */
const NOW = Date.UTC(2025, 2, 10, 12) / 1000;

describe('place values', () => {
  it('carry coordinates and the label, and come back unchanged', () => {
    const place = { lat: 37.2153, lon: -93.2982, label: 'Springfield, Missouri, US' };
    const value = encodePlace(place);
    expect(value).toBe('geo:37.2153,-93.2982|Springfield, Missouri, US');
    expect(decodePlace(value)).toEqual(place);
  });

  it('stay within 100 characters with a very long name', () => {
    const value = encodePlace({ lat: -33.86987, lon: 151.20835, label: 'Ö🌧'.repeat(200) });
    expect(value.length).toBeLessThanOrEqual(100);
    expect(decodePlace(value)?.lat).toBe(-33.8699);
  });

  it('are not trusted when forged or typed', () => {
    for (const value of [
      'Springfield',
      'geo:91,0|North',
      'geo:0,181|East',
      'geo:1,2|',
      'geo:a,b|X',
      'geo:1,2',
    ]) {
      expect(decodePlace(value), value).toBeUndefined();
    }
  });

  it('show a typed label as a place name only, without markdown, mentions or links', () => {
    const typed = (label: string) => decodePlace(`geo:0,0|${label}`)?.label;
    expect(typed('@everyone **pwn** <@123>')).toBe('everyone pwn 123');
    expect(typed('[Free nitro](https://evil.example)')).toBe('Free nitro (https //evil.example)');
    expect(typed('||spoiler|| `code` ~~x~~ __y__ # big\n-# small')).toBe('spoiler code x y big - small');
    // Right-to-left overrides and zero-width characters would hide what the name says.
    expect(typed('Paris\u202Esirap\u200B')).toBe('Paris sirap');
    // Nothing left: named by the coordinates, as a place at sea is.
    expect(decodePlace('geo:-30.5,-140|*** <> ***')).toEqual({ lat: -30.5, lon: -140, label: '-30.5, -140' });
  });

  it('keep the names autocomplete offers as they are', () => {
    for (const label of [
      'Springfield, Missouri, US',
      'München, Bayern, DE',
      "St. John's, Newfoundland and Labrador, CA",
      'Frankfurt (Oder), Brandenburg, DE',
      'Westward Ho!, England, GB',
      '東京都, JP',
      'Ḩalab, Aleppo Governorate, SY',
      '-30.5, -140',
    ]) {
      expect(decodePlace(encodePlace({ lat: 1, lon: 2, label }))?.label, label).toBe(label);
    }
    const long = encodePlace({ lat: 1, lon: 2, label: 'Llanfair '.repeat(20) });
    expect(decodePlace(long)?.label).toBe(long.slice('geo:1,2|'.length));
  });

  it('name the state and country, and the local name in the member’s language', () => {
    const munich = {
      name: 'Munich',
      local_names: { de: 'München' },
      lat: 48.1,
      lon: 11.6,
      country: 'DE',
      state: 'Bavaria',
    };
    expect(placeLabel(munich, 'en')).toBe('Munich, Bavaria, DE');
    expect(placeLabel(munich, 'de')).toBe('München, Bavaria, DE');
    expect(placeLabel({ name: 'Tokyo', lat: 35.7, lon: 139.8, country: 'JP' })).toBe('Tokyo, JP');
  });

  it('names a result that has no name, state or country by its coordinates, never by nothing', () => {
    const nameless = { name: '', lat: 12.34567, lon: -45.6, local_names: { de: ' ' } };
    expect(placeLabel(nameless, 'de')).toBe('12.3457, -45.6');
    // Usable as a suggestion: a place value Discord takes and the bot reads back.
    const place = placeFromLocation(nameless, 'de');
    expect(decodePlace(encodePlace(place))).toEqual({ lat: 12.3457, lon: -45.6, label: '12.3457, -45.6' });
  });
});

describe('looking up typed places', () => {
  const refusal = (status: number) =>
    new HttpError(
      'weather',
      'GET',
      'https://api.example/geo/1.0/direct?q=Berlin&appid=[redacted]',
      status,
      'Refused',
      { cod: status, message: 'Refused' },
      'Refused',
      {},
    );

  /** A client whose geocoding fails every request with `error`. */
  function refusingClient(error: Error): WeatherClient {
    return { geocoding: { direct: () => Promise.reject(error) } } as unknown as WeatherClient;
  }

  it('blames the bot’s key when geocoding, which every plan has, is refused', async () => {
    for (const error of [new WeatherInvalidKeyError(refusal(401)), new WeatherForbiddenError(refusal(403))]) {
      await expect(resolvePlace(refusingClient(error), 'Berlin', 'en'), error.name).rejects.toBeInstanceOf(
        WeatherKeyRejectedError,
      );
      await expect(suggestPlaces(refusingClient(error), 'Ber', 'en'), error.name).rejects.toBeInstanceOf(
        WeatherKeyRejectedError,
      );
    }
  });

  it('asks again with the country when a US state code after the name found nothing', async () => {
    // The real geocoder reads `Seattle, WA` as a name and a country code, and finds nothing.
    const asked: string[] = [];
    const seattle = { name: 'Seattle', lat: 47.6, lon: -122.3, country: 'US', state: 'Washington' };
    const berlin = { name: 'Berlin', lat: 52.5, lon: 13.4, country: 'DE' };
    const client = {
      geocoding: {
        direct: ({ q }: { q: string }) => {
          asked.push(q);
          return Promise.resolve(q === 'Seattle,WA,US' ? [seattle] : q === 'Berlin, DE' ? [berlin] : []);
        },
      },
    } as unknown as WeatherClient;
    expect((await resolvePlace(client, 'Seattle, wa', 'en')).label).toBe('Seattle, Washington, US');
    expect(asked).toEqual(['Seattle, wa', 'Seattle,WA,US']);
    // A state code that is a country code too (DE: Delaware, Germany) is asked as typed first.
    asked.length = 0;
    expect((await resolvePlace(client, 'Berlin, DE', 'en')).label).toBe('Berlin, DE');
    expect(asked).toEqual(['Berlin, DE']);
    // Two letters that are no state code are not asked again.
    asked.length = 0;
    await expect(suggestPlaces(client, 'Paris, XX', 'en')).resolves.toEqual([]);
    expect(asked).toEqual(['Paris, XX']);
  });

  it('looks up postal codes by code, and names with digits by name', async () => {
    const asked: string[] = [];
    const notFound = new WeatherNotFoundError(refusal(404));
    const client = {
      geocoding: {
        zip: ({ zip, country }: { zip: string; country?: string }) => {
          asked.push(`zip ${zip}|${country ?? ''}`);
          return zip === 'K1A 0B1' && country === 'CA'
            ? Promise.resolve({ zip: 'K1A 0B1', name: 'Ottawa', lat: 45.42, lon: -75.7, country: 'CA' })
            : Promise.reject(notFound);
        },
        direct: ({ q }: { q: string }) => {
          asked.push(`name ${q}`);
          return Promise.resolve([]);
        },
      },
    } as unknown as WeatherClient;
    expect(await suggestPlaces(client, 'k1a 0b1 , ca', 'en')).toEqual([
      { lat: 45.42, lon: -75.7, label: 'Ottawa (K1A 0B1), CA' },
    ]);
    expect(asked).toEqual(['zip K1A 0B1|CA']);
    asked.length = 0;
    await expect(resolvePlace(client, '99999', 'en')).rejects.toMatchObject({
      name: 'PostalCodeNotFoundError',
      code: '99999',
      country: undefined,
    });
    expect(asked).toEqual(['zip 99999|']);
    // Swedish, Czech, Slovak and Greek codes are written with a space: off the Earth as coordinates
    // (latitude 114), they are postal codes, and the member hears to add the country.
    asked.length = 0;
    await expect(resolvePlace(client, '114 55', 'en')).rejects.toMatchObject({
      name: 'PostalCodeNotFoundError',
      code: '114 55',
    });
    expect(asked).toEqual(['zip 114 55|']);
    // Coordinates on the Earth stay coordinates, and numbers off it with a comma or a decimal too.
    await expect(resolvePlace(client, '114.5 55', 'en')).rejects.toMatchObject({
      name: 'CoordinatesOffEarthError',
    });
    await expect(resolvePlace(client, '114, 55', 'en')).rejects.toMatchObject({
      name: 'CoordinatesOffEarthError',
    });
    // Words of four letters or more beside the digits make a name: `25 de Mayo`, `Paris 13`.
    asked.length = 0;
    await expect(suggestPlaces(client, '25 de Mayo', 'en')).resolves.toEqual([]);
    await expect(suggestPlaces(client, 'Paris 13', 'en')).resolves.toEqual([]);
    expect(asked).toEqual(['name 25 de Mayo', 'name Paris 13']);
  });

  it('reads a last word that is a country code as the postal code’s country, when the whole was not found', async () => {
    const asked: string[] = [];
    const notFound = new WeatherNotFoundError(refusal(404));
    const known: Record<string, { zip: string; name: string; country: string }> = {
      '62701|US': { zip: '62701', name: 'Springfield', country: 'US' },
      '1012 AB|NL': { zip: '1012 AB', name: 'Amsterdam', country: 'NL' },
      'SW1A 1AA|GB': { zip: 'SW1A 1AA', name: 'London', country: 'GB' },
    };
    const client = {
      geocoding: {
        zip: ({ zip, country }: { zip: string; country?: string }) => {
          asked.push(`${zip}|${country ?? ''}`);
          const found = known[`${zip}|${country ?? ''}`];
          return found ? Promise.resolve({ ...found, lat: 1, lon: 2 }) : Promise.reject(notFound);
        },
      },
    } as unknown as WeatherClient;
    const label = async (typed: string) => (await suggestPlaces(client, typed, 'en'))[0]?.label;
    expect(await label('62701 us')).toBe('Springfield (62701), US');
    expect(asked).toEqual(['62701 US|', '62701|US']);
    asked.length = 0;
    // Too long for a code as typed: only the reading with the country is asked.
    expect(await label('sw1a 1aa GB')).toBe('London (SW1A 1AA), GB');
    expect(asked).toEqual(['SW1A 1AA|GB']);
    // Dutch codes end in two letters: after a comma the country is NL, and AB is no country.
    asked.length = 0;
    expect(await label('1012 AB, NL')).toBe('Amsterdam (1012 AB), NL');
    expect(await label('1012 AB')).toBeUndefined();
    expect(asked).toEqual(['1012 AB|NL', '1012 AB|']);
    // Not found either way: the member hears the country they gave, not to add one.
    await expect(resolvePlace(client, '10117 fr', 'en')).rejects.toMatchObject({
      name: 'PostalCodeNotFoundError',
      code: '10117',
      country: 'FR',
    });
  });

  it('finds a postal code then a town by the town, naming the code’s part of it when the code is there', async () => {
    const asked: string[] = [];
    const notFound = new WeatherNotFoundError(refusal(404));
    type Town = { name: string; lat: number; lon: number; country: string; local_names?: object };
    const berlin = { name: 'Berlin', lat: 52.52, lon: 13.4, country: 'DE' };
    const towns: Record<string, Town> = {
      Berlin: berlin,
      // A geocoder that also finds longer names from the start of one, as autocomplete sends it.
      Ber: berlin,
      Hamburg: { name: 'Hamburg', lat: 53.55, lon: 10, country: 'DE' },
      Rom: { name: 'Rome', lat: 41.89, lon: 12.48, country: 'IT', local_names: { de: 'Rom', it: 'Roma' } },
    };
    const client = {
      geocoding: {
        direct: ({ q }: { q: string }) => {
          asked.push(`name ${q}`);
          return Promise.resolve(towns[q] ? [towns[q]] : []);
        },
        zip: ({ zip, country }: { zip: string; country?: string }) => {
          asked.push(`zip ${zip}|${country ?? ''}`);
          return zip === '10117' && country === 'DE'
            ? Promise.resolve({ zip: '10117', name: 'Berlin', lat: 52.517, lon: 13.389, country: 'DE' })
            : Promise.reject(notFound);
        },
      },
    } as unknown as WeatherClient;
    const labels = async (typed: string) =>
      (await suggestPlaces(client, typed, 'en')).map((place) => place.label);
    expect(await labels('10117 Berlin')).toEqual(['Berlin (10117), DE']);
    expect(asked).toEqual(['name Berlin', 'zip 10117|DE']);
    // Berlin's code after another town's name: the town typed, as its name found it.
    asked.length = 0;
    expect(await labels('10117 Hamburg')).toEqual(['Hamburg, DE']);
    expect(asked).toEqual(['name Hamburg', 'zip 10117|DE']);
    // Three letters after the digits would make a postal code (`VLT 1117`): here they are a town.
    asked.length = 0;
    expect(await labels('00184 Rom')).toEqual(['Rome, IT']);
    expect(asked).toEqual(['name Rom', 'zip 00184|IT']);
    // A town half typed in autocomplete names no place of its own: the code is not asked anywhere.
    asked.length = 0;
    expect(await labels('10117 Ber')).toEqual(['Berlin, DE']);
    expect(asked).toEqual(['name Ber']);
    await expect(resolvePlace(client, '10117 Atlantis', 'en')).rejects.toMatchObject({
      name: 'PlaceNotFoundError',
      query: '10117 Atlantis',
    });
  });

  it('blames the bot’s key when a postal code look-up is refused', async () => {
    const error = new WeatherInvalidKeyError(refusal(401));
    const client = { geocoding: { zip: () => Promise.reject(error) } } as unknown as WeatherClient;
    await expect(resolvePlace(client, '90210', 'en')).rejects.toBeInstanceOf(WeatherKeyRejectedError);
  });

  it('reads coordinates written with degree signs and hemisphere letters, south and west below zero', async () => {
    /** Names nothing, so a place is named by the coordinates it was read as. */
    const client = { geocoding: { reverse: () => Promise.resolve([]) } } as unknown as WeatherClient;
    const read = async (typed: string) => (await resolvePlace(client, typed, 'en')).label;
    expect(await read('52.52 N 13.40 E')).toBe('52.52, 13.4');
    expect(await read('52.52°N, 13.40°E')).toBe('52.52, 13.4');
    expect(await read('33.9° S 18.4° E')).toBe('-33.9, 18.4');
    expect(await read('40.7128 n, 74.006 w')).toBe('40.7128, -74.006');
    expect(await read('48.2º N 16.37º E')).toBe('48.2, 16.37');
    expect(await read('52.52° 13.40°')).toBe('52.52, 13.4');
    expect(await read('-33.9, 18.4')).toBe('-33.9, 18.4');
    // A minus sign and a letter that say the same, a letter of the other axis, or a value out of
    // range are no point on the Earth, not a name to look up.
    for (const typed of ['-52 S, 13 E', '-52 N 13 E', '13.40 E 52.52 N', '95 N 13 E', '52 N 181 W']) {
      await expect(resolvePlace(client, typed, 'en'), typed).rejects.toMatchObject({
        name: 'CoordinatesOffEarthError',
        text: typed,
      });
    }
  });

  it('leaves other failures as they are', async () => {
    const error = new WeatherNotFoundError(refusal(404));
    await expect(resolvePlace(refusingClient(error), 'Berlin', 'en')).rejects.toBe(error);
  });
});

describe('typed dates', () => {
  it('read ISO and German dates, with or without a time', () => {
    expect(parseDateTime('start', '2025-03-01')).toMatchObject({
      year: 2025,
      month: 3,
      day: 1,
      hour: 0,
      hasTime: false,
    });
    expect(parseDateTime('start', '2025-03-01 14:30')).toMatchObject({ hour: 14, minute: 30, hasTime: true });
    expect(parseDateTime('end', '1.3.2025, 08:00')).toMatchObject({ year: 2025, month: 3, day: 1, hour: 8 });
  });

  it('read times in the forms the schedule commands take', () => {
    const at = (text: string) => {
      const { hour, minute, hasTime } = parseDateTime('start', text);
      return { hour, minute, hasTime };
    };
    expect(at('01.03.2025 14.00')).toEqual({ hour: 14, minute: 0, hasTime: true });
    expect(at('01.03.2025 14 Uhr')).toEqual({ hour: 14, minute: 0, hasTime: true });
    expect(at('2025-03-01 2:30 pm')).toEqual({ hour: 14, minute: 30, hasTime: true });
    expect(at('2025-03-01 12:15 am')).toEqual({ hour: 0, minute: 15, hasTime: true });
    expect(at('2025-03-01T07:05')).toEqual({ hour: 7, minute: 5, hasTime: true });
    // As for a schedule, a bare 7 could be morning or evening.
    expect(() => parseDateTime('start', '2025-03-01 7')).toThrow(InvalidDateError);
  });

  it('refuse what they cannot read', () => {
    for (const text of ['yesterday', '', '2025-03-01 noon', '1.3.25', '2025/03/01']) {
      expect(() => parseDateTime('start', text), text).toThrow(InvalidDateError);
    }
  });

  it('say which day, month or time does not exist when the form is right', () => {
    const missing = (text: string) => {
      try {
        parseDateTime('end', text);
      } catch (error) {
        return error instanceof NoSuchDateError ? error.missing : error;
      }
      return undefined;
    };
    expect(missing('2026-11-31')).toEqual({ kind: 'date', year: 2026, month: 11, day: 31 });
    expect(missing('31.11.2026')).toEqual({ kind: 'date', year: 2026, month: 11, day: 31 });
    expect(missing('2025-02-29')).toEqual({ kind: 'date', year: 2025, month: 2, day: 29 });
    expect(missing('0.3.2025')).toEqual({ kind: 'date', year: 2025, month: 3, day: 0 });
    expect(missing('2025-13-01')).toEqual({ kind: 'month', month: 13 });
    expect(missing('2026-03-01 24:00')).toEqual({ kind: 'time', time: '24:00' });
    expect(missing('01.03.2026 25 Uhr')).toEqual({ kind: 'time', time: '25 Uhr' });
    expect(missing('2026-03-01 7:75')).toEqual({ kind: 'time', time: '7:75' });
    expect(missing('2026-03-01 13 pm')).toEqual({ kind: 'time', time: '13 pm' });
    // A leap year has it.
    expect(missing('2024-02-29')).toBeUndefined();
  });

  it('refuse days before the weather service’s records begin, however far back', () => {
    for (const text of ['1900-01-01', '31.12.1969 23:59', '0001-01-01', '0000-02-29']) {
      expect(() => parseDateTime('start', text), text).toThrow(DateBeforeRecordsError);
    }
    expect(() => parseDateTime('end', ' 0001-01-01 ')).toThrow(
      expect.objectContaining({ field: 'end', text: '0001-01-01' }),
    );
    // A day that exists in no year is still no day at all.
    expect(() => parseDateTime('start', '0001-02-29')).toThrow(NoSuchDateError);
    expect(parseDateTime('start', '1970-01-01')).toMatchObject({ year: 1970, month: 1, day: 1 });
  });

  it('take the place’s today for the statistics, not the UTC date', () => {
    // 4 July 2025, 22:00 UTC: already 5 July in Sydney and Berlin, still 4 July in Los Angeles.
    const at = Date.UTC(2025, 6, 4, 22) / 1000;
    expect(localCalendarDay({ lat: -33.87, lon: 151.21 }, at)).toEqual({ month: 7, day: 5 });
    expect(localCalendarDay({ lat: 52.52, lon: 13.41 }, at)).toEqual({ month: 7, day: 5 });
    expect(localCalendarDay({ lat: 34.05, lon: -118.24 }, at)).toEqual({ month: 7, day: 4 });
    // At sea, by nautical time: 120° west is eight hours behind.
    expect(localCalendarDay({ lat: -30, lon: -120 }, Date.UTC(2025, 6, 5, 6) / 1000)).toEqual({
      month: 7,
      day: 4,
    });
  });

  it('fill in a left-out month or day from today, within the month asked for', () => {
    const today = { month: 7, day: 31 };
    expect(defaultCalendarDay(today, { month: null, day: null })).toEqual({ month: 7, day: 31 });
    // The service keeps statistics for 365 days: no 29 February, unless asked for by name.
    expect(defaultCalendarDay(today, { month: 2, day: null })).toEqual({ month: 2, day: 28 });
    expect(defaultCalendarDay({ month: 2, day: 29 }, { month: null, day: null })).toEqual({
      month: 2,
      day: 28,
    });
    expect(defaultCalendarDay(today, { month: 2, day: 29 })).toEqual({ month: 2, day: 29 });
    expect(defaultCalendarDay(today, { month: 4, day: null })).toEqual({ month: 4, day: 30 });
    expect(defaultCalendarDay(today, { month: null, day: 3 })).toEqual({ month: 7, day: 3 });
  });

  it('refuse a day this month lacks, saying the month was not given, and one the month given lacks', () => {
    const missing = (call: () => unknown) => {
      try {
        call();
      } catch (error) {
        return error instanceof NoSuchDateError ? error.missing : error;
      }
      return undefined;
    };
    expect(missing(() => defaultCalendarDay({ month: 11, day: 15 }, { month: null, day: 31 }))).toEqual({
      kind: 'calendar-day',
      month: 11,
      day: 31,
      monthGiven: false,
    });
    expect(missing(() => defaultCalendarDay({ month: 11, day: 15 }, { month: 4, day: 31 }))).toEqual({
      kind: 'calendar-day',
      month: 4,
      day: 31,
      monthGiven: true,
    });
    expect(missing(() => checkCalendarDay(4, 31))).toMatchObject({ monthGiven: true });
  });

  it('know 29 February as a calendar day', () => {
    expect(checkCalendarDay(2, 29)).toEqual({ month: 2, day: 29 });
  });
});

describe('history ranges', () => {
  const where = { nowSec: NOW, clock: { timezone: HOUR } };

  it('are the last 24 hours by default, or as many hours as asked', () => {
    expect(resolveHistoryRange({}, where)).toEqual({ start: NOW - 23 * HOUR, end: NOW });
    expect(resolveHistoryRange({ hours: 6 }, where)).toEqual({ start: NOW - 5 * HOUR, end: NOW });
  });

  it('hold as many whole hours as asked when now is not on the hour', () => {
    const later = { ...where, nowSec: NOW + 35 * 60 };
    // The service lists the records on the hour within the range: 24 of them, 12:00 back to 13:00.
    expect(resolveHistoryRange({}, later)).toEqual({ start: NOW - 23 * HOUR, end: NOW + 35 * 60 });
    const start = parseDateTime('start', '2025-03-10 08:20');
    expect(resolveHistoryRange({ start, hours: 2 }, later)).toEqual({
      start: Date.UTC(2025, 2, 10, 7, 20) / 1000,
      end: Date.UTC(2025, 2, 10, 9) / 1000,
    });
  });

  it('read dates in the place’s local time, a bare end date meaning its last hour', () => {
    const range = resolveHistoryRange(
      { start: parseDateTime('start', '2025-03-08'), end: parseDateTime('end', '2025-03-08') },
      where,
    );
    expect(range).toEqual({ start: Date.UTC(2025, 2, 7, 23) / 1000, end: Date.UTC(2025, 2, 8, 22) / 1000 });
  });

  it('keep a bare end date’s last record where the offset has half an hour (India, 23:30 local)', () => {
    const india = { nowSec: NOW, clock: { timezone: 5.5 * HOUR } };
    const day = { start: parseDateTime('start', '2025-03-08'), end: parseDateTime('end', '2025-03-08') };
    // Records lie on the UTC hour: 00:30 to 23:30 local, 24 of them.
    expect(resolveHistoryRange(day, india)).toEqual({
      start: Date.UTC(2025, 2, 7, 18, 30) / 1000,
      end: Date.UTC(2025, 2, 8, 18) / 1000,
    });
    // An end date alone: the 24 hours up to that last record.
    expect(resolveHistoryRange({ end: parseDateTime('end', '2025-03-08') }, india)).toEqual({
      start: Date.UTC(2025, 2, 7, 19) / 1000,
      end: Date.UTC(2025, 2, 8, 18) / 1000,
    });
  });

  it('count hours forward from a start and back from an end, and stop at now', () => {
    const start = parseDateTime('start', '2025-03-10 10:00');
    expect(resolveHistoryRange({ start, hours: 48 }, where)).toEqual({
      start: Date.UTC(2025, 2, 10, 9) / 1000,
      end: NOW,
    });
    const end = parseDateTime('end', '2025-03-09 13:00');
    expect(resolveHistoryRange({ end, hours: 3 }, where)).toEqual({
      start: Date.UTC(2025, 2, 9, 10) / 1000,
      end: Date.UTC(2025, 2, 9, 12) / 1000,
    });
  });

  it('refuse the future, a backwards range, more than a week, and start, end and hours together', () => {
    const problem = (request: Parameters<typeof resolveHistoryRange>[0]) => {
      try {
        resolveHistoryRange(request, where);
      } catch (error) {
        return error instanceof InvalidRangeError ? error.problem : error;
      }
      return undefined;
    };
    expect(problem({ start: parseDateTime('start', '2025-03-11') })).toBe('future');
    expect(
      problem({ start: parseDateTime('start', '2025-03-05'), end: parseDateTime('end', '2025-03-04') }),
    ).toBe('order');
    expect(
      problem({ start: parseDateTime('start', '2025-03-01'), end: parseDateTime('end', '2025-03-09') }),
    ).toBe('too-long');
    // A week from 00:00 to 23:00 on the seventh day is 168 hourly readings; to 00:00 on the
    // eighth, 169, an hour more than a week.
    expect(
      problem({
        start: parseDateTime('start', '2025-03-01'),
        end: parseDateTime('end', '2025-03-07 23:00'),
      }),
    ).toBeUndefined();
    expect(
      problem({
        start: parseDateTime('start', '2025-03-01'),
        end: parseDateTime('end', '2025-03-08 00:00'),
      }),
    ).toBe('too-long');
    expect(
      problem({
        start: parseDateTime('start', '2025-03-01'),
        end: parseDateTime('end', '2025-03-02'),
        hours: 3,
      }),
    ).toBe('end-and-hours');
  });
});

describe('history ranges across the autumn clock change', () => {
  const berlin = {
    nowSec: Date.UTC(2026, 10, 15, 12) / 1000,
    clock: { timezone: HOUR, zones: ['Europe/Berlin'] },
  };
  // Monday to Sunday; on Sunday 25 October 2026 03:00 summer time becomes 02:00 winter time.
  const week = { start: parseDateTime('start', '19.10.2026'), end: parseDateTime('end', '25.10.2026') };

  it('take a Monday-to-Sunday week of 169 hourly records, and ask for it in two calls, but no more', () => {
    const range = resolveHistoryRange(week, berlin);
    expect(range).toEqual({
      start: Date.UTC(2026, 9, 18, 22) / 1000,
      end: Date.UTC(2026, 9, 25, 22) / 1000,
    });
    // 168 records in the first call, the most the service answers at once, the last in the second.
    expect(historyCalls(range)).toEqual([
      { start: Date.UTC(2026, 9, 18, 22) / 1000, end: Date.UTC(2026, 9, 25, 21) / 1000 },
      { start: Date.UTC(2026, 9, 25, 22) / 1000, end: Date.UTC(2026, 9, 25, 22) / 1000 },
    ]);
    // An hour more is more than a week on the place's clock too.
    const longer = { ...week, end: parseDateTime('end', '26.10.2026 00:00') };
    expect(() => resolveHistoryRange(longer, berlin)).toThrow(/too-long/);
  });

  it('ask once for the 168 hours back from now, and for a week between two half hours', () => {
    // At 14:35, `hours: 168` runs from 15:00 a week ago to now: 168 records, one call.
    const now = { ...berlin, nowSec: Date.UTC(2026, 2, 10, 14, 35) / 1000 };
    const back = resolveHistoryRange({ hours: 168 }, now);
    expect(back).toEqual({ start: Date.UTC(2026, 2, 3, 15) / 1000, end: now.nowSec });
    expect(historyCalls(back)).toEqual([back]);
    // 14:30 to 14:30 a week later holds the records of 15:00 to 14:00: 168, not too long.
    const halves = {
      start: parseDateTime('start', '2026-03-02 14:30'),
      end: parseDateTime('end', '2026-03-09 14:30'),
    };
    const range = resolveHistoryRange(halves, now);
    expect(historyCalls(range)).toEqual([range]);
  });

  it('ask once for up to 168 records, also from a start between the hours', () => {
    const start = Date.UTC(2026, 9, 1, 10, 20) / 1000;
    const last = Date.UTC(2026, 9, 8, 10) / 1000;
    expect(historyCalls({ start, end: last })).toEqual([{ start, end: last }]);
    expect(historyCalls({ start, end: last + HOUR })).toEqual([
      { start, end: last },
      { start: last + HOUR, end: last + HOUR },
    ]);
  });
});

describe('history ranges at the beginning of the records', () => {
  const east = { nowSec: NOW, clock: { timezone: HOUR } };

  it('begin at the records’ first hour when 1970-01-01 starts before it, east of Greenwich', () => {
    const start = parseDateTime('start', '1970-01-01');
    expect(resolveHistoryRange({ start, hours: 3 }, east)).toEqual({ start: 0, end: HOUR });
    const end = parseDateTime('end', '1970-01-01 05:00');
    expect(resolveHistoryRange({ end, hours: 24 }, east)).toEqual({ start: 0, end: 4 * HOUR });
  });

  it('refuse an end before the records begin', () => {
    const end = parseDateTime('end', '1970-01-01 00:30');
    expect(() => resolveHistoryRange({ end }, east)).toThrow(
      expect.objectContaining({ name: 'DateBeforeRecordsError', field: 'end', text: '1970-01-01 00:30' }),
    );
  });
});

describe('accumulation ranges', () => {
  it('run from the first day to now by default, in whole UTC days', () => {
    expect(resolveDayRange({ start: parseDateTime('start', '2025-03-01') }, NOW)).toEqual({
      start: Date.UTC(2025, 2, 1) / 1000,
      end: NOW,
    });
    expect(
      resolveDayRange(
        { start: parseDateTime('start', '2025-01-01'), end: parseDateTime('end', '2025-01-31') },
        NOW,
      ),
    ).toEqual({ start: Date.UTC(2025, 0, 1) / 1000, end: Date.UTC(2025, 1, 1) / 1000 - 1 });
  });

  it('end at now when the end asked for is still to come, as history ranges do', () => {
    expect(
      resolveDayRange(
        { start: parseDateTime('start', '2025-03-01'), end: parseDateTime('end', '2025-03-31') },
        NOW,
      ),
    ).toEqual({ start: Date.UTC(2025, 2, 1) / 1000, end: NOW });
    // Tomorrow in Berlin (NOW is 13:00 there) has not begun in UTC either: no need to speak of UTC.
    expect(
      resolveDayRange(
        { start: parseDateTime('start', '2025-03-10'), end: parseDateTime('end', '2025-03-11') },
        NOW,
      ),
    ).toEqual({ start: Date.UTC(2025, 2, 10) / 1000, end: NOW });
  });

  it('refuse more than 366 days, the future, and an end before the start', () => {
    expect(() =>
      resolveDayRange(
        { start: parseDateTime('start', '2023-01-01'), end: parseDateTime('end', '2024-12-31') },
        NOW,
      ),
    ).toThrow(/too-long/);
    // NOW is 10 March, 12:00 UTC: 11 March has not begun in UTC, but is today east of UTC by 22:00.
    const problem = (start: string, at = NOW) => {
      try {
        resolveDayRange({ start: parseDateTime('start', start) }, at);
      } catch (error) {
        return (error as InvalidRangeError).problem;
      }
      return undefined;
    };
    expect(problem('2025-03-11')).toBe('utc-future');
    expect(problem('2025-03-12')).toBe('future');
    const wholly = (start: string, end: string) => () =>
      resolveDayRange({ start: parseDateTime('start', start), end: parseDateTime('end', end) }, NOW);
    expect(wholly('2025-03-12', '2025-03-20')).toThrow('Invalid range: future');
    // At 01:20 UTC, tomorrow (UTC) has begun nowhere yet (UTC+14 is at 15:20): simply the future.
    const early = Date.UTC(2025, 2, 10, 1, 20) / 1000;
    expect(problem('2025-03-11', early)).toBe('future');
    // From 10:00 UTC it is 11 March in UTC+14.
    expect(problem('2025-03-11', Date.UTC(2025, 2, 10, 10) / 1000)).toBe('utc-future');
    expect(problem('2025-03-10')).toBeUndefined();
    expect(() =>
      resolveDayRange(
        { start: parseDateTime('start', '2025-03-05'), end: parseDateTime('end', '2025-03-01') },
        NOW,
      ),
    ).toThrow(/order/);
  });
});

describe('units', () => {
  it('default to imperial for United States English only', () => {
    expect(defaultUnitsFor('en-US')).toBe('imperial');
    expect(defaultUnitsFor('en-GB')).toBe('metric');
    expect(defaultUnitsFor('de')).toBe('metric');
  });

  it('convert temperatures both ways', () => {
    for (const units of ['metric', 'imperial', 'standard'] as const) {
      expect(toKelvin(fromKelvin(283.15, units), units)).toBeCloseTo(283.15, 9);
    }
    expect(fromKelvin(283.15, 'imperial')).toBeCloseTo(50, 9);
  });
});
