import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { Agent, MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  HttpError,
  RateLimitError,
  ResponseValidationError,
  TimeoutError,
} from '../../src/services/http/errors.js';
import { redactText, redactUrl } from '../../src/services/http/redact.js';
import { parseRetryAfter, Transport } from '../../src/services/http/transport.js';

const ORIGIN = 'https://upstream.test';
let agent: MockAgent;
let waits: number[];

function transport(extra: Partial<ConstructorParameters<typeof Transport>[0]> = {}) {
  return new Transport({
    service: 'test',
    dispatcher: agent,
    sleep: (ms) => {
      waits.push(ms);
      return Promise.resolve();
    },
    random: () => 0.5,
    describeError: (body) => (body as { message?: string } | undefined)?.message,
    ...extra,
  });
}

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  waits = [];
});
afterEach(async () => {
  agent.assertNoPendingInterceptors();
  await agent.close();
});

describe('the upstream transport', () => {
  it('validates a JSON answer against its schema', async () => {
    agent.get(ORIGIN).intercept({ path: '/thing?id=1' }).reply(200, { id: 1, extra: true });
    const body = await transport().json(
      { url: `${ORIGIN}/thing`, query: { id: 1 } },
      z.object({ id: z.number() }),
    );
    expect(body).toEqual({ id: 1 });
  });

  it('wraps a body that does not match in a readable validation error', async () => {
    agent.get(ORIGIN).intercept({ path: '/thing' }).reply(200, { id: 'one' });
    const error = await transport()
      .json({ url: `${ORIGIN}/thing` }, z.object({ id: z.number() }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as Error).message).toMatch(/GET \/thing returned an unexpected response: id:/);
  });

  it('retries a 503 on GET and then succeeds', async () => {
    const pool = agent.get(ORIGIN);
    pool.intercept({ path: '/flaky' }).reply(503, 'busy');
    pool.intercept({ path: '/flaky' }).reply(200, { ok: true });
    expect(await transport().json({ url: `${ORIGIN}/flaky` }, z.object({ ok: z.boolean() }))).toEqual({
      ok: true,
    });
    expect(waits).toHaveLength(1);
  });

  it('gives a stalled service one time limit for the whole call, not one per retry', async () => {
    const server = createServer(() => {}); // takes every request and never answers it
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    // Each try really stalls and is cut off by the limit it was given (the Agent sees that limit);
    // the call's own deadline is read off a fake clock that each stalled try moves on by exactly
    // that limit, and each pause by its length, so what is checked does not depend on how
    // promptly a busy machine runs the timers.
    const limits: number[] = [];
    const pool = new Agent();
    const recorded = pool.compose((dispatch) => (options, handler) => {
      limits.push(options.headersTimeout ?? Number.NaN);
      return dispatch(options, handler);
    });
    vi.useFakeTimers({ toFake: ['performance'] });
    const stalled = transport({
      dispatcher: recorded,
      timeoutMs: 400,
      retries: 2,
      retryBaseMs: 10,
      onExchange: () => vi.advanceTimersByTime(limits.at(-1) ?? 0),
      sleep: (ms) => {
        waits.push(ms);
        vi.advanceTimersByTime(ms);
        return Promise.resolve();
      },
    });
    try {
      const started = performance.now();
      const error = await stalled
        .json({ url: `http://127.0.0.1:${port}/slow` }, z.unknown())
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TimeoutError);
      // Each try gets half the limit, so a stalled try leaves room for one more (less the pause
      // before it), and no more: a fresh limit per try would have sent three requests and taken
      // three times as long.
      expect(limits).toEqual([200, 195]);
      expect(waits).toEqual([5]);
      expect(performance.now() - started).toBe(400);
    } finally {
      vi.useRealTimers();
      server.closeAllConnections();
      await pool.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('does not wait for a 429 pause that would end after the time limit', async () => {
    agent
      .get(ORIGIN)
      .intercept({ path: '/limited' })
      .reply(429, 'slow down', { headers: { 'retry-after': '5' } });
    const error = await transport({ timeoutMs: 2_000 })
      .json({ url: `${ORIGIN}/limited` }, z.unknown())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterMs).toBe(5_000);
    expect(waits).toEqual([]);
  });

  it('never retries a 404, and names method, path and status', async () => {
    agent.get(ORIGIN).intercept({ path: '/missing' }).reply(404, { message: 'no such thing' });
    const error = await transport()
      .empty({ url: `${ORIGIN}/missing` })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).message).toBe('GET /missing failed: 404 Not Found (no such thing)');
    expect(waits).toEqual([]);
  });

  it('waits out a short Retry-After and fails at once on a long one, carrying the wait', async () => {
    const pool = agent.get(ORIGIN);
    pool.intercept({ path: '/limited' }).reply(429, '', { headers: { 'retry-after': '2' } });
    pool.intercept({ path: '/limited' }).reply(200, {});
    await transport().json({ url: `${ORIGIN}/limited` }, z.object({}));
    expect(waits).toEqual([2000]);

    pool.intercept({ path: '/limited' }).reply(429, '', { headers: { 'retry-after': '3600' } });
    const error = await transport()
      .empty({ url: `${ORIGIN}/limited` })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterMs).toBe(3_600_000);
    expect((error as Error).message).toMatch(/try again in 60 min/);
  });

  it('backs off exponentially when 429 has no Retry-After, then gives up clearly', async () => {
    const pool = agent.get(ORIGIN);
    for (let i = 0; i < 4; i++)
      pool.intercept({ path: '/quota' }).reply(429, { cod: 429, message: 'blocked' });
    const error = await transport()
      .empty({ url: `${ORIGIN}/quota` })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    // full jitter with random() = 0.5: half of 500, 1000, 2000
    expect(waits).toEqual([250, 500, 1000]);
  });

  it('keeps a key, a code and a bearer token out of error messages', async () => {
    agent
      .get(ORIGIN)
      .intercept({ path: /\/secret.*/ })
      .reply(401, { message: 'Invalid API key canary-key-123456 for Bearer abc.def' });
    const error = await transport({ secrets: () => ['canary-key-123456'] })
      .empty({ url: `${ORIGIN}/secret`, query: { appid: 'canary-key-123456', code: 'canary-code-999' } })
      .catch((e: unknown) => e as HttpError);
    const text = `${String(error)} ${(error as HttpError).url} ${(error as Error).stack}`;
    expect(text).not.toContain('canary-key-123456');
    expect(text).not.toContain('canary-code-999');
    expect(text).not.toContain('abc.def');
  });
});

