/**
 * The ways a secret could still reach a log line: pino's own handling of an error logged without a
 * message, an error under a field other than `err`, placeholders filled from objects, and secrets of
 * the configuration the logger was not told about.
 */
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { DiscordAPIError, RateLimitError } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { secretsOf } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';

const BOT_TOKEN = 'fake-bot-token-canary-0002';
const INTERACTION_TOKEN = 'aW50ZXJhY3Rpb246OTg3NjU0MzIxOnNlY3JldHNlY3JldA';

function capture(secrets: () => Iterable<string> = () => [BOT_TOKEN]) {
  const out: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      out.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  return { logger: createLogger({ level: 'debug', secrets, destination }), lines: () => out };
}

describe('secrets the logger strips wherever pino puts them', () => {
  it('scrubs the message pino takes from an error logged on its own', () => {
    const { logger, lines } = capture();
    logger.error(new Error(`login failed for ${BOT_TOKEN}`));
    const [line] = lines();
    expect(line).not.toContain(BOT_TOKEN);
    expect(JSON.parse(line!)).toMatchObject({ msg: 'login failed for [REDACTED]' });
  });

  it('scrubs the message pino takes from an error under err when no message is given', () => {
    const { logger, lines } = capture();
    logger.warn({ err: new Error(`refresh failed for ${BOT_TOKEN}`), userId: '42' });
    const [line] = lines();
    expect(line).not.toContain(BOT_TOKEN);
    expect(JSON.parse(line!)).toMatchObject({ msg: 'refresh failed for [REDACTED]', userId: '42' });
  });

  it('serializes and scrubs an error under a field other than err', () => {
    const { logger, lines } = capture();
    const url = `https://discord.com/api/v10/webhooks/123456789012345678/${INTERACTION_TOKEN}/messages/@original`;
    const error = new DiscordAPIError(
      { code: 10062, message: 'Unknown interaction' },
      10062,
      404,
      'PATCH',
      url,
      {
        body: { content: 'x' },
        files: undefined,
      },
    );
    logger.warn({ failure: error }, 'edit failed');
    const [line] = lines();
    expect(line).not.toContain(INTERACTION_TOKEN);
    const logged = JSON.parse(line!) as { failure: Record<string, unknown> };
    expect(logged.failure).toMatchObject({ message: 'Unknown interaction', status: 404 });
    expect(logged.failure['url']).toBe(
      'https://discord.com/api/v10/webhooks/123456789012345678/[REDACTED]/messages/@original',
    );
  });

  it('censors the interaction token a rate-limited edit names as its major parameter', () => {
    const { logger, lines } = capture();
    const error = new RateLimitError({
      global: false,
      method: 'PATCH',
      url: `https://discord.com/api/v10/webhooks/123456789012345678/${INTERACTION_TOKEN}/messages/@original`,
      route: '/webhooks/:id/:token/messages/:id',
      majorParameter: `123456789012345678/${INTERACTION_TOKEN}`,
      hash: 'Global(PATCH:/webhooks/:id/:token/messages/:id)',
      limit: 5,
      timeToReset: 0,
      retryAfter: 0,
      sublimitTimeout: 0,
      scope: 'user',
    });
    logger.warn({ err: error }, 'could not tell the member about an error');
    const [line] = lines();
    expect(line).not.toContain(INTERACTION_TOKEN);
    expect((JSON.parse(line!) as { err: Record<string, unknown> }).err['majorParameter']).toBe('[REDACTED]');
  });

  it('scrubs objects that fill the message’s placeholders', () => {
    const { logger, lines } = capture();
    logger.info('sent %j', { token: 'abc', note: `with ${BOT_TOKEN}` });
    const [line] = lines();
    expect(line).not.toContain(BOT_TOKEN);
    expect(line).not.toContain('"abc"');
  });

  it('strips the encryption keys and the Redis password of the configuration', () => {
    const current = randomBytes(32);
    const previous = randomBytes(32);
    const config = loadConfig({
      DISCORD_TOKEN: BOT_TOKEN,
      DISCORD_APPLICATION_ID: '123456789012345678',
      MUSIC_CLIENT_ID: 'client-id',
      MUSIC_CLIENT_SECRET: 'client-secret-canary-0002',
      TOKEN_ENCRYPTION_KEY: current.toString('base64'),
      TOKEN_ENCRYPTION_KEYS_OLD: previous.toString('hex'),
      REDIS_URL: 'redis://bot:p%40ss-word-canary@127.0.0.1:6379',
    });
    const { logger, lines } = capture(() => secretsOf(config));
    const printed = [
      current.toString('base64'),
      current.toString('hex'),
      previous.toString('hex'),
      'p%40ss-word-canary',
      'p@ss-word-canary',
    ];
    logger.error({ detail: printed.join(' ') }, `settings ${printed.join(' ')}`);
    for (const secret of printed) expect(lines()[0]).not.toContain(secret);
  });

  it('strips a key in whichever form the configuration took it', () => {
    const key = randomBytes(32);
    const base64 = key.toString('base64');
    for (const written of [
      base64.replace(/=+$/, ''),
      key.toString('base64url'),
      key.toString('hex').toUpperCase(),
      // Mixed case, as a key copied from a tool that groups or capitalises digits may be.
      mixedCase(key.toString('hex')),
    ]) {
      const config = loadConfig({
        DISCORD_TOKEN: BOT_TOKEN,
        DISCORD_APPLICATION_ID: '123456789012345678',
        MUSIC_CLIENT_ID: 'client-id',
        MUSIC_CLIENT_SECRET: 'client-secret-canary-0002',
        TOKEN_ENCRYPTION_KEY: written,
      });
      // The configuration read it as this very key.
      expect(config.music?.encryption?.current.equals(key)).toBe(true);
      const { logger, lines } = capture(() => secretsOf(config));
      logger.error(`TOKEN_ENCRYPTION_KEY=x ${written}`);
      expect(lines()[0]).not.toContain(written);
    }
  });
});

/** Every other letter upper-case, so the text is neither all lower- nor all upper-case. */
function mixedCase(hex: string): string {
  return [...hex].map((digit, index) => (index % 2 === 0 ? digit.toUpperCase() : digit)).join('');
}
