import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startWeatherEmulator, type WeatherEmulator } from '../../emulators/weather/index.js';
import type { HistoryEntry, WeatherClient } from '../../src/services/weather/index.js';
import { weatherClientFor } from '../fixtures/weather.js';

/** 15 January 2025, 12:34 UTC: deliberately not on the hour. */
const NOW = Date.UTC(2025, 0, 15, 12, 34);
const HOUR = 3600;
const DAY = 86_400;

const BERLIN = { lat: 52.52, lon: 13.41 };
const LONDON = { lat: 51.51, lon: -0.13 };
const PLACES = [
  BERLIN,
  LONDON,
  { lat: -33.87, lon: 151.21 }, // Sydney
  { lat: 1.29, lon: 103.85 }, // Singapore
  { lat: 78.22, lon: 15.63 }, // Longyearbyen
  { lat: 37.22, lon: -93.3 }, // Springfield, Missouri
];

let emulator: WeatherEmulator;
let client: WeatherClient;

beforeAll(async () => {
  emulator = await startWeatherEmulator({ now: () => NOW });
  client = weatherClientFor(emulator);
});
afterAll(async () => {
  await client.close();
  await emulator.close();
});
beforeEach(() => emulator.setNow(undefined));

const round2 = (x: number) => Math.round(x * 100) / 100;
const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);
const mean = (values: readonly number[]) => sum(values) / values.length;
const wetness = (entry: HistoryEntry) => (entry.rain?.['1h'] ?? 0) + (entry.snow?.['1h'] ?? 0);

/** The hourly history of whole UTC days from `midnight` (at most 7 days: one call). */
async function historyDays(place: { lat: number; lon: number }, midnight: number, days = 1) {
  const history = await client.history.hourly({
    ...place,
    start: midnight,
    end: midnight + days * DAY - HOUR,
  });
  expect(history.cnt).toBe(days * 24);
  return history.list;
}

