import Keyv from 'keyv';
import { describe, expect, it } from 'vitest';
import { cacheKey, WeatherCache } from '../../src/services/weather/cache.js';

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('cacheKey', () => {
  it('does not depend on parameter order and leaves out absent ones', () => {
    expect(cacheKey('api/x', { lon: 2, lat: 1, cnt: undefined })).toBe(cacheKey('api/x', { lat: 1, lon: 2 }));
    expect(cacheKey('api/x', { q: 'a&b=c' })).not.toBe(cacheKey('api/x', { q: 'a', b: 'c' }));
  });
});

describe('WeatherCache', () => {
  it('shares one load among concurrent callers, and shares its failure too', async () => {
    const cache = new WeatherCache(undefined, () => 0);
    const gate = deferred<string>();
    let loads = 0;
    const load = () => {
      loads++;
      return gate.promise;
    };
    const calls = Array.from({ length: 10 }, () => cache.get('k', 1000, load));
    expect(cache.inFlight).toBe(1);
    gate.reject(new Error('upstream down'));
    const results = await Promise.allSettled(calls);
    expect(loads).toBe(1);
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    expect(cache.inFlight).toBe(0);
    // A failure is not remembered: the next call loads again.
    await expect(cache.get('k', 1000, () => Promise.resolve('ok'))).resolves.toBe('ok');
  });

  it('serves a stored answer until it expires by the injected clock', async () => {
    let now = 1_000_000;
    const cache = new WeatherCache(new Keyv(), () => now);
    let loads = 0;
    const load = () => Promise.resolve(++loads);
    expect(await cache.get('k', 600_000, load)).toBe(1);
    now += 599_999;
    expect(await cache.get('k', 600_000, load)).toBe(1);
    now += 1;
    expect(await cache.get('k', 600_000, load)).toBe(2);
  });

  it('treats a failing store as a miss rather than failing the request', async () => {
    const down = () => {
      throw new Error('redis down');
    };
    const store = { get: down, set: down, delete: () => true, clear: () => undefined };
    const broken = new Keyv({ store, throwOnErrors: true });
    broken.on('error', () => {});
    const cache = new WeatherCache(broken, () => 0);
    await expect(cache.get('k', 1000, () => Promise.resolve('fresh'))).resolves.toBe('fresh');
  });
});
