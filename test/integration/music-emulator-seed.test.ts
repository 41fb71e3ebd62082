import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startMusicEmulator, type MusicEmulator } from '../../emulators/music/index.js';
import { NoActiveDeviceError } from '../../src/services/music/index.js';
import { BOT_SCOPES, createMusicWorld, manualClock, type MusicWorld } from '../fixtures/music.js';
import { callMusicApi, requestAppToken } from '../helpers/music-auth.js';

const BASE62_ID = /^[0-9A-Za-z]{22}$/;

const call = (emulator: MusicEmulator, path: string, token: string) => callMusicApi(emulator, token, path);

/**
 * Waits until the emulator has received `count` requests for `path`, polling in real time
 * (`expect.poll` would move fake timers on).
 */
async function received(emulator: MusicEmulator, path: string, count: number): Promise<void> {
  while (emulator.requestCount({ path }) < count) await delay(5);
}

describe('music emulator: seeded world', () => {
  let world: MusicWorld;
  beforeAll(async () => {
    world = await createMusicWorld();
    for (const user of ['alice', 'noor', 'yuki']) world.signIn(user);
  });
  afterAll(() => world.close());

  it('has at least 30 artists, 60 albums and 600 tracks, with distinct 22-character base-62 ids', () => {
    const f = world.emulator.fixtures ?? expect.fail('seeded');
    expect(f.artistIds.length).toBeGreaterThanOrEqual(30);
    expect(f.albumIds.length).toBeGreaterThanOrEqual(60);
    expect(f.trackIds.length).toBeGreaterThanOrEqual(600);
    const ids = [...f.artistIds, ...f.albumIds, ...f.trackIds, ...f.episodeIds];
    expect(ids.every((id) => BASE62_ID.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('derives an artist’s popularity from the popularity of the artist’s tracks', async () => {
    const f = world.emulator.fixtures ?? expect.fail('seeded');
    const ids = f.artistIds.slice(0, 12);
    const artists = await world.music.artists.several(ids);
    for (const [index, id] of ids.entries()) {
      // In Japan every seeded album is on sale, so the top tracks there are the artist's top ten.
      const top = await world.music.artists.topTracks(id, { market: 'JP' });
      const popularity = top.map((track) => track.popularity ?? 0);
      const mean = popularity.reduce((sum, p) => sum + p, 0) / Math.max(1, popularity.length);
      expect(artists[index]?.popularity).toBe(Math.round(mean));
    }
  });

  it('orders images widest first', async () => {
    const f = world.emulator.fixtures ?? expect.fail('seeded');
    const album = await world.music.albums.get(f.albumIds[7] ?? '');
    const widths = album.images.map((image) => image.width ?? 0);
    expect(widths.length).toBeGreaterThan(1);
    expect([...widths].sort((a, b) => b - a)).toEqual(widths);
  });

  it('restricts by market, and explicit tracks for an account that filters them', async () => {
    const f = world.emulator.fixtures ?? expect.fail('seeded');
    const tokyo = await world.music.albums.get(f.catalog.restrictedAlbumId);
    expect(tokyo.restrictions?.reason).toBe('market');
    expect(
      (await world.music.albums.get(f.catalog.restrictedAlbumId, { market: 'JP' })).restrictions,
    ).toBeUndefined();

    // Yuki (JP) filters explicit content: her copy of an explicit track is restricted for that reason.
    const yuki = world.signIn('yuki');
    let explicit: { restrictions?: { reason: string }; is_playable?: boolean } | undefined;
    for (const id of f.albumIds) {
      const { body } = await call(world.emulator, `/v1/albums/${id}`, yuki);
      const tracks = (
        body as { tracks: { items: { explicit: boolean; restrictions?: { reason: string } }[] } }
      ).tracks;
      explicit = tracks.items.find((track) => track.explicit);
      if (explicit !== undefined) break;
    }
    expect(explicit).toMatchObject({ is_playable: false, restrictions: { reason: 'explicit' } });
  });

  it('has premium and free users in different countries', () => {
    const users = world.emulator.users;
    const premium = users.filter((user) => user.product === 'premium');
    const free = users.filter((user) => user.product === 'free');
    expect(premium.length).toBeGreaterThan(0);
    expect(free.length).toBeGreaterThan(0);
    const freeCountries = new Set(free.map((user) => user.country));
    expect(premium.some((user) => !freeCountries.has(user.country))).toBe(true);
    expect(new Set(users.map((user) => user.country)).size).toBeGreaterThanOrEqual(4);
  });

  it('gives users no devices, one active device, several, and a restricted one', async () => {
    const { users } = world.emulator.fixtures ?? expect.fail('seeded');
    expect(await world.music.player.devices(users.noDevices)).toEqual([]);
    const one = await world.music.player.devices(users.oneDevice);
    expect(one.map((device) => device.is_active)).toEqual([true]);
    const several = await world.music.player.devices(users.premium);
    expect(several.length).toBeGreaterThan(1);
    expect(several.filter((device) => device.is_active)).toHaveLength(1);
    expect(several.some((device) => device.is_restricted)).toBe(true);
    expect(world.emulator.player(users.noActiveDevice)?.activeDeviceId).toBeNull();
    await expect(world.music.player.pause(users.noDevices)).rejects.toBeInstanceOf(NoActiveDeviceError);
  });

  it('holds a 10,000-item playlist with removed, local and episode items', () => {
    const { playlists } = world.emulator.fixtures ?? expect.fail('seeded');
    const big = world.emulator.playlist(playlists.big) ?? expect.fail('seeded');
    expect(big.length).toBe(10_000);
    expect(new Set(big.kinds)).toEqual(new Set(['track', 'missing', 'local', 'episode']));
  });

  it('lists a local file with every field of a full track, empty, and its own URI', async () => {
    const { playlists } = world.emulator.fixtures ?? expect.fail('seeded');
    const token = world.emulator.issueUserToken('alice', BOT_SCOPES).access_token;
    const { body } = await call(world.emulator, `/v1/playlists/${playlists.big}/tracks?limit=10`, token);
    const tracks = (body as { items: { track: Record<string, unknown> | null }[] }).items.map((i) => i.track);
    const local = tracks.find((track) => track?.['is_local'] === true) ?? expect.fail('a local file');
    const full = tracks.find((track) => track?.['is_local'] === false) ?? expect.fail('a track');
    // Every field a catalog track has (here with the member's market), but the ones about
    // whether it plays there.
    const marketOnly = ['is_playable', 'linked_from', 'restrictions'];
    expect(Object.keys(local).sort()).toEqual(
      Object.keys(full)
        .filter((key) => !marketOnly.includes(key))
        .sort(),
    );
    expect(local).toMatchObject({
      id: null,
      href: null,
      external_ids: {},
      external_urls: {},
      preview_url: null,
      disc_number: 0,
      track_number: 0,
    });
    expect(local['uri']).toMatch(/^service:local:/);
    const album = local['album'] as Record<string, unknown>;
    expect(Object.keys(album).sort()).toEqual(
      Object.keys(full['album'] as object)
        .filter((key) => key !== 'total_tracks')
        .sort(),
    );
    expect(album).toMatchObject({ id: null, uri: null, artists: [], images: [], release_date: null });
    expect(local['artists']).toEqual([expect.objectContaining({ id: null, uri: null, external_urls: {} })]);
  });

  it('counts the requests it served by endpoint', async () => {
    const f = world.emulator.fixtures ?? expect.fail('seeded');
    const other = world.client();
    world.emulator.resetCounters();
    await other.albums.get(f.albumIds[0] ?? '');
    await other.albums.get(f.albumIds[1] ?? '');
    await other.artists.several(f.artistIds.slice(0, 60));
    await other.player.devices('alice');
    expect(world.emulator.requestCounts()).toEqual({
      'POST /api/token': 1,
      'GET /v1/albums/{id}': 2,
      'GET /v1/artists': 2,
      'GET /v1/me/player/devices': 1,
    });
    expect(world.emulator.requests()[0]?.endpoint).toBe('POST /api/token');
  });
});

describe('music emulator: rolling-window rate limit', () => {
  const clock = manualClock();
  let emulator: MusicEmulator;
  let token: string;
  beforeAll(async () => {
    emulator = await startMusicEmulator({ now: clock.now, rateLimit: { requests: 3, windowMs: 30_000 } });
    token = emulator.issueUserToken('alice', BOT_SCOPES).access_token;
  });
  afterAll(() => emulator.close());

  it('answers 429 with the Retry-After that frees a slot, and serves again once one is free', async () => {
    for (let i = 0; i < 3; i++) {
      expect((await call(emulator, '/v1/me', token)).status).toBe(200);
      clock.advance(10_000);
    }
    clock.advance(-5_000); // t = 25 s: the calls of t = 0, 10 and 20 s are all in the window
    const limited = await call(emulator, '/v1/me', token);
    expect(limited.status).toBe(429);
    expect(limited.retryAfter).toBe('5');
    expect(limited.body).toEqual({ error: { status: 429, message: 'API rate limit exceeded' } });

    clock.advance(5_000); // t = 30 s: the first call has left the window
    expect((await call(emulator, '/v1/me', token)).status).toBe(200);
    clock.advance(1_000); // t = 31 s: window holds 10, 20 and 30 s
    const again = await call(emulator, '/v1/me', token);
    expect(again.retryAfter).toBe('9');
  });

  it('can be lifted and set again while running', async () => {
    emulator.setRollingRateLimit(null);
    for (let i = 0; i < 5; i++) expect((await call(emulator, '/v1/me', token)).status).toBe(200);
    emulator.setRollingRateLimit({ requests: 1, windowMs: 1_000 });
    expect((await call(emulator, '/v1/me', token)).status).toBe(200);
    expect((await call(emulator, '/v1/me', token)).status).toBe(429);
    emulator.setRollingRateLimit(null);
  });
});

describe('music emulator: stalled responses', () => {
  let emulator: MusicEmulator;
  let token: string;
  beforeAll(async () => {
    emulator = await startMusicEmulator();
    token = emulator.issueUserToken('alice', BOT_SCOPES).access_token;
  });
  afterAll(() => emulator.close());
  // Some tests hold answers on fake timers (the emulator's hold is a `setTimeout`), moved on by the
  // test: a busy machine's late timers and slow round trips cannot then make an answer look held
  // or not.
  afterEach(() => void vi.useRealTimers());

  it('holds the next matching response, then answers as usual', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const seen = emulator.requestCount({ path: '/v1/me' });
    emulator.stallNext('/v1/me', 300);
    let answered = false;
    const stalled = call(emulator, '/v1/me', token).finally(() => (answered = true));
    await received(emulator, '/v1/me', seen + 1);
    // Only that one is held: the next is answered while the clock stands still.
    expect((await call(emulator, '/v1/me', token)).status).toBe(200);
    await vi.advanceTimersByTimeAsync(299);
    // A round trip after it: an answer sent before then would be in by now.
    await call(emulator, '/v1/me', token);
    expect(answered).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect((await stalled).status).toBe(200);
  });

  it('stalls the token endpoint named as its documentation names it, `/api/token`', async () => {
    emulator.stallNext('/api/token', 300);
    const started = performance.now();
    const response = await requestAppToken(emulator);
    expect(performance.now() - started).toBeGreaterThanOrEqual(280);
    expect(response.status).toBe(200);
  });

  it('can stall in the middle of the body, after the headers', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    emulator.stallNext('/v1/me', 300, { phase: 'body' });
    // The headers come while the clock stands still: they are not held.
    const response = await fetch(`${emulator.apiUrl}/v1/me`, {
      headers: { authorization: `Bearer ${token}` },
    });
    let read = false;
    const body = (response.json() as Promise<{ id: string }>).finally(() => (read = true));
    await vi.advanceTimersByTimeAsync(299);
    // A round trip after it: a body sent before then would be in by now.
    await call(emulator, '/v1/me', token);
    expect(read).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect((await body).id).toBe('alice');
  });

  it('closes without waiting for a stalled response', async () => {
    const other = await startMusicEmulator();
    const stalledToken = other.issueUserToken('alice', BOT_SCOPES).access_token;
    other.stallNext('/v1/me', 60_000);
    const pending = call(other, '/v1/me', stalledToken).catch((e: unknown) => e);
    await received(other, '/v1/me', 1); // held now
    const started = performance.now();
    await other.close();
    // Far below the stall: only a close that waited for it would take this long.
    expect(performance.now() - started).toBeLessThan(10_000);
    await pending;
  });
});

describe('music emulator: refresh-token rotation for every client', () => {
  it('rotates a confidential client’s refresh token too when asked, refusing the used one', async () => {
    const emulator = await startMusicEmulator({ refreshTokenRotation: 'always' });
    try {
      const basic = `Basic ${Buffer.from(`${emulator.clientId}:${emulator.clientSecret}`).toString('base64')}`;
      const refresh = async (refreshToken: string) => {
        const response = await fetch(`${emulator.authUrl}/api/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic },
          body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }),
        });
        return { status: response.status, body: (await response.json()) as Record<string, unknown> };
      };
      const first = emulator.issueUserToken('alice', ['user-read-private']).refresh_token ?? '';
      const renewed = await refresh(first);
      expect(renewed.status).toBe(200);
      expect(renewed.body['refresh_token']).toBeTypeOf('string');
      expect(await refresh(first)).toEqual({
        status: 400,
        body: { error: 'invalid_grant', error_description: 'Invalid refresh token' },
      });
      expect((await refresh(String(renewed.body['refresh_token']))).status).toBe(200);
    } finally {
      await emulator.close();
    }
  });
});
