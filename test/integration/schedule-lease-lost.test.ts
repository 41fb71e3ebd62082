/**
 * A process that loses its lease on a scheduled post while it waits for its turn (frozen, swapped
 * out, or cut off from Redis past the lease) must not post once it runs again: another process has
 * taken the slot meanwhile, and may have posted it minutes ago, beyond Discord's nonce memory.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createSlotPoster } from '../../src/services/schedules/runner.js';
import { ScheduleStore } from '../../src/services/schedules/store.js';
import { createStorage, type Storage } from '../../src/storage/index.js';
import { berlinSchedule } from '../fixtures/schedules.js';

const silent = { info() {}, warn() {}, error() {}, debug() {} };
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function sharedStorage() {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'bot-lease-lost-'));
  const storage = await createStorage({ dataDir });
  cleanups.push(async () => {
    await storage.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  return storage;
}

describe('a scheduled post whose lease ran out while it waited', () => {
  it('is left to the process that took the slot: one post, not two', async () => {
    const storage = await sharedStorage();
    const store = new ScheduleStore(storage, 25, () => Date.now());
    const schedule = await store.add(berlinSchedule({ createdAt: Date.now() }));
    const posts: string[] = [];

    // The first process stops in its turn's wait until the test lets it go on, and meanwhile
    // cannot keep its lease (as when it is frozen, or Redis is out of its reach).
    let resume!: () => void;
    const resumed = new Promise<void>((resolve) => (resume = resolve));
    let stalled = true;
    const frozen: Storage = {
      ...storage,
      nextTurn: async (...args) => {
        await resumed;
        return storage.nextTurn(...args);
      },
      extend: (...args) => (stalled ? Promise.resolve(false) : storage.extend(...args)),
    };
    const poster = (name: string, on: Storage) =>
      createSlotPoster({
        store,
        storage: on,
        logger: silent,
        leaseMs: 100,
        post: () => {
          posts.push(name);
          return Promise.resolve();
        },
      });
    const first = poster('first', frozen).postOne(schedule, '2026-11-23', {});

    // The other process tries the slot until the first one's lease has run out, and posts it.
    const second = poster('second', storage);
    let outcome = await second.postOne(schedule, '2026-11-23', {});
    for (let tries = 0; outcome === 'busy' && tries < 200; tries++) {
      await delay(25);
      outcome = await second.postOne(schedule, '2026-11-23', {});
    }
    expect(outcome).toBe('posted');

    stalled = false;
    resume();
    expect(await first).toBe('busy');
    expect(posts).toEqual(['second']);
  });

  it('stands as posted when the lease cannot be given up afterwards (storage gone meanwhile)', async () => {
    const storage = await sharedStorage();
    const store = new ScheduleStore(storage, 25, () => Date.now());
    const schedule = await store.add(berlinSchedule({ createdAt: Date.now() }));
    const posts: string[] = [];
    const poster = createSlotPoster({
      store,
      storage: { ...storage, release: () => Promise.reject(new Error('Redis went away')) },
      logger: silent,
      post: () => {
        posts.push('made');
        return Promise.resolve();
      },
    });
    expect(await poster.postOne(schedule, '2026-11-23', {})).toBe('posted');
    expect(await poster.isDone(schedule.id, '2026-11-23')).toBe(true);
    expect(posts).toEqual(['made']);
  });
});
