import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startWeatherEmulator, type WeatherEmulator } from '../../emulators/weather/index.js';
import { NetworkError, TimeoutError } from '../../src/services/http/errors.js';
import {
  WeatherBadRequestError,
  WeatherForbiddenError,
  WeatherInvalidKeyError,
  WeatherNotFoundError,
  WeatherParameterError,
  type WeatherClient,
  type WeatherUnits,
} from '../../src/services/weather/index.js';
import { weatherClientFor } from '../fixtures/weather.js';

/** 15 January 2025, 12:00 UTC: a fixed, hour-aligned clock. */
const NOW = Date.UTC(2025, 0, 15, 12);
const NOW_S = NOW / 1000;
const BERLIN = { lat: 52.52, lon: 13.41 };

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

beforeEach(() => emulator.resetCounts());

const toKelvin = (value: number, units: WeatherUnits) =>
  units === 'standard' ? value : units === 'metric' ? value + 273.15 : ((value - 32) * 5) / 9 + 273.15;
const toMetresPerSecond = (value: number, units: WeatherUnits) =>
  units === 'imperial' ? value * 0.447_04 : value;

describe('every endpoint of the weather spec, through the client', () => {
  it('current weather by coordinates and by name', async () => {
    const byCoords = await client.current.byCoords(BERLIN);
    expect(byCoords.name).toBe('Berlin');
    expect(byCoords.dt).toBe(NOW_S);
    const byName = await client.current.byName({ q: 'München', lang: 'de' });
    // Found by its German name, and named in the language asked for.
    expect(byName.id).toBe(2_867_714);
    expect(byName.name).toBe('München');
    expect(byName.sys?.country).toBe('DE');
    expect(emulator.requestCount({ host: 'api', path: '/data/2.5/weather' })).toBe(2);
  });

  it('hourly forecast (pro host): 96 hours by default, cnt honoured', async () => {
    const full = await client.forecast.hourly(BERLIN);
    expect(full.list).toHaveLength(96);
    expect(full.list[1]?.dt).toBe(NOW_S + 3600);
    expect((await client.forecast.hourly({ ...BERLIN, cnt: 5 })).cnt).toBe(5);
    expect(emulator.requestCount({ host: 'pro' })).toBe(2);
  });

  it('daily forecast: cnt days from today', async () => {
    const daily = await client.forecast.daily({ ...BERLIN, cnt: 16 });
    expect(daily.list).toHaveLength(16);
    expect(daily.city?.timezone).toBe(3600);
    for (const day of daily.list) expect(day.temp.min).toBeLessThanOrEqual(day.temp.max);
  });

  it('5-day forecast in 3-hour steps: 40 entries from the next slot', async () => {
    const forecast = await client.forecast.threeHourly(BERLIN);
    expect(forecast.list).toHaveLength(40);
    expect(forecast.list[0]?.dt).toBe(NOW_S + 3 * 3600);
    expect(forecast.list[0]?.dt_txt).toBe('2025-01-15 15:00:00');
  });

  it('direct and reverse geocoding', async () => {
    const [munich] = await client.geocoding.direct({ q: 'München,DE', limit: 1 });
    expect(munich?.local_names?.['de']).toBe('München');
    const near = await client.geocoding.reverse({ lat: 48.14, lon: 11.58 });
    expect(near.map((p) => p.name)).toEqual(['Munich']);
  });

  it('hourly history, yearly statistics and accumulated values', async () => {
    const history = await client.history.hourly({ ...BERLIN, start: NOW_S - 23 * 3600, end: NOW_S });
    expect(history.cnt).toBe(24);
    expect(history.list.at(-1)?.dt).toBe(NOW_S);

    const yearly = await client.history.yearly(BERLIN);
    // "All 365 days of the entire year" (the service's page): 29 February is not among them.
    expect(yearly.result).toHaveLength(365);
    expect(yearly.result.some((d) => d.month === 2 && d.day === 29)).toBe(false);
    const july = yearly.result.find((d) => d.month === 7 && d.day === 15);
    const january = yearly.result.find((d) => d.month === 1 && d.day === 15);
    expect(july?.temp.mean).toBeGreaterThan((january?.temp.mean ?? Infinity) + 10);

    const start = Date.UTC(2024, 11, 1) / 1000;
    const end = Date.UTC(2024, 11, 10) / 1000;
    const temperature = await client.history.accumulatedTemperature({
      ...BERLIN,
      start,
      end,
      threshold: 200,
    });
    expect(temperature.map((r) => r.date)).toEqual(Array.from({ length: 10 }, (_, i) => `2024-12-${i + 1}`));
    expect(temperature.at(-1)?.count).toBe(10);
    // Running totals never shrink.
    for (let i = 1; i < temperature.length; i++) {
      expect(temperature[i]?.temp).toBeGreaterThanOrEqual(temperature[i - 1]?.temp ?? 0);
    }
    const precipitation = await client.history.accumulatedPrecipitation({ ...BERLIN, start, end });
    expect(precipitation).toHaveLength(10);
  });

  it('gives the same temperature and wind in standard, metric and imperial, after conversion', async () => {
    const answers = await Promise.all(
      (['standard', 'metric', 'imperial'] as const).map(async (units) => ({
        units,
        current: await client.current.byCoords({ ...BERLIN, units }),
        hourly: await client.forecast.hourly({ ...BERLIN, units, cnt: 3 }),
        daily: await client.forecast.daily({ ...BERLIN, units, cnt: 2 }),
      })),
    );
    const [standard] = answers;
    if (!standard) throw new Error('no answer');
    for (const { units, current, hourly, daily } of answers) {
      expect(toKelvin(current.main.temp, units)).toBeCloseTo(standard.current.main.temp, 1);
      expect(toKelvin(current.main.feels_like ?? 0, units)).toBeCloseTo(
        standard.current.main.feels_like ?? 0,
        1,
      );
      expect(toMetresPerSecond(current.wind?.speed ?? 0, units)).toBeCloseTo(
        standard.current.wind?.speed ?? 0,
        1,
      );
      expect(toKelvin(hourly.list[2]?.main.temp ?? 0, units)).toBeCloseTo(
        standard.hourly.list[2]?.main.temp ?? 0,
        1,
      );
      expect(toKelvin(daily.list[1]?.temp.max ?? 0, units)).toBeCloseTo(
        standard.daily.list[1]?.temp.max ?? 0,
        1,
      );
      // Pressure and humidity do not depend on units.
      expect(current.main.pressure).toBe(standard.current.main.pressure);
    }
  });

  it('tells the same story at the same instant: current, hourly forecast and history agree', async () => {
    const current = await client.current.byCoords(BERLIN);
    const forecast = await client.forecast.hourly({ ...BERLIN, cnt: 1 });
    const history = await client.history.hourly({ ...BERLIN, start: NOW_S, cnt: 1 });
    const hour = forecast.list[0];
    const past = history.list[0];
    expect(hour?.dt).toBe(NOW_S);
    expect(past?.dt).toBe(NOW_S);
    for (const entry of [hour, past]) {
      expect(entry?.main.temp).toBe(current.main.temp);
      expect(entry?.main.humidity).toBe(current.main.humidity);
      expect(entry?.weather[0]).toEqual(current.weather[0]);
      expect(entry?.wind?.speed).toBe(current.wind?.speed);
    }
  });

  it('translates the description but not the group', async () => {
    const english = await client.current.byCoords(BERLIN);
    const german = await client.current.byCoords({ ...BERLIN, lang: 'de' });
    expect(german.weather[0]?.main).toBe(english.weather[0]?.main);
    expect(german.weather[0]?.description).not.toBe(english.weather[0]?.description);
  });
});

