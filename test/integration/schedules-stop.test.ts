import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createScheduleRunner } from '../../src/services/schedules/runner.js';
import { ScheduleStore } from '../../src/services/schedules/store.js';
import { createStorage, type Storage } from '../../src/storage/index.js';
import { berlinSchedule } from '../fixtures/schedules.js';

const silent = { info() {}, warn() {}, error() {}, debug() {} };
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type RunnerOptions = Parameters<typeof createScheduleRunner>[0];

/**
 * Schedules on one storage (as `wrap` shows it to the bot), and runners over it that record every
 * post they make.
 */
async function world(startIso: string, wrap: (storage: Storage) => Storage = (storage) => storage) {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'bot-sched-stop-'));
  const real = await createStorage({ dataDir });
  cleanups.push(async () => {
    await real.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  const storage = wrap(real);
  const clock = { now: Date.parse(startIso) };
  const store = new ScheduleStore(storage, 1_000, () => clock.now);
  const posts: { scheduleId: string; nonce: string; startedAt: number }[] = [];
  const runner = (overrides: Partial<RunnerOptions> = {}) =>
    createScheduleRunner({
      store,
      storage,
      logger: silent,
      graceMs: 30 * 60_000,
      now: () => clock.now,
      pollMs: 24 * 3600_000,
      fetch: () => Promise.resolve({ temp: 1 }),
      post: async (schedule, _weather, nonce) => {
        posts.push({ scheduleId: schedule.id, nonce, startedAt: performance.now() });
        await delay(5);
      },
      ...overrides,
    });
  const add = () => store.add(berlinSchedule({ createdAt: clock.now }));
  return { clock, posts, runner, add };
}

async function until(condition: () => boolean) {
  while (!condition()) await delay(5);
}

describe('stopping the schedule runner in the middle of a slot', () => {
  it('stops promptly, starts no post after, and leaves the rest to the next start, each once', async () => {
    const w = await world('2026-11-23T05:00:00Z');
    const ids: string[] = [];
    for (let i = 0; i < 100; i++) ids.push((await w.add()).id); // 07:00 Berlin, 06:00Z
    w.clock.now = Date.parse('2026-11-23T06:00:10Z');

    // 100 posts at 20 a second: the slot takes five seconds.
    const first = w.runner({ postsPerSecond: 20 });
    first.start();
    await until(() => w.posts.length >= 5);
    const asked = performance.now();
    await first.stop();
    const stoppedAt = performance.now();
    expect(stoppedAt - asked).toBeLessThan(1_000);
    const madeBefore = w.posts.length;
    expect(madeBefore).toBeLessThan(50);
    expect(w.posts.every((p) => p.startedAt <= stoppedAt)).toBe(true);
    await delay(300);
    expect(w.posts).toHaveLength(madeBefore);

    // The bot comes back a minute later, within the grace window.
    w.clock.now = Date.parse('2026-11-23T06:01:10Z');
    const second = w.runner({ postsPerSecond: 10_000 });
    const report = await second.tick();
    expect(report).toMatchObject({ posted: 100 - madeBefore, failed: 0, busy: 0, stopped: 0 });
    expect(w.posts.map((p) => p.scheduleId).sort()).toEqual([...ids].sort());
    expect(new Set(w.posts.map((p) => p.nonce)).size).toBe(100);
  }, 15_000);
});

describe('the schedule runner while the weather service is down', () => {
  it('asks again less and less often, at most as often as its longest wait, and posts once it is back', async () => {
    const w = await world('2026-11-23T05:00:00Z');
    await w.add(); // 07:00 Berlin, 06:00Z
    w.clock.now = Date.parse('2026-11-23T06:00:10Z');
    const asked: number[] = [];
    let down = true;
    const runner = w.runner({
      retryMs: 10,
      maxRetryMs: 80,
      fetch: () => {
        asked.push(performance.now());
        return down
          ? Promise.reject(new Error('503 from the weather service'))
          : Promise.resolve({ temp: 1 });
      },
    });
    cleanups.push(() => runner.stop());
    runner.start();
    await delay(1_000);
    // Every 10 ms, a second of it would be about 100 asks; waits of 10, 20, 40, then 80 ms make 15.
    expect(asked.length).toBeGreaterThanOrEqual(5);
    expect(asked.length).toBeLessThan(30);
    const gaps = asked.slice(1).map((at, i) => at - asked[i]!);
    // Each wait at least as long as its turn says (a busy machine only makes them longer): 10, 20,
    // 40, then 80 ms for good.
    for (const [i, gap] of gaps.entries()) expect(gap).toBeGreaterThan(0.8 * Math.min(10 * 2 ** i, 80));
    // And the longest is the last word, so the post is not lost in the grace window.
    expect(Math.max(...gaps)).toBeLessThan(1_000);
    down = false;
    await until(() => w.posts.length === 1);
    await delay(200);
    expect(w.posts).toHaveLength(1);
  }, 15_000);
});

/** Storage that refuses to write "done" markers while `refuse()` says so. */
function refusingMarkers(refuse: () => boolean) {
  return (real: Storage) =>
    new Proxy(real, {
      get(target, prop, receiver) {
        if (prop !== 'ns') return Reflect.get(target, prop, receiver) as unknown;
        return (namespace: string) => {
          const keyv = target.ns(namespace);
          if (namespace !== 'schedule-markers') return keyv;
          return new Proxy(keyv, {
            get(inner, name) {
              if (name === 'set')
                return (key: string, ...rest: unknown[]) =>
                  key.startsWith('done:') && refuse()
                    ? Promise.reject(new Error('storage unavailable'))
                    : (inner.set as (...args: unknown[]) => Promise<boolean>)(key, ...rest);
              const value = Reflect.get(inner, name, inner) as unknown;
              return typeof value === 'function' ? (value as () => unknown).bind(inner) : value;
            },
          });
        };
      },
    });
}

describe('a post made while storage cannot record it', () => {
  it('is not made again when storage comes back, long after Discord forgot its nonce', async () => {
    // Storage refuses to write "done" markers while `down`: the post goes out, its record does not.
    let down = true;
    const w = await world(
      '2026-11-23T05:00:00Z',
      refusingMarkers(() => down),
    );
    const { id } = await w.add(); // 07:00 Berlin, 06:00Z
    // Gives up on the marker after 300 ms (5 s by default), storage still down.
    const runner = w.runner({ markRetryMs: 300 });
    const posted = () => w.posts.map((post) => post.scheduleId);
    w.clock.now = Date.parse('2026-11-23T06:00:10Z');
    expect(await runner.tick()).toMatchObject({ posted: 0, failed: 1 });
    expect(posted()).toEqual([id]);
    // Twenty minutes later (Discord keeps a nonce a few minutes), within the grace window.
    down = false;
    w.clock.now = Date.parse('2026-11-23T06:20:00Z');
    expect(await runner.tick()).toMatchObject({ posted: 0, alreadyDone: 1, failed: 0 });
    expect(posted()).toEqual([id]);
    // The marker is written now: the slot is settled for every process.
    w.clock.now = Date.parse('2026-11-23T06:25:00Z');
    expect(await runner.tick()).toMatchObject({ posted: 0, failed: 0 });
    expect(posted()).toEqual([id]);
  });

  it('is marked once storage takes the marker again, before another process can post it', async () => {
    // A blip: the first marker write is refused, the next taken. Without a second try this process
    // alone would know the post went out, and another, finding no marker once the lease was gone,
    // would post it again twenty minutes on.
    let refusals = 1;
    const w = await world(
      '2026-11-23T05:00:00Z',
      refusingMarkers(() => refusals-- > 0),
    );
    const { id } = await w.add(); // 07:00 Berlin, 06:00Z
    const first = w.runner();
    const second = w.runner();
    w.clock.now = Date.parse('2026-11-23T06:00:10Z');
    expect(await first.tick()).toMatchObject({ posted: 1, failed: 0 });
    w.clock.now = Date.parse('2026-11-23T06:20:00Z');
    expect(await second.tick()).toMatchObject({ posted: 0, failed: 0 });
    expect(w.posts.map((post) => post.scheduleId)).toEqual([id]);
  });
});