describe('Retry-After parsing', () => {
  it('reads delta-seconds as milliseconds', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), (seconds) => {
        expect(parseRetryAfter(String(seconds))).toBe(seconds * 1000);
      }),
    );
  });

  it('reads an HTTP date relative to now, never negative', () => {
    const now = Date.UTC(2026, 10, 22, 12, 0, 0);
    fc.assert(
      fc.property(fc.integer({ min: -86_400, max: 86_400 }), (offset) => {
        const date = new Date(now + offset * 1000).toUTCString();
        expect(parseRetryAfter(date, now)).toBe(Math.max(0, offset * 1000));
      }),
    );
  });

  it('ignores garbage', () => {
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});

describe('redaction', () => {
  it('replaces secret query values but keeps the rest of the URL readable', () => {
    expect(redactUrl('https://h.test/cb?code=abc&state=xyz&lat=1.5')).toBe(
      'https://h.test/cb?code=[REDACTED]&state=[REDACTED]&lat=1.5',
    );
  });

  it('removes secrets from any text', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9_-]{12,40}$/), (secret) => {
        const text = `failed with token ${secret} and refresh_token=${secret}&x=1 Authorization: Bearer ${secret}`;
        expect(redactText(text, [secret])).not.toContain(secret);
      }),
    );
  });
});
