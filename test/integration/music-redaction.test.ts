import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMusicEmulator, type MusicEmulator } from '../../emulators/music/index.js';
import { createMusicClient, type MusicClient } from '../../src/services/music/index.js';
import { recordingSleep } from '../fixtures/music.js';

const CANARY_SECRET = 'canary-secret-9f2b7c4e1a';
const CANARY_WRONG_SECRET = 'canary-wrong-secret-5d8e3a';
const CANARY_UNKNOWN_TOKEN = 'canary-unknown-token-7c1f0b';

function memoryLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines };
}

describe('secrets never reach a log line or an error message', () => {
  let emulator: MusicEmulator;
  const { logger, lines } = memoryLogger();
  const messages: string[] = [];
  const canaries: string[] = [CANARY_SECRET, CANARY_WRONG_SECRET, CANARY_UNKNOWN_TOKEN];

  const clients: MusicClient[] = [];
  const client = (clientSecret: string, token: () => string): MusicClient => {
    const music = createMusicClient({
      apiUrl: emulator.apiUrl,
      authUrl: emulator.authUrl,
      clientId: emulator.clientId,
      clientSecret,
      variant: 'classic',
      getAccessToken: () => Promise.resolve(token()),
      transport: {
        onExchange: (info) => logger.debug(info, 'music exchange'),
        sleep: recordingSleep().sleep,
      },
    });
    clients.push(music);
    return music;
  };

  async function attempt(call: () => Promise<unknown>): Promise<void> {
    try {
      await call();
    } catch (error) {
      messages.push(String(error), JSON.stringify(error));
      logger.warn({ err: error }, 'music call failed');
    }
  }

  beforeAll(async () => {
    emulator = await startMusicEmulator({ clientSecret: CANARY_SECRET });
  });
  afterAll(async () => {
    await Promise.all(clients.map((music) => music.close()));
    await emulator.close();
  });

  it('holds for tokens, the client secret and failed calls of every kind', async () => {
    const issued = emulator.issueUserToken('alice', ['user-read-private', 'user-modify-playback-state']);
    const bobs = emulator.issueUserToken('bob', ['user-modify-playback-state']);
    canaries.push(issued.access_token, issued.refresh_token ?? '', bobs.access_token);
    const fixtures = emulator.fixtures ?? expect.fail('seeded');

    const good = client(CANARY_SECRET, () => issued.access_token);
    await attempt(() => good.albums.get(fixtures.catalog.longAlbumId));
    await attempt(() => good.users.me('alice'));
    await attempt(() => good.albums.get('0000000000000000000000'));
    // A client of its own: after this 429 it pauses every call for an hour.
    const limited = client(CANARY_SECRET, () => issued.access_token);
    emulator.setRateLimit({ retryAfterSeconds: 3600, count: 1 });
    await attempt(() => limited.users.me('alice'));
    await attempt(() => limited.albums.get(fixtures.catalog.longAlbumId));
    emulator.failNext('/v1/me', 500);
    emulator.failNext('/v1/me', 500);
    emulator.failNext('/v1/me', 500);
    await attempt(() => good.users.me('alice'));
    emulator.expireToken(issued.access_token);
    await attempt(() => good.users.me('alice'));
    await attempt(() => client(CANARY_SECRET, () => bobs.access_token).player.pause('bob'));
    await attempt(() => client(CANARY_SECRET, () => CANARY_UNKNOWN_TOKEN).users.me('alice'));
    await attempt(() =>
      client(CANARY_WRONG_SECRET, () => issued.access_token).artists.get(fixtures.catalog.artistId),
    );

    const logText = lines.join('');
    expect(messages.length).toBeGreaterThanOrEqual(16);
    expect(logText).toContain('music exchange');
    expect(logText).toContain('music call failed');
    for (const canary of canaries.filter((c) => c !== '')) {
      expect(logText).not.toContain(canary);
      for (const message of messages) expect(message).not.toContain(canary);
    }
    // Every token and code the emulator issues starts with AQ or BQ, the app token included.
    expect(`${logText}${messages.join('')}`).not.toMatch(/[AB]Q[A-Za-z0-9_-]{40,}/);
    // A bearer credential, not the challenge a 401 answers with (`WWW-Authenticate: Bearer realm=…`).
    expect(logText).not.toMatch(/Bearer (?!realm=)[A-Za-z0-9]/);
    expect(logText).not.toMatch(/Basic [A-Za-z0-9]/);
  });
});
