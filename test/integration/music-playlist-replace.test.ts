import Keyv from 'keyv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MusicDeps } from '../../src/domain/music/deps.js';
import { MusicInputError, StaleConfirmationError } from '../../src/domain/music/errors.js';
import {
  prepareReplacement,
  previewRemoval,
  removePlaylistItems,
  replacePlaylistItems,
} from '../../src/domain/music/playlists.js';
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

  describe('a confirmation pressed twice (a double click, or a retry while the first was under way)', () => {
    it('says a replacement is done at the second press, and sends it once', async () => {
      const id = world.emulator.createPlaylist('alice', {
        name: 'Road trip',
        uris: trackUris(world.emulator, 30, 0),
      });
      const uris = trackUris(world.emulator, 2, 700);
      const { token } = await prepareReplacement(deps, 'alice', id, uris.join(' '));
      const first = await replacePlaylistItems(deps, 'alice', id, token);
      expect([first.kind, first.count]).toEqual(['replace', 2]);
      const sent = edits();
      const second = await replacePlaylistItems(deps, 'alice', id, token);
      expect([second.kind, second.count, second.page?.total]).toEqual(['replace', 2, 2]);
      expect(edits()).toBe(sent);
      expect(world.emulator.playlist(id)?.uris).toEqual(uris);
    });

    it('says a removal is done at the second press, and removes nothing more', async () => {
      const start = trackUris(world.emulator, 30, 100);
      const id = world.emulator.createPlaylist('alice', { name: 'Road trip', uris: start });
      const preview = await previewRemoval(deps, 'alice', id, 2, 3);
      const first = await removePlaylistItems(deps, 'alice', id, 2, 3, preview.fingerprint);
      expect([first.kind, first.count, first.position]).toEqual(['remove', 3, 2]);
      const after = [start[0], ...start.slice(4)];
      expect(world.emulator.playlist(id)?.uris).toEqual(after);
      const sent = edits();
      const second = await removePlaylistItems(deps, 'alice', id, 2, 3, preview.fingerprint);
      expect([second.kind, second.count, second.position, second.page?.total]).toEqual(['remove', 3, 2, 27]);
      expect(edits()).toBe(sent);
      expect(world.emulator.playlist(id)?.uris).toEqual(after);
    });

    it('still refuses a removal whose items moved before it was ever confirmed', async () => {
      const start = trackUris(world.emulator, 30, 200);
      const id = world.emulator.createPlaylist('alice', { name: 'Road trip', uris: start });
      const preview = await previewRemoval(deps, 'alice', id, 2, 3);
      // Item 1 goes meanwhile (another prompt), so items 2-4 are now other tracks.
      const other = await previewRemoval(deps, 'alice', id, 1, 1);
      await removePlaylistItems(deps, 'alice', id, 1, 1, other.fingerprint);
      const sent = edits();
      const late = await removePlaylistItems(deps, 'alice', id, 2, 3, preview.fingerprint).catch(
        (e: unknown) => e,
      );
      expect(late).toBeInstanceOf(StaleConfirmationError);
      expect((late as Error).message).toBe(
        'The playlist changed since you asked: nothing was removed. Run /music playlist remove again.',
      );
      expect(edits()).toBe(sent);
      expect(world.emulator.playlist(id)?.uris).toEqual(start.slice(1));
    });
  });
});