describe('geocoding ambiguous names', () => {
  it('finds several Springfields, each with its state and country', async () => {
    const places = await client.geocoding.direct({ q: 'Springfield', limit: 5 });
    expect(places).toHaveLength(5);
    for (const place of places) {
      expect(place.country).toBe('US');
      expect(place.state).toBeTruthy();
      expect(place.local_names?.['en']).toBe('Springfield');
    }
    expect(new Set(places.map((p) => p.state)).size).toBe(5);
  });

  it('tells apart Paris in France, the US and Canada, and London in the UK, Canada and the US', async () => {
    const paris = await client.geocoding.direct({ q: 'Paris', limit: 5 });
    expect(paris.map((p) => p.country)).toEqual(['FR', 'US', 'CA', 'US', 'US']);
    expect(paris[0]).toMatchObject({ state: 'Ile-de-France', local_names: { it: 'Parigi' } });
    const american = await client.geocoding.direct({ q: 'Paris,US', limit: 5 });
    expect(american.map((p) => p.state).sort()).toEqual(['Illinois', 'Kentucky', 'Tennessee', 'Texas']);
    expect(await client.geocoding.direct({ q: 'Paris,TN,US' })).toMatchObject([
      { name: 'Paris', state: 'Tennessee', country: 'US', lat: 36.302, lon: -88.3267 },
    ]);
    const london = await client.geocoding.direct({ q: 'London', limit: 5 });
    expect(london.map((p) => `${p.state}, ${p.country}`)).toEqual([
      'England, GB',
      'Ontario, CA',
      'Kentucky, US',
    ]);
    expect((await client.geocoding.direct({ q: 'London,UK' }))[0]?.local_names?.['fr']).toBe('Londres');
    expect((await client.current.byName({ q: 'London,CA' })).sys?.country).toBe('CA');
  });

  it('keeps a gazetteer of unique places, each US one with its state code', () => {
    const places = emulator.places;
    expect(new Set(places.map((p) => p.id)).size).toBe(places.length);
    for (const place of places) {
      expect(place.local_names['en']).toBeTruthy();
      if (place.country === 'US') expect(place.stateCode).toMatch(/^[A-Z]{2}$/);
    }
  });

  it('narrows by state code and country', async () => {
    const places = await client.geocoding.direct({ q: 'Springfield,MO,US' });
    expect(places.map((p) => p.state)).toEqual(['Missouri']);
    expect((await client.geocoding.direct({ q: 'London,CA' })).map((p) => p.state)).toEqual(['Ontario']);
  });

  it('answers an unknown name with an empty list', async () => {
    expect(await client.geocoding.direct({ q: 'Atlantis' })).toEqual([]);
  });
});

