import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { renderAlbum } from '../../src/bot/render/music-catalog.js';
import { summarizeAlbum } from '../../src/domain/music/catalog.js';
import { createMusicClient, type MusicClient, type SimplifiedTrack } from '../../src/services/music/index.js';
import { recordingSleep } from '../fixtures/music.js';

const API = 'https://api.music.test';
const ACCOUNTS = 'https://accounts.music.test';
const ALBUM = '4aawyAB9vmqN3uQ7FjRGTy';
const JSON_HEADERS = { headers: { 'content-type': 'application/json' } };

const artist = (id: string) => ({
  id,
  name: `Artist ${id}`,
  type: 'artist',
  uri: `service:artist:${id}`,
  href: `${API}/v1/artists/${id}`,
  genres: [],
  images: [],
});
const track = (n: number, extra: Record<string, unknown> = {}) => ({
  artists: [artist('a')],
  disc_number: 1,
  duration_ms: 60_000,
  explicit: false,
  id: `track${n}`,
  name: `Song ${n}`,
  track_number: n,
  type: 'track',
  uri: `service:track:track${n}`,
  is_local: false,
  ...extra,
});
const tracksUrl = (offset: number) => `${API}/v1/albums/${ALBUM}/tracks?offset=${offset}&limit=3&market=US`;
const tracksPage = (items: unknown[], offset: number, next: string | null) => ({
  href: tracksUrl(offset),
  items,
  limit: 3,
  offset,
  total: 6,
  next,
  previous: null,
});

describe('one unreadable item does not hide the rest of its list', () => {
  let agent: MockAgent;
  let music: MusicClient;

  beforeEach(() => {
    agent = new MockAgent();
    agent.disableNetConnect();
    music = createMusicClient({
      apiUrl: API,
      authUrl: ACCOUNTS,
      clientId: 'client-id',
      clientSecret: 'client-secret-abcdef',
      variant: 'classic',
      getAccessToken: () => Promise.resolve(''),
      transport: { dispatcher: agent, sleep: recordingSleep().sleep, retries: 0 },
      now: () => 1_000_000,
    });
    agent
      .get(ACCOUNTS)
      .intercept({ path: '/api/token', method: 'POST' })
      .reply(
        200,
        { access_token: 'app-token-0123456789', token_type: 'Bearer', expires_in: 3600 },
        JSON_HEADERS,
      );
  });
  afterEach(async () => {
    agent.assertNoPendingInterceptors();
    await agent.close();
  });

  it('shows an album’s other tracks past a null, a local and an unreadable one, on every page', async () => {
    agent
      .get(API)
      .intercept({ path: `/v1/albums/${ALBUM}?market=US`, method: 'GET' })
      .reply(
        200,
        {
          album_type: 'album',
          total_tracks: 6,
          href: `${API}/v1/albums/${ALBUM}`,
          id: ALBUM,
          images: [],
          name: 'Mixed Bag',
          release_date: '2001',
          release_date_precision: 'year',
          type: 'album',
          uri: `service:album:${ALBUM}`,
          artists: [artist('a')],
          tracks: tracksPage(
            [track(1), null, track(3, { id: null, uri: null, is_local: true })],
            0,
            tracksUrl(3),
          ),
        },
        JSON_HEADERS,
      );
    agent
      .get(API)
      .intercept({ path: `/v1/albums/${ALBUM}/tracks?offset=3&limit=3&market=US`, method: 'GET' })
      .reply(200, tracksPage([track(4), { id: 'track5', name: 5 }, track(6)], 3, null), JSON_HEADERS);

    const album = await music.albums.get(ALBUM);
    const tracks: SimplifiedTrack[] = [];
    for await (const item of music.paging.iterate(album.tracks)) tracks.push(item);
    expect(tracks.map((t) => t.name)).toEqual(['Song 1', 'Song 4', 'Song 6']);

    const embed = renderAlbum(summarizeAlbum(album, tracks, 'US'), { ownerId: '1' }).embeds[0];
    // Each keeps its number on the album: the one left out does not shift those after it.
    const lines = (embed?.description ?? '').split('\n').filter((line) => line.startsWith('`'));
    expect(lines.map((line) => line.split(' · ')[0])).toEqual(['`1.` Song 1', '`4.` Song 4', '`6.` Song 6']);
    expect(embed?.fields?.find((field) => field.name === 'Tracks')?.value).toBe('6');
    expect(embed?.footer?.text).toMatch(/^Tracks 1–3 of 6 · /);
  });

  it('gets the other artists of a batch when one of them cannot be read', async () => {
    const [a, b, c, d] = ['A', 'B', 'C', 'D'].map((letter) => letter.repeat(22)) as [
      string,
      string,
      string,
      string,
    ];
    agent
      .get(API)
      .intercept({ path: `/v1/artists?ids=${[a, b, c, d].join('%2C')}`, method: 'GET' })
      .reply(200, { artists: [artist(a), { id: b, name: null }, null, artist(d)] }, JSON_HEADERS);
    const artists = await music.artists.several([a, b, c, d]);
    expect(artists.map((found) => found?.id ?? null)).toEqual([a, null, null, d]);
  });
});
