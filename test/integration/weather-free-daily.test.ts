/** A one-day forecast on the free plan (days made from 3-hour steps) says which day it shows. */
import Keyv from 'keyv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWeatherEmulator, type WeatherEmulator } from '../../emulators/weather/index.js';
import { renderDailyForecast } from '../../src/bot/render/weather.js';
import { getDailyForecast, getHourlyForecast } from '../../src/domain/weather/reports.js';
import { offsetAt } from '../../src/domain/weather/zones.js';
import type { WeatherClient } from '../../src/services/weather/index.js';
import { weatherClientFor } from '../fixtures/weather.js';

const BERLIN = { lat: 52.517, lon: 13.3889, label: 'Berlin, Berlin, DE' };

let emulator: WeatherEmulator;
let client: WeatherClient;

beforeAll(async () => {
  emulator = await startWeatherEmulator();
  client = weatherClientFor(emulator, { apiKey: 'test-free-key' });
});
afterAll(async () => {
  await client.close();
  await emulator.close();
});

/** The title and first day's heading of `/weather daily days:1` at `iso` (UTC), in English and German. */
async function oneDay(iso: string) {
  const now = Date.parse(iso);
  emulator.setNow(now);
  const report = await getDailyForecast(client, BERLIN, { days: 1, lang: 'en', nowSec: now / 1000 });
  const title = (locale: string) =>
    renderDailyForecast(report, { units: 'metric', locale }).embeds[0]?.data.title;
  const heading = renderDailyForecast(report, { units: 'metric', locale: 'en-GB' }).embeds[0]?.data
    .fields?.[0]?.name;
  return { en: title('en-GB'), de: title('de'), heading };
}

describe('a one-day forecast made from 3-hour steps', () => {
  it('is today’s in the morning', async () => {
    // Wednesday 26 March 2025, 09:00 in Berlin.
    expect(await oneDay('2025-03-26T08:00:00Z')).toMatchObject({
      en: 'Berlin, Berlin, DE: today',
      de: 'Berlin, Berlin, DE: heute',
      heading: expect.stringContaining('26') as unknown,
    });
  });

  it('is tomorrow’s, and says so, once too little of today is left for its day and night', async () => {
    // 14:00 in Berlin: no step is left near midday, so today is left out.
    expect(await oneDay('2025-03-26T13:00:00Z')).toMatchObject({
      en: 'Berlin, Berlin, DE: tomorrow',
      de: 'Berlin, Berlin, DE: morgen',
      heading: expect.stringContaining('27') as unknown,
    });
  });
});

describe('the 3-hour steps across a change of the clocks', () => {
  /** The local hour (0-23) of each of the first steps, read with the report's own clock. */
  async function firstHours(iso: string): Promise<number[]> {
    const now = Date.parse(iso);
    emulator.setNow(now);
    const report = await getHourlyForecast(client, BERLIN, { hours: 12, lang: 'en', nowSec: now / 1000 });
    return report.forecast.list
      .slice(0, 4)
      .map((step) => new Date((step.dt + offsetAt(report, step.dt)) * 1000).getUTCHours());
  }

  it('reads them on the clock after the change, when the change falls before the first step', async () => {
    // 26 October 2025, 02:30 in Berlin (summer time, 00:30 UTC); the first step is 03:00 UTC, after
    // the clocks went back at 01:00 UTC: 04:00 local, then every three hours.
    expect(await firstHours('2025-10-26T00:30:00Z')).toEqual([4, 7, 10, 13]);
    // 29 March 2026, 01:30 in Berlin (winter time, 00:30 UTC); the first step is 03:00 UTC, after the
    // clocks went forward at 01:00 UTC: 05:00 local.
    expect(await firstHours('2026-03-29T00:30:00Z')).toEqual([5, 8, 11, 14]);
  });
});

describe('a forecast kept by the client from before the day turned', () => {
  const TOKYO = { lat: 35.6895, lon: 139.6917, label: 'Tokyo, JP' };

  it('starts with the new day and the new hour, and is as long as asked', async () => {
    const paid = weatherClientFor(emulator, { apiKey: 'test-key', cache: new Keyv() });
    try {
      // 23:52 in Tokyo (UTC+9) on 10 June 2025: someone asks; the answer is kept for some minutes.
      const before = Date.parse('2025-06-10T14:52:00Z');
      emulator.setNow(before);
      await getDailyForecast(paid, TOKYO, { days: 7, lang: 'en', nowSec: before / 1000 });
      await getHourlyForecast(paid, TOKYO, { hours: 24, lang: 'en', nowSec: before / 1000 });
      // Midnight: a week post and a today post for the same place, from the kept answers.
      const midnight = Date.parse('2025-06-10T15:00:00Z');
      emulator.setNow(midnight);
      const week = await getDailyForecast(paid, TOKYO, { days: 7, lang: 'en', nowSec: midnight / 1000 });
      const today = await getHourlyForecast(paid, TOKYO, { hours: 24, lang: 'en', nowSec: midnight / 1000 });
      const tokyoDate = (unix: number) => new Date((unix + 9 * 3600) * 1000).toISOString().slice(0, 10);
      expect(week.forecast.list.map((day) => tokyoDate(day.dt))).toEqual([
        '2025-06-11',
        '2025-06-12',
        '2025-06-13',
        '2025-06-14',
        '2025-06-15',
        '2025-06-16',
        '2025-06-17',
      ]);
      expect(today.forecast.list[0]?.dt).toBe(midnight / 1000);
      expect(today.forecast.list).toHaveLength(24);
    } finally {
      await paid.close();
    }
  });
});
