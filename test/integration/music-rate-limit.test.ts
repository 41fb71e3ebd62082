import { afterEach, describe, expect, it } from 'vitest';
import { RateLimitError } from '../../src/services/http/errors.js';
import { createMusicWorld, manualClock, recordingSleep, type MusicWorld } from '../fixtures/music.js';

describe('rate limits and the application token', () => {
  let world: MusicWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  it('waits out a 429 with Retry-After: 2 and then succeeds', async () => {
    const { sleep, waits } = recordingSleep();
    world = await createMusicWorld({ client: { transport: { sleep } } });
    const albumId = world.emulator.fixtures?.catalog.epAlbumId ?? '';
    world.emulator.setRateLimit({ retryAfterSeconds: 2, count: 1, path: `/v1/albums/${albumId}` });
    const album = await world.music.albums.get(albumId);
    expect(album.id).toBe(albumId);
    expect(waits).toEqual([2_000]);
    expect(world.emulator.requestCount({ path: `/v1/albums/${albumId}` })).toBe(2);
  });

  it('fails at once on Retry-After: 3600, with the wait', async () => {
    const { sleep, waits } = recordingSleep();
    world = await createMusicWorld({ client: { transport: { sleep } } });
    const albumId = world.emulator.fixtures?.catalog.epAlbumId ?? '';
    world.emulator.setRateLimit({ retryAfterSeconds: 3600, count: 5, path: `/v1/albums/${albumId}` });
    const error = await world.music.albums.get(albumId).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterMs).toBe(3_600_000);
    expect((error as RateLimitError).message).toContain('60 min');
    expect(waits).toEqual([]);
    expect(world.emulator.requestCount({ path: `/v1/albums/${albumId}` })).toBe(1);
  });

  it('makes one token request for 200 concurrent catalog calls', async () => {
    const current = await createMusicWorld();
    world = current;
    const { artistIds = [] } = current.emulator.fixtures ?? {};
    const artists = await Promise.all(
      Array.from({ length: 200 }, (_, i) => current.music.artists.get(artistIds[i % artistIds.length] ?? '')),
    );
    expect(artists).toHaveLength(200);
    expect(current.emulator.tokenRequests('client_credentials')).toBe(1);
    expect(current.emulator.tokenRequests()).toBe(1);
  });

  it('keeps the application token until 60 s before it expires', async () => {
    const clock = manualClock();
    world = await createMusicWorld({ emulator: { now: clock.now }, client: { now: clock.now } });
    const artistId = world.emulator.fixtures?.catalog.artistId ?? '';
    await world.music.artists.get(artistId);
    clock.advance(3_600_000 - 61_000);
    await world.music.artists.get(artistId);
    expect(world.emulator.tokenRequests()).toBe(1);
    clock.advance(2_000);
    await world.music.artists.get(artistId);
    expect(world.emulator.tokenRequests()).toBe(2);
  });

  it('gets a fresh application token once when the service says the current one expired', async () => {
    world = await createMusicWorld();
    const artistId = world.emulator.fixtures?.catalog.artistId ?? '';
    await world.music.artists.get(artistId);
    const token = world.emulator.requests({ path: '/accounts/api/token' }).length;
    expect(token).toBe(1);
    world.emulator.failNext(`/v1/artists/${artistId}`, 401, { message: 'The access token expired' });
    await world.music.artists.get(artistId);
    expect(world.emulator.tokenRequests()).toBe(2);
  });
});
