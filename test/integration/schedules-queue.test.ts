/**
 * `SCHEDULER=queue` against a real Redis: job schedulers follow the schedules (add, pause, resume,
 * remove, reconcile at start), and the worker posts a tick once, whichever way it comes.
 */
import { createClient } from '@keyv/redis';
import { afterEach, describe, expect, it } from 'vitest';
import { createQueueScheduler, type QueueScheduler } from '../../src/services/schedules/queue.js';
import {
  FOREIGN_REFUSAL_LOG,
  UNKNOWN_ZONE_LOG,
  WeatherRefusedError,
  type WeatherRequest,
} from '../../src/services/schedules/runner.js';
import { ScheduleStore } from '../../src/services/schedules/store.js';
import { cronPattern, nextRun, nonceFor, slotKey } from '../../src/services/schedules/timing.js';
import type { Schedule } from '../../src/services/schedules/types.js';
import { createStorage } from '../../src/storage/index.js';
import { cleanRedisPrefix, haveRedis, REDIS_URL, uniquePrefix } from '../helpers/services.js';

const redisReady = await haveRedis();
const silent = { info() {}, warn() {}, error() {}, debug() {} };
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** `HH:MM` in UTC at `ms`. */
function utcTime(ms: number): string {
  const at = new Date(ms);
  return `${String(at.getUTCHours()).padStart(2, '0')}:${String(at.getUTCMinutes()).padStart(2, '0')}`;
}

async function world(
  options: { retryDelayMs?: number; fetch?: (request: WeatherRequest) => Promise<unknown> } = {},
) {
  const prefix = uniquePrefix('queue');
  cleanups.push(() => cleanRedisPrefix(prefix));
  const storage = await createStorage({ dataDir: 'unused', redisUrl: REDIS_URL, redisPrefix: prefix });
  cleanups.push(() => storage.close());
  const store = new ScheduleStore(storage, 100);
  const posts: { scheduleId: string; nonce: string }[] = [];
  const fetches: WeatherRequest[] = [];
  const warnings: string[] = [];
  const errors: { fields: unknown; message: string | undefined }[] = [];
  const scheduler: QueueScheduler = createQueueScheduler({
    store,
    storage,
    logger: {
      ...silent,
      warn: (_fields: unknown, message?: string) => void warnings.push(message ?? ''),
      error: (fields: unknown, message?: string) => void errors.push({ fields, message }),
    },
    graceMs: 30 * 60_000,
    redisUrl: REDIS_URL,
    prefix,
    retryDelayMs: options.retryDelayMs ?? 100,
    fetch: (request) => {
      fetches.push(request);
      return options.fetch ? options.fetch(request) : Promise.resolve({ temp: 1 });
    },
    post: (schedule, _weather, nonce) => {
      posts.push({ scheduleId: schedule.id, nonce });
      return Promise.resolve();
    },
  });
  cleanups.push(() => scheduler.stop());
  const add = (partial: Partial<Omit<Schedule, 'id'>> = {}) =>
    store.add({
      guildId: '1000',
      channelId: '2000',
      place: { lat: 52.52, lon: 13.405, label: 'Berlin, DE' },
      time: '07:30',
      timezone: 'Europe/Berlin',
      days: [],
      kind: 'current',
      units: 'metric',
      lang: 'en',
      createdBy: '1',
      createdAt: Date.now() - 3_600_000,
      ...partial,
    });
  const schedulers = async () =>
    (await scheduler.queue.getJobSchedulers(0, -1)).map((s) => `${s.key} ${s.pattern} ${s.tz}`).sort();
  const pauseByMember = (schedule: Schedule) =>
    store.pause(
      schedule.guildId,
      schedule.id,
      { reason: 'paused by alice', code: 'member', by: 'alice' },
      true,
      Date.now(),
    );
  /** Runs `work` while every job scheduler write fails, as with Redis out of reach. */
  async function whileUpsertsFail(work: () => Promise<unknown>): Promise<void> {
    const upsert = scheduler.queue.upsertJobScheduler.bind(scheduler.queue);
    scheduler.queue.upsertJobScheduler = () => Promise.reject(new Error('Connection is closed.'));
    try {
      await work();
    } finally {
      scheduler.queue.upsertJobScheduler = upsert;
    }
  }
  return {
    prefix,
    storage,
    store,
    scheduler,
    posts,
    fetches,
    warnings,
    errors,
    add,
    schedulers,
    pauseByMember,
    whileUpsertsFail,
  };
}

