/**
 * The fault matrix: the music and weather services answering 500, 503, stalling past the client
 * timeout, sending malformed JSON, 429 with `Retry-After: 3600` and 429 without it; Discord
 * answering 500 and 429. Every interaction is still acknowledged within Discord's deadline and
 * settled with a message, other members are served while one waits on a stalled upstream, and the
 * bot serves normally afterwards. Each answer says what happened (not answering, unreadable, too
 * many requests); a stalled service costs one 10 s time limit per call, retries included. The
 * bot runs with canary secrets, and the faults' error paths (which like to print URLs, request
 * bodies and upstream answers) leave none of them in a log line, an error's message or a message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProxyFault } from '../helpers/reliability-proxy.js';
import {
  kindsNotSeen,
  WORLD_SECRET_KINDS,
  leaks,
  recordMessages,
  secretsSeen,
  settledText,
  startReliabilityWorld,
  type ReliabilityWorld,
} from '../helpers/reliability-world.js';

/** Time to a settled answer: the transport's 10 s limit per call, and the message's own round trips. */
const SETTLE_MS = 11_500;

interface Fault {
  name: string;
  fault: Omit<ProxyFault, 'match'>;
  /** What the member is told. */
  says: RegExp;
  /** A stall holds its call for the whole time limit: check meanwhile that others are served. */
  slow?: boolean;
}

const MATCH = { music: /\/v1\/me\/player\/devices/, weather: /\/data\/2\.5\/weather\?/ } as const;
const errorBody = (status: number) =>
  JSON.stringify({ error: { status, message: 'upstream trouble' }, cod: status });

/** Each fault lasts for the whole case (every retry meets it) and is cleared afterwards. */
const faults: Fault[] = [
  { name: '500', fault: { status: 500, body: errorBody(500) }, says: /not answering/ },
  { name: '503', fault: { status: 503, body: errorBody(503) }, says: /not answering/ },
  {
    name: 'malformed JSON',
    fault: { status: 200, body: '{"devices": [ {"id": "x", "name": ' },
    says: /could not read/,
  },
  {
    name: '429 without Retry-After',
    fault: { status: 429, body: errorBody(429) },
    says: /too many requests/,
  },
  { name: 'stall past the timeout', fault: { stallMs: 11_000 }, says: /not answering/, slow: true },
  {
    name: '429 with Retry-After: 3600',
    fault: { status: 429, body: errorBody(429), headers: { 'retry-after': '3600' } },
    says: /too many requests.*60 minutes/,
  },
];

