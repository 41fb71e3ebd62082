/**
 * The index of servers with schedules holds only servers that have some: a server's last schedule
 * removed, its row and its index entry go, so a full read of every schedule reads no list for it.
 * Removing a server's last schedule while another process adds one there loses neither.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ScheduleStore } from '../../src/services/schedules/store.js';
import type { Schedule } from '../../src/services/schedules/types.js';
import { createStorage, type Storage, type StorageOptions } from '../../src/storage/index.js';
import { berlinSchedule } from '../fixtures/schedules.js';
import { haveRedis, storageBackends } from '../helpers/services.js';

const redisReady = await haveRedis();
const cleanups: (() => Promise<unknown>)[] = [];
/** Storages opened by the test under way, closed after it. */
const opened: Storage[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((storage) => storage.close()));
});
afterAll(() => Promise.all(cleanups.map((clean) => clean())));

const backends = storageBackends('schedule-index', redisReady, cleanups);

/** `count` storages on the same data, as `count` processes of the bot have. */
async function processes(options: () => Promise<StorageOptions>, count: number): Promise<Storage[]> {
  const shared = await options();
  const storages: Storage[] = [];
  for (let i = 0; i < count; i++) {
    const storage = await createStorage(shared);
    opened.push(storage);
    storages.push(storage);
  }
  return storages;
}

/** Counts the reads of servers' lists the backend of `storage` answers, one by one or many at once. */
function countListReads(storage: Storage): { reads: string[] } {
  const adapter = storage.ns('schedules').store as {
    get(key: string): Promise<unknown>;
    getMany(keys: string[]): Promise<unknown[]>;
  };
  const read = adapter.get.bind(adapter);
  const readMany = adapter.getMany.bind(adapter);
  const counted = { reads: [] as string[] };
  adapter.get = (key: string) => {
    if (key.includes('guild:')) counted.reads.push(key);
    return read(key);
  };
  adapter.getMany = (keys: string[]) => {
    counted.reads.push(...keys.filter((key) => key.includes('guild:')));
    return readMany(keys);
  };
  return counted;
}

/** `storage`, with `before` run (once) before the lock `name` is first tried. */
function beforeLock(storage: Storage, name: string, before: () => Promise<unknown>): Storage {
  let done = false;
  return {
    ...storage,
    claim: async (namespace, key, ttlMs, owner) => {
      if (!done && namespace === 'locks' && key === name) {
        done = true;
        await before();
      }
      return storage.claim(namespace, key, ttlMs, owner);
    },
  };
}

const stored = (storage: Storage, key: string) => storage.ns('schedules').get(key);
const ids = (schedules: readonly Schedule[]) => schedules.map((schedule) => schedule.id).sort();

