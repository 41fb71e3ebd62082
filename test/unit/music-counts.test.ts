/**
 * What a member reads where a music answer counts or lists things: one thing in the singular, long
 * numbers with separators, lists joined with "and", and "an" before a vowel.
 */
import Keyv from 'keyv';
import { describe, expect, it } from 'vitest';
import type { MusicDeps } from '../../src/domain/music/deps.js';
import { saveAlbumsToLibrary } from '../../src/domain/music/library.js';
import { pausePlayback } from '../../src/domain/music/player.js';
import { requireAllValid } from '../../src/domain/music/refs.js';
import { HttpError } from '../../src/services/http/errors.js';
import {
  IncompleteChangeError,
  InvalidMusicRefError,
  type Device,
  type MusicClient,
} from '../../src/services/music/index.js';

const ALBUM_A = '4aawyAB9vmqN3uQ7FjRGTy';
const ALBUM_B = '1DFixLWuPkv3KT3TnV35m3';

/** The service's 400 for an id it does not know, as the transport gives it. */
const unknownId = (id: string) =>
  new HttpError(
    'music',
    'PUT',
    'https://api.music.example/v1/me/albums',
    400,
    'Bad Request',
    { error: { status: 400, message: `Non existing id: '${id}'` } },
    `Non existing id: '${id}'`,
    {},
  );

/** Deps whose client has only what a test sets: anything else it is asked for fails. */
const depsWith = (client: Record<string, unknown>): MusicDeps => ({
  client: client as unknown as MusicClient,
  cache: new Keyv(),
  recent: new Keyv(),
});

describe('a change that went through in part', () => {
  it('says "the first" and "the last one" for one album each way', () => {
    const error = new IncompleteChangeError(1, 2, new Error('503'), 'albums-save');
    expect(error.userMessage).toBe(
      'Only the first of the 2 albums was saved: the music service then failed, so the last one was not. ' +
        'Save it again later.',
    );
  });

  it('writes long counts with separators', () => {
    const error = new IncompleteChangeError(1_200, 1_500, new Error('503'), 'playlist-add');
    expect(error.userMessage).toBe(
      'Only the first 1,200 of the 1,500 items were added: the music service then failed, so the other 300 ' +
        'were not. Add those again later.',
    );
  });

  it('says so in the singular when the service refuses the last album of a list', async () => {
    const deps = depsWith({
      albums: { get: () => Promise.reject(new Error('not asked here')) },
      library: {
        saveAlbums: () => Promise.reject(new IncompleteChangeError(1, 2, unknownId(ALBUM_B), 'albums-save')),
      },
    });
    await expect(saveAlbumsToLibrary(deps, 'alice', `${ALBUM_A} ${ALBUM_B}`)).rejects.toThrow(
      'Only the first of your 2 albums was saved. The music service did not accept the last one ' +
        `(Non existing id: '${ALBUM_B}'), so it was not saved: check it, then save it again.`,
    );
  });
});

describe('inputs that are not links, URIs or ids', () => {
  it('speaks of one in the singular, with its article', () => {
    expect(() => requireAllValid(['abba'], 'album')).toThrow('This is not an album link, URI or id: `abba`.');
    expect(() => requireAllValid(['x'], 'track or episode')).toThrow(
      'This is not a track or episode link, URI or id: `x`.',
    );
  });

  it('joins a few with "and", and counts the rest', () => {
    expect(() => requireAllValid(['a', 'b'], 'album')).toThrow(
      'These are not album links, URIs or ids: `a` and `b`.',
    );
    expect(() => requireAllValid(['a', 'b', 'c', 'd', 'e'], 'artist')).toThrow(
      'These are not artist links, URIs or ids: `a`, `b`, `c`, and 2 more.',
    );
  });

  it('puts "an" before album and artist', () => {
    expect(new InvalidMusicRefError('album', 'x').userMessage).toBe('That is not an album link or id.');
    expect(new InvalidMusicRefError('artist', 'x').userMessage).toBe('That is not an artist link or id.');
    expect(new InvalidMusicRefError('playlist', 'x').userMessage).toBe('That is not a playlist link or id.');
  });
});

describe('the devices named with an unknown one', () => {
  const device = (i: number): Device => ({
    id: `device-${i}`,
    is_active: false,
    is_private_session: false,
    is_restricted: false,
    name: `Speaker ${i}`,
    type: 'Speaker',
    volume_percent: 50,
    supports_volume: true,
  });

  it('names ten, joined with "and", and counts the rest', async () => {
    const devices = Array.from({ length: 13 }, (_, i) => device(i + 1));
    const deps = depsWith({ player: { devices: () => Promise.resolve(devices) } });
    const named = Array.from({ length: 10 }, (_, i) => `“Speaker ${i + 1}”`).join(', ');
    await expect(pausePlayback(deps, 'alice', 'Attic')).rejects.toThrow(
      `You have no device called “Attic”. Your devices: ${named}, and 3 more.`,
    );
  });

  it('joins two with "and" alone', async () => {
    const deps = depsWith({ player: { devices: () => Promise.resolve([device(1), device(2)]) } });
    await expect(pausePlayback(deps, 'alice', 'Attic')).rejects.toThrow(
      'You have no device called “Attic”. Your devices: “Speaker 1” and “Speaker 2”.',
    );
  });
});
