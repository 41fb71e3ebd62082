import { describe, expect, it } from 'vitest';
import { dailyFromThreeHourly } from '../../src/domain/weather/five-day.js';
import { hourlyForecastSchema } from '../../src/services/weather/index.js';

const at = (iso: string) => Date.parse(iso) / 1000;
const CLEAR = { id: 800, main: 'Clear', description: 'clear sky', icon: '01d' };
const CLOUDS = { id: 803, main: 'Clouds', description: 'broken clouds', icon: '04d' };
const RAIN = { id: 500, main: 'Rain', description: 'light rain', icon: '10d' };
const SNOW = { id: 600, main: 'Snow', description: 'light snow', icon: '13d' };

function entry(iso: string, temp: number, condition: object, extra: Record<string, unknown> = {}) {
  return { dt: at(iso), main: { temp, pressure: 1000, humidity: 80 }, weather: [condition], ...extra };
}

// Moscow keeps UTC+3 all year: 21:00 UTC is midnight there, the start of the next local day.
const MOSCOW = { timezone: 10_800, zones: ['Europe/Moscow'] };
const forecast = hourlyForecastSchema.parse({
  cod: '200',
  cnt: 16,
  city: { name: 'Moscow', country: 'RU', timezone: 10_800 },
  list: [
    // 10 January, 15:00 to 21:00 local: three entries, too few to stand for a day.
    entry('2026-01-10T12:00:00Z', 280, CLEAR),
    entry('2026-01-10T15:00:00Z', 280, CLEAR),
    entry('2026-01-10T18:00:00Z', 280, CLEAR),
    // 11 January, 00:00 to 21:00 local.
    entry('2026-01-10T21:00:00Z', 270, { ...CLEAR, icon: '01n' }, { wind: { speed: 3, deg: 90 } }),
    entry('2026-01-11T00:00:00Z', 268, { ...CLEAR, icon: '01n' }),
    entry('2026-01-11T03:00:00Z', 267, RAIN, { rain: { '3h': 0.5 }, pop: 0.4 }),
    entry('2026-01-11T06:00:00Z', 271, RAIN, { rain: { '3h': 1.25 }, pop: 0.8 }),
    entry('2026-01-11T09:00:00Z', 275, CLOUDS, { wind: { speed: 7.5, deg: 250, gust: 12 }, pop: 0.2 }),
    entry('2026-01-11T12:00:00Z', 274, CLOUDS),
    entry('2026-01-11T15:00:00Z', 272, CLEAR),
    entry('2026-01-11T18:00:00Z', 269, { ...CLEAR, icon: '01n' }),
    // 12 January, 00:00 to 12:00 local: five entries.
    entry('2026-01-11T21:00:00Z', 266, { ...SNOW, icon: '13n' }),
    entry('2026-01-12T00:00:00Z', 265, { ...SNOW, icon: '13n' }, { snow: { '3h': 2 } }),
    entry('2026-01-12T03:00:00Z', 264, { ...SNOW, icon: '13n' }, { snow: { '3h': 2 } }),
    entry('2026-01-12T06:00:00Z', 268, SNOW),
    entry('2026-01-12T09:00:00Z', 273, CLOUDS),
  ],
});

describe('a daily forecast made from the 5-day/3-hour one', () => {
  const daily = dailyFromThreeHourly(forecast, MOSCOW);

  it('makes the place’s own days, leaving out a day of fewer than four entries', () => {
    expect(daily.list.map((day) => day.dt)).toEqual([at('2026-01-11T09:00:00Z'), at('2026-01-12T09:00:00Z')]);
    expect(daily.cnt).toBe(2);
    expect(daily.city?.name).toBe('Moscow');
  });

  it('gives each day its low, high and day parts at 06:00, 12:00, 18:00 and midnight', () => {
    expect(daily.list[0]?.temp).toEqual({ min: 267, max: 275, morn: 267, day: 275, eve: 272, night: 270 });
    // The second day ends at noon: its evening is its last entry.
    expect(daily.list[1]?.temp).toEqual({ min: 264, max: 273, morn: 264, day: 273, eve: 273, night: 266 });
  });

  it('adds up rain and snow, and keeps the highest chance of precipitation and the strongest wind', () => {
    expect(daily.list[0]).toMatchObject({ rain: 1.75, pop: 0.8, speed: 7.5, deg: 250, gust: 12 });
    expect(daily.list[0]?.snow).toBeUndefined();
    expect(daily.list[1]).toMatchObject({ snow: 4 });
    expect(daily.list[1]?.rain).toBeUndefined();
  });

  it('names the condition seen most in daytime, the more eventful one on a tie, with the day icon', () => {
    // 11 January, 06:00-21:00: rain twice, clouds twice, clear twice: rain.
    expect(daily.list[0]?.weather).toEqual([RAIN]);
    // 12 January, 06:00-12:00: snow (its 06:00 entry has the night icon), clouds.
    expect(daily.list[1]?.weather).toEqual([SNOW]);
  });
});
