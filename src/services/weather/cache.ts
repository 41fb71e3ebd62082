/**
 * Answers cached by normalised request, with single flight: concurrent identical requests share one
 * upstream call, and a cached answer is served until it expires. The store is optional (any Keyv);
 * without one, requests are still coalesced in the process. With a shared store and a shared lock
 * (both on Redis when several processes run), identical requests from different processes share
 * one call too: one process loads while the others wait for its answer to land in the store.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type Keyv from 'keyv';

/** A lock shared by every process using the same store (`Storage.claim`/`held`/`release`). */
export interface SharedLock {
  claim(key: string, ttlMs: number, owner: string): Promise<boolean>;
  held(key: string): Promise<boolean>;
  release(key: string, owner: string): Promise<void>;
}

/** Longer than one upstream call may take (the transport's limit), so a live holder never loses it. */
const LOCK_TTL_MS = 15_000;

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
  /** The yearly statistics are recomputed every hour (the spec). */
  statistics: 60 * 60_000,
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
    private readonly lock?: SharedLock,
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
    if (!this.store) return load();
    const store = this.store;
    const fresh = async () => {
      const hit = await this.read(store, key);
      return hit && hit.expires > this.now() ? hit : undefined;
    };
    const loadAndKeep = async () => {
      const value = await load();
      await this.write(store, key, { value, expires: this.now() + ttlMs }, ttlMs);
      return value;
    };
    const hit = await fresh();
    if (hit) return hit.value as T;
    if (!this.lock) return loadAndKeep();

    const owner = randomUUID();
    if (!(await this.attempt(() => this.lock!.claim(key, LOCK_TTL_MS, owner), true))) {
      // Another process is loading this answer: wait for it while it holds the lock. If it lets
      // go without storing one (its call failed), load it ourselves rather than queue for the lock.
      for (let pause = 20; ; pause = Math.min(pause * 2, 200)) {
        await delay(pause);
        // The lock first, then the cache: the holder stores its answer before it lets go, so once
        // the lock is seen free, the answer (if there is one) is there to be read.
        const holding = await this.attempt(() => this.lock!.held(key), false);
        const landed = await fresh();
        if (landed) return landed.value as T;
        if (!holding) return loadAndKeep();
      }
    }
    try {
      // It may have landed between our look and the claim.
      const landed = await fresh();
      return landed ? (landed.value as T) : await loadAndKeep();
    } finally {
      await this.attempt(() => this.lock!.release(key, owner), undefined);
    }
  }

  /** A lock operation, or `fallback` when storage fails: a broken lock only costs an extra call. */
  private async attempt<R>(operation: () => Promise<R>, fallback: R): Promise<R> {
    try {
      return await operation();
    } catch {
      return fallback;
    }
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
