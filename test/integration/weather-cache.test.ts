import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Keyv from 'keyv';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startWeatherEmulator, type WeatherEmulator } from '../../emulators/weather/index.js';
import { WeatherNotFoundError } from '../../src/services/weather/index.js';
import { createStorage, type StorageOptions } from '../../src/storage/index.js';
import { weatherClientFor } from '../fixtures/weather.js';
import { cleanRedisPrefix, haveRedis, REDIS_URL, uniquePrefix } from '../helpers/services.js';

const redisReady = await haveRedis();
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(() => Promise.all(cleanups.map((clean) => clean())));
const backends = [
  {
    name: 'SQLite',
    available: true,
    options: async (): Promise<StorageOptions> => {
      const dataDir = await mkdtemp(path.join(tmpdir(), 'bot-weather-cache-'));
      cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
      return { dataDir };
    },
  },
  {
    name: 'Redis',
    available: redisReady,
    options: (): Promise<StorageOptions> => {
      const redisPrefix = uniquePrefix('weather-cache');
      cleanups.push(() => cleanRedisPrefix(redisPrefix));
      return Promise.resolve({ dataDir: 'unused', redisUrl: REDIS_URL, redisPrefix });
    },
  },
];

const START = Date.UTC(2025, 0, 15, 12);
const BERLIN = { lat: 52.52, lon: 13.41 };
const CURRENT = { path: '/data/2.5/weather' };

let emulator: WeatherEmulator;

beforeAll(async () => {
  emulator = await startWeatherEmulator({ now: () => START });
});
afterAll(() => emulator.close());
beforeEach(() => emulator.resetCounts());

