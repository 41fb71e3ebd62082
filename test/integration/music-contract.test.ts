import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMusicWorld, trackUris, type MusicWorld } from '../fixtures/music.js';

/** Every endpoint of the spec (§4), as method and path pattern. */
const SPEC_ENDPOINTS = [
  ['GET', /^\/v1\/albums\/[^/]+$/],
  ['GET', /^\/v1\/albums\/[^/]+\/tracks$/],
  ['GET', /^\/v1\/artists$/],
  ['GET', /^\/v1\/artists\/[^/]+\/top-tracks$/],
  ['PUT', /^\/v1\/me\/albums$/],
  ['DELETE', /^\/v1\/me\/albums$/],
  ['GET', /^\/v1\/me\/player\/devices$/],
  ['PUT', /^\/v1\/me\/player\/pause$/],
  ['POST', /^\/v1\/me\/player\/next$/],
  ['GET', /^\/v1\/playlists\/[^/]+$/],
  ['PUT', /^\/v1\/playlists\/[^/]+\/tracks$/],
  ['POST', /^\/v1\/playlists\/[^/]+\/tracks$/],
  ['DELETE', /^\/v1\/playlists\/[^/]+\/tracks$/],
  ['GET', /^\/v1\/me\/playlists$/],
] as const;

describe('the client covers the whole spec', () => {
  let world: MusicWorld;
  beforeAll(async () => {
    world = await createMusicWorld({ variant: 'classic' });
    world.signIn('alice');
  });
  afterAll(() => world.close());

  it('calls every endpoint of the spec and validates each answer', async () => {
    const { music, emulator } = world;
    const f = emulator.fixtures ?? expect.fail('seeded');
    const playlist = emulator.createPlaylist('alice', { name: 'Tour', uris: trackUris(emulator, 5) });

    expect((await music.albums.get(f.catalog.compilationAlbumId)).album_type).toBe('compilation');
    expect(
      (await music.albums.tracks(f.catalog.compilationAlbumId, { offset: 0, limit: 5 })).items,
    ).toHaveLength(5);
    expect(await music.artists.several(f.artistIds.slice(0, 3))).toHaveLength(3);
    expect((await music.artists.topTracks(f.catalog.artistId, { market: 'US' })).length).toBeGreaterThan(0);
    await music.library.saveAlbums('alice', f.albumIds.slice(0, 2));
    await music.library.removeAlbums('alice', f.albumIds.slice(0, 1));
    expect((await music.player.devices('alice')).length).toBe(3);
    await music.player.pause('alice');
    await music.player.next('alice');
    const read = await music.playlists.get(playlist, { userId: 'alice' });
    await music.playlists.addItems('alice', playlist, trackUris(emulator, 2, 50));
    await music.playlists.reorder('alice', playlist, {
      rangeStart: 0,
      insertBefore: 2,
      snapshotId: read.snapshot_id,
    });
    await music.playlists.removeItems('alice', playlist, trackUris(emulator, 1), read.snapshot_id);
    await music.playlists.replaceItems('alice', playlist, trackUris(emulator, 3, 60));
    expect((await music.playlists.mine('alice', { offset: 0, limit: 10 })).items.length).toBeGreaterThan(0);

    const calls = emulator.requests({ path: /^\/v1\// });
    for (const [method, pattern] of SPEC_ENDPOINTS) {
      const matching = calls.filter((call) => call.method === method && pattern.test(call.path));
      expect(matching.length, `${method} ${String(pattern)}`).toBeGreaterThan(0);
      expect(matching.every((call) => call.status >= 200 && call.status < 300)).toBe(true);
    }
    expect(emulator.playlist(playlist)?.uris).toEqual(trackUris(emulator, 3, 60));
  });
});
