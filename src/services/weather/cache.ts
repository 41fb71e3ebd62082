/**
 * Answers cached by normalised request, with in-process single flight: concurrent identical requests
 * share one upstream call, and a cached answer is served until it expires. The store is optional
 * (any Keyv); without one, requests are still coalesced.
 */
import type Keyv from 'keyv';

/** How long answers stay fresh, in ms. The service refreshes its data about every 10 minutes. */
export interface WeatherCacheTtls {
  current: number;
  forecast: number;
  history: number;
  statistics: number;
  geocoding: number;
}

export const DEFAULT_CACHE_TTLS = {
  current: 10 * 60_000,
  forecast: 10 * 60_000,
  history: 6 * 60 * 60_000,
  statistics: 6 * 60 * 60_000,
  geocoding: 24 * 60 * 60_000,
} as const satisfies Required<WeatherCacheTtls>;

/** What is stored: the answer and when it expires by our clock (the store's own TTL only cleans up). */
interface Entry {
  value: unknown;
  expires: number;
}

const KEY_PREFIX = 'weather:v1:';

/** A cache key from an endpoint and its (already normalised) parameters, in a stable order. */
export function cacheKey(endpoint: string, params: Record<string, string | number | undefined>): string {
  const parts = Object.entries(params)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${name}=${encodeURIComponent(String(value))}`);
  return `${KEY_PREFIX}${endpoint}?${parts.join('&')}`;
}

export class WeatherCache {
  private readonly flights = new Map<string, Promise<unknown>>();

  constructor(
    private readonly store: Keyv | undefined,
    private readonly now: () => number,
  ) {}

  /**
   * The fresh cached answer for `key`, or `load()`'s, stored for `ttlMs`. Calls made while a load for
   * the same key is under way wait for it instead of starting their own. Failures are not cached.
   */
  get<T>(key: string, ttlMs: number, load: () => Promise<T>): Promise<T> {
    const running = this.flights.get(key);
    if (running) return running as Promise<T>;
    const flight = this.fetch(key, ttlMs, load).finally(() => this.flights.delete(key));
    this.flights.set(key, flight);
    return flight;
  }

  /** Requests currently in flight (for tests and metrics). */
  get inFlight(): number {
    return this.flights.size;
  }

  private async fetch<T>(key: string, ttlMs: number, load: () => Promise<T>): Promise<T> {
    if (this.store) {
      const hit = await this.read(this.store, key);
      if (hit && hit.expires > this.now()) return hit.value as T;
    }
    const value = await load();
    if (this.store) await this.write(this.store, key, { value, expires: this.now() + ttlMs }, ttlMs);
    return value;
  }

  // A broken cache must not break the weather: a failed read is a miss, a failed write is skipped.
  private async read(store: Keyv, key: string): Promise<Entry | undefined> {
    try {
      const entry = await store.get<Partial<Entry>>(key);
      return entry && typeof entry.expires === 'number' ? (entry as Entry) : undefined;
    } catch {
      return undefined;
    }
  }

  private async write(store: Keyv, key: string, entry: Entry, ttlMs: number): Promise<void> {
    try {
      await store.set(key, entry, ttlMs);
    } catch {
      // Best effort.
    }
  }
}
