import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startWeatherEmulator, type WeatherEmulator } from '../../emulators/weather/index.js';
import {
  RateLimitError,
  WeatherInvalidKeyError,
  WeatherNotFoundError,
  type WeatherClient,
} from '../../src/services/weather/index.js';
import Keyv from 'keyv';
import { createStorageRateGate } from '../../src/services/http/rate-gate.js';
import { weatherClientFor } from '../fixtures/weather.js';

const BERLIN = { lat: 52.52, lon: 13.41 };
const CURRENT = { path: '/data/2.5/weather' };

let emulator: WeatherEmulator;

beforeAll(async () => {
  emulator = await startWeatherEmulator();
});
afterAll(() => emulator.close());
beforeEach(() => {
  emulator.resetCounts();
  emulator.setRateLimit({ count: 0 });
  emulator.setQuota(undefined);
  emulator.setNow(undefined);
});

/** A client whose waits are recorded instead of slept; `random` fixes the jitter. */
function recordingClient(random = () => 1, onSleep: (ms: number) => void = () => {}) {
  const sleeps: number[] = [];
  const client: WeatherClient = weatherClientFor(emulator, {
    transport: {
      random,
      sleep: (ms) => {
        sleeps.push(ms);
        onSleep(ms);
        return Promise.resolve();
      },
    },
  });
  return { client, sleeps };
}

describe('weather rate limits', () => {
  it('retries a 429 without Retry-After with exponential backoff, and succeeds once the quota frees', async () => {
    const { client, sleeps } = recordingClient();
    emulator.setRateLimit({ count: 2 });
    const weather = await client.current.byCoords(BERLIN);
    expect(weather.name).toBe('Berlin');
    expect(emulator.requests(CURRENT).map((r) => r.status)).toEqual([429, 429, 200]);
    expect(sleeps).toEqual([500, 1_000]);
    await client.close();
  });

  it('draws each wait at random below the exponential bound (full jitter)', async () => {
    const { client, sleeps } = recordingClient(() => 0.25);
    emulator.setRateLimit({ count: 3 });
    await client.current.byCoords(BERLIN);
    expect(sleeps).toEqual([125, 250, 500]);
    await client.close();
  });

  it('waits for the per-minute quota to free on the emulator clock', async () => {
    let clock = Date.UTC(2025, 0, 15, 12, 0, 0);
    emulator.setNow(clock);
    emulator.setQuota(2);
    const sleeps: number[] = [];
    const client = weatherClientFor(emulator, {
      transport: {
        random: () => 1,
        // A call allowed to wait out a minute's quota needs a time limit longer than that.
        timeoutMs: 120_000,
        rateLimit: { backoffBaseMs: 20_000, backoffMaxMs: 60_000, maxAttempts: 5 },
        // The fake sleep moves the emulator's clock, so backing off really lets the minute pass.
        sleep: (ms) => {
          sleeps.push(ms);
          clock += ms;
          emulator.setNow(clock);
          return Promise.resolve();
        },
      },
    });
    await client.current.byCoords({ lat: 1, lon: 1 });
    await client.current.byCoords({ lat: 2, lon: 2 });
    await client.current.byCoords({ lat: 3, lon: 3 });
    expect(emulator.requests(CURRENT).map((r) => r.status)).toEqual([200, 200, 429, 429, 200]);
    expect(sleeps).toEqual([20_000, 40_000]);
    await client.close();
  });

  it('ends a persisting 429 in a clear RateLimitError after the last attempt', async () => {
    const { client, sleeps } = recordingClient();
    emulator.setRateLimit({ count: 100 });
    const error = await client.current.byCoords(BERLIN).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as Error).message).toMatch(/rate limited by the weather service/);
    expect(emulator.requestCount(CURRENT)).toBe(4);
    expect(sleeps).toEqual([500, 1_000, 2_000]);
    await client.close();
  });

  it('honours a short Retry-After when the service sends one', async () => {
    const { client, sleeps } = recordingClient();
    emulator.setRateLimit({ count: 1, retryAfterSeconds: 3 });
    await client.current.byCoords(BERLIN);
    expect(sleeps).toEqual([3_000]);
    await client.close();
  });

  it('fails at once, saying when to come back, when Retry-After is too long to wait', async () => {
    const { client, sleeps } = recordingClient();
    emulator.setRateLimit({ count: 1, retryAfterSeconds: 3_600 });
    const error = await client.current.byCoords(BERLIN).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterMs).toBe(3_600_000);
    expect((error as Error).message).toContain('try again in 60 min');
    expect(sleeps).toEqual([]);
    expect(emulator.requestCount(CURRENT)).toBe(1);
    await client.close();
  });

  it('keeps a long Retry-After pause for every later call, on every host, without asking again', async () => {
    const { client } = recordingClient();
    emulator.setRateLimit({ count: 1, retryAfterSeconds: 3_600 });
    await expect(client.current.byCoords(BERLIN)).rejects.toBeInstanceOf(RateLimitError);
    emulator.setRateLimit({ count: 0 });
    const later = await client.forecast.daily({ lat: 48.14, lon: 11.58 }).catch((e: unknown) => e);
    expect(later).toBeInstanceOf(RateLimitError);
    expect((later as RateLimitError).retryAfterMs).toBeGreaterThan(3_500_000);
    // Only the first call reached the service.
    expect(emulator.requestCount()).toBe(1);
    await client.close();
  });

  it('shares the pause through storage with another process', async () => {
    const store = new Keyv();
    const first = weatherClientFor(emulator, { rateGate: createStorageRateGate(store, 'weather') });
    const second = weatherClientFor(emulator, { rateGate: createStorageRateGate(store, 'weather') });
    emulator.setRateLimit({ count: 1, retryAfterSeconds: 600 });
    await expect(first.current.byCoords(BERLIN)).rejects.toBeInstanceOf(RateLimitError);
    emulator.setRateLimit({ count: 0 });
    await expect(second.current.byCoords({ lat: 40.71, lon: -74.01 })).rejects.toBeInstanceOf(RateLimitError);
    expect(emulator.requestCount()).toBe(1);
    await Promise.all([first.close(), second.close()]);
  });

  it('sends Retry-After with quota 429s when switched on', async () => {
    emulator.setNow(Date.UTC(2025, 0, 15, 12, 0, 57));
    emulator.setQuota(0, { retryAfter: true });
    const { client, sleeps } = recordingClient();
    await expect(client.current.byCoords(BERLIN)).rejects.toBeInstanceOf(RateLimitError);
    expect(sleeps).toEqual([3_000, 3_000, 3_000]);
    emulator.setQuota(undefined, { retryAfter: false });
    await client.close();
  });

  it('does not retry 401 or 404', async () => {
    const { client, sleeps } = recordingClient();
    const stranger = weatherClientFor(emulator, { apiKey: 'wrong-key-123' });
    await expect(stranger.current.byCoords(BERLIN)).rejects.toBeInstanceOf(WeatherInvalidKeyError);
    await expect(client.current.byName({ q: 'Atlantis' })).rejects.toBeInstanceOf(WeatherNotFoundError);
    expect(emulator.requestCount(CURRENT)).toBe(2);
    expect(sleeps).toEqual([]);
    await stranger.close();
    await client.close();
  });
});
