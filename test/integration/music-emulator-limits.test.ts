import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMusicEmulator, type MusicEmulator } from '../../emulators/music/index.js';
import { BOT_SCOPES } from '../fixtures/music.js';

interface Case {
  name: string;
  method: string;
  path: (f: Fixtures) => string;
  body?: (f: Fixtures) => unknown;
  message: string | RegExp;
  variant?: 'classic' | '2026';
}

interface Fixtures {
  artists: string[];
  albums: string[];
  tracks: string[];
  playlist: string;
  snapshot: string;
}

const ids = (list: string[], n: number) => list.slice(0, n).join(',');
const uris = (f: Fixtures, n: number) => f.tracks.slice(0, n).map((id) => `service:track:${id}`);

const CASES: Case[] = [
  {
    name: 'more than 50 ids on GET /v1/artists',
    method: 'GET',
    path: (f) => `/v1/artists?ids=${ids(f.artists, 51)}`,
    message: 'too many ids requested',
  },
  {
    name: 'a malformed percent-escape in an album id',
    method: 'GET',
    path: () => '/v1/albums/%E0%A4%A',
    message: 'Invalid base62 id',
  },
  {
    // The id in the path is checked before the parameters, on this route as on the others.
    name: 'a malformed album id with a limit over 50 on its tracks',
    method: 'GET',
    path: () => '/v1/albums/bad!/tracks?limit=500',
    message: 'Invalid base62 id',
  },
  {
    name: 'a malformed percent-escape in a playlist id',
    method: 'POST',
    path: () => '/v1/playlists/%ZZ/tracks',
    body: (f) => ({ uris: uris(f, 1) }),
    message: 'Invalid base62 id',
  },
  {
    name: 'a malformed artist id',
    method: 'GET',
    path: () => '/v1/artists?ids=not-an-id',
    message: 'Invalid base62 id',
  },
  {
    name: 'more than 20 query ids on PUT /v1/me/albums',
    method: 'PUT',
    path: (f) => `/v1/me/albums?ids=${ids(f.albums, 21)}`,
    message: 'too many ids requested',
  },
  {
    name: 'more than 20 query ids on DELETE /v1/me/albums',
    method: 'DELETE',
    path: (f) => `/v1/me/albums?ids=${ids(f.albums, 21)}`,
    message: 'too many ids requested',
  },
  {
    name: 'more than 50 body ids on PUT /v1/me/albums',
    method: 'PUT',
    path: () => '/v1/me/albums',
    body: (f) => ({ ids: f.albums.slice(0, 51) }),
    message: 'too many ids requested',
  },
  {
    name: 'more than 50 body ids on DELETE /v1/me/albums',
    method: 'DELETE',
    path: () => '/v1/me/albums',
    body: (f) => ({ ids: f.albums.slice(0, 51) }),
    message: 'too many ids requested',
  },
  {
    name: 'more than 40 uris on PUT /v1/me/library',
    method: 'PUT',
    path: (f) =>
      `/v1/me/library?uris=${f.albums
        .slice(0, 41)
        .map((id) => `service:album:${id}`)
        .join(',')}`,
    message: /at most 40/,
  },
  {
    name: 'a malformed uri on PUT /v1/me/library',
    method: 'PUT',
    path: () => '/v1/me/library?uris=album:nope',
    message: /Invalid uri/,
  },
  {
    name: 'no uris on DELETE /v1/me/library',
    method: 'DELETE',
    path: () => '/v1/me/library',
    message: /uris/,
  },
  {
    name: 'more than 100 uris in the body of POST …/tracks',
    method: 'POST',
    path: (f) => `/v1/playlists/${f.playlist}/tracks`,
    body: (f) => ({ uris: uris(f, 101) }),
    message: 'You can add a maximum of 100 tracks per request.',
  },
  {
    name: 'more than 100 uris in the query of POST …/tracks',
    method: 'POST',
    path: (f) => `/v1/playlists/${f.playlist}/tracks?uris=${uris(f, 101).join(',')}`,
    message: 'You can add a maximum of 100 tracks per request.',
  },
  {
    name: 'more than 100 uris on PUT …/tracks',
    method: 'PUT',
    path: (f) => `/v1/playlists/${f.playlist}/tracks`,
    body: (f) => ({ uris: uris(f, 101) }),
    message: /maximum of 100/,
  },
  {
    name: 'more than 100 tracks on DELETE …/tracks',
    method: 'DELETE',
    path: (f) => `/v1/playlists/${f.playlist}/tracks`,
    body: (f) => ({ tracks: uris(f, 101).map((uri) => ({ uri })), snapshot_id: f.snapshot }),
    message: 'You can remove a maximum of 100 tracks per request.',
  },
  {
    name: 'DELETE …/tracks without snapshot_id',
    method: 'DELETE',
    path: (f) => `/v1/playlists/${f.playlist}/tracks`,
    body: (f) => ({ tracks: uris(f, 1).map((uri) => ({ uri })) }),
    message: /snapshot_id/,
  },
  {
    name: 'DELETE …/tracks with an unknown snapshot_id',
    method: 'DELETE',
    path: (f) => `/v1/playlists/${f.playlist}/tracks`,
    body: (f) => ({ tracks: uris(f, 1).map((uri) => ({ uri })), snapshot_id: 'bm9wZQ==' }),
    message: /snapshot/,
  },
  {
    name: 'more than 100 items on POST …/items',
    method: 'POST',
    path: (f) => `/v1/playlists/${f.playlist}/items`,
    body: (f) => ({ uris: uris(f, 101) }),
    message: /maximum of 100/,
  },
  {
    name: 'more than 100 items on DELETE …/items',
    method: 'DELETE',
    path: (f) => `/v1/playlists/${f.playlist}/items`,
    body: (f) => ({ items: uris(f, 101).map((uri) => ({ uri })), snapshot_id: f.snapshot }),
    message: /maximum of 100/,
  },
  {
    name: 'a position past the end on POST …/tracks',
    method: 'POST',
    path: (f) => `/v1/playlists/${f.playlist}/tracks`,
    body: (f) => ({ uris: uris(f, 1), position: 9_999 }),
    message: 'Index out of bounds',
  },
  {
    name: 'a malformed track uri',
    method: 'POST',
    path: (f) => `/v1/playlists/${f.playlist}/tracks`,
    body: () => ({ uris: ['spotify:track:x'] }),
    message: /Invalid track uri/,
  },
  {
    name: 'a reorder range past the end',
    method: 'PUT',
    path: (f) => `/v1/playlists/${f.playlist}/tracks`,
    body: () => ({ range_start: 3, range_length: 5, insert_before: 0 }),
    message: 'Index out of bounds',
  },
  {
    name: 'limit above 50 on album tracks',
    method: 'GET',
    path: (f) => `/v1/albums/${f.albums[0] ?? ''}/tracks?limit=51`,
    message: 'Invalid limit',
  },
  {
    name: 'limit 0 on album tracks',
    method: 'GET',
    path: (f) => `/v1/albums/${f.albums[0] ?? ''}/tracks?limit=0`,
    message: 'Invalid limit',
  },
  {
    name: 'a negative offset on album tracks',
    method: 'GET',
    path: (f) => `/v1/albums/${f.albums[0] ?? ''}/tracks?offset=-1`,
    message: 'Invalid offset',
  },
  {
    name: 'limit above 50 on /v1/me/playlists',
    method: 'GET',
    path: () => '/v1/me/playlists?limit=51',
    message: 'Invalid limit',
  },
  {
    name: 'offset above 100,000 on /v1/me/playlists',
    method: 'GET',
    path: () => '/v1/me/playlists?offset=100001',
    message: 'Invalid offset',
  },
  {
    name: 'limit above 100 on playlist items',
    method: 'GET',
    path: (f) => `/v1/playlists/${f.playlist}/tracks?limit=101`,
    message: 'Invalid limit',
  },
  {
    name: 'a malformed market',
    method: 'GET',
    path: (f) => `/v1/albums/${f.albums[0] ?? ''}?market=usa`,
    message: 'Invalid market code',
  },
  {
    name: 'a body that is not JSON',
    method: 'POST',
    path: (f) => `/v1/playlists/${f.playlist}/tracks`,
    body: () => '{"uris": [',
    message: 'Error parsing JSON.',
  },
  {
    name: 'a bare array of album ids, where the body is an object with ids',
    method: 'PUT',
    path: () => '/v1/me/albums',
    body: (f) => JSON.stringify([f.albums[0]]),
    message: 'Missing required field: ids',
  },
];

