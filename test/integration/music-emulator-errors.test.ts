import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMusicEmulator, type MusicEmulator } from '../../emulators/music/index.js';
import { BOT_SCOPES } from '../fixtures/music.js';

describe('music emulator: error answers a client sees', () => {
  let emulator: MusicEmulator;
  let token: string;

  beforeAll(async () => {
    emulator = await startMusicEmulator();
    token = emulator.issueUserToken('alice', BOT_SCOPES).access_token;
  });
  afterAll(() => emulator.close());

  async function call(method: string, path: string) {
    const response = await fetch(`${emulator.apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}` },
    });
    const text = await response.text();
    return {
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      body: text === '' ? undefined : (JSON.parse(text) as unknown),
    };
  }

  it('gives an injected 429 a Retry-After of 1 second by default', async () => {
    emulator.failNext('/v1/me', 429);
    expect(await call('GET', '/v1/me')).toEqual({
      status: 429,
      retryAfter: '1',
      body: { error: { status: 429, message: 'API rate limit exceeded' } },
    });
    expect((await call('GET', '/v1/me')).status).toBe(200);
  });

  it('gives an injected 429 the Retry-After asked for', async () => {
    emulator.failNext(/^\/v1\/me\/player/, 429, { retryAfterSeconds: 17 });
    const answer = await call('GET', '/v1/me/player/devices');
    expect([answer.status, answer.retryAfter]).toEqual([429, '17']);
  });

  it('sends no Retry-After with other injected failures', async () => {
    emulator.failNext('/v1/me', 503);
    expect((await call('GET', '/v1/me')).retryAfter).toBeNull();
  });

  it('refuses a Retry-After for an injected status that is not 429', () => {
    expect(() => emulator.failNext('/v1/me', 503, { retryAfterSeconds: 5 })).toThrow(/429/);
  });

  it('refuses to pause what is paused with reason UNKNOWN, as the service does lately', async () => {
    emulator.setPlayer('alice', { isPlaying: false, activeDeviceId: 'alice-laptop' });
    expect(await call('PUT', '/v1/me/player/pause')).toEqual({
      status: 403,
      retryAfter: null,
      body: {
        error: { status: 403, message: 'Player command failed: Restriction violated', reason: 'UNKNOWN' },
      },
    });
  });
});
