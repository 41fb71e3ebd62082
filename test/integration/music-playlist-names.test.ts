/**
 * A playlist named by typing rather than picked from the suggestions: which of the member's
 * playlists the name means.
 */
import Keyv from 'keyv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MusicDeps } from '../../src/domain/music/deps.js';
import { MusicInputError, NotYourPlaylistError } from '../../src/domain/music/errors.js';
import { resolvePlaylist } from '../../src/domain/music/playlists.js';
import { createMusicWorld, type MusicWorld } from '../fixtures/music.js';

describe('a playlist named by typing', () => {
  let world: MusicWorld;
  let deps: MusicDeps;
  let followed: string;

  beforeAll(async () => {
    world = await createMusicWorld();
    // Bob follows Alice's big playlist, "Everything, Forever".
    world.signIn('bob');
    deps = { client: world.music, cache: new Keyv(), recent: new Keyv() };
    followed = world.emulator.fixtures?.playlists.big ?? '';
  });
  afterAll(() => world.close());

  it('views the member’s own playlist of a name one they follow shares; two of their own (and the followed one) are all named', async () => {
    expect(await resolvePlaylist(deps, 'bob', 'Everything, Forever')).toBe(followed);
    const own = world.emulator.createPlaylist('bob', { name: 'Everything, Forever' });
    await deps.cache.clear();
    expect(await resolvePlaylist(deps, 'bob', 'everything, forever', 'view')).toBe(own);
    expect(await resolvePlaylist(deps, 'bob', 'Everything, Forever', 'edit')).toBe(own);
    world.emulator.createPlaylist('bob', { name: 'Everything, Forever' });
    await deps.cache.clear();
    const refusal = await resolvePlaylist(deps, 'bob', 'Everything, Forever').catch(
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(MusicInputError);
    expect((refusal as Error).message).toMatch(/^You have 3 playlists called “Everything, Forever”/);
  });

  it('says a name is not the member’s to change when several they follow have it, and none of theirs', async () => {
    // The copy of Bob's list the suggestions keep (as they would have read it a moment ago): two
    // playlists he follows share a name. (The emulator's driver cannot make an account follow one.)
    const followedTwice = (id: string) => ({
      id,
      name: 'Followed twice',
      owner: 'Alice',
      total: 3,
      editable: false,
      public: true,
    });
    await deps.cache.set('mine:bob', { at: Date.now(), playlists: [followedTwice('a'), followedTwice('b')] });
    const refusal = await resolvePlaylist(deps, 'bob', 'followed twice', 'edit').catch(
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(NotYourPlaylistError);
    expect((refusal as Error).message).toBe(
      '“Followed twice” is not yours: you can only change playlists you own or collaborate on.',
    );
    // To view, they are two to choose from.
    await expect(resolvePlaylist(deps, 'bob', 'followed twice', 'view')).rejects.toThrow(
      /^You have 2 playlists called “Followed twice”/,
    );
  });
});