describe('the fault matrix', () => {
  let world: ReliabilityWorld;
  let place = 0;
  /** A new place each time, so the weather cache never hides the fault. */
  const nextPlace = () =>
    `geo:${(10 + (place++ % 70)).toFixed(3)},${(place * 1.7).toFixed(3)}|Place ${place}, XX`;
  const results: string[] = [];
  /** Every message the bot created or edited, ephemeral ones included, as members saw it. */
  let messages: string[] = [];

  beforeAll(async () => {
    world = await startReliabilityWorld();
    messages = recordMessages(world.discord);
    await world.linkMusic(world.alice.id, world.music.fixtures!.users.premium);
  });
  afterAll(async () => {
    console.log(`fault matrix:\n${results.join('\n')}`);
    await world?.close();
  });

  const command = (service: 'music' | 'weather') =>
    service === 'music'
      ? world.slash('music', { subcommand: 'devices' })
      : world.slash('weather', { subcommand: 'now', options: { place: nextPlace() } });

  for (const [name, inject, refused] of [
    [
      'Discord answers 500 on the interaction callback',
      (w: ReliabilityWorld) =>
        w.proxies.discord.fail({
          match: /POST .*\/callback/,
          status: 500,
          body: '{"message":"500: Internal Server Error","code":0}',
        }),
      /^500 POST .*\/callback/,
    ],
    [
      'Discord answers 429 on the interaction callback',
      (w: ReliabilityWorld) => w.discord.setRateLimit({ route: /callback/, remaining: 0, resetAfterMs: 500 }),
      /^429 POST .*\/callback/,
    ],
    [
      'Discord answers 500 on the edit of a deferred reply',
      (w: ReliabilityWorld) =>
        w.proxies.discord.fail({
          match: /PATCH .*messages\/(@|%40)original/,
          status: 500,
          body: '{"message":"500: Internal Server Error","code":0}',
        }),
      /^500 PATCH .*messages\/(@|%40)original/,
    ],
    [
      'Discord answers 429 on the edit of a deferred reply',
      (w: ReliabilityWorld) => w.discord.setRateLimit({ route: /webhooks/, remaining: 0, resetAfterMs: 500 }),
      /^429 PATCH .*\/webhooks\//,
    ],
  ] as const) {
    it(`${name}: the interaction is still answered`, async () => {
      const answeredBefore = world.proxies.discord.answered.length;
      inject(world);
      const handle = world.slash('weather', { subcommand: 'now', options: { place: nextPlace() } });
      const ack = await handle.waitForCallback(3_000);
      expect(ack.afterMs).toBeLessThan(3_000);
      const answer = await settledText(handle, 10_000);
      results.push(`discord ${name.padEnd(52)} ack ${ack.afterMs} ms: ${answer.text.trim().slice(0, 80)}`);
      world.discord.setRateLimit(null);
      // The fault really met the bot's request, and the bot got through anyway.
      expect(
        world.proxies.discord.answered.slice(answeredBefore).filter((a) => refused.test(a)).length,
      ).toBeGreaterThanOrEqual(1);
      expect(answer.text).toContain(`Place ${place}`);
    }, 30_000);
  }
  for (const service of ['music', 'weather'] as const) {
    for (const fault of faults) {
      it(`${service}: ${fault.name} is answered in time with a clear message, and the bot serves on`, async () => {
        const before = world.proxies[service].served;
        world.proxies[service].fail({ ...fault.fault, match: MATCH[service], times: Infinity });
        const started = Date.now();
        const handle = command(service);
        const ack = await handle.waitForCallback(3_000);
        expect(ack.afterMs).toBeLessThan(3_000);
        // While this one is stuck, another member gets a full answer at once: nothing is blocked.
        if (fault.slow) {
          const other =
            service === 'music'
              ? world.slash('music', { subcommand: 'status', userId: world.bob.id })
              : world.slash('help', { userId: world.bob.id });
          const otherAnswer = await settledText(other, 3_000);
          // Bob's Discord is in German: /help names the weather command as his picker does.
          expect(otherAnswer.text).toMatch(service === 'music' ? /linked/i : /\/wetter jetzt/);
        }
        const answer = await settledText(handle, SETTLE_MS + 2_000);
        const tookMs = Date.now() - started;
        results.push(
          `${service.padEnd(7)} ${fault.name.padEnd(28)} ack ${String(ack.afterMs).padStart(4)} ms, settled ${String(tookMs).padStart(6)} ms: ${answer.text.trim().slice(0, 140)}`,
        );
        world.proxies[service].clear();
        expect(world.proxies[service].served).toBeGreaterThan(before);
        expect(answer.text.trim().length).toBeGreaterThan(10);
        expect(answer.text).not.toMatch(/Error:|at .*\.ts:\d+|undefined|\[object Object\]/);
        expect(answer.text).toMatch(fault.says);
        expect(tookMs).toBeLessThan(SETTLE_MS);
        if (fault.name.includes('3600')) {
          // An hour's wait holds no one: the next command is answered at once, from the pause the
          // bot keeps (the service is not asked again).
          const before3600 = world.proxies[service].received;
          const again = await settledText(command(service), 3_000);
          expect(again.afterMs).toBeLessThan(3_000);
          expect(again.text).toMatch(/too many requests/);
          expect(world.proxies[service].received).toBe(before3600);
          results.push(
            `${service.padEnd(7)} ${'(next command, same hour)'.padEnd(28)} settled ${String(again.afterMs).padStart(6)} ms: ${again.text.trim().slice(0, 140)}`,
          );
        } else {
          // Served normally again: the member's devices, the place's weather.
          const next = await settledText(command(service), 5_000);
          expect(next.text).not.toMatch(/wrong|try again|versuch/i);
          expect(next.text).toContain(service === 'music' ? 'Alice’s MacBook' : `Place ${place}`);
        }
      }, 60_000);
    }
  }

  it('serves after the whole matrix, keeping to the hour each service asked for', async () => {
    const help = await settledText(world.slash('help'), 3_000);
    expect(help.text).toMatch(/\/weather/);
    // Both services asked for an hour's rest (the last case of each): every member is told so at
    // once, without the service being asked again.
    for (const service of ['music', 'weather'] as const) {
      const before = world.proxies[service].received;
      const answer = await settledText(command(service), 3_000);
      expect(answer.text).toMatch(/too many requests.*\d+ minutes/);
      expect(world.proxies[service].received).toBe(before);
    }
  }, 30_000);

  it('leaves no secret in a log line or a message after the whole matrix', () => {
    const secrets = secretsSeen(world);
    expect(kindsNotSeen(secrets, [...WORLD_SECRET_KINDS, 'interaction token'])).toEqual([]);
    expect(messages.length).toBeGreaterThan(20);
    expect(world.errors.length).toBeGreaterThan(10);
    expect(
      leaks(secrets, { logs: world.logs, 'Discord messages': messages, 'error messages': world.errors }),
    ).toEqual([]);
  });
});
