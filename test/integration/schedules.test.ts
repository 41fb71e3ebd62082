import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startWeatherEmulator } from '../../emulators/weather/index.js';
import { fetchScheduledWeather } from '../../src/bot/scheduled-post.js';
import {
  createScheduleRunner,
  createSlotPoster,
  FOREIGN_REFUSAL_LOG,
  PostRefusedError,
  PostRejectedError,
  UNKNOWN_ZONE_LOG,
  unpostedRuns,
  type WeatherRequest,
} from '../../src/services/schedules/runner.js';
import { ALL_MAX_AGE_MS, ScheduleStore, UnreadableStoreError } from '../../src/services/schedules/store.js';
import type { Schedule } from '../../src/services/schedules/types.js';
import { createStorage, type Storage } from '../../src/storage/index.js';
import { berlinSchedule } from '../fixtures/schedules.js';
import { instantTransport, weatherClientFor } from '../fixtures/weather.js';

const silent = { info() {}, warn() {}, error() {}, debug() {} };
/** Why a member's pause is stored. */
const BY_ALICE = { reason: 'paused by alice', code: 'member', by: 'alice' } as const;
/** What the world's runner did, in order: a post made, or a run recorded as missed. */
type Event = 'post' | 'missed';
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function world(
  startIso: string,
  options: {
    graceMs?: number;
    limit?: number;
    postsPerSecond?: number;
    /** The weather as the bot fetches it (default: a stand-in that the test can take down). */
    fetch?: (request: WeatherRequest) => Promise<unknown>;
    /** Runs once each post has gone out (to change the schedules while a slot's posts go out). */
    afterPost?: (schedule: Schedule) => Promise<unknown>;
    recheckMs?: number;
  } = {},
) {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'bot-sched-'));
  const storage: Storage = await createStorage({ dataDir });
  cleanups.push(async () => {
    await storage.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  const clock = { now: Date.parse(startIso) };
  const store = new ScheduleStore(storage, options.limit ?? 25, () => clock.now);
  const posts: { scheduleId: string; at: string; nonce: string; channelId: string; sentAt: number }[] = [];
  const events: Event[] = [];
  const warnings: string[] = [];
  const errors: { fields: unknown; message: string | undefined }[] = [];
  const fetches: WeatherRequest[] = [];
  const rejected = new Set<string>();
  /** Channels where Discord refuses the post itself (a 400), and how often it was tried there. */
  const refusing = new Set<string>();
  let refusedTries = 0;
  let weatherDown = false;
  const runner = createScheduleRunner({
    store,
    storage,
    logger: {
      ...silent,
      warn: (_fields: unknown, message?: string) => {
        if (message?.startsWith('scheduled post missed')) events.push('missed');
        if (message !== undefined) warnings.push(message);
      },
      error: (fields: unknown, message?: string) => void errors.push({ fields, message }),
    },
    graceMs: options.graceMs ?? 30 * 60_000,
    now: () => clock.now,
    pollMs: 24 * 3600_000,
    postsPerSecond: options.postsPerSecond ?? 10_000,
    ...(options.recheckMs === undefined ? {} : { recheckMs: options.recheckMs }),
    fetch: (request) => {
      fetches.push(request);
      if (options.fetch) return options.fetch(request);
      return weatherDown ? Promise.reject(new Error('weather down')) : Promise.resolve({ temp: 1 });
    },
    post: (schedule, _weather, nonce) => {
      if (rejected.has(schedule.channelId))
        return Promise.reject(new PostRejectedError('the channel was deleted', 'channel-deleted'));
      if (refusing.has(schedule.channelId)) {
        refusedTries++;
        return Promise.reject(
          new PostRefusedError('Discord refused the post: 400 Invalid Form Body', {
            detail: '400 Invalid Form Body',
          }),
        );
      }
      events.push('post');
      posts.push({
        scheduleId: schedule.id,
        at: new Date(clock.now).toISOString(),
        nonce,
        channelId: schedule.channelId,
        sentAt: performance.now(),
      });
      return options.afterPost ? options.afterPost(schedule).then(() => undefined) : Promise.resolve();
    },
  });
  const add = (partial: Partial<Omit<Schedule, 'id'>> = {}) =>
    store.add(berlinSchedule({ createdAt: clock.now, ...partial }));
  /** Moves the clock from wake-up to wake-up, as the running bot would, until `untilIso`. */
  async function runUntil(untilIso: string) {
    const until = Date.parse(untilIso);
    for (;;) {
      const wake = await runner.nextWake();
      if (wake > until) break;
      clock.now = wake;
      await runner.tick();
    }
    clock.now = until;
  }
  return {
    clock,
    storage,
    store,
    runner,
    posts,
    events,
    warnings,
    errors,
    fetches,
    rejected,
    refusing,
    refusedTries: () => refusedTries,
    add,
    runUntil,
    setWeatherDown: (down: boolean) => (weatherDown = down),
  };
}

describe('scheduled posts, on a controllable clock', () => {
  it('post at 02:30 Berlin time once on the spring-forward day and once on the fall-back day', async () => {
    const w = await world('2026-03-27T12:00:00Z');
    await w.add({ time: '02:30' });
    await w.runUntil('2026-03-31T00:00:00Z');
    expect(w.posts.map((p) => p.at)).toEqual([
      '2026-03-28T01:30:00.000Z', // 02:30 CET
      '2026-03-29T01:00:00.000Z', // 02:30 does not exist: 03:00 CEST
      '2026-03-30T00:30:00.000Z', // 02:30 CEST
    ]);
    w.posts.length = 0;
    w.clock.now = Date.parse('2026-10-24T12:00:00Z');
    await w.runUntil('2026-10-27T00:00:00Z');
    expect(w.posts.map((p) => p.at)).toEqual([
      '2026-10-25T00:30:00.000Z', // the first 02:30 (CEST); the second (CET) does not post again
      '2026-10-26T01:30:00.000Z',
    ]);
  });

  it('follow New York across both daylight-saving changes', async () => {
    const w = await world('2026-03-07T12:00:00Z');
    await w.add({ time: '02:30', timezone: 'America/New_York' });
    await w.runUntil('2026-03-10T00:00:00Z');
    expect(w.posts.map((p) => p.at)).toEqual(['2026-03-08T07:00:00.000Z', '2026-03-09T06:30:00.000Z']);
    w.posts.length = 0;
    w.clock.now = Date.parse('2026-10-31T12:00:00Z');
    await w.runUntil('2026-11-02T12:00:00Z');
    expect(w.posts.map((p) => p.at)).toEqual(['2026-11-01T07:30:00.000Z', '2026-11-02T07:30:00.000Z']);
  });

  it('post in Greenland on the Saturday its clocks jump from 23:00 to midnight, and on the Sunday', async () => {
    // Nuuk springs from 23:00 (UTC-2) on Saturday 27 March 2027 to 00:00 (UTC-1) on Sunday: a post
    // at 23:30 falls in the gap and is made at its end, counted for Saturday, not Sunday.
    const w = await world('2027-03-26T12:00:00Z');
    await w.add({ time: '23:30', timezone: 'America/Nuuk' });
    await w.runUntil('2027-03-30T12:00:00Z');
    expect(w.posts.map((p) => p.at)).toEqual([
      '2027-03-27T01:30:00.000Z', // Friday 23:30 (UTC-2)
      '2027-03-28T01:00:00.000Z', // Saturday's: 23:30 does not exist, so 00:00 on Sunday (UTC-1)
      '2027-03-29T00:30:00.000Z', // Sunday 23:30 (UTC-1)
      '2027-03-30T00:30:00.000Z',
    ]);
    expect(new Set(w.posts.map((p) => p.nonce)).size).toBe(4);
  });

  it('post every day across the ends of months, the 29th to the 31st included', async () => {
    const w = await world('2028-01-28T00:00:00Z');
    await w.add({ time: '09:15' });
    await w.runUntil('2028-03-02T12:00:00Z');
    const days = w.posts.map((p) => p.at.slice(0, 10));
    expect(days).toContain('2028-01-29');
    expect(days).toContain('2028-01-31');
    expect(days).toContain('2028-02-29');
    expect(days).toHaveLength(35); // 28 Jan to 2 Mar 2028
    expect(new Set(days).size).toBe(35);
  });

  it('post on chosen weekdays only', async () => {
    const w = await world('2026-11-22T00:00:00Z'); // a Sunday
    await w.add({ days: [1, 3, 5] });
    await w.runUntil('2026-12-06T00:00:00Z');
    const weekdays = w.posts.map((p) => new Date(p.at).getUTCDay());
    expect(weekdays).toEqual([1, 3, 5, 1, 3, 5]);
  });

  it('make a post missed while down once on start when within the grace window, and skip it otherwise', async () => {
    const w = await world('2026-11-23T05:00:00Z');
    await w.add({ time: '07:00' }); // 06:00Z
    w.clock.now = Date.parse('2026-11-23T06:20:00Z'); // down through the slot, back 20 min late
    expect((await w.runner.tick()).posted).toBe(1);
    expect((await w.runner.tick()).posted).toBe(0);
    w.clock.now = Date.parse('2026-11-24T06:45:00Z'); // 45 min late: beyond 30 min
    const report = await w.runner.tick();
    expect(report.posted).toBe(0);
    expect(report.missed).toBe(1);
    expect(w.posts).toHaveLength(1);
  });

  it('tell the list which latest runs have not gone out: still tried within the grace window, then missed', async () => {
    const w = await world('2026-11-23T05:00:00Z');
    const failing = await w.add({ time: '07:00' }); // 06:00Z
    const fine = await w.add({ time: '06:30', channelId: '2001' }); // 05:30Z
    const paused = await w.add({ time: '06:45', channelId: '2002' });
    await w.store.pause(paused.guildId, paused.id, BY_ALICE, true, w.clock.now);
    const unposted = async () =>
      unpostedRuns(w.storage, await w.store.list('1000'), w.clock.now, 30 * 60_000);
    await w.runUntil('2026-11-23T05:59:00Z');
    // Posted at 05:30Z; the other two not yet due today, and made after yesterday's runs.
    expect(w.posts.map((p) => p.scheduleId)).toEqual([fine.id]);
    expect(await unposted()).toEqual(new Map());
    // 06:00Z: the weather service is down, so the post is tried again until 06:30Z.
    w.setWeatherDown(true);
    await w.runUntil('2026-11-23T06:10:00Z');
    const run = Date.parse('2026-11-23T06:00:00Z');
    expect(await unposted()).toEqual(
      new Map([[failing.id, { run, until: Date.parse('2026-11-23T06:30:00Z'), missed: false }]]),
    );
    await w.runUntil('2026-11-23T06:40:00Z');
    expect(await unposted()).toEqual(
      new Map([[failing.id, { run, until: Date.parse('2026-11-23T06:30:00Z'), missed: true }]]),
    );
    // The next day's post goes out: nothing left to tell.
    w.setWeatherDown(false);
    await w.runUntil('2026-11-24T06:05:00Z');
    expect(w.posts.filter((p) => p.scheduleId === failing.id)).toHaveLength(1);
    expect(await unposted()).toEqual(new Map());
  });

  it('make the posts still due before recording the runs missed during a long downtime', async () => {
    const w = await world('2026-11-23T05:00:00Z', { limit: 1_000 });
    for (let i = 0; i < 200; i++) await w.add({ time: '07:00' }); // 06:00Z
    await w.add({ time: '08:50' }); // 07:50Z
    w.clock.now = Date.parse('2026-11-23T08:00:00Z'); // down from 05:00 to 08:00
    const report = await w.runner.tick();
    expect(report).toMatchObject({ posted: 1, missed: 200 });
    expect(w.events[0]).toBe('post');
  });

  it('post at the new time when a schedule whose post was missed is moved to later that day', async () => {
    const w = await world('2026-11-23T05:00:00Z');
    const schedule = await w.add({ time: '07:00' }); // 06:00Z
    w.clock.now = Date.parse('2026-11-23T07:00:00Z'); // an hour late: missed
    expect((await w.runner.tick()).missed).toBe(1);
    expect((await w.runner.tick()).missed).toBe(0); // logged once
    await w.store.change(schedule.guildId, schedule.id, (s) => ({ ...s, time: '09:00' })); // 08:00Z
    await w.runUntil('2026-11-23T12:00:00Z');
    expect(w.posts.map((p) => p.at)).toEqual(['2026-11-23T08:00:00.000Z']);
  });

  it('keep separate times for schedules that differ only in weekdays or time zone', async () => {
    const w = await world('2026-11-22T00:00:00Z'); // a Sunday
    await w.add({ channelId: '201', days: [1] });
    await w.add({ channelId: '202', days: [2] });
    await w.add({ channelId: '203', timezone: 'Asia/Tokyo' });
    await w.runUntil('2026-11-25T00:00:00Z');
    expect(w.posts.map((p) => `${p.channelId} ${p.at}`).sort()).toEqual([
      '201 2026-11-23T06:00:00.000Z',
      '202 2026-11-24T06:00:00.000Z',
      '203 2026-11-22T22:00:00.000Z', // 07:00 in Tokyo
      '203 2026-11-23T22:00:00.000Z',
      '203 2026-11-24T22:00:00.000Z',
    ]);
  });

  it('fetch the weather once per distinct place and language due in a slot, whatever the units', async () => {
    const w = await world('2026-11-23T05:00:00Z');
    for (let i = 0; i < 4; i++) await w.add({ channelId: `20${i}` });
    for (let i = 0; i < 3; i++)
      await w.add({ channelId: `30${i}`, place: { lat: 48.1371, lon: 11.5754, label: 'München' } });
    await w.add({ channelId: '400', units: 'imperial' });
    await w.add({ channelId: '401', lang: 'de' });
    await w.runUntil('2026-11-23T07:00:00Z');
    expect(w.posts).toHaveLength(9);
    // Berlin, München, and Berlin in German; the imperial Berlin post shares Berlin's call.
    expect(w.fetches).toHaveLength(3);
  });

  it('keep a slot under the posting pace, however many posts are in flight, spread over channels', async () => {
    const w = await world('2026-11-23T05:00:00Z', { limit: 100, postsPerSecond: 20 });
    // Grouped by place, each place's posts in one channel: posted in that order, one channel would
    // get its posts back to back.
    for (let i = 0; i < 30; i++)
      await w.add({ channelId: `5${i % 3}`, place: { lat: 40 + (i % 3), lon: 10, label: `P${i % 3}` } });
    // The turns the pace hands out (when each post may go), as the storage answers them.
    const turns: number[] = [];
    const nextTurn = w.storage.nextTurn.bind(w.storage);
    w.storage.nextTurn = async (namespace, key, intervalMs) => {
      const asked = performance.now();
      const wait = await nextTurn(namespace, key, intervalMs);
      turns.push(asked + wait);
      return wait;
    };
    await w.runUntil('2026-11-23T07:00:00Z');
    expect(w.posts).toHaveLength(30);
    // At 20 per second, the 30th turn comes 1.45 s after the first (less however long the storage
    // took to answer); without the pace, all 30 would come at once. Turns are handed out, not
    // measured, so a busy machine does not change them.
    expect(Math.max(...turns) - Math.min(...turns)).toBeGreaterThanOrEqual(1000);
    // And a post waits for its turn: the last is not sent before the last turn.
    const times = w.posts.map((p) => p.sentAt).sort((a, b) => a - b);
    expect(times[29]!).toBeGreaterThanOrEqual(Math.max(...turns) - 5);
    // Spread over the channels: with a few posts in flight their order varies a little, but no
    // channel gets a long streak (grouped by place, each would get ten in a row).
    let streak = 1;
    let longest = 1;
    for (let i = 1; i < w.posts.length; i++) {
      streak = w.posts[i]!.channelId === w.posts[i - 1]!.channelId ? streak + 1 : 1;
      longest = Math.max(longest, streak);
    }
    expect(longest).toBeLessThanOrEqual(3);
  });

  it('pause a schedule whose channel is gone, with the reason, and not retry it', async () => {
    const w = await world('2026-11-23T05:00:00Z');
    const schedule = await w.add({ channelId: '999' });
    w.rejected.add('999');
    // The first run: refused, not counted as posted.
    w.clock.now = Date.parse('2026-11-23T06:00:00Z');
    expect(await w.runner.tick()).toMatchObject({ refused: 1, posted: 0 });
    await w.runUntil('2026-11-25T07:00:00Z');
    const [stored] = await w.store.list('1000');
    expect(stored?.id).toBe(schedule.id);
    expect(stored?.paused).toMatchObject({ reason: 'the channel was deleted', code: 'channel-deleted' });
    expect(w.posts).toHaveLength(0);
    expect(w.warnings.filter((m) => m === 'schedule paused')).toHaveLength(1);
  });

  it('log a member’s pause made while a post was refused as kept, not as the bot’s pause', async () => {
    const w = await world('2026-11-23T05:00:00Z');
    const schedule = await w.add({ channelId: '999' });
    w.rejected.add('999');
    // Alice pauses it after the post was refused, just before the bot's own pause lands.
    const pause = w.store.pause.bind(w.store);
    w.store.pause = async (...args: Parameters<typeof pause>) => {
      if (!args[3]) await pause(schedule.guildId, schedule.id, BY_ALICE, true, w.clock.now);
      return pause(...args);
    };
    w.clock.now = Date.parse('2026-11-23T06:00:00Z');
    expect(await w.runner.tick()).toMatchObject({ refused: 1, posted: 0 });
    expect((await w.store.list('1000'))[0]?.paused).toMatchObject({ code: 'member', by: 'alice' });
    expect(w.warnings).toContain('post refused; schedule was already paused by a member');
    expect(w.warnings).not.toContain('schedule paused');
  });

  it('skip a post Discord refuses as malformed after one try, and post the next day as usual', async () => {
    const w = await world('2026-11-23T05:59:00Z');
    await w.add({ channelId: '998' });
    w.refusing.add('998');
    // 07:00 in Berlin, then looks within the grace window, as after a failed post.
    for (const at of ['06:00', '06:05', '06:10', '06:20']) {
      w.clock.now = Date.parse(`2026-11-23T${at}:00Z`);
      await w.runner.tick();
    }
    expect(w.refusedTries()).toBe(1);
    // Kept on the schedule, for the list to say why nothing came.
    expect((await w.store.list('1000'))[0]?.lastRefused).toEqual({
      at: Date.parse('2026-11-23T06:00:00Z'),
      reason: '400 Invalid Form Body',
    });
    w.refusing.delete('998');
    await w.runUntil('2026-11-24T07:00:00Z');
    expect(w.posts.map((p) => p.at)).toEqual(['2026-11-24T06:00:00.000Z']);
    const [after] = await w.store.list('1000');
    expect(after?.paused).toBeUndefined();
    // A post went out since: nothing to warn of any more.
    expect(after?.lastRefused).toBeUndefined();
  });

  it('try again within the grace window when the weather service is down', async () => {
    const w = await world('2026-11-23T05:59:00Z');
    await w.add();
    w.setWeatherDown(true);
    w.clock.now = Date.parse('2026-11-23T06:00:00Z');
    expect((await w.runner.tick()).failed).toBe(1);
    w.setWeatherDown(false);
    w.clock.now = Date.parse('2026-11-23T06:05:00Z');
    expect((await w.runner.tick()).posted).toBe(1);
  });

  /** Schedules fetching their weather with a key of `plan` from a weather emulator of their own. */
  async function planWorld(plan: 'free' | 'paid') {
    const weather = await startWeatherEmulator(
      plan === 'free' ? { apiKeys: [], freeApiKeys: ['plan-key'] } : { apiKeys: ['plan-key'] },
    );
    cleanups.push(() => weather.close());
    const client = weatherClientFor(weather, { apiKey: 'plan-key', transport: instantTransport() });
    const w = await world('2026-11-23T05:59:00Z', {
      fetch: (request) => fetchScheduledWeather(client, request),
    });
    return { weather, w };
  }
  const freePlanWorld = () => planWorld('free');

  it('post today’s forecast and the week on a free weather plan, from its 5-day forecast, pausing nothing', async () => {
    const { weather, w } = await freePlanWorld();
    const today = await w.add({ kind: 'today' });
    const week = await w.add({ kind: 'week', channelId: '2001' });
    await w.runUntil('2026-11-23T06:30:00Z');

    const stored = await w.store.list('1000');
    expect(stored.map((s) => s.paused)).toEqual([undefined, undefined]);
    expect(w.posts.map((p) => p.scheduleId).sort()).toEqual([today.id, week.id].sort());
    // Each asked its own product once, was refused, and took the 5-day forecast instead.
    expect(weather.requestCount({ host: 'pro' })).toBe(1);
    expect(weather.requestCount({ path: '/data/2.5/forecast/daily' })).toBe(1);
    expect(weather.requestCount({ path: '/data/2.5/forecast' })).toBeGreaterThanOrEqual(1);
  });

  it('skip, not pause, a free-plan schedule whose key the 5-day forecast refuses: the key is wrong', async () => {
    const { weather, w } = await freePlanWorld();
    const today = await w.add({ kind: 'today' });
    // The hourly forecast is refused for the plan; then the 5-day forecast, which every plan has,
    // refuses the key (revoked meanwhile): that is the key's problem, not the plan's.
    weather.failNext('/data/2.5/forecast', 401);
    w.clock.now = Date.parse('2026-11-23T06:00:00Z');
    expect(await w.runner.tick()).toMatchObject({ refused: 1, posted: 0 });
    expect((await w.store.list('1000')).find((s) => s.id === today.id)?.paused).toBeUndefined();
    expect(weather.requestCount({ host: 'pro' })).toBe(1);
  });

  it('skip a slot the weather service refuses the key for, without retrying or pausing', async () => {
    const weather = await startWeatherEmulator({ apiKeys: ['the-right-key'] });
    cleanups.push(() => weather.close());
    let apiKey = 'a-wrong-key';
    const w = await world('2026-11-23T05:59:00Z', {
      fetch: (request) =>
        fetchScheduledWeather(weatherClientFor(weather, { apiKey, transport: instantTransport() }), request),
    });
    const schedule = await w.add();
    w.clock.now = Date.parse('2026-11-23T06:00:00Z');
    expect(await w.runner.tick()).toMatchObject({ refused: 1, failed: 0, posted: 0 });
    w.clock.now = Date.parse('2026-11-23T06:05:00Z');
    expect(await w.runner.tick()).toMatchObject({ refused: 0, weatherCalls: 0 });
    expect(weather.requestCount()).toBe(1);
    expect((await w.store.list('1000'))[0]?.paused).toBeUndefined();

    // The owner mends the key: the next day's post goes out.
    apiKey = 'the-right-key';
    await w.runUntil('2026-11-24T06:10:00Z');
    expect(w.posts.map((p) => [p.scheduleId, p.at])).toEqual([[schedule.id, '2026-11-24T06:00:00.000Z']]);
  });

  it('skip, not pause, a schedule of a paid product when the key itself is wrong', async () => {
    // The service refuses an unknown key and a plan without the product with the same 401: the bot
    // asks current weather, which every plan has, before it blames the plan.
    const weather = await startWeatherEmulator({ apiKeys: ['the-right-key'] });
    cleanups.push(() => weather.close());
    const client = weatherClientFor(weather, {
      apiKey: 'a-new-key-not-yet-active',
      transport: instantTransport(),
    });
    const w = await world('2026-11-23T05:59:00Z', {
      fetch: (request) => fetchScheduledWeather(client, request),
    });
    const today = await w.add({ kind: 'today' });
    w.clock.now = Date.parse('2026-11-23T06:00:00Z');
    expect(await w.runner.tick()).toMatchObject({ refused: 1, posted: 0 });
    expect((await w.store.list('1000')).find((s) => s.id === today.id)?.paused).toBeUndefined();
    expect(weather.requestCount({ host: 'pro' })).toBe(1);
    expect(weather.requestCount()).toBe(2);
  });

  it('pause a schedule whose place the weather service refuses in its own words', async () => {
    const { weather, w } = await planWorld('paid');
    const schedule = await w.add({ kind: 'current' });
    weather.failNext('/data/2.5/weather', 400);
    w.clock.now = Date.parse('2026-11-23T06:00:00Z');
    await w.runner.tick();
    expect((await w.store.list('1000')).find((s) => s.id === schedule.id)?.paused).toMatchObject({
      code: 'place-refused',
      byUser: false,
    });
    expect(w.posts).toEqual([]);
  });

  it('keep a member’s pause made while the slot ran when the bot then pauses the schedule for a refusal', async () => {
    const w = await world('2026-11-23T05:00:00Z');
    const schedule = await w.add();
    await w.store.pause(schedule.guildId, schedule.id, BY_ALICE, true, 1_000);
    const refused = { reason: 'the weather service refuses this place', code: 'place-refused' } as const;
    await w.store.pause(schedule.guildId, schedule.id, refused, false, 2_000);
    expect((await w.store.list(schedule.guildId))[0]?.paused).toMatchObject({
      code: 'member',
      by: 'alice',
      byUser: true,
      at: 1_000,
    });
    // A member's own pause still replaces the bot's.
    await w.store.resume(schedule.guildId, schedule.id, 3_000);
    await w.store.pause(schedule.guildId, schedule.id, refused, false, 4_000);
    await w.store.pause(schedule.guildId, schedule.id, BY_ALICE, true, 5_000);
    expect((await w.store.list(schedule.guildId))[0]?.paused).toMatchObject({ code: 'member', at: 5_000 });
  });

  it('skip the slot, not pause, when a 404 comes without the weather service’s own error (a proxy’s page)', async () => {
    const { weather, w } = await planWorld('paid');
    const schedule = await w.add({ kind: 'current' });
    weather.failNext('/data/2.5/weather', 404, '<html><body>404 Not Found</body></html>');
    w.clock.now = Date.parse('2026-11-23T06:00:00Z');
    expect(await w.runner.tick()).toMatchObject({ refused: 1, posted: 0 });
    expect((await w.store.list('1000')).find((s) => s.id === schedule.id)?.paused).toBeUndefined();
    expect(w.warnings).toContain(FOREIGN_REFUSAL_LOG);
    // The next day's post goes out as usual.
    await w.runUntil('2026-11-24T06:10:00Z');
    expect(w.posts.map((p) => [p.scheduleId, p.at])).toEqual([[schedule.id, '2026-11-24T06:00:00.000Z']]);
  });

  it('give every try of one slot the same nonce, and each slot its own', async () => {
    const w = await world('2026-11-23T05:00:00Z');
    await w.add();
    await w.runUntil('2026-11-25T07:00:00Z');
    expect(w.posts).toHaveLength(3);
    expect(new Set(w.posts.map((p) => p.nonce)).size).toBe(3);
    expect(w.posts.every((p) => p.nonce.length <= 25)).toBe(true);
  });

  it('refuse more schedules than the per-server limit', async () => {
    const w = await world('2026-11-23T05:00:00Z', { limit: 2 });
    await w.add();
    await w.add();
    await expect(w.add()).rejects.toThrow(/already has 2 scheduled posts/);
  });
});

describe('schedules this process cannot time, or must no longer post', () => {
  it('keep posting for every server while one stored schedule has a time zone unknown here, telling the owner once', async () => {
    const w = await world('2026-11-22T05:00:00Z');
    const healthy = await w.add({ guildId: '1001' });
    // Damaged, or stored by a runtime whose time zone data has a zone this one lacks.
    const damaged = await w.add({ guildId: '1002', timezone: 'Mars/Olympus' });
    await w.runUntil('2026-11-24T06:05:00Z');
    expect(w.posts.map((p) => [p.scheduleId, p.at])).toEqual([
      [healthy.id, '2026-11-22T06:00:00.000Z'],
      [healthy.id, '2026-11-23T06:00:00.000Z'],
      [healthy.id, '2026-11-24T06:00:00.000Z'],
    ]);
    // Told once, not at every look at the schedules.
    expect(w.errors.map((e) => e.message)).toEqual([UNKNOWN_ZONE_LOG]);
    expect(w.errors[0]?.fields).toMatchObject({
      scheduleId: damaged.id,
      guildId: '1002',
      timezone: 'Mars/Olympus',
    });
    // Kept as stored: nothing is lost, and the server's list says what to do about it.
    expect(await w.store.list('1002')).toEqual([damaged]);
  });

  it('post no run that fell due while a schedule was paused once it is resumed, and the next one as usual', async () => {
    const w = await world('2026-11-23T05:50:00Z');
    const schedule = await w.add(); // 07:00 Berlin, 06:00Z
    w.clock.now = Date.parse('2026-11-23T05:55:00Z');
    await w.store.pause(schedule.guildId, schedule.id, BY_ALICE, true, w.clock.now);
    await w.runUntil('2026-11-23T06:10:00Z');
    await w.store.resume(schedule.guildId, schedule.id);
    // A resume looks at the schedules at once (`changed`), here well within the grace window.
    expect((await w.runner.tick()).posted).toBe(0);
    await w.runUntil('2026-11-24T06:05:00Z');
    expect(w.posts.map((p) => p.at)).toEqual(['2026-11-24T06:00:00.000Z']);
  });

  it('skip the posts of schedules paused or removed while their slot was fetching the weather', async () => {
    const meanwhile: (() => Promise<unknown>)[] = [];
    const w = await world('2026-11-23T05:00:00Z', {
      fetch: async () => {
        for (const change of meanwhile.splice(0)) await change();
        return { temp: 1 };
      },
    });
    const kept = await w.add();
    const paused = await w.add({ channelId: '2001' });
    const removed = await w.add({ channelId: '2002' });
    // One paused by another process on the same storage, one removed by this one.
    const other = new ScheduleStore(w.storage, 25);
    meanwhile.push(
      () => other.pause(paused.guildId, paused.id, BY_ALICE, true, w.clock.now),
      () => w.store.remove(removed.guildId, removed.id),
    );
    w.clock.now = Date.parse('2026-11-23T06:00:00Z');
    expect(await w.runner.tick()).toMatchObject({ posted: 1, withdrawn: 2, weatherCalls: 1 });
    expect(w.posts.map((p) => p.scheduleId)).toEqual([kept.id]);
  });

  it('skip the posts of schedules paused or removed while the slot’s earlier posts went out', async () => {
    // Five posts a second, and the schedules read again before every post's turn (by default, once
    // the last read is a second old: a big slot's posts go out over many seconds).
    const meanwhile: (() => Promise<unknown>)[] = [];
    const w = await world('2026-11-23T05:00:00Z', {
      postsPerSecond: 5,
      recheckMs: 0,
      afterPost: async () => {
        for (const change of meanwhile.splice(0)) await change();
      },
    });
    const schedules: Schedule[] = [];
    for (let index = 0; index < 4; index++) schedules.push(await w.add({ channelId: `${3001 + index}` }));
    // After the first post, whichever it is, two of the others change: one paused by another
    // process on the same storage, one removed by this one.
    meanwhile.push(async () => {
      const [paused, removed] = schedules.filter((s) => s.id !== w.posts[0]?.scheduleId);
      await other.pause(paused!.guildId, paused!.id, BY_ALICE, true, w.clock.now);
      await w.store.remove(removed!.guildId, removed!.id);
      changed.push(paused!.id, removed!.id);
    });
    const other = new ScheduleStore(w.storage, 25);
    const changed: string[] = [];
    w.clock.now = Date.parse('2026-11-23T06:00:00Z');
    expect(await w.runner.tick()).toMatchObject({ posted: 2, withdrawn: 2, weatherCalls: 1 });
    expect(changed).toHaveLength(2);
    expect(w.posts.map((p) => p.scheduleId).sort()).toEqual(
      schedules
        .map((s) => s.id)
        .filter((id) => !changed.includes(id))
        .sort(),
    );
    // Nor on a later look within the grace window.
    w.clock.now += 60_000;
    expect(await w.runner.tick()).toMatchObject({ posted: 0 });
    expect(w.posts).toHaveLength(2);
  });
  it('skip at once the posts of schedules this process pauses or removes while the slot’s posts go out', async () => {
    // A re-read only once the last read is a minute old: a change made here must stop the posts
    // due after it all the same (the runner re-reads every second by default).
    const meanwhile: (() => Promise<unknown>)[] = [];
    const w = await world('2026-11-23T05:00:00Z', {
      postsPerSecond: 20,
      recheckMs: 60_000,
      afterPost: async () => {
        for (const change of meanwhile.splice(0)) await change();
      },
    });
    const schedules: Schedule[] = [];
    for (let index = 0; index < 4; index++) schedules.push(await w.add({ channelId: `${4001 + index}` }));
    const changed: string[] = [];
    meanwhile.push(async () => {
      const [paused, removed] = schedules.filter((s) => s.id !== w.posts[0]?.scheduleId);
      await w.store.pause(paused!.guildId, paused!.id, BY_ALICE, true, w.clock.now);
      await w.store.remove(removed!.guildId, removed!.id);
      changed.push(paused!.id, removed!.id);
    });
    w.clock.now = Date.parse('2026-11-23T06:00:00Z');
    expect(await w.runner.tick()).toMatchObject({ posted: 2, withdrawn: 2 });
    expect(changed).toHaveLength(2);
    expect(w.posts.map((p) => p.scheduleId)).not.toContain(changed[0]);
    expect(w.posts.map((p) => p.scheduleId)).not.toContain(changed[1]);
  });
});

describe('schedules changed by another process on the same storage', () => {
  it('post, pause and stop as another process adds, pauses and removes them', async () => {
    const w = await world('2026-11-23T05:58:00Z');
    const first = await w.add(); // 07:00 Berlin, 06:00Z
    const other = new ScheduleStore(w.storage, 25);
    // Each change falls a few minutes before the posts, while this process has just read the
    // schedules: it must read them again because of the change, not because its last read is old.
    await w.runner.nextWake();
    const { id: _id, ...fields } = first;
    const second = await other.add({ ...fields, time: '07:01' });
    await w.runUntil('2026-11-23T06:02:00Z');
    expect(w.posts.map((p) => [p.scheduleId, p.at])).toEqual([
      [first.id, '2026-11-23T06:00:00.000Z'],
      [second.id, '2026-11-23T06:01:00.000Z'],
    ]);
    await w.runUntil('2026-11-24T05:58:00Z');
    await w.runner.nextWake();
    await other.pause(first.guildId, first.id, BY_ALICE, true, w.clock.now);
    await w.runUntil('2026-11-24T06:02:00Z');
    expect(w.posts.slice(2).map((p) => p.scheduleId)).toEqual([second.id]);
    await w.runUntil('2026-11-25T05:58:00Z');
    await w.runner.nextWake();
    await other.remove(second.guildId, second.id);
    await w.runUntil('2026-11-25T06:02:00Z');
    expect(w.posts).toHaveLength(3);
  });

  it('see at once what another process changed between two of this process’s own changes', async () => {
    const w = await world('2026-11-23T05:00:00Z');
    const other = new ScheduleStore(w.storage, 25, () => w.clock.now);
    const mine = await w.add({ guildId: '1001' });
    expect((await w.store.all()).map((s) => s.id)).toEqual([mine.id]);
    const { id: _id, ...fields } = mine;
    const theirs = await other.add({ ...fields, guildId: '1002' });
    // A change of this process's own that reads nothing else first (an add reads every schedule).
    await w.store.pause('1001', mine.id, BY_ALICE, true, 0);
    expect((await w.store.all()).map((s) => [s.id, s.paused !== undefined])).toEqual([
      [mine.id, true],
      [theirs.id, false],
    ]);
    await other.remove('1002', theirs.id);
    await w.store.resume('1001', mine.id);
    expect((await w.store.all()).map((s) => [s.id, s.paused !== undefined])).toEqual([[mine.id, false]]);
  });

  it('see each other’s change when two processes change schedules at the same moment', async () => {
    const w = await world('2026-11-23T05:00:00Z');
    const other = new ScheduleStore(w.storage, 25, () => w.clock.now);
    const mine = await w.add({ guildId: '1001' });
    const { id: _id, ...fields } = mine;
    const theirs = await other.add({ ...fields, guildId: '1002' });
    expect(await w.store.all()).toHaveLength(2);
    expect(await other.all()).toHaveLength(2);
    // Each reads the version before either has written its own: a slow backend.
    const adapter = w.storage.ns('schedules').store as { get(key: string): Promise<unknown> };
    const read = adapter.get.bind(adapter);
    adapter.get = async (key: string) => {
      if (key.endsWith(':version')) await delay(50);
      return read(key);
    };
    await Promise.all([
      w.store.pause('1001', mine.id, BY_ALICE, true, 0),
      other.pause('1002', theirs.id, BY_ALICE, true, 0),
    ]);
    for (const store of [w.store, other]) {
      expect((await store.all()).map((s) => [s.id, s.paused !== undefined])).toEqual([
        [mine.id, true],
        [theirs.id, true],
      ]);
    }
  });

  it('read each server’s list once when a schedule is added to each of many servers', async () => {
    const w = await world('2026-11-23T05:00:00Z');
    const adapter = w.storage.ns('schedules').store as { get(key: string): Promise<unknown> };
    const read = adapter.get.bind(adapter);
    let listReads = 0;
    adapter.get = (key: string) => {
      if (key.includes('guild:')) listReads++;
      return read(key);
    };
    for (let guild = 0; guild < 50; guild++) await w.add({ guildId: String(2000 + guild) });
    // Each add reads its own server's list under the lock; the ids of every other schedule come
    // from what this process already knows (before: every list again, 1,275 reads in all).
    expect(listReads).toBe(50);
    expect(await w.store.all()).toHaveLength(50);
  });

  it('see a change within five minutes when its writer died before telling the other processes', async () => {
    const w = await world('2026-11-23T05:00:00Z');
    const first = await w.add();
    expect((await w.store.all()).map((s) => s.time)).toEqual(['07:00']);
    // The list as a process leaves it when killed after writing it, before the version.
    await w.storage.ns('schedules').set(`guild:${first.guildId}`, [{ ...first, time: '07:30' }]);
    w.clock.now += ALL_MAX_AGE_MS;
    expect((await w.store.all()).map((s) => s.time)).toEqual(['07:30']);
  });
});

describe('schedules when storage fails or holds what this version cannot read', () => {
  /** Makes the backend's next read of `key` in the schedules namespace fail, as a lost connection does. */
  function failNextRead(storage: Storage, key: string) {
    const adapter = storage.ns('schedules').store as { get(key: string): Promise<unknown> };
    const read = adapter.get.bind(adapter);
    let failed = false;
    adapter.get = (stored: string) => {
      if (!failed && stored.endsWith(key)) {
        failed = true;
        return Promise.reject(new Error('SQLITE_BUSY: database is locked'));
      }
      return read(stored);
    };
  }

  it('refuse a change whose read failed, keeping every other server’s schedules', async () => {
    const w = await world('2026-11-23T05:00:00Z');
    const kept = [await w.add({ guildId: '1001' }), await w.add({ guildId: '1002' })];
    failNextRead(w.storage, 'guilds');
    await expect(w.add({ guildId: '1003' })).rejects.toThrow(/database is locked/);
    failNextRead(w.storage, 'guild:1001');
    await expect(w.store.pause('1001', kept[0]!.id, BY_ALICE, true, w.clock.now)).rejects.toThrow();
    expect((await w.store.all()).map((s) => [s.guildId, s.paused])).toEqual([
      ['1001', undefined],
      ['1002', undefined],
    ]);
  });

  it('keep posting for every other server when one server’s list cannot be read', async () => {
    const unreadable: string[] = [];
    const dataDir = await mkdtemp(path.join(tmpdir(), 'bot-sched-'));
    const storage = await createStorage({ dataDir });
    cleanups.push(async () => {
      await storage.close();
      await rm(dataDir, { recursive: true, force: true });
    });
    const store = new ScheduleStore(storage, 25, Date.now, (guildId) => unreadable.push(guildId));
    await store.add(berlinSchedule({ guildId: '1001' }));
    const healthy = await store.add(berlinSchedule({ guildId: '1002' }));
    // A row damaged on disk: not JSON at all.
    const adapter = storage.ns('schedules').store as { set(key: string, value: string): Promise<unknown> };
    await adapter.set('schedules:guild:1001', '[{"id":"trunc');
    await storage.ns('schedules').set('version', 'after-damage');
    expect((await store.all()).map((s) => s.id)).toEqual([healthy.id]);
    expect(unreadable).toEqual(['1001']);
    // Not kept as the last read: the server is tried again on the next call.
    await store.all();
    expect(unreadable).toEqual(['1001', '1001']);
  });

  it('say which server holds a record this version cannot read, rather than leave it out unsaid', async () => {
    const unreadable: [string, string][] = [];
    const dataDir = await mkdtemp(path.join(tmpdir(), 'bot-sched-'));
    const storage = await createStorage({ dataDir });
    cleanups.push(async () => {
      await storage.close();
      await rm(dataDir, { recursive: true, force: true });
    });
    const store = new ScheduleStore(storage, 25, Date.now, (guildId, error) =>
      unreadable.push([guildId, String((error as Error).message)]),
    );
    const first = await store.add(berlinSchedule({ guildId: '1001' }));
    await store.add(berlinSchedule({ guildId: '1002' }));
    // A record written by a newer version, with a kind this one does not know.
    await storage.ns('schedules').set('guild:1001', [first, { ...first, id: 'f0f0f0f0', kind: 'pollen' }]);
    await storage.ns('schedules').set('version', 'after-upgrade');
    expect(await store.all()).toHaveLength(2);
    expect(unreadable).toEqual([
      [
        '1001',
        '1 scheduled post of server 1001 is stored in a form this version cannot read; it was left as it is',
      ],
    ]);
  });

  it('keep the fields a newer version added to a schedule through changes to it and to its server’s others', async () => {
    const w = await world('2026-11-23T05:00:00Z');
    const first = await w.add();
    const second = await w.add();
    // Written by a newer version, which posts into a thread and names the country of the place.
    const newer = {
      ...first,
      threadId: '3000',
      place: { ...first.place, country: 'DE' },
    };
    await w.storage.ns('schedules').set(`guild:${first.guildId}`, [newer, second]);
    await w.store.pause(second.guildId, second.id, { reason: 'paused by alice', code: 'member' }, true, 1);
    await w.store.pause(first.guildId, first.id, { reason: 'paused by bob', code: 'member' }, true, 2);
    await w.store.resume(first.guildId, first.id);
    const stored = (await w.storage.ns('schedules').get(`guild:${first.guildId}`)) as Record<
      string,
      unknown
    >[];
    expect(stored.find((s) => s['id'] === first.id)).toMatchObject({
      threadId: '3000',
      place: { country: 'DE' },
    });
  });

  it('keep a record this version cannot read through changes to its server’s other schedules', async () => {
    const w = await world('2026-11-23T05:00:00Z');
    const first = await w.add();
    // A record written by a newer version, with a kind this one does not know.
    const future = { ...first, id: 'f0f0f0f0', kind: 'pollen' };
    await w.storage.ns('schedules').set(`guild:${first.guildId}`, [first, future]);
    await w.store.pause(first.guildId, first.id, BY_ALICE, true, w.clock.now);
    await w.add();
    const stored = (await w.storage.ns('schedules').get(`guild:${first.guildId}`)) as { id: string }[];
    expect(stored.map((s) => s.id)).toContain('f0f0f0f0');
    expect(stored).toHaveLength(3);
    expect((await w.store.list(first.guildId)).map((s) => s.id)).not.toContain('f0f0f0f0');
  });

  it('leave a server’s list stored in a layout this version does not know as it is, refusing changes to it', async () => {
    const w = await world('2026-11-23T05:00:00Z');
    const first = await w.add({ guildId: '1001' });
    const later = { v: 2, items: [{ ...first, id: 'f0f0f0f0' }] };
    await w.storage.ns('schedules').set('guild:1001', later);
    await expect(w.add({ guildId: '1001' })).rejects.toBeInstanceOf(UnreadableStoreError);
    await expect(w.store.remove('1001', first.id)).rejects.toBeInstanceOf(UnreadableStoreError);
    expect(await w.storage.ns('schedules').get('guild:1001')).toEqual(later);
    // Another server's schedules are unaffected.
    const other = await w.add({ guildId: '1002' });
    expect((await w.store.all()).map((s) => s.id)).toEqual([other.id]);
  });

  it('keep entries of the server index this version does not read when a server is added', async () => {
    const w = await world('2026-11-23T05:00:00Z');
    await w.add({ guildId: '1001' });
    await w.storage.ns('schedules').set('guilds', ['1001', { id: '1009', shard: 3 }]);
    await w.add({ guildId: '1002' });
    expect(await w.storage.ns('schedules').get('guilds')).toEqual(['1001', { id: '1009', shard: 3 }, '1002']);
  });

  it('report a schedule added once its list is written, though telling other processes failed', async () => {
    const w = await world('2026-11-23T05:00:00Z');
    await w.add({ guildId: '1001' });
    expect(await w.store.all()).toHaveLength(1);
    const adapter = w.storage.ns('schedules').store as {
      set(key: string, ...rest: unknown[]): Promise<unknown>;
    };
    const write = adapter.set.bind(adapter);
    let failed = 0;
    adapter.set = (key: string, ...rest: unknown[]) => {
      if (key.endsWith(':version')) {
        failed++;
        return Promise.reject(new Error('SQLITE_BUSY: database is locked'));
      }
      return write(key, ...rest);
    };
    const added = await w.add({ guildId: '1001' });
    expect(failed).toBe(1);
    // Stored once, and this process sees it at once.
    expect((await w.store.list('1001')).filter((s) => s.id === added.id)).toHaveLength(1);
    expect((await w.store.all()).map((s) => s.id)).toContain(added.id);
  });
});

describe('a post slower than its lease', () => {
  it('is made once: the process making it keeps the lease, so another cannot take the slot over', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'bot-sched-lease-'));
    const storage = await createStorage({ dataDir });
    cleanups.push(async () => {
      await storage.close();
      await rm(dataDir, { recursive: true, force: true });
    });
    const store = new ScheduleStore(storage, 25, () => Date.now());
    const schedule = await store.add(berlinSchedule({ createdAt: Date.now() }));
    // Claims run out by `Date.now()` and the lease is kept on a `setInterval`: both run on a fake
    // clock the test moves on, so a busy machine's late timers can neither let the lease lapse nor
    // hide that it is not kept.
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] });
    /** Keepings of the lease written to storage but not yet done. */
    const extending = new Set<Promise<boolean>>();
    const watched: Storage = {
      ...storage,
      extend: (...args) => {
        const extended = storage.extend(...args);
        extending.add(extended);
        return extended.finally(() => extending.delete(extended));
      },
    };
    const posts: string[] = [];
    let posting!: () => void;
    const started = new Promise<void>((resolve) => (posting = resolve));
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    // Two processes sharing storage; the first one's post lasts until the test lets it end.
    const poster = (name: string, post: () => Promise<void>) =>
      createSlotPoster({
        store,
        storage: watched,
        logger: silent,
        leaseMs: 150,
        post: async () => {
          await post();
          posts.push(name);
        },
      });
    const first = poster('first', () => {
      posting();
      return finished;
    }).postOne(schedule, '2026-11-23', {});
    try {
      await Promise.race([started, first]);
      // Four times the lease goes by while the first post is being made, 10 ms at a time, each
      // keeping of the lease written before the clock moves on.
      for (let elapsed = 0; elapsed < 600; elapsed += 10) {
        await vi.advanceTimersByTimeAsync(10);
        await Promise.allSettled(extending);
      }
      const second = await poster('second', () => Promise.resolve()).postOne(schedule, '2026-11-23', {});
      expect(second).toBe('busy');
      finish();
      expect(await first).toBe('posted');
      expect(posts).toEqual(['first']);
    } finally {
      finish();
      await first;
      vi.useRealTimers();
    }
  });
});
