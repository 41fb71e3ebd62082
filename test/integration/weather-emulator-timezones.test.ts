import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startWeatherEmulator, type WeatherEmulator } from '../../emulators/weather/index.js';

const KEY = 'appid=test-key';
const HOUR = 3600;
const WINTER = Date.UTC(2025, 0, 15, 12);
const SUMMER = Date.UTC(2025, 6, 15, 12);

const BERLIN = 'lat=52.52&lon=13.41';
const MUMBAI = 'lat=19.076&lon=72.8777';
const NEW_YORK = 'lat=40.71&lon=-74.01';

interface Entry {
  dt: number;
  dt_txt: string;
  main: { temp: number };
}
interface Forecast {
  list: Entry[];
  city: { timezone: number };
}
interface Daily {
  city: { timezone: number };
  list: Array<{
    dt: number;
    temp: { min: number; max: number; morn: number; day: number; eve: number; night: number };
  }>;
}
interface Current {
  dt: number;
  name: string;
  timezone: number;
}

let emulator: WeatherEmulator;

beforeAll(async () => {
  emulator = await startWeatherEmulator({ now: () => WINTER });
});
afterAll(() => emulator.close());
beforeEach(() => emulator.setNow(undefined));

async function get<T>(url: string): Promise<T> {
  const response = await request(url);
  expect(response.statusCode).toBe(200);
  return (await response.body.json()) as T;
}

const current = (where: string) => get<Current>(`${emulator.apiUrl}/data/2.5/weather?${where}&${KEY}`);
const hourly = (where: string, cnt = 96) =>
  get<Forecast>(`${emulator.proUrl}/data/2.5/forecast/hourly?${where}&cnt=${cnt}&${KEY}`);
const threeHourly = (where: string) =>
  get<Forecast>(`${emulator.apiUrl}/data/2.5/forecast?${where}&cnt=2&${KEY}`);
const daily = (where: string, cnt: number) =>
  get<Daily>(`${emulator.apiUrl}/data/2.5/forecast/daily?${where}&cnt=${cnt}&${KEY}`);

describe('timezone: the civil offset of the place at the instant concerned', () => {
  it('gives Berlin +1 h in winter and +2 h in summer, switching at the daylight-saving change', async () => {
    expect((await current(BERLIN)).timezone).toBe(3600);
    emulator.setNow(SUMMER);
    expect((await current(BERLIN)).timezone).toBe(7200);
    // Clocks went forward at 01:00 UTC on 30 March 2025.
    emulator.setNow(Date.UTC(2025, 2, 30, 0, 59));
    expect((await current(BERLIN)).timezone).toBe(3600);
    emulator.setNow(Date.UTC(2025, 2, 30, 1, 0));
    expect((await current(BERLIN)).timezone).toBe(7200);
  });

  it('keeps the half hour of a half-hour zone: Mumbai is +5:30 in every product', async () => {
    expect((await current(MUMBAI)).timezone).toBe(19_800);
    expect((await hourly(MUMBAI, 1)).city.timezone).toBe(19_800);
    expect((await threeHourly(MUMBAI)).city.timezone).toBe(19_800);
    expect((await daily(MUMBAI, 1)).city.timezone).toBe(19_800);
  });

  it("gives the forecasts' city.timezone as it is at the time of the request", async () => {
    for (const [now, offset] of [
      [WINTER, -5 * HOUR],
      [SUMMER, -4 * HOUR],
    ] as const) {
      emulator.setNow(now);
      expect((await hourly(NEW_YORK, 1)).city.timezone).toBe(offset);
      expect((await threeHourly(NEW_YORK)).city.timezone).toBe(offset);
      expect((await daily(NEW_YORK, 1)).city.timezone).toBe(offset);
    }
    // Three days before the clocks go forward, the hourly forecast still gives today's offset.
    emulator.setNow(Date.UTC(2025, 2, 27, 12));
    expect((await hourly(BERLIN)).city.timezone).toBe(3600);
  });

  it('uses the zone of the place a city name finds', async () => {
    emulator.setNow(SUMMER);
    expect((await current('q=London,CA')).timezone).toBe(-4 * HOUR);
    expect((await current('q=London,GB')).timezone).toBe(3600);
    expect((await current('q=Sydney,AU')).timezone).toBe(10 * HOUR);
    emulator.setNow(WINTER);
    expect((await current('q=Sydney,AU')).timezone).toBe(11 * HOUR);
  });

  it('gives coordinates the gazetteer does not name the zone whose borders hold them', async () => {
    // Vancouver is not in the gazetteer: Pacific time, with daylight saving (longitude says -8 h).
    const vancouver = 'lat=49.2827&lon=-123.1207';
    emulator.setNow(SUMMER);
    expect((await current(vancouver)).timezone).toBe(-7 * HOUR);
    emulator.setNow(WINTER);
    expect((await current(vancouver)).timezone).toBe(-8 * HOUR);
    // Phoenix keeps -7 h all year, where the nearest gazetteer places and longitude would not.
    expect((await current('lat=33.4484&lon=-112.074')).timezone).toBe(-7 * HOUR);
    emulator.setNow(SUMMER);
    expect((await current('lat=33.4484&lon=-112.074')).timezone).toBe(-7 * HOUR);
  });

  it("gives coordinates near a known place that place's zone, and the open sea whole hours by longitude", async () => {
    emulator.setNow(SUMMER);
    // 81 km east of Madrid: too far to be named, near enough to keep Madrid's clock (longitude says 0).
    const nearMadrid = await current('lat=40.4167&lon=-2.75');
    expect(nearMadrid.name).toBe('');
    expect(nearMadrid.timezone).toBe(7200);
    // The middle of the North Atlantic: -40° is nautical time -3 h, summer or winter.
    expect((await current('lat=30&lon=-40')).timezone).toBe(-3 * HOUR);
    emulator.setNow(WINTER);
    expect((await current('lat=30&lon=-40')).timezone).toBe(-3 * HOUR);
  });
});