describe.runIf(redisReady)('scheduled posts on BullMQ', () => {
  it('keeps one job scheduler per active schedule through add, pause, resume and remove', async () => {
    const w = await world();
    await w.scheduler.start();
    const a = await w.add();
    await w.scheduler.changed(a);
    const b = await w.add({ time: '18:05', timezone: 'America/New_York', days: [1, 3] });
    await w.scheduler.changed(b);
    expect(await w.schedulers()).toEqual(
      [`${a.id} 30 7 * * * Europe/Berlin`, `${b.id} 5 18 * * 1,3 America/New_York`].sort(),
    );

    const paused = await w.pauseByMember(a);
    await w.scheduler.changed(paused!);
    expect(await w.schedulers()).toEqual([`${b.id} 5 18 * * 1,3 America/New_York`]);

    const resumed = await w.store.resume(a.guildId, a.id);
    await w.scheduler.changed(resumed!);
    expect(await w.schedulers()).toHaveLength(2);

    const removed = await w.store.remove(b.guildId, b.id);
    await w.scheduler.changed(removed!, true);
    expect(await w.schedulers()).toEqual([`${a.id} 30 7 * * * Europe/Berlin`]);
    // The next tick is waiting as a delayed job, one per scheduler.
    expect(await w.scheduler.queue.getDelayedCount()).toBe(1);
  });

  it('keeps the job scheduler of a schedule paused and resumed at once, whichever change reaches Redis last', async () => {
    const w = await world();
    await w.scheduler.start();
    const a = await w.add();
    await w.scheduler.changed(a);
    // One member pauses it and another resumes it, each stored under the server's lock; the
    // resume's scheduler change lands first, the pause's after it. The schedule is active.
    const paused = await w.pauseByMember(a);
    const resumed = await w.store.resume(a.guildId, a.id);
    await w.scheduler.changed(resumed!);
    await w.scheduler.changed(paused!);
    expect(await w.schedulers()).toEqual([`${a.id} 30 7 * * * Europe/Berlin`]);
  });

  it('keeps a member’s change when its job scheduler cannot be written, and mends the scheduler on the next check', async () => {
    const w = await world();
    await w.scheduler.start();
    const a = await w.add();
    // Thrown, the member would read an error and add the schedule again: two copies posting.
    await w.whileUpsertsFail(() => expect(w.scheduler.changed(a)).resolves.toBeUndefined());
    expect(await w.schedulers()).toEqual([]);
    await w.scheduler.reconcile();
    expect(await w.schedulers()).toEqual([`${a.id} 30 7 * * * Europe/Berlin`]);
  });

  it('starts when a schedule’s job scheduler cannot be written, and mends it on the next check', async () => {
    const w = await world();
    const a = await w.add();
    await w.whileUpsertsFail(() => expect(w.scheduler.start()).resolves.toBeUndefined());
    await w.scheduler.reconcile();
    expect(await w.schedulers()).toEqual([`${a.id} 30 7 * * * Europe/Berlin`]);
  });

  it('reconciles at start: adds missing job schedulers and removes stale ones', async () => {
    const w = await world();
    const kept = await w.add();
    const pausedOne = await w.add({ time: '09:00' });
    await w.store.pause(pausedOne.guildId, pausedOne.id, { reason: 'x' }, true, Date.now());
    await w.scheduler.queue.upsertJobScheduler('deleted-long-ago', { pattern: '0 6 * * *', tz: 'UTC' });
    await w.scheduler.start();
    expect(await w.schedulers()).toEqual([`${kept.id} ${cronPattern(kept)} Europe/Berlin`]);
  });

  it('keeps the job scheduler of a schedule stored by a later version, which this one cannot read', async () => {
    const w = await world();
    const mine = await w.add();
    // What a later version stored and scheduled: a kind this one does not know.
    const future = { ...mine, id: 'f0f0f0f0', kind: 'pollen' };
    await w.storage.ns('schedules').set(`guild:${mine.guildId}`, [mine, future]);
    await w.scheduler.queue.upsertJobScheduler(
      future.id,
      { pattern: cronPattern(mine), tz: mine.timezone },
      { data: { guildId: mine.guildId, scheduleId: future.id } },
    );
    await w.scheduler.start();
    expect(await w.schedulers()).toEqual(
      [
        `${future.id} ${cronPattern(mine)} Europe/Berlin`,
        `${mine.id} ${cronPattern(mine)} Europe/Berlin`,
      ].sort(),
    );
  });

  it('starts, keeping a server’s job schedulers, when that server’s list cannot be read', async () => {
    const w = await world();
    const unreadable = await w.add({ guildId: '1000' });
    const other = await w.add({ guildId: '1001' });
    await w.scheduler.queue.upsertJobScheduler(
      unreadable.id,
      { pattern: cronPattern(unreadable), tz: unreadable.timezone },
      { data: { guildId: unreadable.guildId, scheduleId: unreadable.id } },
    );
    const raw = createClient({ url: REDIS_URL });
    await raw.connect();
    await raw.set(`${w.prefix}:schedules:guild:1000`, '[{"id":"trunc');
    await raw.close();
    await w.scheduler.start();
    expect(await w.schedulers()).toEqual(
      [
        `${unreadable.id} ${cronPattern(unreadable)} Europe/Berlin`,
        `${other.id} ${cronPattern(other)} Europe/Berlin`,
      ].sort(),
    );
  });

  it('ticks on the local runner’s days where a daylight-saving gap starts at midnight', async () => {
    const w = await world();
    // Santiago springs forward from 00:00 to 01:00 on Sunday 5 September 2027: a post at 00:30
    // falls in the gap that day, and the local runner makes it at the end of the gap. (A tick
    // still to come, so BullMQ computes the next one from it rather than from now.)
    const schedule = { time: '00:30', days: [], timezone: 'America/Santiago' };
    const previous = Date.parse('2027-09-04T04:30:00Z'); // 00:30 on the 4th, UTC-4
    await w.scheduler.queue.upsertJobScheduler(
      'gap',
      { pattern: cronPattern(schedule), tz: schedule.timezone },
      { name: 'post', data: { guildId: '1000', scheduleId: 'gap' }, opts: { prevMillis: previous } },
    );
    const next = (await w.scheduler.queue.getJobScheduler('gap'))?.next;
    expect(next).toBe(Date.parse('2027-09-05T04:00:00Z')); // 01:00 local, the gap's end (UTC-3)
    expect(next).toBe(nextRun(schedule, new Date(previous))?.getTime());
    expect(slotKey(schedule, new Date(next!))).toBe('2027-09-05');
  });

  it('ticks on the Saturday where Greenland’s daylight-saving gap ends at midnight', async () => {
    const w = await world();
    // Nuuk springs from 23:00 on Saturday 27 March 2027 to 00:00 on Sunday: Saturday's 23:30 tick
    // comes at 00:00 and belongs to Saturday's slot, so Sunday's own tick still posts.
    const schedule = { time: '23:30', days: [6], timezone: 'America/Nuuk' };
    const previous = Date.parse('2027-03-21T01:30:00Z'); // Saturday 20 March, 23:30 (UTC-2)
    await w.scheduler.queue.upsertJobScheduler(
      'greenland',
      { pattern: cronPattern(schedule), tz: schedule.timezone },
      { name: 'post', data: { guildId: '1000', scheduleId: 'greenland' }, opts: { prevMillis: previous } },
    );
    const next = (await w.scheduler.queue.getJobScheduler('greenland'))?.next;
    expect(next).toBe(Date.parse('2027-03-28T01:00:00Z'));
    expect(slotKey(schedule, new Date(next!))).toBe('2027-03-27');
  });

  it('gives a job scheduler from an older version (six tries, 5 s apart) the retry policy that lasts the grace window', async () => {
    const w = await world();
    const schedule = await w.add({ timezone: 'UTC', time: utcTime(Date.now() + 6 * 3_600_000) });
    await w.scheduler.queue.upsertJobScheduler(
      schedule.id,
      { pattern: cronPattern(schedule), tz: 'UTC' },
      {
        name: 'post',
        data: { guildId: schedule.guildId, scheduleId: schedule.id },
        opts: { attempts: 6, backoff: { type: 'fixed', delay: 5_000 } },
      },
    );
    await w.scheduler.start();
    const [next, ...others] = await w.scheduler.queue.getDelayed();
    expect(others).toHaveLength(0);
    // 30 minutes of grace at waits of at most a minute take at least 30 tries.
    expect(next!.opts.attempts).toBeGreaterThanOrEqual(30);
    expect(next!.opts.backoff).not.toMatchObject({ type: 'fixed' });
    expect(await w.schedulers()).toEqual([`${schedule.id} ${cronPattern(schedule)} UTC`]);
  });

  it('starts and posts for every server while one stored schedule has a time zone unknown here, which gets no job scheduler', async () => {
    const w = await world();
    const past = new Date(Date.now() - 60_000);
    const healthy = await w.add({ timezone: 'UTC', time: utcTime(past.getTime()) });
    // Damaged, or stored by a runtime whose time zone data has a zone this one lacks; its job
    // scheduler is from when its zone read.
    const damaged = await w.add({ guildId: '1001', timezone: 'Mars/Olympus', time: utcTime(past.getTime()) });
    await w.scheduler.queue.upsertJobScheduler(
      damaged.id,
      { pattern: cronPattern(damaged), tz: 'UTC' },
      { name: 'post', data: { guildId: damaged.guildId, scheduleId: damaged.id } },
    );
    await w.scheduler.start();
    await w.scheduler.reconcile();
    await expect.poll(() => w.posts.map((p) => p.scheduleId), { timeout: 10_000 }).toEqual([healthy.id]);
    expect(await w.schedulers()).toEqual([`${healthy.id} ${cronPattern(healthy)} UTC`]);
    // Told once, not at every look at the schedules.
    const told = w.errors.filter((e) => e.message === UNKNOWN_ZONE_LOG);
    expect(told).toHaveLength(1);
    expect(told[0]?.fields).toMatchObject({
      scheduleId: damaged.id,
      guildId: '1001',
      timezone: 'Mars/Olympus',
    });
    expect(await w.store.list('1001')).toEqual([damaged]);
  });

  it('does not catch up, on start, a tick that fell due while its schedule was paused', async () => {
    const w = await world();
    const past = Date.now() - 60_000;
    const schedule = await w.add({ timezone: 'UTC', time: utcTime(past) });
    // Paused before the tick, resumed after it; the bot restarts within the grace window.
    await w.store.pause(
      schedule.guildId,
      schedule.id,
      { reason: 'paused by alice', code: 'member', by: 'alice' },
      true,
      past - 4 * 60_000,
    );
    await w.store.resume(schedule.guildId, schedule.id);
    await w.scheduler.start();
    const jobs = async () => (await w.scheduler.queue.getJobs()).map((job) => job.id);
    expect((await jobs()).filter((id) => id?.startsWith('catch-up:'))).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(w.posts).toEqual([]);
    expect(await w.schedulers()).toEqual([`${schedule.id} ${cronPattern(schedule)} UTC`]);
  });

  it('posts a tick once however often its job runs, and skips a tick past the grace window', async () => {
    const w = await world();
    // Due six hours from now, so start finds no missed tick to catch up on.
    const schedule = await w.add({ timezone: 'UTC', time: utcTime(Date.now() + 6 * 3_600_000) });
    await w.scheduler.start();
    const due = Date.now() - 60_000;
    // The same tick twice (a stalled job taken over, a duplicate): one post, with the slot's nonce.
    await w.scheduler.queue.add(
      'post',
      { guildId: schedule.guildId, scheduleId: schedule.id },
      { prevMillis: due },
    );
    await w.scheduler.queue.add(
      'post',
      { guildId: schedule.guildId, scheduleId: schedule.id },
      { prevMillis: due },
    );
    // A tick from two days ago: too late, skipped.
    await w.scheduler.queue.add(
      'post',
      { guildId: schedule.guildId, scheduleId: schedule.id },
      { prevMillis: due - 2 * 24 * 3_600_000 },
    );
    await expect.poll(() => w.scheduler.queue.getCompletedCount(), { timeout: 10_000 }).toBe(3);
    expect(w.posts).toEqual([
      { scheduleId: schedule.id, nonce: nonceFor(schedule.id, slotKey(schedule, new Date(due))) },
    ]);
    expect(w.fetches).toHaveLength(1);
  });

  it('posts no tick whose schedule was paused or removed while its weather was fetched', async () => {
    const meanwhile: (() => Promise<unknown>)[] = [];
    const w = await world({
      fetch: async () => {
        for (const change of meanwhile.splice(0)) await change();
        return { temp: 1 };
      },
    });
    const paused = await w.add({ timezone: 'UTC', time: utcTime(Date.now() + 6 * 3_600_000) });
    // Another place: a weather call of its own.
    const removed = await w.add({
      channelId: '2001',
      place: { lat: 48.86, lon: 2.35, label: 'Paris, FR' },
      timezone: 'UTC',
      time: utcTime(Date.now() + 6 * 3_600_000),
    });
    await w.scheduler.start();
    const due = Date.now() - 60_000;
    meanwhile.push(() => w.pauseByMember(paused));
    await w.scheduler.queue.add(
      'post',
      { guildId: paused.guildId, scheduleId: paused.id },
      { prevMillis: due },
    );
    await expect.poll(() => w.scheduler.queue.getCompletedCount(), { timeout: 10_000 }).toBe(1);
    meanwhile.push(() => w.store.remove(removed.guildId, removed.id));
    await w.scheduler.queue.add(
      'post',
      { guildId: removed.guildId, scheduleId: removed.id },
      { prevMillis: due },
    );
    await expect.poll(() => w.scheduler.queue.getCompletedCount(), { timeout: 10_000 }).toBe(2);
    expect(w.fetches).toHaveLength(2);
    expect(w.posts).toEqual([]);
  });

  it('makes a tick missed while no process ran, within the grace window, once on start', async () => {
    const w = await world();
    const past = new Date(Date.now() - 60_000);
    const schedule = await w.add({ timezone: 'UTC', time: utcTime(past.getTime()) });
    await w.scheduler.start();
    // A second process starting (or this one again) queues nothing more.
    await w.scheduler.reconcile();
    await expect.poll(() => w.posts.length, { timeout: 10_000 }).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(w.posts).toEqual([
      { scheduleId: schedule.id, nonce: nonceFor(schedule.id, slotKey(schedule, past)) },
    ]);
  });

  it('leaves a schedule whose scheduler is in order alone in the checks after start, and catches up the tick of one it mends', async () => {
    const w = await world();
    await w.scheduler.start();
    // Owed a tick a minute ago, with a scheduler: a later check queues nothing for it (while a slot
    // is posting, a catch-up job for every post not yet done would double the slot's work).
    const past = Date.now() - 60_000;
    const inOrder = await w.add({ timezone: 'UTC', time: utcTime(past) });
    await w.scheduler.changed(inOrder);
    const jobs = async () => (await w.scheduler.queue.getJobs()).map((job) => job.id).sort();
    const before = await jobs();
    await w.scheduler.reconcile();
    expect(await jobs()).toEqual(before);
    // One whose scheduler was never written (Redis was out of reach): mended, and its tick caught up.
    const lost = await w.add({ timezone: 'UTC', time: utcTime(past), channelId: '2001' });
    await w.scheduler.reconcile();
    expect(await w.schedulers()).toContain(`${lost.id} ${cronPattern(lost)} UTC`);
    expect(await jobs()).toContain(
      `catch-up:${lost.id}:${slotKey(lost, new Date(nextRun(lost, new Date(past - 60_000))!))}`,
    );
    expect((await jobs()).filter((id) => id?.startsWith(`catch-up:${inOrder.id}`))).toEqual([]);
  });

  it('keeps trying through a weather outage longer than a handful of tries, within the grace window', async () => {
    let failures = 7;
    const w = await world({
      retryDelayMs: 10,
      fetch: () =>
        failures-- > 0 ? Promise.reject(new Error('weather service down')) : Promise.resolve({ temp: 1 }),
    });
    const past = new Date(Date.now() - 60_000);
    const schedule = await w.add({ timezone: 'UTC', time: utcTime(past.getTime()) });
    await w.scheduler.start();
    await expect.poll(() => w.posts.length, { timeout: 20_000, interval: 100 }).toBe(1);
    expect(w.posts[0]?.scheduleId).toBe(schedule.id);
    expect(w.fetches).toHaveLength(8);
  }, 30_000);

  it('pauses the schedules of a group the weather service refuses, after one call for the group', async () => {
    const reason = "the bot's weather plan does not include the hourly forecast";
    const w = await world({
      fetch: () => Promise.reject(new WeatherRefusedError(reason, 'schedule', { code: 'plan-hourly' })),
    });
    const past = new Date(Date.now() - 60_000);
    const time = utcTime(past.getTime());
    const first = await w.add({ timezone: 'UTC', time, kind: 'today' });
    const second = await w.add({ timezone: 'UTC', time, kind: 'today', channelId: '2001' });
    await w.scheduler.start();
    const paused = async () =>
      (await w.store.list('1000'))
        // The second is paused from the refusal the first left in storage: with its code too.
        .filter((s) => s.paused?.reason === reason && s.paused.code === 'plan-hourly')
        .map((s) => s.id)
        .sort();
    await expect.poll(paused, { timeout: 10_000 }).toEqual([first.id, second.id].sort());
    await expect.poll(() => w.schedulers(), { timeout: 10_000 }).toEqual([]);
    expect(w.fetches).toHaveLength(1);
    expect(w.posts).toEqual([]);
  });

  it('fetches again for a schedule of a refused group due at another time of the day', async () => {
    // The key was refused at the first tick; by the second (the owner mended it) the service answers.
    let refuse = true;
    const w = await world({
      fetch: () =>
        refuse
          ? Promise.reject(new WeatherRefusedError('the weather service refuses the key', 'all'))
          : Promise.resolve({ temp: 1 }),
    });
    const now = Date.now();
    await w.add({ timezone: 'UTC', time: utcTime(now - 120_000) });
    await w.scheduler.start();
    await expect.poll(() => w.scheduler.queue.getCompletedCount(), { timeout: 10_000 }).toBe(1);
    refuse = false;
    const later = await w.add({ timezone: 'UTC', time: utcTime(now - 60_000), channelId: '2001' });
    await w.scheduler.reconcile();
    await expect.poll(() => w.posts.map((post) => post.scheduleId), { timeout: 10_000 }).toEqual([later.id]);
    expect(w.fetches).toHaveLength(2);
  });

  it('skips, not pauses, the posts of a group refused by something other than the weather service', async () => {
    const w = await world({
      fetch: () =>
        Promise.reject(new WeatherRefusedError('the weather request was refused: 404 Not Found', 'slot')),
    });
    const past = new Date(Date.now() - 60_000);
    const time = utcTime(past.getTime());
    await w.add({ timezone: 'UTC', time });
    await w.add({ timezone: 'UTC', time, channelId: '2001' });
    await w.scheduler.start();
    await expect.poll(() => w.scheduler.queue.getCompletedCount(), { timeout: 10_000 }).toBe(2);
    // Told once for the two, as a refused key is: not once per post.
    expect(w.warnings.filter((message) => message === FOREIGN_REFUSAL_LOG)).toHaveLength(1);
    expect((await w.store.list('1000')).map((s) => s.paused)).toEqual([undefined, undefined]);
    expect(await w.schedulers()).toHaveLength(2);
    expect(w.fetches).toHaveLength(1);
    expect(w.posts).toEqual([]);
  });
});
