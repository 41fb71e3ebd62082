/**
 * What a member reads when a playlist edit is refused for its numbers: counts with separators, one
 * item in the singular.
 */
import Keyv from 'keyv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MusicDeps } from '../../src/domain/music/deps.js';
import { MusicInputError } from '../../src/domain/music/errors.js';
import { addToPlaylist, movePlaylistItems, prepareReplacement } from '../../src/domain/music/playlists.js';
import { HttpError, RateLimitError } from '../../src/services/http/errors.js';
import { IncompleteChangeError, type MusicClient } from '../../src/services/music/index.js';
import { createMusicWorld, trackUris, type MusicWorld } from '../fixtures/music.js';

describe('playlist edits refused for their numbers', () => {
  let world: MusicWorld;
  let deps: MusicDeps;
  let big: string;

  beforeAll(async () => {
    world = await createMusicWorld();
    world.signIn('alice');
    deps = { client: world.music, cache: new Keyv(), recent: new Keyv() };
    big = world.emulator.fixtures?.playlists.big ?? '';
  });
  afterAll(() => world.close());

  const refusal = (run: Promise<unknown>) =>
    run.then(
      () => expect.fail('expected a refusal'),
      (error: unknown) => {
        expect(error).toBeInstanceOf(MusicInputError);
        return (error as Error).message;
      },
    );

  it('writes positions and lengths past a thousand with separators', async () => {
    // The fixture's long playlist holds 10,000 items.
    const track = trackUris(world.emulator, 1)[0]!;
    expect(await refusal(addToPlaylist(deps, 'alice', big, track, 20_000))).toBe(
      'The position must be between 1 and 10,001.',
    );
    expect(await refusal(movePlaylistItems(deps, 'alice', big, 10_001, 1))).toBe(
      'Position 10,001 is not in the playlist: it has 10,000 items.',
    );
    expect(await refusal(movePlaylistItems(deps, 'alice', big, 9_999, 1, 5))).toBe(
      'Items 9,999–10,003 are not all in the playlist: it has 10,000 items.',
    );
    expect(await refusal(movePlaylistItems(deps, 'alice', big, 1, 10_000, 5))).toBe(
      'The new position must be between 1 and 9,996.',
    );
    const ids = Array.from({ length: 1_001 }, (_, i) => `service:track:${String(i).padStart(22, 'A')}`);
    expect(await refusal(prepareReplacement(deps, 'alice', big, ids.join(' ')))).toMatch(
      /^A replacement takes at most 100 items, so that it happens all at once; you gave 1,001\. /,
    );
  });

  it('says the playlist got shorter meanwhile when the position is past its end by the time the items go in', async () => {
    const uris = trackUris(world.emulator, 6);
    const id = world.emulator.createPlaylist('alice', { name: 'Shrinking', uris });
    const real = world.music.playlists;
    const shrinking = Object.assign(Object.create(real) as MusicClient['playlists'], {
      // While the bot is on its way, the member removes the last three items in the app.
      addItems: async (...args: Parameters<MusicClient['playlists']['addItems']>) => {
        const snapshot = world.emulator.playlist(id)?.snapshotId ?? '';
        await real.removeItems('alice', id, uris.slice(3), snapshot);
        return real.addItems(...args);
      },
    });
    const client = Object.assign(Object.create(world.music) as MusicClient, { playlists: shrinking });
    const track = trackUris(world.emulator, 1, 300)[0]!;
    expect(await refusal(addToPlaylist({ ...deps, client }, 'alice', id, track, 7))).toBe(
      '“Shrinking” has fewer items than a moment ago (it changed meanwhile), so that position is past ' +
        'its end: nothing was changed. Look at it again (`/music playlist view`) and choose the position from there.',
    );
    expect(world.emulator.playlist(id)?.length).toBe(3);
    // The service has been seen answering this with a 403, which is no "not yours".
    world.emulator.failNext(`/v1/playlists/${id}/tracks`, 403, { message: 'Index out of bounds' });
    expect(await refusal(addToPlaylist(deps, 'alice', id, track, 4))).toMatch(/^“Shrinking” has fewer items/);
    expect(world.emulator.playlist(id)?.length).toBe(3);
  });

  it('says one item is already there in the singular', async () => {
    const id = world.emulator.createPlaylist('alice', { name: 'Short', uris: trackUris(world.emulator, 3) });
    expect(await refusal(movePlaylistItems(deps, 'alice', id, 2, 2))).toBe('That item is already there.');
    expect(await refusal(movePlaylistItems(deps, 'alice', id, 1, 1, 2))).toBe(
      'Those items are already there.',
    );
  });

  it('says which one item went in, and which one was refused, when an addition fails part-way', async () => {
    const start = trackUris(world.emulator, 5);
    const id = world.emulator.createPlaylist('alice', { name: 'Five', uris: start });
    // As if each request took one item: the first went in, the service refused the second.
    const unknown = new HttpError(
      'music',
      'POST',
      `https://api.music.example/v1/playlists/${id}/tracks`,
      400,
      'Bad Request',
      { error: { status: 400, message: 'Payload contains a non-existing ID' } },
      'Payload contains a non-existing ID',
      {},
    );
    const client = {
      ...world.music,
      playlists: {
        ...world.music.playlists,
        addItems: () => Promise.reject(new IncompleteChangeError(1, 2, unknown)),
      },
    };
    const message = await refusal(
      addToPlaylist({ ...deps, client }, 'alice', id, trackUris(world.emulator, 2, 10).join(' ')),
    );
    expect(message).toMatch(
      /^Only the first of your 2 items was added, at position 6\. The music service refused item 2, as it is not a track or episode it knows\. .* Then add item 2 again\.$/,
    );
  });

  it('says the rest of a long addition did not go in when the service refused it part-way, and where they belong', async () => {
    const id = world.emulator.createPlaylist('alice', {
      name: 'Refused half',
      uris: trackUris(world.emulator, 20),
    });
    // The second request refused (an hour's rate limit): nothing of it went in.
    const refusing = Object.assign(Object.create(world.music.playlists) as MusicClient['playlists'], {
      addItems: () =>
        Promise.reject(
          new IncompleteChangeError(
            100,
            150,
            new RateLimitError('music', 'POST', `https://music.example/v1/playlists/${id}/tracks`, 3_600_000),
          ),
        ),
    });
    const client = Object.assign(Object.create(world.music) as MusicClient, { playlists: refusing });
    const error = await addToPlaylist(
      { ...deps, client },
      'alice',
      id,
      trackUris(world.emulator, 150, 300).join(' '),
      5,
    ).catch((caught: unknown) => caught);
    expect((error as IncompleteChangeError).userMessage).toBe(
      'Only the first 100 of your 150 items were added, at positions 5–104: the music service then failed, ' +
        'so items 101–150 were not. Add them again later at position 105, to keep your order.',
    );
  });
});
