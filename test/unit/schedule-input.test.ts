import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDays, parseTimeOfDay } from '../../src/services/schedules/input.js';
import { cronPattern, isTimeZone, nonceFor } from '../../src/services/schedules/timing.js';

describe('schedule input', () => {
  it('reads every 24-hour time, with and without a leading zero', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }), (h, m) => {
        const expected = `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`;
        expect(parseTimeOfDay(`${h}:${String(m).padStart(2, '0')}`)).toBe(expected);
        expect(parseTimeOfDay(expected)).toBe(expected);
      }),
    );
  });

  it('reads 12-hour times and refuses what is not a time', () => {
    expect(parseTimeOfDay('7pm')).toBe('19:00');
    expect(parseTimeOfDay('12:30 am')).toBe('00:30');
    expect(parseTimeOfDay('12 pm')).toBe('12:00');
    for (const bad of ['7', '24:00', '7:60', '13pm', 'noon', '', '7:5', '12', '24 Uhr', '7 Uhr pm'])
      expect(parseTimeOfDay(bad)).toBeUndefined();
  });

  it('reads times as German and French members write them, and a bare hour that can only be one', () => {
    expect(parseTimeOfDay('19 Uhr')).toBe('19:00');
    expect(parseTimeOfDay('7 Uhr')).toBe('07:00');
    expect(parseTimeOfDay('7:30 Uhr')).toBe('07:30');
    expect(parseTimeOfDay('19.30 uhr')).toBe('19:30');
    expect(parseTimeOfDay('19h')).toBe('19:00');
    expect(parseTimeOfDay('7h30')).toBe('07:30');
    expect(parseTimeOfDay('0 Uhr')).toBe('00:00');
    // 13 to 23 cannot be morning: read as they are. 1 to 12 could be either, and stay refused.
    expect(parseTimeOfDay('19')).toBe('19:00');
    expect(parseTimeOfDay('13')).toBe('13:00');
  });

  it('never accepts a time that makes a bad cron pattern', () => {
    // Strings shaped like times (digits, a separator, digits, am/pm, spaces), in and out of range:
    // random text would almost never be read as a time, and the property would check nothing.
    const timeLike = fc
      .tuple(
        fc.constantFrom('', ' ', '  '),
        fc.stringMatching(/^\d{1,3}$/),
        fc.constantFrom('', ':', '.', 'h', ' ', '::'),
        fc.stringMatching(/^\d{0,3}$/),
        fc.constantFrom('', ' '),
        fc.constantFrom('', 'am', 'pm', 'AM', 'Pm', 'xm'),
      )
      .map((parts) => parts.join(''));
    let accepted = 0;
    fc.assert(
      fc.property(timeLike, (text) => {
        const time = parseTimeOfDay(text);
        if (time === undefined) return;
        accepted++;
        const [hour, minute] = time.split(':').map(Number) as [number, number];
        expect(hour).toBeGreaterThanOrEqual(0);
        expect(hour).toBeLessThan(24);
        expect(minute).toBeGreaterThanOrEqual(0);
        expect(minute).toBeLessThan(60);
        expect(cronPattern({ time, days: [] })).toBe(`${minute} ${hour} * * *`);
      }),
      { numRuns: 2_000 },
    );
    expect(accepted).toBeGreaterThan(20);
  });

  it('reads days of the week, groups and ranges', () => {
    expect(parseDays('mon,wed,fri')).toEqual([1, 3, 5]);
    expect(parseDays('weekdays')).toEqual([1, 2, 3, 4, 5]);
    // As the German description and messages suggest it.
    expect(parseDays('Werktags')).toEqual([1, 2, 3, 4, 5]);
    expect(parseDays('fri-mon')).toEqual([0, 1, 5, 6]);
    expect(parseDays('Sat Sun')).toEqual([0, 6]);
    expect(parseDays('')).toEqual([]);
    expect(parseDays('mon-sun')).toEqual([]);
    expect(() => parseDays('mon,funday')).toThrow('"funday" is not a day of the week');
  });

  it('reads two-letter English days beside the German ones, a dash as phones type it, and the German groups', () => {
    expect(parseDays('mo,we,fr')).toEqual([1, 3, 5]);
    expect(parseDays('tu th su')).toEqual([0, 2, 4]);
    expect(parseDays('Mo, Mi, Fr')).toEqual([1, 3, 5]);
    expect(parseDays('mon – fri')).toEqual([1, 2, 3, 4, 5]);
    expect(parseDays('Mo—Fr')).toEqual([1, 2, 3, 4, 5]);
    expect(parseDays('sat - sun')).toEqual([0, 6]);
    expect(parseDays('Wochenende')).toEqual([0, 6]);
    expect(parseDays('weekday')).toEqual([1, 2, 3, 4, 5]);
    expect(parseDays('täglich')).toEqual([]);
    // German abbreviations as they are written, with their dots.
    expect(parseDays('Mo., Mi., Fr.')).toEqual([1, 3, 5]);
    expect(parseDays('Mo.-Fr.')).toEqual([1, 2, 3, 4, 5]);
    // Days in words, as members type them.
    expect(parseDays('wochentags')).toEqual([1, 2, 3, 4, 5]);
    expect(parseDays('montags, mittwochs')).toEqual([1, 3]);
    expect(parseDays('Sonntags')).toEqual([0]);
    expect(parseDays('Montag bis Freitag')).toEqual([1, 2, 3, 4, 5]);
    expect(parseDays('montags bis freitags')).toEqual([1, 2, 3, 4, 5]);
    expect(parseDays('Mo. bis Fr.')).toEqual([1, 2, 3, 4, 5]);
    expect(parseDays('Mo.bis Fr.')).toEqual([1, 2, 3, 4, 5]);
    expect(parseDays('mon to fri')).toEqual([1, 2, 3, 4, 5]);
    expect(parseDays('fri through sun')).toEqual([0, 5, 6]);
    expect(parseDays('mon, weds')).toEqual([1, 3]);
    expect(parseDays('every day')).toEqual([]);
    expect(parseDays('Jeden Tag')).toEqual([]);
    expect(() => parseDays('mos')).toThrow('"mos" is not a day of the week');
    expect(() => parseDays('mon to funday')).toThrow('"mon-funday" is not a range of days');
    expect(parseDays('Sa.–So.')).toEqual([0, 6]);
    expect(() => parseDays('.')).toThrow('"." is not a day of the week');
  });

  it('reads a list joined by "and", "und", "&" or "+", and the German plural groups', () => {
    expect(parseDays('Sat and Sun')).toEqual([0, 6]);
    expect(parseDays('Samstag und Sonntag')).toEqual([0, 6]);
    expect(parseDays('Mo, Mi und Fr')).toEqual([1, 3, 5]);
    expect(parseDays('Sa+So')).toEqual([0, 6]);
    expect(parseDays('sat & sun')).toEqual([0, 6]);
    expect(parseDays('Werktage')).toEqual([1, 2, 3, 4, 5]);
    expect(parseDays('Wochentage')).toEqual([1, 2, 3, 4, 5]);
    // A word in the middle of another is no separator.
    expect(() => parseDays('mondand')).toThrow('"mondand" is not a day of the week');
    expect(() => parseDays('and')).toThrow('"and" is not a day of the week');
  });

  it('refuses, with the word, names that every object inherits (a range to one never ended)', () => {
    for (const word of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
      expect(() => parseDays(word)).toThrow(`"${word.toLowerCase()}" is not a day of the week`);
      expect(() => parseDays(`mon-${word}`)).toThrow(/is not a (range of days|day of the week)$/);
      expect(() => parseDays(`${word}-fri`)).toThrow(/is not a (range of days|day of the week)$/);
    }
  });

  it('reads or refuses any list of words, and always returns', () => {
    const word = fc.oneof(
      fc.constantFrom('mon', 'fri', 'sun', 'weekdays', 'daily', 'constructor', 'prototype', '__proto__'),
      fc.string({ maxLength: 12 }),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(word, fc.option(word)), { maxLength: 6 }), (pairs) => {
        const input = pairs.map(([a, b]) => (b === null ? a : `${a}-${b}`)).join(',');
        try {
          const days = parseDays(input);
          expect(days.every((day) => Number.isInteger(day) && day >= 0 && day <= 6)).toBe(true);
        } catch (error) {
          expect((error as Error).message).toMatch(/is not a (day of the week|range of days)$/);
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it('knows IANA time zones and refuses others', () => {
    expect(isTimeZone('Europe/Berlin')).toBe(true);
    expect(isTimeZone('America/New_York')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(isTimeZone('')).toBe(false);
  });

  it('makes nonces of at most 25 characters, stable per slot', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (id, slot) => {
        expect(nonceFor(id, slot).length).toBeLessThanOrEqual(25);
        expect(nonceFor(id, slot)).toBe(nonceFor(id, slot));
      }),
    );
  });
});
