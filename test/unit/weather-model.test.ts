import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { conditionObject, CONDITIONS } from '../../emulators/weather/conditions.js';
import { isDaytime, observationTime, sample, sunTimes, temperature } from '../../emulators/weather/model.js';
import { currentWeather, dailyForecast, hourlyForecast, locate } from '../../emulators/weather/responses.js';

const place = fc.record({
  lat: fc.double({ min: -89.9, max: 89.9, noNaN: true }),
  lon: fc.double({ min: -180, max: 180, noNaN: true }),
});
/** 2000-01-01 to 2040-01-01, Unix seconds. */
const instant = fc.integer({ min: 946_684_800, max: 2_208_988_800 });

const RAINY = (id: number) => (id >= 200 && id < 600) || [511, 611, 612, 613, 615, 616].includes(id);
const SNOWY = (id: number) => id >= 600 && id < 700;

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

describe('the emulator weather model', () => {
  it('stays within physical ranges and keeps precipitation consistent with the condition', () => {
    fc.assert(
      fc.property(place, instant, ({ lat, lon }, t) => {
        const s = sample(1, lat, lon, t);
        expect(CONDITIONS.has(s.conditionId)).toBe(true);
        expect(s.humidity).toBeGreaterThanOrEqual(0);
        expect(s.humidity).toBeLessThanOrEqual(100);
        expect(s.clouds).toBeGreaterThanOrEqual(0);
        expect(s.clouds).toBeLessThanOrEqual(100);
        expect(s.visibility).toBeGreaterThan(0);
        expect(s.visibility).toBeLessThanOrEqual(10_000);
        expect(s.pop).toBeGreaterThanOrEqual(0);
        expect(s.pop).toBeLessThanOrEqual(1);
        expect(s.tempK - 273.15).toBeGreaterThan(-90);
        expect(s.tempK - 273.15).toBeLessThan(60);
        expect(s.tempMinK).toBeLessThanOrEqual(s.tempK);
        expect(s.tempMaxK).toBeGreaterThanOrEqual(s.tempK);
        expect(s.windGust).toBeGreaterThanOrEqual(s.windSpeed);
        expect(s.windDeg).toBeGreaterThanOrEqual(0);
        expect(s.windDeg).toBeLessThan(360);
        expect(s.rain1h > 0).toBe(RAINY(s.conditionId));
        expect(s.snow1h > 0).toBe(SNOWY(s.conditionId));
        if (s.rain1h + s.snow1h > 0) expect(s.pop).toBeGreaterThan(0.5);
      }),
      { numRuns: 2_000 },
    );
  });

  it('is a pure function of seed, place and instant', () => {
    fc.assert(
      fc.property(place, instant, ({ lat, lon }, t) => {
        expect(sample(7, lat, lon, t)).toEqual(sample(7, lat, lon, t));
      }),
    );
    expect(sample(1, 52.52, 13.41, 1_736_942_400)).not.toEqual(sample(2, 52.52, 13.41, 1_736_942_400));
  });

  it('marks icons and parts of day by the sun: day icon when the sun is up', () => {
    fc.assert(
      fc.property(place, instant, ({ lat, lon }, t) => {
        const location = locate(lat, lon);
        const view = { seed: 1, units: 'standard' as const, lang: 'en' };
        // Current weather is the observation of the hour: the sun as it stood then.
        const icon = currentWeather(location, t, view).weather[0]?.icon ?? '';
        expect(icon.endsWith(isDaytime(lat, lon, observationTime(t)) ? 'd' : 'n')).toBe(true);
        const entry = hourlyForecast(location, t, 1, view).list[0];
        expect(entry?.weather[0]?.icon.slice(-1)).toBe(entry?.sys.pod);
      }),
      { numRuns: 300 },
    );
  });

  it('is warmer in the local summer and in the afternoon', () => {
    const days = Array.from({ length: 30 }, (_, d) => d * 86_400);
    const january = Date.UTC(2025, 0, 1) / 1000;
    const july = Date.UTC(2025, 6, 1) / 1000;
    const at = (lat: number, lon: number, start: number, hourUtc = 12) =>
      mean(days.map((d) => sample(1, lat, lon, start + d + hourUtc * 3600).tempK));
    expect(at(52.52, 13.41, july)).toBeGreaterThan(at(52.52, 13.41, january) + 10);
    expect(at(-33.87, 151.21, january, 2)).toBeGreaterThan(at(-33.87, 151.21, july, 2) + 5);
    // Berlin: 14:00 local is warmer than 05:00 local, on average.
    expect(at(52.52, 13.41, july, 13)).toBeGreaterThan(at(52.52, 13.41, july, 4) + 3);
  });

  it('is realistic by latitude: warm and wet tropics, dry subtropics, cold poles, seasons away from the equator', () => {
    const year = Date.UTC(2024, 0, 1) / 1000;
    const climate = (lat: number, lon: number) => {
      const days = Array.from({ length: 365 }, (_, d) => year + d * 86_400);
      // Solar noon-ish and solar midnight-ish of every day, plus every hour for the precipitation.
      const at = (d: number, solarHour: number) =>
        sample(1, lat, lon, d + ((solarHour - lon / 15 + 24) % 24) * 3600);
      const temps = days.flatMap((d) => [at(d, 14), at(d, 4)].map((s) => s.tempK - 273.15));
      const season = (from: number) =>
        mean(days.slice(from, from + 31).flatMap((d) => [at(d, 14), at(d, 4)].map((s) => s.tempK)));
      let precipitation = 0;
      for (let h = 0; h < 365 * 24; h++) {
        const s = sample(1, lat, lon, year + h * 3600);
        precipitation += s.rain1h + s.snow1h;
      }
      return {
        mean: mean(temps),
        swing: Math.abs(season(181) - season(0)),
        dailyRange: mean(days.map((d) => at(d, 15).tempK - at(d, 4).tempK)),
        precipitation,
      };
    };
    const singapore = climate(1.29, 103.85);
    const cairo = climate(30.04, 31.24);
    const berlin = climate(52.52, 13.41);
    const longyearbyen = climate(78.22, 15.63);
    expect(singapore.mean).toBeGreaterThan(24);
    expect(singapore.mean).toBeGreaterThan(cairo.mean);
    expect(cairo.mean).toBeGreaterThan(berlin.mean + 5);
    expect(berlin.mean).toBeGreaterThan(longyearbyen.mean + 10);
    expect(singapore.swing).toBeLessThan(2);
    expect(berlin.swing).toBeGreaterThan(12);
    expect(singapore.dailyRange).toBeGreaterThan(longyearbyen.dailyRange + 3);
    expect(singapore.precipitation).toBeGreaterThan(1_500);
    expect(cairo.precipitation).toBeLessThan(singapore.precipitation / 5);
  });

  it('knows the polar night: no sunrise in Longyearbyen in December, and night at noon', () => {
    const noon = Date.UTC(2025, 11, 21, 11) / 1000;
    expect(sunTimes(78.22, 15.63, noon)).toBeUndefined();
    expect(isDaytime(78.22, 15.63, noon)).toBe(false);
    const berlin = sunTimes(52.52, 13.41, noon);
    expect(berlin && (berlin.sunset - berlin.sunrise) / 3600).toBeCloseTo(7.6, 0);
  });

  it('uses the condition ids, groups, descriptions and icons of the real service', () => {
    const table: Array<[number[], string | string[], string | string[]]> = [
      [[200, 201, 202, 210, 211, 212, 221, 230, 231, 232], 'Thunderstorm', '11'],
      [[300, 301, 302, 310, 311, 312, 313, 314, 321], 'Drizzle', '09'],
      [[500, 501, 502, 503, 504], 'Rain', '10'],
      [[511], 'Rain', '13'],
      [[520, 521, 522, 531], 'Rain', '09'],
      [[600, 601, 602, 611, 612, 613, 615, 616, 620, 621, 622], 'Snow', '13'],
      [
        [701, 711, 721, 731, 741, 751, 761, 762, 771, 781],
        ['Mist', 'Smoke', 'Haze', 'Dust', 'Fog', 'Sand', 'Dust', 'Ash', 'Squall', 'Tornado'],
        '50',
      ],
      [[800], 'Clear', '01'],
      [[801, 802, 803, 804], 'Clouds', ['02', '03', '04', '04']],
    ];
    const ids = table.flatMap(([list]) => list);
    expect([...CONDITIONS.keys()].sort()).toEqual([...ids].sort());
    for (const [list, main, icon] of table) {
      list.forEach((id, i) => {
        const condition = conditionObject(id, true, 'en');
        expect(condition.main).toBe(Array.isArray(main) ? main[i] : main);
        expect(condition.icon).toBe(`${Array.isArray(icon) ? icon[i] : icon}d`);
        expect(conditionObject(id, false, 'en').icon).toBe(`${Array.isArray(icon) ? icon[i] : icon}n`);
        expect(condition.description).toBe(condition.description.toLowerCase());
      });
    }
    expect(conditionObject(731, true, 'en').description).toBe('sand/dust whirls');
    expect(conditionObject(804, true, 'en').description).toBe('overcast clouds');
    expect(conditionObject(804, true, 'de')).toMatchObject({ main: 'Clouds', description: 'Bedeckt' });
  });

  it('converts units exactly from the same Kelvin value', () => {
    fc.assert(
      fc.property(fc.integer({ min: 18_000, max: 33_000 }), (centiKelvin) => {
        const kelvin = centiKelvin / 100;
        expect(temperature(kelvin, 'metric')).toBeCloseTo(kelvin - 273.15, 9);
        expect(temperature(kelvin, 'imperial')).toBeCloseTo(((kelvin - 273.15) * 9) / 5 + 32, 2);
      }),
    );
  });

  it('gives daily forecasts whose min and max bound the four day parts', () => {
    fc.assert(
      fc.property(place, instant, ({ lat, lon }, t) => {
        const day = dailyForecast(locate(lat, lon), t, 1, { seed: 1, units: 'metric', lang: 'en' }).list[0];
        if (!day) throw new Error('no day');
        for (const part of [day.temp.morn, day.temp.day, day.temp.eve, day.temp.night]) {
          expect(part).toBeGreaterThanOrEqual(day.temp.min);
          expect(part).toBeLessThanOrEqual(day.temp.max);
        }
        expect(day.weather[0]?.icon.endsWith('d')).toBe(true);
        if ((day.rain ?? 0) + (day.snow ?? 0) > 0)
          expect(RAINY(day.weather[0]?.id ?? 0) || SNOWY(day.weather[0]?.id ?? 0)).toBe(true);
      }),
      { numRuns: 100 },
    );
  });
});
