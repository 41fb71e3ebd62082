import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWeatherEmulator, type WeatherEmulator } from '../../emulators/weather/index.js';
import { sample } from '../../emulators/weather/model.js';

const KEY = 'appid=test-key';
const HOUR = 3600;
const DAY = 86_400;
// Noon on 15 January 2025: that day is not over, 14 January is the last whole day.
const NOW = Date.UTC(2025, 0, 15, 12, 30);
const LONDON = 'lat=51.51&lon=-0.13';

interface HistoryEntry {
  dt: number;
  main: { temp: number };
  rain?: { '1h'?: number };
  snow?: { '1h'?: number };
}

let emulator: WeatherEmulator;

beforeAll(async () => {
  emulator = await startWeatherEmulator({ now: () => NOW });
});
afterAll(() => emulator.close());

async function get<T>(url: string): Promise<T> {
  const response = await request(url);
  expect(response.statusCode).toBe(200);
  return (await response.body.json()) as T;
}

const round2 = (x: number) => Math.round(x * 100) / 100;

describe('the accumulated values of the weather emulator', () => {
  it('stop at yesterday, the last whole day, when end lies in the future, and sum what the hourly history lists', async () => {
    const first = Date.UTC(2025, 0, 10) / 1000;
    const end = Date.UTC(2025, 0, 25) / 1000;
    const range = `${LONDON}&start=${first}&end=${end}&${KEY}`;
    const rain = await get<Array<{ date: string; rain: number; count: number }>>(
      `${emulator.historyUrl}/data/2.5/history/accumulated_precipitation?${range}`,
    );
    const temperature = await get<Array<{ date: string; temp: number; count: number }>>(
      `${emulator.historyUrl}/data/2.5/history/accumulated_temperature?${range}`,
    );
    const dates = ['2025-1-10', '2025-1-11', '2025-1-12', '2025-1-13', '2025-1-14'];
    expect(rain.map((r) => r.date)).toEqual(dates);
    expect(temperature.map((r) => r.date)).toEqual(dates);

    // The emulator's own hourly history of those five days, one call of 120 hours.
    const history = await get<{ list: HistoryEntry[] }>(
      `${emulator.historyUrl}/data/2.5/history/city?${LONDON}&type=hour&start=${first}&cnt=${5 * 24}&${KEY}`,
    );
    expect(history.list).toHaveLength(5 * 24);
    let rainTotal = 0;
    let tempTotal = 0;
    dates.forEach((_, d) => {
      const day = history.list.filter((h) => Math.floor((h.dt - first) / DAY) === d);
      expect(day).toHaveLength(24);
      rainTotal += day.reduce((sum, h) => sum + (h.rain?.['1h'] ?? 0) + (h.snow?.['1h'] ?? 0), 0);
      tempTotal += day.reduce((sum, h) => sum + h.main.temp, 0) / 24;
      expect(rain[d]).toEqual({ date: dates[d], rain: round2(rainTotal), count: d + 1 });
      expect(temperature[d]?.temp).toBeCloseTo(tempTotal, 1);
      expect(temperature[d]?.count).toBe(d + 1);
    });
    expect(rainTotal).toBeGreaterThan(0);
  });

  it('give nothing for a period that has not begun, nor for today until it is over', async () => {
    const today = Date.UTC(2025, 0, 15) / 1000;
    const ask = (start: number, end: number) =>
      get<unknown[]>(
        `${emulator.historyUrl}/data/2.5/history/accumulated_precipitation?${LONDON}&start=${start}&end=${end}&${KEY}`,
      );
    expect(await ask(today + DAY, today + 5 * DAY)).toEqual([]);
    expect(await ask(today, NOW / 1000)).toEqual([]);
    expect(await ask(today - DAY, today + 12 * HOUR)).toHaveLength(1);
  });
});

describe('the weather model of the emulator', () => {
  it('has dry overcast hours (804, clouds of 85 % and more) as well as rain, over a year at a few places', () => {
    const start = Date.UTC(2024, 0, 1) / 1000;
    const places = [
      [52.52, 13.41],
      [51.51, -0.13],
      [1.29, 103.85],
      [30.04, 31.24],
    ] as const;
    for (const [lat, lon] of places) {
      let overcast = 0;
      let dryCloudy = 0;
      let wet = 0;
      for (let h = 0; h < 365 * 24; h += 3) {
        const s = sample(1, lat, lon, start + h * HOUR);
        const dry = s.rain1h + s.snow1h === 0;
        if (s.conditionId === 804) overcast++;
        if (dry && s.clouds >= 85) dryCloudy++;
        if (!dry) wet++;
      }
      expect({ lat, overcast: overcast > 30, dryCloudy: dryCloudy > 30 }).toEqual({
        lat,
        overcast: true,
        dryCloudy: true,
      });
      // Still rain: the overcast band sits below where precipitation starts, not in its place.
      expect(wet).toBeGreaterThan(10);
    }
  });
});
