import Keyv from 'keyv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MusicDeps } from '../../src/domain/music/deps.js';
import { MusicInputError } from '../../src/domain/music/errors.js';
import { prepareReplacement, replacePlaylistItems } from '../../src/domain/music/playlists.js';
import { createMusicWorld, trackUris, type MusicWorld } from '../fixtures/music.js';

describe('replacing a playlist never leaves it half-replaced', () => {
  let world: MusicWorld;
  let deps: MusicDeps;

  beforeAll(async () => {
    world = await createMusicWorld();
    world.signIn('alice');
    deps = { client: world.music, cache: new Keyv(), recent: new Keyv() };
  });
  afterAll(() => world.close());

  const edits = () =>
    ['PUT', 'POST', 'DELETE']
      .map((method) => world.emulator.requestCount({ method, path: /^\/v1\/playlists\/[^/]+\/tracks$/ }))
      .reduce((sum, count) => sum + count, 0);

  it('refuses over 100 new items before asking, and before sending anything', async () => {
    const start = trackUris(world.emulator, 30, 0);
    const id = world.emulator.createPlaylist('alice', { name: 'Road trip', uris: start });
    world.emulator.resetCounters();
    const items = trackUris(world.emulator, 101, 500).join(' ');
    await expect(prepareReplacement(deps, 'alice', id, items)).rejects.toThrow(
      /^A replacement takes at most 100 items, so that it happens all at once; you gave 101\. Nothing was changed\./,
    );
    expect(world.emulator.requestCount()).toBe(0);
    expect(world.emulator.playlist(id)?.uris).toEqual(start);
  });

  it('refuses, at the button, a confirmation of over 100 items kept from before the limit', async () => {
    const start = trackUris(world.emulator, 30, 0);
    const id = world.emulator.createPlaylist('alice', { name: 'Road trip', uris: start });
    // What `prepareReplacement` stored before it refused long lists (key and shape as it writes them).
    const uris = trackUris(world.emulator, 101, 500);
    await deps.cache.set('replace:old-token', { userId: 'alice', playlistId: id, uris });
    world.emulator.resetCounters();
    const error: unknown = await replacePlaylistItems(deps, 'alice', id, 'old-token').catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(MusicInputError);
    expect((error as Error).message).toMatch(/^A replacement takes at most 100 items/);
    expect(edits()).toBe(0);
    expect(world.emulator.playlist(id)?.uris).toEqual(start);
  });
});
