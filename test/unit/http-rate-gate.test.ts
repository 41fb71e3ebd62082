import Keyv from 'keyv';
import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { RateLimitError } from '../../src/services/http/errors.js';
import { createMemoryRateGate, createStorageRateGate } from '../../src/services/http/rate-gate.js';
import { Transport, type RateLimitGate } from '../../src/services/http/transport.js';
import { manualClock } from '../fixtures/music.js';

const ORIGIN = 'https://upstream.test';
let agent: MockAgent;
let waits: number[];
let clock: ReturnType<typeof manualClock>;

function transport(gate: RateLimitGate, extra: Partial<ConstructorParameters<typeof Transport>[0]> = {}) {
  return new Transport({
    service: 'test',
    dispatcher: agent,
    gate,
    now: clock.now,
    rateLimit: { maxWaitMs: 5_000 },
    sleep: (ms) => {
      waits.push(ms);
      clock.advance(ms);
      return Promise.resolve();
    },
    random: () => 0.5,
    ...extra,
  });
}

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  waits = [];
  clock = manualClock();
});
afterEach(async () => {
  agent.assertNoPendingInterceptors();
  await agent.close();
});

describe('the shared pause after a 429', () => {
  it('fails another call at once, without sending it, while a long pause lasts', async () => {
    const gate = createMemoryRateGate(clock.now);
    const http = transport(gate);
    agent
      .get(ORIGIN)
      .intercept({ path: '/a' })
      .reply(429, '', { headers: { 'retry-after': '30' } });
    const first = await http.empty({ url: `${ORIGIN}/a` }).catch((e: unknown) => e);
    expect(first).toMatchObject({ name: 'RateLimitError', retryAfterMs: 30_000, paused: false });

    clock.advance(1_000);
    // No interceptor for /b: had it been sent, MockAgent would have refused it as a network error.
    const second = await http.empty({ url: `${ORIGIN}/b` }).catch((e: unknown) => e);
    expect(second).toBeInstanceOf(RateLimitError);
    expect(second).toMatchObject({ retryAfterMs: 29_000, retryAfterSeconds: 29, paused: true });
    expect((second as Error).message).toBe(
      'GET /b was not sent: the test service asked us to slow down; try again in 29 s',
    );
    expect(waits).toEqual([]);
  });

  it('holds back other calls for its own backoff after a 429 without Retry-After', async () => {
    const gate = createMemoryRateGate(clock.now);
    const http = transport(gate, { rateLimit: { maxWaitMs: 5_000, maxAttempts: 1 } });
    agent.get(ORIGIN).intercept({ path: '/a' }).reply(429, '');
    const first = await http.empty({ url: `${ORIGIN}/a` }).catch((e: unknown) => e);
    expect(first).toMatchObject({ name: 'RateLimitError', retryAfterMs: undefined });

    // Full jitter at 0.5 of the 500 ms base: the other call waits the 250 ms out before it is sent.
    agent.get(ORIGIN).intercept({ path: '/b' }).reply(200, {});
    await http.json({ url: `${ORIGIN}/b` }, z.object({}));
    expect(waits).toEqual([250]);
  });

  it('waits out a pause within the bound, then sends', async () => {
    const gate = createMemoryRateGate(clock.now);
    await gate.block(clock.now() + 3_000);
    agent.get(ORIGIN).intercept({ path: '/b' }).reply(200, {});
    await transport(gate).json({ url: `${ORIGIN}/b` }, z.object({}));
    expect(waits).toEqual([3_000]);
  });

  it('waits a short Retry-After once, not once for the 429 and again for the pause it set', async () => {
    const gate = createMemoryRateGate(clock.now);
    const pool = agent.get(ORIGIN);
    pool.intercept({ path: '/a' }).reply(429, '', { headers: { 'retry-after': '2' } });
    pool.intercept({ path: '/a' }).reply(200, {});
    await transport(gate, { sleep: (ms) => Promise.resolve(void waits.push(ms)) }).json(
      { url: `${ORIGIN}/a` },
      z.object({}),
    );
    expect(waits).toEqual([2_000]);
  });

  it('lets calls through when the gate cannot be read', async () => {
    const broken: RateLimitGate = {
      blockedUntil: () => Promise.reject(new Error('storage down')),
      block: () => Promise.reject(new Error('storage down')),
    };
    const pool = agent.get(ORIGIN);
    pool.intercept({ path: '/a' }).reply(429, '', { headers: { 'retry-after': '1' } });
    pool.intercept({ path: '/a' }).reply(200, {});
    await transport(broken).json({ url: `${ORIGIN}/a` }, z.object({}));
    expect(waits).toEqual([1_000]);
  });

  it('never shortens a longer pause', async () => {
    const gate = createMemoryRateGate(clock.now);
    await gate.block(clock.now() + 60_000);
    await gate.block(clock.now() + 10_000);
    expect(await gate.blockedUntil()).toBe(clock.now() + 60_000);
    clock.advance(60_000);
    expect(await gate.blockedUntil()).toBeUndefined();
  });
});

describe('the pause kept in storage', () => {
  it('is seen by another process, at most one refresh interval late', async () => {
    const store = new Keyv();
    const a = createStorageRateGate(store, 'music', { now: clock.now, refreshMs: 1_000 });
    const b = createStorageRateGate(store, 'music', { now: clock.now, refreshMs: 1_000 });
    expect(await b.blockedUntil()).toBeUndefined();
    await a.block(clock.now() + 30_000);
    // B read storage a moment ago: its copy in memory still answers.
    expect(await b.blockedUntil()).toBeUndefined();
    clock.advance(1_000);
    expect(await b.blockedUntil()).toBe(clock.now() + 29_000);
  });

  it('reads storage at most once per interval, however many calls ask', async () => {
    const store = new Keyv();
    const get = vi.spyOn(store, 'get');
    const gate = createStorageRateGate(store, 'music', { now: clock.now, refreshMs: 1_000 });
    await Promise.all(Array.from({ length: 50 }, () => gate.blockedUntil()));
    for (let i = 0; i < 9; i++) {
      clock.advance(100);
      await gate.blockedUntil();
    }
    expect(get).toHaveBeenCalledTimes(1);
    clock.advance(100);
    await gate.blockedUntil();
    expect(get).toHaveBeenCalledTimes(2);
  });

  it('stores the end of the pause with a TTL equal to the wait, and keeps a longer stored one', async () => {
    const store = new Keyv();
    const set = vi.spyOn(store, 'set');
    const a = createStorageRateGate(store, 'music', { now: clock.now });
    const b = createStorageRateGate(store, 'music', { now: clock.now });
    await a.block(clock.now() + 30_000);
    expect(set).toHaveBeenCalledWith('music', clock.now() + 30_000, 30_000);
    await b.block(clock.now() + 5_000);
    expect(set).toHaveBeenCalledTimes(1);
    expect(await store.get('music')).toBe(clock.now() + 30_000);
    expect(await b.blockedUntil()).toBe(clock.now() + 30_000);
  });

  it('works from memory when storage fails, and reports why', async () => {
    const store = new Keyv();
    vi.spyOn(store, 'get').mockRejectedValue(new Error('connection lost'));
    vi.spyOn(store, 'set').mockRejectedValue(new Error('connection lost'));
    const errors: unknown[] = [];
    const gate = createStorageRateGate(store, 'music', {
      now: clock.now,
      onError: (error) => errors.push(error),
    });
    await gate.block(clock.now() + 10_000);
    expect(await gate.blockedUntil()).toBe(clock.now() + 10_000);
    expect(errors.length).toBeGreaterThanOrEqual(2);
  });
});
