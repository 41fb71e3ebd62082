import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createStorage,
  evictionPolicyIn,
  LockBusyError,
  withLock,
  type Storage,
  type StorageOptions,
} from '../../src/storage/index.js';
import { createClient } from '@keyv/redis';
import { cleanRedisPrefix, haveRedis, REDIS_URL, uniquePrefix } from '../helpers/services.js';

const redisReady = await haveRedis();
const dirs: string[] = [];
const redisPrefixes: string[] = [];

async function sqliteOptions(): Promise<StorageOptions> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'bot-storage-'));
  dirs.push(dataDir);
  return { dataDir };
}

function redisOptions(): StorageOptions {
  const redisPrefix = uniquePrefix('storage');
  redisPrefixes.push(redisPrefix);
  return { dataDir: 'unused', redisUrl: REDIS_URL, redisPrefix };
}

afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  await Promise.all(redisPrefixes.map((prefix) => cleanRedisPrefix(prefix)));
});

const backends = [
  { name: 'SQLite', available: true, options: sqliteOptions },
  { name: 'Redis', available: redisReady, options: () => Promise.resolve(redisOptions()) },
];

describe.each(backends)('the storage contract on $name', ({ available, options }) => {
  let storage: Storage;
  /** The options `storage` was opened with, for a second client on the same data (another process). */
  let opened: StorageOptions;
  beforeAll(async () => {
    if (available) {
      opened = await options();
      storage = await createStorage(opened);
    }
  });
  afterAll(async () => {
    await storage?.close();
  });

  it.runIf(available)('keeps, returns and deletes a structured value', async () => {
    const links = storage.ns<{ userId: string; scopes: string[] }>('links');
    await links.set('user-1', { userId: 'user-1', scopes: ['a', 'b'] });
    expect(await links.get('user-1')).toEqual({ userId: 'user-1', scopes: ['a', 'b'] });
    expect(await links.delete('user-1')).toBe(true);
    expect(await links.get('user-1')).toBeUndefined();
  });

  it.runIf(available)('forgets a value once its time to live has passed', async () => {
    const states = storage.ns<string>('oauth-states');
    await states.set('short', 'lived', 150);
    await states.set('long', 'lived', 60_000);
    expect(await states.get('short')).toBe('lived');
    await delay(400);
    expect(await states.get('short')).toBeUndefined();
    expect(await states.get('long')).toBe('lived');
  });

  it.runIf(available)('keeps namespaces apart: the same key in two kinds of data', async () => {
    await storage.ns('prefs').set('same-key', 'preference');
    await storage.ns('schedules').set('same-key', 'schedule');
    expect(await storage.ns('prefs').get('same-key')).toBe('preference');
    await storage.ns('prefs').clear();
    expect(await storage.ns('prefs').get('same-key')).toBeUndefined();
    expect(await storage.ns('schedules').get('same-key')).toBe('schedule');
  });

  it.runIf(available)('starts the turns again from now after the clock was set back', async () => {
    // A turn an hour ahead is what the clock going back an hour leaves.
    await storage.nextTurn('locks', 'set-back', 3_600_000);
    expect(await storage.nextTurn('locks', 'set-back', 100)).toBeLessThan(1_000);
    // And the turns go on from there at their pace.
    expect(await storage.nextTurn('locks', 'set-back', 100)).toBeGreaterThan(0);
  });

  it.runIf(available)(
    'hands out turns an interval apart, in order, to concurrent and separate clients',
    async () => {
      const other = await createStorage(opened);
      try {
        const waits = await Promise.all(
          Array.from({ length: 20 }, (_, i) => (i % 2 ? other : storage).nextTurn('locks', 'pace', 100)),
        );
        const sorted = [...waits].sort((a, b) => a - b);
        // Twenty turns 100 ms apart: the last waits about 1.9 s; no two share a turn.
        expect(sorted[0]).toBeLessThan(100);
        expect(sorted[19]).toBeGreaterThan(1_700);
        for (let i = 1; i < sorted.length; i++) expect(sorted[i]! - sorted[i - 1]!).toBeGreaterThan(60);
      } finally {
        await other.close();
      }
    },
  );

  it.runIf(available)('lets exactly one of many concurrent claimers take a key', async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => storage.claim('locks', 'slot-1', 60_000, `owner-${i}`)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it.runIf(available)(
    'runs work under a lock one at a time, and gives up on a lock held past the wait',
    async () => {
      const order: string[] = [];
      const work = (name: string) => async () => {
        order.push(`${name} in`);
        await delay(30);
        order.push(`${name} out`);
        return name;
      };
      const results = await Promise.all([
        withLock(storage, 'turns', work('a')),
        withLock(storage, 'turns', work('b')),
        withLock(storage, 'turns', work('c')),
      ]);
      expect(results).toEqual(['a', 'b', 'c']);
      for (let i = 0; i < order.length; i += 2) {
        expect(order[i + 1]).toBe(order[i]!.replace(' in', ' out'));
      }
      // Released after each: the lock can be taken again at once.
      expect(await storage.claim('locks', 'turns', 60_000, 'after')).toBe(true);
      await expect(withLock(storage, 'turns', work('late'), { waitMs: 200 })).rejects.toBeInstanceOf(
        LockBusyError,
      );
      expect(order).not.toContain('late in');
    },
  );

  it.runIf(available)(
    'keeps a lock for as long as its work runs, past the time it was taken for',
    async () => {
      const order: string[] = [];
      const slow = withLock(
        storage,
        'slow-write',
        async () => {
          order.push('slow in');
          await delay(600);
          order.push('slow out');
        },
        { ttlMs: 150 },
      );
      await delay(20);
      // Another process, on the same data, trying the same lock while the slow work runs.
      const other = await createStorage(opened);
      try {
        const second = withLock(
          other,
          'slow-write',
          () => {
            order.push('second in');
            return Promise.resolve();
          },
          { ttlMs: 150, waitMs: 2_000 },
        );
        await Promise.all([slow, second]);
      } finally {
        await other.close();
      }
      expect(order).toEqual(['slow in', 'slow out', 'second in']);
    },
  );

  it.runIf(available)(
    'frees a claim when it expires or its owner releases it, not when another does',
    async () => {
      expect(await storage.claim('locks', 'brief', 100, 'first')).toBe(true);
      expect(await storage.claim('locks', 'brief', 100, 'second')).toBe(false);
      expect(await storage.held('locks', 'brief')).toBe(true);
      await delay(250);
      expect(await storage.held('locks', 'brief')).toBe(false);
      expect(await storage.claim('locks', 'brief', 60_000, 'third')).toBe(true);
      await storage.release('locks', 'brief', 'first');
      expect(await storage.claim('locks', 'brief', 60_000, 'fourth')).toBe(false);
      await storage.release('locks', 'brief', 'third');
      expect(await storage.claim('locks', 'brief', 60_000, 'fifth')).toBe(true);
    },
  );

  it.runIf(available)(
    'makes a claim last longer for its owner only, and not once it has run out',
    async () => {
      expect(await storage.claim('locks', 'kept', 1_000, 'holder')).toBe(true);
      expect(await storage.extend('locks', 'kept', 1_000, 'someone-else')).toBe(false);
      // Extended every 300 ms, it outlasts its first second (a pause of the machine up to 700 ms
      // between two extensions does not matter).
      for (let i = 0; i < 5; i++) {
        await delay(300);
        expect(await storage.extend('locks', 'kept', 1_000, 'holder')).toBe(true);
      }
      expect(await storage.claim('locks', 'kept', 60_000, 'other')).toBe(false);
      await delay(1_300);
      expect(await storage.extend('locks', 'kept', 1_000, 'holder')).toBe(false);
      expect(await storage.claim('locks', 'kept', 60_000, 'other')).toBe(true);
    },
  );
});

describe('the Redis store when Redis refuses a command', () => {
  it.runIf(redisReady)('fails loudly for kept data, and reads a miss for a cache', async () => {
    const options = redisOptions();
    const storage = await createStorage(options);
    const raw = createClient({ url: REDIS_URL });
    await raw.connect();
    try {
      // A key of another type makes GET fail in Redis itself (WRONGTYPE), as a failing server
      // would: the adapter's default is to swallow that and answer "nothing".
      await raw.hSet(`${options.redisPrefix}:schedules:guilds`, 'x', '1');
      await raw.hSet(`${options.redisPrefix}:weather-cache:k`, 'x', '1');
      await expect(storage.ns('schedules').get('guilds')).rejects.toThrow(/WRONGTYPE/);
      expect(await storage.ns('weather-cache').get('k')).toBeUndefined();
    } finally {
      await raw.close();
      await storage.close();
    }
  });
});

describe('the Redis store at start', () => {
  /** `INFO memory` as Redis 7 answers it (abridged), with the two lines that matter set. */
  const info = (policy: string, maxmemory: string) =>
    [
      '# Memory',
      'used_memory:1048576',
      'used_memory_human:1.00M',
      `maxmemory:${maxmemory}`,
      `maxmemory_human:${maxmemory === '0' ? '0B' : '64.00G'}`,
      `maxmemory_policy:${policy}`,
      'allocator_frag_ratio:1.02',
      '',
    ].join('\r\n');

  it('reads a policy that evicts keys once a memory limit is reached', () => {
    expect(evictionPolicyIn(info('allkeys-lru', '68719476736'))).toBe('allkeys-lru');
    expect(evictionPolicyIn(info('volatile-ttl', '68719476736'))).toBe('volatile-ttl');
  });

  it('reads nothing to fear from a Redis that never evicts, or has no memory limit to evict at', () => {
    expect(evictionPolicyIn(info('noeviction', '68719476736'))).toBeUndefined();
    expect(evictionPolicyIn(info('allkeys-lru', '0'))).toBeUndefined();
    expect(evictionPolicyIn('# Memory\r\n')).toBeUndefined();
  });

  it.runIf(redisReady)('warns about the Redis it opens exactly when that Redis evicts keys', async () => {
    const raw = createClient({ url: REDIS_URL });
    await raw.connect();
    const expected = evictionPolicyIn(String(await raw.info('memory')));
    await raw.close();
    const warnings: string[] = [];
    const storage = await createStorage({
      ...redisOptions(),
      onWarning: (message) => warnings.push(message),
    });
    await storage.close();
    expect(warnings.filter((warning) => warning.includes('maxmemory'))).toEqual(
      expected === undefined ? [] : [expect.stringContaining(`maxmemory-policy ${expected}`)],
    );
  });
});

describe('the SQLite store', () => {
  it('keeps what was written across a restart of the process', async () => {
    const options = await sqliteOptions();
    const first = await createStorage(options);
    await first.ns('links').set('user-9', { account: 'acc-9' });
    await first.close();

    const second = await createStorage(options);
    expect(await second.ns('links').get('user-9')).toEqual({ account: 'acc-9' });
    await second.close();
  });
});

describe('a lock', () => {
  it('gives the work’s result even when the lock cannot be given up (it runs out by itself)', async () => {
    const storage = {
      claim: () => Promise.resolve(true),
      release: () => Promise.reject(new Error('connection lost')),
      extend: () => Promise.resolve(true),
    };
    await expect(withLock(storage, 'k', () => Promise.resolve('saved'))).resolves.toBe('saved');
  });
});