describe('one weather, told the same way by every product', () => {
  it("yesterday's hourly history holds exactly what current weather said at the time", async () => {
    // 12:34, 19:47 and, three days on, 19:59 (ms).
    const instants = [NOW, NOW + (7 * HOUR + 13 * 60) * 1000, NOW + (3 * DAY + 7 * HOUR + 25 * 60) * 1000];
    for (const at of instants) {
      for (const place of PLACES) {
        emulator.setNow(at);
        const then = await client.current.byCoords(place);
        const hour = Math.floor(at / 1000 / HOUR) * HOUR;
        // Calculated within the last 10 minutes, in this hour: the values are this hour's record.
        expect(then.dt).toBeGreaterThanOrEqual(Math.max(hour, at / 1000 - 600));
        expect(then.dt).toBeLessThanOrEqual(at / 1000);

        emulator.setNow(at + DAY * 1000);
        const [record, ...rest] = (await client.history.hourly({ ...place, start: hour, cnt: 1 })).list;
        expect(rest).toEqual([]);
        expect(record?.dt).toBe(hour);
        expect(record?.main).toEqual(then.main);
        expect(record?.wind).toEqual(then.wind);
        expect(record?.clouds).toEqual(then.clouds);
        expect(record?.weather).toEqual(then.weather);
        expect(record?.rain?.['1h']).toBe(then.rain?.['1h']);
        expect(record?.snow?.['1h']).toBe(then.snow?.['1h']);
      }
    }
  });

  it('gives the same weather for the same seed, on any emulator, and other weather for another seed', async () => {
    const twin = await startWeatherEmulator({ now: () => NOW, seed: 1 });
    const other = await startWeatherEmulator({ now: () => NOW, seed: 42 });
    const twinClient = weatherClientFor(twin);
    const otherClient = weatherClientFor(other);
    try {
      const ask = (c: WeatherClient) =>
        Promise.all([c.current.byCoords(BERLIN), c.forecast.hourly({ ...BERLIN, cnt: 24 })]);
      const [mine, twins, others] = await Promise.all([ask(client), ask(twinClient), ask(otherClient)]);
      expect(twins).toEqual(mine);
      const temps = (answer: typeof mine) => answer[1].list.map((entry) => entry.main.temp);
      expect(temps(others)).not.toEqual(temps(mine));
    } finally {
      await Promise.all([twinClient.close(), otherClient.close(), twin.close(), other.close()]);
    }
  });

  it('computes the yearly statistics from the hourly history of the ten years they cover', async () => {
    const { result } = await client.history.yearly(BERLIN);
    expect(result).toHaveLength(365);
    for (const day of result) {
      const { temp } = day;
      expect(temp.num).toBe(10 * 24);
      expect(temp.record_min).toBeLessThanOrEqual(temp.p25);
      expect(temp.p25).toBeLessThanOrEqual(temp.median);
      expect(temp.median).toBeLessThanOrEqual(temp.p75);
      expect(temp.p75).toBeLessThanOrEqual(temp.record_max);
      expect(temp.mean).toBeGreaterThanOrEqual(temp.record_min);
      expect(temp.mean).toBeLessThanOrEqual(temp.record_max);
      expect(temp.average_min).toBeLessThanOrEqual(temp.average_max);
    }

    // Now is January 2025: the statistics cover 2015 to 2024, UTC days.
    for (const [month, dayOfMonth] of [
      [1, 15],
      [7, 15],
    ] as const) {
      const days = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          historyDays(BERLIN, Date.UTC(2015 + i, month - 1, dayOfMonth) / 1000),
        ),
      );
      const hours = days.flat();
      const temps = hours.map((h) => h.main.temp);
      const stats = result.find((d) => d.month === month && d.day === dayOfMonth);
      if (!stats) throw new Error(`no statistics for ${month}/${dayOfMonth}`);
      expect(stats.temp.record_max).toBe(Math.max(...temps));
      expect(stats.temp.record_min).toBe(Math.min(...temps));
      expect(stats.temp.mean).toBeCloseTo(mean(temps), 1);
      expect(stats.temp.average_max).toBeCloseTo(
        mean(days.map((d) => Math.max(...d.map((h) => h.main.temp)))),
        1,
      );
      expect(stats.temp.average_min).toBeCloseTo(
        mean(days.map((d) => Math.min(...d.map((h) => h.main.temp)))),
        1,
      );
      expect(stats.humidity!.max).toBe(Math.max(...hours.map((h) => h.main.humidity)));
      expect(stats.pressure!.min).toBe(Math.min(...hours.map((h) => h.main.pressure)));
      expect(stats.wind!.max).toBe(Math.max(...hours.map((h) => h.wind?.speed ?? 0)));
      expect(stats.precipitation!.max).toBeCloseTo(Math.max(...hours.map(wetness)), 6);
      expect(stats.precipitation!.mean).toBeCloseTo(mean(hours.map(wetness)), 1);
    }
    // And so the seasons show: July is warmer than January in Berlin.
    const july = result.find((d) => d.month === 7 && d.day === 15);
    const january = result.find((d) => d.month === 1 && d.day === 15);
    expect(july?.temp.mean).toBeGreaterThan((january?.temp.mean ?? Infinity) + 10);
  });

  it('accumulates the daily precipitation and daily mean temperature that the hourly history shows', async () => {
    // A wet week in London: 6 to 12 January 2025, seven UTC days, one history call of 168 hours.
    const first = Date.UTC(2025, 0, 6) / 1000;
    const hours = await historyDays(LONDON, first, 7);
    const days = Array.from({ length: 7 }, (_, d) => hours.slice(d * 24, d * 24 + 24));
    const dailyRain = days.map((day) => sum(day.map(wetness)));
    const dailyMean = days.map((day) => mean(day.map((h) => h.main.temp)));
    expect(sum(dailyRain)).toBeGreaterThan(5);

    const rain = await client.history.accumulatedPrecipitation({
      ...LONDON,
      start: first,
      end: first + 6 * DAY,
    });
    expect(rain.map((r) => r.date)).toEqual(Array.from({ length: 7 }, (_, d) => `2025-1-${6 + d}`));
    let total = 0;
    rain.forEach((record, d) => {
      total += dailyRain[d] ?? Number.NaN;
      expect(record.rain).toBeCloseTo(round2(total), 6);
      expect(record.count).toBe(d + 1);
    });

    // Only the days whose mean reaches the threshold count: take the middle of this week's means.
    const threshold = [...dailyMean].sort((a, b) => a - b)[3] ?? Number.NaN;
    const temperature = await client.history.accumulatedTemperature({
      ...LONDON,
      start: first,
      end: first + 6 * DAY,
      threshold,
    });
    let sumAbove = 0;
    let counted = 0;
    temperature.forEach((record, d) => {
      const dayMean = dailyMean[d] ?? Number.NaN;
      if (dayMean >= threshold) {
        sumAbove += dayMean;
        counted++;
      }
      expect(record.temp).toBeCloseTo(round2(sumAbove), 1);
      expect(record.count).toBe(counted);
    });
    expect(counted).toBe(4);
  });

  it('builds each day of the daily forecast from the hours of the hourly forecast', async () => {
    for (const place of PLACES) {
      const units = 'metric';
      const [daily, hourly] = await Promise.all([
        client.forecast.daily({ ...place, units, cnt: 3 }),
        client.forecast.hourly({ ...place, units }),
      ]);
      // Days 1 and 2 (tomorrow and the day after, local time) lie wholly within the 96 hours.
      for (const day of daily.list.slice(1, 3)) {
        const midnight = day.dt - 12 * HOUR;
        const hours = hourly.list.filter((h) => h.dt >= midnight && h.dt < midnight + DAY);
        expect(hours).toHaveLength(24);
        const temps = hours.map((h) => h.main.temp);
        expect(day.temp.max).toBe(Math.max(...temps));
        expect(day.temp.min).toBe(Math.min(...temps));
        expect(day.temp.morn).toBe(temps[6]);
        expect(day.temp.day).toBe(temps[12]);
        expect(day.temp.eve).toBe(temps[18]);
        expect(day.temp.night).toBe(temps[0]);
        expect(day.rain ?? 0).toBeCloseTo(round2(sum(hours.map((h) => h.rain?.['1h'] ?? 0))), 6);
        expect(day.snow ?? 0).toBeCloseTo(round2(sum(hours.map((h) => h.snow?.['1h'] ?? 0))), 6);
        expect(day.speed).toBe(Math.max(...hours.map((h) => h.wind?.speed ?? 0)));
      }
    }
  });

  it('fills the bulk files with the current weather of each place at the refresh time', async () => {
    const current = await Promise.all(
      // Places the city files cover: Europe, the UK and the US.
      ['Berlin,DE', 'Paris,FR', 'Springfield,MO,US', 'London,GB'].map((q) => client.current.byName({ q })),
    );
    const wanted = new Map(current.map((c) => [c.id, c]));
    let seen = 0;
    for await (const record of client.bulk.snapshot('weather_16.json.gz')) {
      const now = wanted.get(record.city.id);
      if (!now) continue;
      seen++;
      // The file was refreshed at 12:20: the observation of 12:00, as current weather says at 12:34.
      expect(record.time).toBe(Date.UTC(2025, 0, 15, 12, 20) / 1000);
      expect(record.city.coord).toEqual(now.coord);
      expect(record.main).toEqual({
        temp: now.main.temp,
        pressure: now.main.pressure,
        humidity: now.main.humidity,
        temp_min: now.main.temp_min,
        temp_max: now.main.temp_max,
      });
      expect(record.weather).toEqual(now.weather);
      expect(record.wind).toEqual({ speed: now.wind?.speed, deg: now.wind?.deg });
    }
    expect(seen).toBe(wanted.size);
  });
});
