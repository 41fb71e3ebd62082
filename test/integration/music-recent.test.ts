/**
 * A member's recent albums and artists last 90 days from their last change, on either backend,
 * and go when the member asks the bot to forget them.
 */
import { createClient } from '@keyv/redis';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { forgetRecent, getRecent, RECENT_TTL_MS, rememberRecent } from '../../src/domain/music/recent.js';
import { createStorage, type Storage } from '../../src/storage/index.js';
import {
  cleanRedisPrefix,
  haveRedis,
  REDIS_URL,
  storageBackends,
  uniquePrefix,
} from '../helpers/services.js';

const redisReady = await haveRedis();
const cleanups: (() => Promise<unknown>)[] = [];
const opened: Storage[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(opened.splice(0).map((storage) => storage.close()));
});
afterAll(() => Promise.all(cleanups.map((clean) => clean())));

const backends = storageBackends('music-recent', redisReady, cleanups);

const DAY = 24 * 3600_000;
const album = (id: string) => ({ id, name: `Album ${id}`, detail: 'Someone' });

describe.each(backends)('recent albums and artists on $name', ({ available, options }) => {
  async function open() {
    const storage = await createStorage(await options());
    opened.push(storage);
    return storage.ns('music-recent');
  }

  it.runIf(available)('last 90 days from their last change, then are gone', async () => {
    const recent = await open();
    // Keyv stamps each value with its end on `Date.now()` and reads it back so: a clock the test moves.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2026, 0, 1) });
    await rememberRecent(recent, 'u1', 'albums', [album('a1')]);
    vi.setSystemTime(Date.now() + 60 * DAY);
    expect((await getRecent(recent, 'u1', 'albums')).map((item) => item.id)).toEqual(['a1']);
    // A change starts the 90 days again, for both lists.
    await rememberRecent(recent, 'u1', 'artists', [album('r1')]);
    vi.setSystemTime(Date.now() + 89 * DAY);
    expect((await getRecent(recent, 'u1', 'albums')).map((item) => item.id)).toEqual(['a1']);
    vi.setSystemTime(Date.now() + DAY + 1);
    expect(await getRecent(recent, 'u1', 'albums')).toEqual([]);
    expect(await getRecent(recent, 'u1', 'artists')).toEqual([]);
    expect(await recent.get('recent:u1')).toBeUndefined();
  });

  it.runIf(available)('are forgotten for one member, and only for them', async () => {
    const recent = await open();
    await rememberRecent(recent, 'u3', 'albums', [album('a3')]);
    await rememberRecent(recent, 'u3', 'artists', [album('r3')]);
    await rememberRecent(recent, 'u4', 'albums', [album('a4')]);
    await forgetRecent(recent, 'u3');
    expect(await getRecent(recent, 'u3', 'albums')).toEqual([]);
    expect(await getRecent(recent, 'u3', 'artists')).toEqual([]);
    expect(await recent.get('recent:u3')).toBeUndefined();
    expect((await getRecent(recent, 'u4', 'albums')).map((item) => item.id)).toEqual(['a4']);
  });
});

it.runIf(redisReady)('recent albums and artists are written with an expiry Redis keeps', async () => {
  const redisPrefix = uniquePrefix('music-recent');
  cleanups.push(() => cleanRedisPrefix(redisPrefix));
  const storage = await createStorage({ dataDir: 'unused', redisUrl: REDIS_URL, redisPrefix });
  opened.push(storage);
  const recent = storage.ns('music-recent');
  await rememberRecent(recent, 'u2', 'albums', [album('a2')]);
  const client = createClient({ url: REDIS_URL });
  await client.connect();
  try {
    const keys: string[] = [];
    for await (const found of client.scanIterator({ MATCH: `${redisPrefix}:*recent:u2` })) {
      keys.push(...found);
    }
    expect(keys).toHaveLength(1);
    const left = await client.pTTL(keys[0]!);
    expect(left).toBeGreaterThan(RECENT_TTL_MS - 60_000);
    expect(left).toBeLessThanOrEqual(RECENT_TTL_MS);
  } finally {
    await client.close();
  }
});
