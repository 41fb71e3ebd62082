/**
 * The process logger: what a failed Discord request looks like in the log. discord.js puts the
 * request's URL (an interaction token in its path) and the body it sent (a link prompt's button
 * holds its `state`) on the error as fields of their own; none of that may reach a log line, while
 * what an owner needs to read the failure (Discord's error code, the route, the status) must.
 */
import { Writable } from 'node:stream';
import { DiscordAPIError, HTTPError } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { createLogger, oncePer } from '../../src/logger.js';

const INTERACTION_TOKEN = 'aW50ZXJhY3Rpb246MTIzNDU2Nzg5MDEyMzQ1Njc4OTpzZWNyZXRzZWNyZXRzZWNyZXQ';
const STATE = 'st4te-Kq9vLm2Xw8Rz0Pa7Yb3Nc6Td1';
/** A start link's ticket (`/link/start?ticket=…`), which begins linking for its member. */
const TICKET = 't1cket-Hw5pQz8Lr2Vn6Xs0Jd4Fb7Gm';
const CODE = 'fake-oauth-code-canary-0001';
const BOT_TOKEN = 'fake-bot-token-canary-0001';

function capture(): { logger: ReturnType<typeof createLogger>; lines: () => string[] } {
  const out: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      out.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const logger = createLogger({ level: 'debug', secrets: () => [BOT_TOKEN], destination });
  return { logger, lines: () => out };
}

const webhookUrl = `https://discord.com/api/v10/webhooks/123456789012345678/${INTERACTION_TOKEN}/messages/@original`;
const linkButtonBody = {
  content: 'This needs your music account.',
  components: [
    {
      type: 1,
      components: [
        { type: 2, style: 5, label: 'Link', url: `https://bot.example/link/start?ticket=${TICKET}` },
      ],
    },
  ],
};

describe('logging a failed Discord request', () => {
  it('keeps the interaction token and the start link’s ticket out, and Discord error code and route in', () => {
    const { logger, lines } = capture();
    const error = new DiscordAPIError(
      { code: 10062, message: 'Unknown interaction' },
      10062,
      404,
      'PATCH',
      webhookUrl,
      { body: linkButtonBody, files: undefined },
    );
    logger.error({ err: error, interactionId: '1' }, 'command failed');

    const [line] = lines();
    expect(line).toBeDefined();
    expect(line).not.toContain(INTERACTION_TOKEN);
    expect(line).not.toContain(TICKET);
    const logged = JSON.parse(line!) as { err: Record<string, unknown> };
    expect(logged.err.code).toBe(10062);
    expect(logged.err.status).toBe(404);
    expect(logged.err.url).toBe(
      'https://discord.com/api/v10/webhooks/123456789012345678/[REDACTED]/messages/@original',
    );
    expect(logged.err.message).toBe('Unknown interaction');
  });

  it('scrubs a 5xx HTTPError and the interaction callback route the same way', () => {
    const { logger, lines } = capture();
    const callback = `https://discord.com/api/v10/interactions/123456789012345678/${INTERACTION_TOKEN}/callback`;
    const error = new HTTPError(500, 'Internal Server Error', 'POST', callback, {
      body: { type: 4, data: linkButtonBody },
      files: undefined,
    });
    logger.warn({ err: error }, 'reply failed');
    const [line] = lines();
    expect(line).not.toContain(INTERACTION_TOKEN);
    expect(line).not.toContain(TICKET);
    expect(line).toContain('/interactions/123456789012345678/[REDACTED]/callback');
  });
});

describe('logging other values', () => {
  it('censors secrets at any depth and keeps error codes readable', () => {
    const { logger, lines } = capture();
    const network = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });
    logger.warn(
      {
        err: network,
        callback: { query: { code: CODE, state: STATE }, at: `https://bot.example/cb?code=${CODE}&x=1` },
        retries: [{ header: `Bot ${BOT_TOKEN}` }],
      },
      'trouble',
    );
    const [line] = lines();
    for (const secret of [CODE, STATE, BOT_TOKEN]) expect(line).not.toContain(secret);
    const logged = JSON.parse(line!) as {
      err: { code: string };
      callback: { query: { code: string; state: string }; at: string };
    };
    expect(logged.err.code).toBe('ECONNREFUSED');
    expect(logged.callback.query).toEqual({ code: '[REDACTED]', state: '[REDACTED]' });
    expect(logged.callback.at).toBe('https://bot.example/cb?code=[REDACTED]&x=1');
  });
});

describe('a log line a repeating cause would flood', () => {
  it('is let through once per key, then again only after the interval', () => {
    let now = 0;
    const tell = oncePer(60_000, () => now);
    expect([tell('guild-a'), tell('guild-a'), tell('guild-b')]).toEqual([true, false, true]);
    now = 59_999;
    expect(tell('guild-a')).toBe(false);
    now = 60_000;
    expect([tell('guild-a'), tell('guild-a'), tell('guild-b')]).toEqual([true, false, true]);
  });
});