describe.each(backends)('the index of servers with schedules on $name', ({ available, options }) => {
  it.runIf(available)(
    'drops a server and its row once its last schedule is removed, so a full read reads only lists with schedules',
    async () => {
      const [mine, theirs] = await processes(options, 2);
      const store = new ScheduleStore(mine!, 25);
      const removed: Schedule[] = [];
      for (let guild = 0; guild < 20; guild++) {
        const guildId = String(3000 + guild);
        removed.push(await store.add(berlinSchedule({ guildId })));
        removed.push(await store.add(berlinSchedule({ guildId, time: '08:00' })));
      }
      const kept = [
        await store.add(berlinSchedule({ guildId: '4001' })),
        await store.add(berlinSchedule({ guildId: '4002' })),
      ];
      for (const schedule of removed) {
        expect((await store.remove(schedule.guildId, schedule.id))?.id).toBe(schedule.id);
      }
      expect(await stored(mine!, 'guilds')).toEqual(['4001', '4002']);
      for (let guild = 0; guild < 20; guild++) {
        expect(await stored(mine!, `guild:${3000 + guild}`)).toBeUndefined();
      }
      // Another process's first read of every schedule reads the two lists there are, no more.
      const reads = countListReads(theirs!);
      expect(ids(await new ScheduleStore(theirs!, 25).all())).toEqual(ids(kept));
      expect(reads.reads).toHaveLength(2);

      for (const schedule of kept) await store.remove(schedule.guildId, schedule.id);
      expect(await stored(mine!, 'guilds')).toBeUndefined();
      reads.reads.length = 0;
      expect(await new ScheduleStore(theirs!, 25).all()).toEqual([]);
      expect(reads.reads).toEqual([]);
    },
  );

  it.runIf(available)(
    'drops, at the next full read, servers an older version left in the index with no schedules',
    async () => {
      const [mine, theirs] = await processes(options, 2);
      const store = new ScheduleStore(mine!, 25);
      const kept = await store.add(berlinSchedule({ guildId: '5001' }));
      // As a version that never pruned the index left it: empty lists, one server with no row at
      // all, and an entry of a later version's own form, kept as it is.
      const later = { id: '5009', shard: 3 };
      await mine!.ns('schedules').set('guilds', ['5001', '5002', '5003', later]);
      await mine!.ns('schedules').set('guild:5002', []);
      const reader = new ScheduleStore(theirs!, 25);
      expect(ids(await reader.all())).toEqual([kept.id]);
      expect(await stored(mine!, 'guilds')).toEqual(['5001', later]);
      expect(await stored(mine!, 'guild:5002')).toBeUndefined();
      const reads = countListReads(theirs!);
      expect(ids(await new ScheduleStore(theirs!, 25).all())).toEqual([kept.id]);
      expect(reads.reads).toHaveLength(1);
    },
  );

  it.runIf(available)(
    'reads 600 servers’ lists in a few reads of the backend, and each alone when a read of many fails',
    async () => {
      const [mine, theirs] = await processes(options, 2);
      const store = new ScheduleStore(mine!, 25);
      const added: Schedule[] = [];
      for (let guild = 0; guild < 600; guild++) {
        added.push(await store.add(berlinSchedule({ guildId: String(7000 + guild) })));
      }
      const adapter = theirs!.ns('schedules').store as {
        get(key: string): Promise<unknown>;
        getMany(keys: string[]): Promise<unknown[]>;
      };
      const read = adapter.get.bind(adapter);
      const readMany = adapter.getMany.bind(adapter);
      let backendReads = 0;
      let failMany = false;
      adapter.get = (key: string) => {
        if (key.includes('guild:')) backendReads++;
        return read(key);
      };
      adapter.getMany = (keys: string[]) => {
        backendReads++;
        if (failMany) return Promise.reject(new Error('SQLITE_BUSY: database is locked'));
        return readMany(keys);
      };
      // Before: one read per server, 600 at once.
      expect(ids(await new ScheduleStore(theirs!, 25).all())).toEqual(ids(added));
      expect(backendReads).toBeLessThanOrEqual(3);

      failMany = true;
      backendReads = 0;
      const unreadable: string[] = [];
      const reader = new ScheduleStore(theirs!, 25, Date.now, (guildId) => unreadable.push(guildId));
      expect(ids(await reader.all())).toEqual(ids(added));
      expect(unreadable).toEqual([]);
      expect(backendReads).toBeGreaterThanOrEqual(600);
    },
  );

  it.runIf(available)(
    'keeps a schedule added while another process removes the server’s last one, though the index cannot be written after the list',
    async () => {
      const [mine, theirs, reader] = await processes(options, 3);
      const remover = new ScheduleStore(mine!, 25);
      const last = await remover.add(berlinSchedule({ guildId: '6001' }));
      let removing: Promise<unknown> | undefined;
      let listLocked = false;
      // The other process is about to write the server's list (the server is in the index) when
      // the last schedule there is removed, and the remover gets the time to drop the server from
      // the index; from then on this process cannot take the index's lock (its storage gone).
      const theirsFailing: Storage = {
        ...theirs!,
        claim: async (namespace, key, ttlMs, owner) => {
          if (namespace === 'locks' && key === 'schedules:guilds' && listLocked) {
            throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
          }
          if (namespace === 'locks' && key === 'schedules:guild:6001' && !listLocked) {
            listLocked = true;
            removing = remover.remove('6001', last.id);
            await Promise.race([removing, delay(300)]);
          }
          return theirs!.claim(namespace, key, ttlMs, owner);
        },
      };
      const added = await new ScheduleStore(theirsFailing, 25).add(
        berlinSchedule({ guildId: '6001', time: '09:00' }),
      );
      expect((await removing) as Schedule | undefined).toMatchObject({ id: last.id });
      expect(await stored(mine!, 'guilds')).toEqual(['6001']);
      expect(ids(await new ScheduleStore(reader!, 25).all())).toEqual([added.id]);
      expect(ids(await remover.all())).toEqual([added.id]);
    },
  );

  it.runIf(available)(
    'keeps a schedule added between the removal of the server’s last one and the server’s leaving the index',
    async () => {
      const [mine, theirs, reader] = await processes(options, 3);
      const first = await new ScheduleStore(mine!, 25).add(berlinSchedule({ guildId: '7001' }));
      const adder = new ScheduleStore(theirs!, 25);
      let adding: Promise<Schedule> | undefined;
      const add = () => (adding ??= adder.add(berlinSchedule({ guildId: '7001', time: '09:00' })));
      // The list is written empty; before the server leaves the index, the other process adds a
      // schedule there from start to end.
      const remover = new ScheduleStore(beforeLock(mine!, 'schedules:guilds', add), 25);
      expect((await remover.remove('7001', first.id))?.id).toBe(first.id);
      const added = await add();
      expect(await stored(mine!, 'guilds')).toEqual(['7001']);
      expect(ids(await new ScheduleStore(reader!, 25).all())).toEqual([added.id]);
    },
  );

  it.runIf(available)(
    'loses no schedule when last removes and adds in one server race between two processes',
    async () => {
      const [mine, theirs, reader] = await processes(options, 3);
      const one = new ScheduleStore(mine!, 25);
      const other = new ScheduleStore(theirs!, 25);
      for (let round = 0; round < 8; round++) {
        const guildId = String(8000 + round);
        const last = await one.add(berlinSchedule({ guildId }));
        const [, added] = await Promise.all([
          one.remove(guildId, last.id),
          other.add(berlinSchedule({ guildId, time: '09:00' })),
        ]);
        expect(await stored(mine!, 'guilds'), `round ${round}`).toContain(guildId);
        const listed = ids(await new ScheduleStore(reader!, 25).all());
        expect(listed, `round ${round}`).toContain(added.id);
        expect(listed, `round ${round}`).not.toContain(last.id);
      }
    },
  );
});
