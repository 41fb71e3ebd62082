import Keyv from 'keyv';
import { afterEach, describe, expect, it } from 'vitest';
import { RateLimitError } from '../../src/services/http/errors.js';
import { createStorageRateGate } from '../../src/services/music/index.js';
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

  it('waits out Retry-After up to 5 s, and fails at once from 6 s', async () => {
    const { sleep, waits } = recordingSleep();
    const clock = manualClock();
    world = await createMusicWorld({ client: { transport: { sleep }, now: clock.now } });
    const albumId = world.emulator.fixtures?.catalog.epAlbumId ?? '';
    const path = `/v1/albums/${albumId}`;
    world.emulator.setRateLimit({ retryAfterSeconds: 5, count: 1, path });
    await world.music.albums.get(albumId);
    expect(waits).toEqual([5_000]);

    clock.advance(5_000);
    world.emulator.setRateLimit({ retryAfterSeconds: 6, count: 1, path });
    await expect(world.music.albums.get(albumId)).rejects.toMatchObject({
      name: 'RateLimitError',
      retryAfterSeconds: 6,
    });
    expect(waits).toEqual([5_000]);
  });

  it('pauses every call of the client after a long 429, without sending any', async () => {
    world = await createMusicWorld();
    world.signIn('alice');
    const f = world.emulator.fixtures ?? expect.fail('seeded');
    world.emulator.setRateLimit({ retryAfterSeconds: 30, count: 1, path: `/v1/albums/${f.albumIds[0]}` });
    await expect(world.music.albums.get(f.albumIds[0] ?? '')).rejects.toBeInstanceOf(RateLimitError);
    world.emulator.resetCounters();
    await expect(world.music.artists.get(f.catalog.artistId)).rejects.toMatchObject({ paused: true });
    await expect(world.music.player.devices('alice')).rejects.toMatchObject({ paused: true });
    expect(world.emulator.requestCount()).toBe(0);
  });

  describe('two processes sharing one store', () => {
    const twoProcesses = async () => {
      const clock = manualClock();
      const store = new Keyv();
      const a = recordingSleep();
      // B's waits pass on the shared clock, as real ones would.
      const waitsB: number[] = [];
      const b = {
        sleep: (ms: number) => {
          waitsB.push(ms);
          clock.advance(ms);
          return Promise.resolve();
        },
      };
      const current = await createMusicWorld({
        emulator: { now: clock.now },
        client: {
          now: clock.now,
          transport: { sleep: a.sleep },
          rateGate: createStorageRateGate(store, 'music', { now: clock.now }),
        },
      });
      const other = current.client({
        now: clock.now,
        transport: { sleep: b.sleep },
        rateGate: createStorageRateGate(store, 'music', { now: clock.now }),
      });
      return { world: current, clock, processA: current.music, processB: other, waitsB };
    };

    it('a 429 seen by one makes the other fail at once, without a request reaching the service', async () => {
      const { world: current, clock, processA, processB } = await twoProcesses();
      world = current;
      const f = current.emulator.fixtures ?? expect.fail('seeded');
      // B has been working, so its copy of the pause is fresh (and empty).
      await processB.artists.get(f.catalog.artistId);
      current.emulator.setRateLimit({ retryAfterSeconds: 30, count: 1 });
      await expect(processA.albums.get(f.albumIds[0] ?? '')).rejects.toMatchObject({
        name: 'RateLimitError',
        retryAfterSeconds: 30,
      });
      clock.advance(1_000);
      current.emulator.resetCounters();
      const error = await processB.albums.get(f.albumIds[1] ?? '').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RateLimitError);
      expect(error).toMatchObject({ paused: true, retryAfterMs: 29_000 });
      expect(current.emulator.requestCount()).toBe(0);

      clock.advance(29_000);
      await processB.albums.get(f.albumIds[1] ?? '');
      expect(current.emulator.requestCount({ path: /^\/v1\// })).toBe(1);
    });

    it('a short pause seen by one is waited out by the other, then its call goes', async () => {
      const { world: current, clock, processA, processB, waitsB } = await twoProcesses();
      world = current;
      const f = current.emulator.fixtures ?? expect.fail('seeded');
      const path = `/v1/albums/${f.albumIds[0]}`;
      current.emulator.setRateLimit({ retryAfterSeconds: 4, count: 1, path });
      await processA.albums.get(f.albumIds[0] ?? '');
      clock.advance(1_000);
      current.emulator.resetCounters();
      await processB.artists.get(f.catalog.artistId);
      expect(waitsB).toEqual([3_000]);
      expect(current.emulator.requestCount({ path: /^\/v1\// })).toBe(1);
    });
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
