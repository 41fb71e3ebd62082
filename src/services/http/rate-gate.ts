/**
 * Shared pauses after a 429 (`RateLimitGate`): in memory for one process, or in storage so every
 * process of the bot honours a pause any one of them was told about.
 */
import type Keyv from 'keyv';
import type { RateLimitGate } from './transport.js';

export type { RateLimitGate } from './transport.js';

export interface StorageRateGateOptions {
  /**
   * Storage is read at most this often; in between, the copy in memory answers, so a call does not
   * cost a storage read. A pause set by another process is therefore seen up to this late.
   */
  refreshMs?: number;
  /** The clock pauses are measured with (epoch milliseconds); the transport's must agree. */
  now?: () => number;
  /** Storage failures are reported here and otherwise ignored: the gate then works from memory. */
  onError?: (error: unknown) => void;
}

/** Defaults for `createStorageRateGate`. */
export const DEFAULT_STORAGE_RATE_GATE_OPTIONS = {
  refreshMs: 1_000,
  now: Date.now,
  onError: () => {},
} as const satisfies Required<StorageRateGateOptions>;

/** A gate for one process: every client sharing it pauses after any one of them got a 429. */
export function createMemoryRateGate(now: () => number = Date.now): RateLimitGate {
  let until: number | undefined;
  return {
    blockedUntil: () => Promise.resolve(until !== undefined && until > now() ? until : undefined),
    block(next) {
      if (until === undefined || next > until) until = next;
      return Promise.resolve();
    },
  };
}

/**
 * A gate kept in storage under `key` (one key per upstream service), shared by every process using
 * the same store. The pause is stored as its end time, with a TTL equal to the wait, so it vanishes
 * on its own.
 */
export function createStorageRateGate(
  keyv: Keyv,
  key: string,
  options: StorageRateGateOptions = {},
): RateLimitGate {
  const { refreshMs, now, onError } = { ...DEFAULT_STORAGE_RATE_GATE_OPTIONS, ...options };
  let until: number | undefined;
  let readAt = Number.NEGATIVE_INFINITY;
  let reading: Promise<void> | undefined;

  const raise = (value: unknown) => {
    if (typeof value === 'number' && Number.isFinite(value) && (until === undefined || value > until))
      until = value;
  };

  async function read(): Promise<void> {
    readAt = now();
    try {
      raise(await keyv.get(key));
    } catch (error) {
      onError(error);
    }
  }

  const current = () => (until !== undefined && until > now() ? until : undefined);

  return {
    async blockedUntil() {
      if (now() - readAt >= refreshMs) {
        // Concurrent calls share one read.
        reading ??= read().finally(() => {
          reading = undefined;
        });
        await reading;
      }
      return current();
    },

    async block(next) {
      if (until !== undefined && next <= until) return;
      until = next;
      try {
        // Another process may have stored a longer pause meanwhile: keep the longer one.
        const stored: unknown = await keyv.get(key);
        raise(stored);
        if (typeof stored === 'number' && stored >= next) return;
        const ttl = next - now();
        if (ttl > 0) await keyv.set(key, next, ttl);
      } catch (error) {
        onError(error);
      }
    },
  };
}
