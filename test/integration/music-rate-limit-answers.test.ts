import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startMusicEmulator, type MusicEmulator } from '../../emulators/music/index.js';
import { describeForUser } from '../../src/bot/errors.js';
import { RateLimitError } from '../../src/services/http/errors.js';
import { QuotaExceededError } from '../../src/services/music/errors.js';
import { BOT_SCOPES, createMusicWorld, recordingSleep, type MusicWorld } from '../fixtures/music.js';
import { callMusicApi } from '../helpers/music-auth.js';

const QUOTA_BODY = { error: { status: 429, message: 'Too many requests', reason: 'QUOTA_EXCEEDED' } };

describe('music emulator: the 429 answers the service is seen to give', () => {
  let emulator: MusicEmulator;
  let token: string;

  beforeAll(async () => {
    emulator = await startMusicEmulator();
    token = emulator.issueUserToken('alice', BOT_SCOPES).access_token;
  });
  afterAll(() => emulator.close());

  const call = (path: string) => callMusicApi(emulator, token, path);

  it('injects a 429 with an empty body, still with its Retry-After', async () => {
    emulator.failNext('/v1/me', 429, { emptyBody: true });
    expect(await call('/v1/me')).toEqual({ status: 429, retryAfter: '1', body: undefined });
    expect((await call('/v1/me')).status).toBe(200);
  });

  it('injects a 429 without Retry-After when asked for none', async () => {
    emulator.failNext('/v1/me', 429, { retryAfterSeconds: null });
    expect(await call('/v1/me')).toEqual({
      status: 429,
      retryAfter: null,
      body: { error: { status: 429, message: 'API rate limit exceeded' } },
    });
  });

  it('rate limits the next requests with an empty body and no Retry-After', async () => {
    emulator.setRateLimit({ retryAfterSeconds: null, emptyBody: true, count: 2, path: '/v1/me' });
    expect(await call('/v1/me')).toEqual({ status: 429, retryAfter: null, body: undefined });
    expect(await call('/v1/me')).toEqual({ status: 429, retryAfter: null, body: undefined });
    expect((await call('/v1/me')).status).toBe(200);
  });

  it('answers the development-mode quota 429, without Retry-After unless given one', async () => {
    emulator.exceedQuota({ count: 1 });
    expect(await call('/v1/me')).toEqual({ status: 429, retryAfter: null, body: QUOTA_BODY });
    expect((await call('/v1/me')).status).toBe(200);
    emulator.exceedQuota({ count: 1, path: '/v1/me', retryAfterSeconds: 600 });
    expect(await call('/v1/me')).toEqual({ status: 429, retryAfter: '600', body: QUOTA_BODY });
  });

  it('refuses a quota rule that could never match an API request', () => {
    expect(() => emulator.exceedQuota({ count: 1, path: '/api/token' })).toThrow(/\/v1\//);
  });
});

describe('music client: 429 answers without a body or with a used-up quota', () => {
  let world: MusicWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  const albumPath = (current: MusicWorld) => `/v1/albums/${current.emulator.fixtures?.catalog.epAlbumId}`;

  /** Takes one of the injected 429s itself, so the test knows what the client's others look like. */
  async function firstAnswer(current: MusicWorld) {
    const response = await fetch(`${current.emulator.apiUrl}${albumPath(current)}`);
    return {
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      body: await response.text(),
    };
  }

  it('waits out an empty-body 429 with Retry-After: 2 and then succeeds', async () => {
    const { sleep, waits } = recordingSleep();
    world = await createMusicWorld({ client: { transport: { sleep } } });
    const albumId = world.emulator.fixtures?.catalog.epAlbumId ?? '';
    world.emulator.setRateLimit({ retryAfterSeconds: 2, emptyBody: true, count: 2, path: albumPath(world) });
    expect(await firstAnswer(world)).toEqual({ status: 429, retryAfter: '2', body: '' });
    expect((await world.music.albums.get(albumId)).id).toBe(albumId);
    expect(waits).toEqual([2_000]);
    expect(world.emulator.requestCount({ path: albumPath(world) })).toBe(3);
  });

  it('backs off from empty-body 429s without Retry-After and then succeeds', async () => {
    const { sleep, waits } = recordingSleep();
    world = await createMusicWorld({ client: { transport: { sleep, random: () => 1 } } });
    const albumId = world.emulator.fixtures?.catalog.epAlbumId ?? '';
    world.emulator.setRateLimit({
      retryAfterSeconds: null,
      emptyBody: true,
      count: 3,
      path: albumPath(world),
    });
    expect(await firstAnswer(world)).toEqual({ status: 429, retryAfter: null, body: '' });
    expect((await world.music.albums.get(albumId)).id).toBe(albumId);
    // Full jitter with random() = 1: the whole of 500 ms, then of 1 s.
    expect(waits).toEqual([500, 1_000]);
    expect(world.emulator.requestCount({ path: albumPath(world) })).toBe(4);
  });

  it('fails a QUOTA_EXCEEDED 429 after one request, telling the member it is the app’s quota', async () => {
    const { sleep, waits } = recordingSleep();
    world = await createMusicWorld({ client: { transport: { sleep } } });
    const albumId = world.emulator.fixtures?.catalog.epAlbumId ?? '';
    world.emulator.exceedQuota({ count: 10 });
    const error = await world.music.albums.get(albumId).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QuotaExceededError);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ reason: 'QUOTA_EXCEEDED', retryAfterMs: undefined });
    expect(world.emulator.requestCount({ path: albumPath(world) })).toBe(1);
    expect(waits).toEqual([]);

    const shown = describeForUser(error);
    expect(shown).toMatch(/music app has used up its request quota with the music service/);
    expect(shown).toMatch(/not something you did/);
    expect(shown).toMatch(/try again later/);
    expect(shown).toMatch(/owner/);

    // What the owner reads in the log: the request, the reason, and what to do about it; no secret.
    const { message } = error as QuotaExceededError;
    expect(message).toContain(`GET /v1/albums/${albumId}`);
    expect(message).toContain('QUOTA_EXCEEDED');
    expect(message).toMatch(/development mode.*extended quota.*dashboard/);
    expect(message).not.toContain(world.emulator.clientSecret);
    expect(JSON.stringify(error)).not.toMatch(/Bearer/);
  });

  it('does not retry a QUOTA_EXCEEDED 429 even when its Retry-After is short, and says when', async () => {
    const { sleep, waits } = recordingSleep();
    world = await createMusicWorld({ client: { transport: { sleep } } });
    world.signIn('alice');
    world.emulator.exceedQuota({ count: 10, retryAfterSeconds: 3 });
    const error = await world.music.player.devices('alice').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QuotaExceededError);
    expect(error).toMatchObject({ retryAfterMs: 3_000, retryAfterSeconds: 3 });
    expect(world.emulator.requestCount({ path: '/v1/me/player/devices' })).toBe(1);
    expect(waits).toEqual([]);
    expect(describeForUser(error)).toMatch(/try again in 3 s/);
  });

  it('still waits out an ordinary 429 that carries a reason other than QUOTA_EXCEEDED', async () => {
    const { sleep, waits } = recordingSleep();
    world = await createMusicWorld({ client: { transport: { sleep } } });
    const albumId = world.emulator.fixtures?.catalog.epAlbumId ?? '';
    world.emulator.failNext(albumPath(world), 429, { reason: 'RATE_LIMITED', retryAfterSeconds: 1 });
    expect((await world.music.albums.get(albumId)).id).toBe(albumId);
    expect(waits).toEqual([1_000]);
  });
});