describe('music emulator: every limit answers 400 with the error body', () => {
  let emulator: MusicEmulator;
  let token: string;
  let fixtures: Fixtures;

  beforeAll(async () => {
    emulator = await startMusicEmulator();
    token = emulator.issueUserToken('alice', BOT_SCOPES).access_token;
    const seeded = emulator.fixtures ?? expect.fail('seeded');
    const playlist = emulator.createPlaylist('alice', {
      name: 'Limits',
      uris: seeded.trackIds.slice(0, 5).map((id) => `service:track:${id}`),
    });
    fixtures = {
      artists: seeded.artistIds,
      albums: seeded.albumIds,
      tracks: seeded.trackIds,
      playlist,
      snapshot: emulator.playlist(playlist)?.snapshotId ?? '',
    };
  });
  afterAll(() => emulator.close());

  it.each(CASES)('$name', async ({ method, path, body, message }) => {
    const payload = body?.(fixtures);
    const response = await fetch(`${emulator.apiUrl}${path(fixtures)}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(payload === undefined
        ? {}
        : { body: typeof payload === 'string' ? payload : JSON.stringify(payload) }),
    });
    const json = (await response.json()) as { error: { status: number; message: string } };
    expect(response.status).toBe(400);
    expect(json.error.status).toBe(400);
    expect(json.error.message).toMatch(
      typeof message === 'string' ? new RegExp(`^${escape(message)}$`) : message,
    );
    // Nothing changed.
    expect(emulator.playlist(fixtures.playlist)?.snapshotId).toBe(fixtures.snapshot);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
