/**
 * Copies of upstream answers in Keyv, validated when read back: a value written by an older version
 * of the bot, or damaged, counts as missing.
 */
import type Keyv from 'keyv';
import type { z } from 'zod';

export async function readCached<S extends z.ZodType>(
  store: Keyv,
  key: string,
  schema: S,
): Promise<z.output<S> | undefined> {
  const parsed = schema.safeParse(await store.get(key));
  return parsed.success ? parsed.data : undefined;
}

/** The cached value, or `load()`'s, which is then kept for `ttlMs`. */
export async function cached<S extends z.ZodType>(
  store: Keyv,
  key: string,
  ttlMs: number,
  schema: S,
  load: () => Promise<z.output<S>>,
): Promise<z.output<S>> {
  const hit = await readCached(store, key, schema);
  if (hit !== undefined) return hit;
  const value = await load();
  await store.set(key, value, ttlMs);
  return value;
}

/** Resolves to `undefined` when `promise` takes longer than `ms` or fails; it keeps running. */
export function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      () => {
        clearTimeout(timer);
        resolve(undefined);
      },
    );
  });
}