describe('weather errors through the client', () => {
  it('an unknown city name is a WeatherNotFoundError saying "city not found"', async () => {
    const error = await client.current.byName({ q: 'Atlantis' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WeatherNotFoundError);
    expect((error as Error).message).toContain('city not found');
  });

  it('a wrong key is a WeatherInvalidKeyError with the service message', async () => {
    const stranger = weatherClientFor(emulator, { apiKey: 'not-a-valid-key' });
    const error = await stranger.current.byCoords(BERLIN).catch((e: unknown) => e);
    await stranger.close();
    expect(error).toBeInstanceOf(WeatherInvalidKeyError);
    expect((error as Error).message).toContain('Invalid API key');
  });

  it('more than a week of history is a WeatherBadRequestError', async () => {
    const error = await client.history
      .hourly({ ...BERLIN, start: NOW_S - 200 * 3600, end: NOW_S })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WeatherBadRequestError);
    expect((error as Error).message).toContain('168 hours');
  });

  it('a key without the paid plan is refused the paid products with a 401 that says so', async () => {
    const free = weatherClientFor(emulator, { apiKey: 'test-free-key' });
    try {
      expect((await free.current.byCoords(BERLIN)).name).toBe('Berlin');
      expect((await free.forecast.threeHourly({ ...BERLIN, cnt: 1 })).cnt).toBe(1);
      const refusals = await Promise.all(
        [
          () => free.forecast.daily({ ...BERLIN, cnt: 1 }),
          () => free.forecast.hourly({ ...BERLIN, cnt: 1 }),
          () => free.history.hourly({ ...BERLIN, start: NOW_S - 3600, cnt: 1 }),
          () => free.history.yearly(BERLIN),
          () => free.history.accumulatedPrecipitation({ ...BERLIN, start: NOW_S - 86_400, end: NOW_S }),
          () => free.bulk.snapshot('weather_16.csv.gz').next(),
        ].map((run) => run().catch((e: unknown) => e)),
      );
      for (const error of refusals) {
        expect(error).toBeInstanceOf(WeatherInvalidKeyError);
        expect((error as WeatherInvalidKeyError).paidProduct).toBe(true);
        expect((error as Error).message).toContain('Invalid API key');
        expect((error as Error).message).toContain('needs a paid plan');
      }
    } finally {
      await free.close();
    }
    // A wrong key on the free host is just a wrong key.
    const stranger = weatherClientFor(emulator, { apiKey: 'not-a-valid-key' });
    const error = await stranger.current.byCoords(BERLIN).catch((e: unknown) => e);
    await stranger.close();
    expect((error as WeatherInvalidKeyError).paidProduct).toBe(false);
    expect((error as Error).message).not.toContain('paid plan');
  });

  it('retries a dropped connection, and ends a persisting one in a NetworkError', async () => {
    emulator.failNext('/data/2.5/forecast', 'reset');
    expect((await client.forecast.threeHourly({ ...BERLIN, cnt: 1 })).cnt).toBe(1);
    expect(emulator.requests({ path: '/data/2.5/forecast' }).map((r) => r.status)).toEqual([0, 200]);
    for (let i = 0; i < 3; i++) emulator.failNext('/data/2.5/forecast', 'reset');
    await expect(client.forecast.threeHourly({ ...BERLIN, cnt: 2 })).rejects.toBeInstanceOf(NetworkError);
  });

  it('gives up on an answer slower than the time limit with a TimeoutError, after retrying', async () => {
    const impatient = weatherClientFor(emulator, {
      // One second for the whole call, half of it for each try.
      transport: { timeoutMs: 1_000, retries: 1, sleep: () => Promise.resolve() },
    });
    try {
      emulator.delayNext('/geo/1.0/reverse', 1_500);
      expect(await impatient.geocoding.reverse(BERLIN)).toHaveLength(1);
      emulator.delayNext('/geo/1.0/reverse', 1_500);
      emulator.delayNext('/geo/1.0/reverse', 1_500);
      await expect(impatient.geocoding.reverse({ lat: 48.14, lon: 11.58 })).rejects.toBeInstanceOf(
        TimeoutError,
      );
    } finally {
      await impatient.close();
    }
  });

  it('403 is a WeatherForbiddenError, and is not retried', async () => {
    emulator.failNext('/data/2.5/forecast/hourly', 403);
    await expect(client.forecast.hourly({ ...BERLIN, cnt: 2 })).rejects.toBeInstanceOf(WeatherForbiddenError);
    expect(emulator.requestCount({ path: '/data/2.5/forecast/hourly' })).toBe(1);
  });

  it('an unknown bulk file is a WeatherNotFoundError', async () => {
    const iterator = client.bulk.snapshot('weather_99.json.gz');
    await expect(iterator.next()).rejects.toBeInstanceOf(WeatherNotFoundError);
  });

  it('a language the service does not know is refused without a request', async () => {
    await expect(client.current.byCoords({ ...BERLIN, lang: 'xx' as 'en' })).rejects.toBeInstanceOf(
      WeatherParameterError,
    );
    expect(emulator.requestCount()).toBe(0);
  });
});
