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
    // 10 January, 09:00 to 21:00 local: the rest of today, from before midday to the evening.
    entry('2026-01-10T06:00:00Z', 279, CLOUDS),
    entry('2026-01-10T09:00:00Z', 281, CLOUDS),
    entry('2026-01-10T12:00:00Z', 282, CLEAR),
    entry('2026-01-10T15:00:00Z', 280, CLEAR),
    entry('2026-01-10T18:00:00Z', 278, CLEAR),
    // 11 January, 00:00 to 21:00 local.
    entry('2026-01-10T21:00:00Z', 270, { ...CLEAR, icon: '01n' }, { wind: { speed: 3, deg: 90 } }),
    entry('2026-01-11T00:00:00Z', 268, { ...CLEAR, icon: '01n' }),
    entry('2026-01-11T03:00:00Z', 267, RAIN, { rain: { '3h': 0.5 }, pop: 0.4 }),
    entry('2026-01-11T06:00:00Z', 271, RAIN, { rain: { '3h': 1.25 }, pop: 0.8 }),
    entry('2026-01-11T09:00:00Z', 275, CLOUDS, { wind: { speed: 7.5, deg: 250, gust: 12 }, pop: 0.2 }),
    entry('2026-01-11T12:00:00Z', 274, CLOUDS),
    entry('2026-01-11T15:00:00Z', 272, CLEAR),
    entry('2026-01-11T18:00:00Z', 269, { ...CLEAR, icon: '01n' }),
    // 12 January, 00:00 to 12:00 local: the last day of the five ends in its morning.
    entry('2026-01-11T21:00:00Z', 266, { ...SNOW, icon: '13n' }),
    entry('2026-01-12T00:00:00Z', 265, { ...SNOW, icon: '13n' }, { snow: { '3h': 2 } }),
    entry('2026-01-12T03:00:00Z', 264, { ...SNOW, icon: '13n' }, { snow: { '3h': 2 } }),
    entry('2026-01-12T06:00:00Z', 268, SNOW),
    entry('2026-01-12T09:00:00Z', 273, CLOUDS),
  ],
});

describe('a daily forecast made from the 5-day/3-hour one', () => {
  const daily = dailyFromThreeHourly(forecast, MOSCOW);

  it('makes the place’s own days that reach from midday to night, dated at local noon', () => {
    expect(daily.list.map((day) => day.dt)).toEqual([at('2026-01-10T09:00:00Z'), at('2026-01-11T09:00:00Z')]);
    expect(daily.cnt).toBe(2);
    expect(daily.city?.name).toBe('Moscow');
  });

  it('gives each day its low, high and parts at 06:00, 12:00, 18:00 and its last hours', () => {
    expect(daily.list[1]?.temp).toEqual({ min: 267, max: 275, morn: 267, day: 275, eve: 272, night: 269 });
    // The rest of today: low and high of the hours left, midday and night its own.
    expect(daily.list[0]?.temp).toMatchObject({ min: 278, max: 282, day: 281, night: 278 });
  });

  it('adds up rain and snow, and keeps the highest chance of precipitation and the strongest wind', () => {
    expect(daily.list[1]).toMatchObject({ rain: 1.75, pop: 0.8, speed: 7.5, deg: 250, gust: 12 });
    expect(daily.list[1]?.snow).toBeUndefined();
    expect(daily.list[0]?.rain).toBeUndefined();
  });

  it('counts a step’s rain for the three hours before it: the step at midnight for the evening', () => {
    // 6 mm on the step at 00:00 local (21:00 UTC) fell from 21:00 to midnight on 10 January.
    const wet = hourlyForecastSchema.parse({
      ...forecast,
      list: forecast.list.map((step) =>
        step.dt === at('2026-01-10T21:00:00Z') ? { ...step, rain: { '3h': 6 } } : step,
      ),
    });
    const [today, tomorrow] = dailyFromThreeHourly(wet, MOSCOW).list;
    expect(today?.rain).toBe(6);
    expect(tomorrow?.rain).toBe(1.75);
    // Where midnight falls inside a step (Berlin in winter, UTC+1), its hours are shared out: the
    // step at 00:00 UTC (01:00 local) holds 22:00 to 01:00, two hours of the day before.
    const berlin = { timezone: 3_600, zones: ['Europe/Berlin'] };
    const steps = ['09', '12', '15', '18', '21'].map((hour) =>
      entry(`2026-01-10T${hour}:00:00Z`, 275, CLOUDS),
    );
    const night = entry('2026-01-11T00:00:00Z', 272, RAIN, { rain: { '3h': 3 } });
    const [saturday] = dailyFromThreeHourly(
      hourlyForecastSchema.parse({ cnt: 6, list: [...steps, night] }),
      berlin,
    ).list;
    expect(saturday?.rain).toBe(2);
  });

  it('names the condition seen most in daytime, the more eventful one on a tie, with the day icon', () => {
    // 11 January, 06:00-21:00: rain twice, clouds twice, clear twice: rain.
    expect(daily.list[1]?.weather).toEqual([RAIN]);
    // Heavier rain beats light rain, and overcast beats a few clouds, on a tie.
    const tie = (a: object, b: object) =>
      dailyFromThreeHourly(
        hourlyForecastSchema.parse({
          cnt: 4,
          list: [
            entry('2026-01-10T06:00:00Z', 270, a),
            entry('2026-01-10T09:00:00Z', 270, b),
            entry('2026-01-10T15:00:00Z', 270, a),
            entry('2026-01-10T18:00:00Z', 270, b),
          ],
        }),
        MOSCOW,
      ).list[0]?.weather[0]?.id;
    expect(tie(RAIN, { ...RAIN, id: 502, description: 'heavy intensity rain' })).toBe(502);
    expect(tie({ ...CLOUDS, id: 801 }, { ...CLOUDS, id: 804 })).toBe(804);
    expect(tie(CLEAR, SNOW)).toBe(600);
  });

  it('reads each step with the offset of its own moment across a daylight-saving change', () => {
    // Berlin springs from 02:00 to 03:00 on 29 March 2026: 09:00 UTC is 11:00 there, 12:00 UTC 14:00.
    const berlin = { timezone: 3_600, zones: ['Europe/Berlin'] };
    const steps = ['00', '03', '06', '09', '12', '15', '18', '21'].map((hour, i) =>
      entry(`2026-03-29T${hour}:00:00Z`, hour === '09' ? 285 : hour === '12' ? 290 : 280 - i, CLOUDS),
    );
    const [day] = dailyFromThreeHourly(hourlyForecastSchema.parse({ cnt: 8, list: steps }), berlin).list;
    expect(day?.temp.day).toBe(285);
    expect(day?.dt).toBe(at('2026-03-29T10:00:00Z'));
  });
});