describe('weather answers are cached and coalesced', () => {
  it('100 concurrent identical requests make one upstream call; the same request within 10 minutes makes none', async () => {
    let now = START;
    const client = weatherClientFor(emulator, { cache: new Keyv(), now: () => now });
    const answers = await Promise.all(Array.from({ length: 100 }, () => client.current.byCoords(BERLIN)));
    expect(emulator.requestCount(CURRENT)).toBe(1);
    for (const answer of answers) expect(answer).toEqual(answers[0]);

    now += 9 * 60_000 + 59_000;
    expect(await client.current.byCoords(BERLIN)).toEqual(answers[0]);
    expect(emulator.requestCount(CURRENT)).toBe(1);

    now += 1_000;
    await client.current.byCoords(BERLIN);
    expect(emulator.requestCount(CURRENT)).toBe(2);
    await client.close();
  });

  // Without Redis its case is reported as skipped (haveRedis names why; under CI=true it fails).
  describe.each(backends)('with $name storage', ({ available, options }) => {
    it.runIf(available)(
      'makes one call for identical requests from three processes sharing storage',
      async () => {
        const opened = await options();
        const processes = await Promise.all([0, 1, 2].map(() => createStorage(opened)));
        const clients = processes.map((storage) =>
          weatherClientFor(emulator, {
            cache: storage.ns('weather-cache'),
            now: () => START,
            cacheLock: {
              claim: (key, ttlMs, owner) => storage.claim('locks', key, ttlMs, owner),
              held: (key) => storage.held('locks', key),
              release: (key, owner) => storage.release('locks', key, owner),
            },
          }),
        );
        try {
          // The answer takes a moment, so every process asks while the first call is under way.
          emulator.delayNext(CURRENT.path, 300);
          const answers = await Promise.all(
            Array.from({ length: 30 }, (_, i) => clients[i % 3]!.current.byCoords(BERLIN)),
          );
          expect(emulator.requestCount(CURRENT)).toBe(1);
          for (const answer of answers) expect(answer).toEqual(answers[0]);

          // The loading process fails: the others do not wait for the lock in turn, they ask themselves.
          emulator.resetCounts();
          const PARIS = { lat: 48.86, lon: 2.35 };
          for (let i = 0; i < 3; i++) emulator.failNext(CURRENT.path, 500);
          const settled = await Promise.allSettled(clients.map((client) => client.current.byCoords(PARIS)));
          expect(settled.filter((r) => r.status === 'fulfilled').length).toBeGreaterThanOrEqual(2);
          expect(emulator.requestCount(CURRENT)).toBeLessThanOrEqual(5);
        } finally {
          await Promise.all(clients.map((client) => client.close()));
          await Promise.all(processes.map((storage) => storage.close()));
        }
      },
    );
  });

  it('coalesces concurrent requests even without a cache, but then keeps nothing', async () => {
    const client = weatherClientFor(emulator);
    await Promise.all(Array.from({ length: 100 }, () => client.forecast.hourly({ ...BERLIN, cnt: 4 })));
    expect(emulator.requestCount({ path: '/data/2.5/forecast/hourly' })).toBe(1);
    await client.forecast.hourly({ ...BERLIN, cnt: 4 });
    expect(emulator.requestCount({ path: '/data/2.5/forecast/hourly' })).toBe(2);
    await client.close();
  });

  it('keys by normalised parameters: nearby coordinates share an entry, other units do not', async () => {
    const client = weatherClientFor(emulator, { cache: new Keyv() });
    await client.current.byCoords({ lat: 52.5201, lon: 13.4051 });
    await client.current.byCoords({ lat: 52.5249, lon: 13.4149, units: 'standard', lang: 'en' });
    expect(emulator.requestCount(CURRENT)).toBe(1);
    expect(emulator.requests(CURRENT)[0]?.query).toMatchObject({ lat: '52.52', lon: '13.41' });
    await client.current.byCoords({ ...BERLIN, units: 'metric' });
    await client.current.byCoords({ ...BERLIN, lang: 'fr' });
    await client.current.byName({ q: 'Berlin' });
    await client.current.byName({ q: ' berlin ' });
    expect(emulator.requestCount(CURRENT)).toBe(4);
    await client.close();
  });

  it('keys forecasts by cnt, an absent cnt being the service default (the maximum)', async () => {
    const client = weatherClientFor(emulator, { cache: new Keyv() });
    const HOURLY = { path: '/data/2.5/forecast/hourly' };
    await client.forecast.hourly({ ...BERLIN, cnt: 4 });
    await client.forecast.hourly({ ...BERLIN, cnt: 5 });
    expect(emulator.requestCount(HOURLY)).toBe(2);
    await client.forecast.hourly(BERLIN);
    expect((await client.forecast.hourly({ ...BERLIN, cnt: 96 })).list).toHaveLength(96);
    expect(emulator.requestCount(HOURLY)).toBe(3);
    await client.forecast.threeHourly({ ...BERLIN, cnt: 40 });
    await client.forecast.threeHourly(BERLIN);
    expect(emulator.requestCount({ path: '/data/2.5/forecast' })).toBe(1);
    await client.close();
  });

  it('keeps history that is not over yet only as long as current weather', async () => {
    let now = START;
    const client = weatherClientFor(emulator, { cache: new Keyv(), now: () => now });
    const HISTORY = { path: '/data/2.5/history/city' };
    const today = { ...BERLIN, start: START / 1000 - 12 * 3600, end: START / 1000 + 11 * 3600 };
    const open = { ...BERLIN, start: START / 1000 - 3600 };
    const ask = () => Promise.all([client.history.hourly(today), client.history.hourly(open)]);
    await ask();
    now += 9 * 60_000;
    await ask();
    expect(emulator.requestCount(HISTORY)).toBe(2);
    now += 60_000;
    await ask();
    expect(emulator.requestCount(HISTORY)).toBe(4);
    await client.close();
  });

  it('serves "the last 24 hours" from one call until the next hour brings a record', async () => {
    let now = START + 35 * 60_000;
    // An emulator of its own, whose clock moves with the client's.
    const service = await startWeatherEmulator({ now: () => now });
    const client = weatherClientFor(service, { cache: new Keyv(), now: () => now });
    const HISTORY = { path: '/data/2.5/history/city' };
    // As /weather history asks: on the hourly grid, up to the current second.
    const lastDay = () => {
      const nowSec = Math.floor(now / 1000);
      return { ...BERLIN, start: Math.floor(nowSec / 3600) * 3600 - 23 * 3600, end: nowSec };
    };
    const first = await client.history.hourly(lastDay());
    now += 9 * 60_000;
    expect(await client.history.hourly(lastDay())).toEqual(first);
    expect(service.requestCount(HISTORY)).toBe(1);
    now += 20 * 60_000; // 13:04: a new hour, a new record
    const next = await client.history.hourly(lastDay());
    expect(service.requestCount(HISTORY)).toBe(2);
    expect(next.list).toHaveLength(24);
    expect(next.list.at(-1)?.dt).toBe(first.list.at(-1)!.dt + 3600);
    await client.close();
    await service.close();
  });

  it('reads a history range ending at the command’s “now”, a moment before the client’s, as not over yet', async () => {
    let now = START + 20 * 60_000;
    const client = weatherClientFor(emulator, { cache: new Keyv(), now: () => now });
    const HISTORY = { path: '/data/2.5/history/city' };
    // As /weather history asks: the end is its clock's second, read before it defers and geocodes.
    const lastDay = () => {
      const end = Math.floor(now / 1000);
      now += 2_000;
      return { ...BERLIN, start: Math.floor(end / 3600) * 3600 - 23 * 3600, end };
    };
    await client.history.hourly(lastDay());
    now += 30_000;
    await client.history.hourly(lastDay());
    expect(emulator.requestCount(HISTORY)).toBe(1);
    // Eleven minutes on, the same hour: its record may have come since, so it is asked again.
    now += 11 * 60_000;
    await client.history.hourly(lastDay());
    expect(emulator.requestCount(HISTORY)).toBe(2);
    await client.close();
  });

  it('keeps accumulated values up to now as long as current weather, and a past period for hours', async () => {
    let now = START;
    const client = weatherClientFor(emulator, { cache: new Keyv(), now: () => now });
    const DAY = 86_400;
    const sinceMonday = () => ({ ...BERLIN, start: START / 1000 - 2 * DAY, end: Math.floor(now / 1000) });
    const lastWeek = { ...BERLIN, start: START / 1000 - 9 * DAY, end: START / 1000 - 3 * DAY };
    const ask = () =>
      Promise.all([
        client.history.accumulatedPrecipitation(sinceMonday()),
        client.history.accumulatedPrecipitation(lastWeek),
      ]);
    await ask();
    now += 9 * 60_000;
    await ask();
    const PRECIPITATION = { path: '/data/2.5/history/accumulated_precipitation' };
    expect(emulator.requestCount(PRECIPITATION)).toBe(2);
    now += 60_000;
    await ask();
    expect(emulator.requestCount(PRECIPITATION)).toBe(3);
    now += 5 * 60 * 60_000;
    await client.history.accumulatedPrecipitation(lastWeek);
    expect(emulator.requestCount(PRECIPITATION)).toBe(3);
    await client.close();
  });

  it('reads an accumulated period ending at the command’s “now”, a moment before the client’s, as not over yet', async () => {
    let now = START + 20 * 60_000;
    const client = weatherClientFor(emulator, { cache: new Keyv(), now: () => now });
    const DAY = 86_400;
    const PRECIPITATION = { path: '/data/2.5/history/accumulated_precipitation' };
    // As /weather accumulated asks: the end is its clock's second, read before it defers and geocodes.
    const since = () => {
      const end = Math.floor(now / 1000);
      now += 2_000;
      return { ...BERLIN, start: START / 1000 - 2 * DAY, end };
    };
    await client.history.accumulatedPrecipitation(since());
    now += 30_000;
    // Another member, half a minute later: the same hour, the same days summed.
    await client.history.accumulatedPrecipitation(since());
    expect(emulator.requestCount(PRECIPITATION)).toBe(1);
    // Eleven minutes on: kept only as long as current weather, not the hours of a finished period.
    now += 11 * 60_000;
    await client.history.accumulatedPrecipitation(since());
    expect(emulator.requestCount(PRECIPITATION)).toBe(2);
    await client.close();
  });

  it('keeps yearly statistics for the hour the service takes to recompute them', async () => {
    let now = START;
    const client = weatherClientFor(emulator, { cache: new Keyv(), now: () => now });
    const YEARLY = { path: '/data/2.5/aggregated/year' };
    await client.history.yearly(BERLIN);
    now += 59 * 60_000;
    await client.history.yearly(BERLIN);
    expect(emulator.requestCount(YEARLY)).toBe(1);
    now += 60_000;
    await client.history.yearly(BERLIN);
    expect(emulator.requestCount(YEARLY)).toBe(2);
    await client.close();
  });

  it('keys history asked by count as the hours the service answers, from start rounded up', async () => {
    const client = weatherClientFor(emulator, { cache: new Keyv(), now: () => START });
    const HISTORY = { path: '/data/2.5/history/city' };
    // 10:30 on a past day: two records by count are 11:00 and 12:00; up to 11:30, only 11:00.
    const halfPast = START / 1000 - 26 * 3600 + 1800;
    const byCount = await client.history.hourly({ ...BERLIN, start: halfPast, cnt: 2 });
    const byEnd = await client.history.hourly({ ...BERLIN, start: halfPast, end: halfPast + 3600 });
    expect(emulator.requestCount(HISTORY)).toBe(2);
    expect(byCount.list.map((record) => record.dt)).toEqual([halfPast + 1800, halfPast + 5400]);
    expect(byEnd.list.map((record) => record.dt)).toEqual([halfPast + 1800]);
    // The same hours asked by their end come from the cache.
    const same = await client.history.hourly({ ...BERLIN, start: halfPast, end: halfPast + 5400 });
    expect(same.list).toEqual(byCount.list);
    expect(emulator.requestCount(HISTORY)).toBe(2);
    await client.close();
  });

  it('keeps history for hours and geocoding for a day', async () => {
    let now = START;
    const client = weatherClientFor(emulator, { cache: new Keyv(), now: () => now });
    // Over: it ends an hour before now (a range up to the present hour may still gain its record).
    const range = { ...BERLIN, start: START / 1000 - 3 * 3600, end: START / 1000 - 3600 };
    await client.history.hourly(range);
    await client.geocoding.direct({ q: 'Springfield' });
    now += 5 * 60 * 60_000;
    await client.history.hourly(range);
    await client.geocoding.direct({ q: 'springfield' });
    expect(emulator.requestCount()).toBe(2);
    now += 2 * 60 * 60_000;
    await client.history.hourly(range);
    await client.geocoding.direct({ q: 'Springfield' });
    expect(emulator.requestCount({ host: 'history' })).toBe(2);
    expect(emulator.requestCount({ host: 'api' })).toBe(1);
    await client.close();
  });

  it('does not cache failures: a city not found is asked again', async () => {
    const client = weatherClientFor(emulator, { cache: new Keyv() });
    const attempts = await Promise.allSettled(
      Array.from({ length: 10 }, () => client.current.byName({ q: 'Atlantis' })),
    );
    expect(attempts.every((a) => a.status === 'rejected' && a.reason instanceof WeatherNotFoundError)).toBe(
      true,
    );
    expect(emulator.requestCount(CURRENT)).toBe(1);
    await expect(client.current.byName({ q: 'Atlantis' })).rejects.toBeInstanceOf(WeatherNotFoundError);
    expect(emulator.requestCount(CURRENT)).toBe(2);
    await client.close();
  });
});