describe('forecast dt_txt: UTC, as the service documents and answers it', () => {
  it('writes both the hourly and the 5-day forecast in UTC, whatever the place’s time zone', async () => {
    expect((await hourly(BERLIN, 2)).list.map((e) => e.dt_txt)).toEqual([
      '2025-01-15 12:00:00',
      '2025-01-15 13:00:00',
    ]);
    expect((await hourly(MUMBAI, 1)).list[0]?.dt_txt).toBe('2025-01-15 12:00:00');
    expect((await hourly(NEW_YORK, 1)).list[0]?.dt_txt).toBe('2025-01-15 12:00:00');
    expect((await threeHourly(BERLIN)).list[0]?.dt_txt).toBe('2025-01-15 15:00:00');
  });

  it('matches each entry’s dt, across a clock change', async () => {
    emulator.setNow(Date.UTC(2025, 2, 29, 23));
    const { list } = await hourly(BERLIN, 4);
    for (const entry of list) {
      expect(entry.dt_txt).toBe(new Date(entry.dt * 1000).toISOString().slice(0, 19).replace('T', ' '));
    }
    expect(list.map((e) => e.dt_txt)).toEqual([
      '2025-03-29 23:00:00',
      '2025-03-30 00:00:00',
      '2025-03-30 01:00:00',
      '2025-03-30 02:00:00',
    ]);
  });
});

describe('daily forecast: local days of the real zone', () => {
  it('dates each day at local noon across the change to summer time, built from that day’s hours', async () => {
    emulator.setNow(Date.UTC(2025, 2, 28, 12));
    const [days, hours] = await Promise.all([daily(BERLIN, 4), hourly(BERLIN)]);
    expect(days.list.map((d) => new Date(d.dt * 1000).toISOString())).toEqual([
      '2025-03-28T11:00:00.000Z',
      '2025-03-29T11:00:00.000Z',
      '2025-03-30T10:00:00.000Z',
      '2025-03-31T10:00:00.000Z',
    ]);
    // 30 March has 23 hours: from 23:00 UTC (00:00 CET) to 21:00 UTC (23:00 CEST).
    const sunday = days.list[2];
    const start = Date.UTC(2025, 2, 29, 23) / 1000;
    const inDay = hours.list.filter((e) => e.dt >= start && e.dt < start + 23 * HOUR);
    expect(inDay).toHaveLength(23);
    const temp = (utcHour: number) =>
      hours.list.find((e) => e.dt === Date.UTC(2025, 2, 30, utcHour) / 1000)?.main.temp;
    expect(sunday?.temp).toEqual({
      min: Math.min(...inDay.map((e) => e.main.temp)),
      max: Math.max(...inDay.map((e) => e.main.temp)),
      night: temp(-1),
      morn: temp(4),
      day: temp(10),
      eve: temp(16),
    });
  });

  it('starts a half-hour zone’s day at its first whole UTC hour, 00:30 in Mumbai', async () => {
    const [days, hours] = await Promise.all([daily(MUMBAI, 3), hourly(MUMBAI)]);
    const tomorrow = days.list[1];
    // 16 January 00:00 IST is 15 January 18:30 UTC; the day's hours run from 19:00 to 18:00 UTC.
    const start = Date.UTC(2025, 0, 15, 19) / 1000;
    expect(tomorrow?.dt).toBe(start + 12 * HOUR);
    const inDay = hours.list.filter((e) => e.dt >= start && e.dt < start + 24 * HOUR);
    expect(inDay).toHaveLength(24);
    expect(tomorrow?.temp.max).toBe(Math.max(...inDay.map((e) => e.main.temp)));
    expect(tomorrow?.temp.night).toBe(inDay[0]?.main.temp);
    expect(tomorrow?.temp.day).toBe(inDay[12]?.main.temp);
  });
});
