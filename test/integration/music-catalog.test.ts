import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EndpointUnavailableError,
  InvalidMusicRefError,
  NotFoundError,
  type SimplifiedTrack,
} from '../../src/services/music/index.js';
import { createMusicWorld, type MusicWorld } from '../fixtures/music.js';

const UNKNOWN_ARTIST = '0000000000000000000000';

describe('catalog (classic API)', () => {
  let world: MusicWorld;
  let fixtures: NonNullable<MusicWorld['emulator']['fixtures']>;

  beforeAll(async () => {
    world = await createMusicWorld({ variant: 'classic' });
    fixtures = world.emulator.fixtures ?? expect.fail('seeded');
  });
  afterAll(() => world.close());

  it('gets an album with its first page of tracks, playable in the default market', async () => {
    const album = await world.music.albums.get(fixtures.catalog.longAlbumId);
    expect(album).toMatchObject({ name: 'Complete Sessions', total_tracks: 120, album_type: 'album' });
    expect(album.tracks.items).toHaveLength(50);
    expect(album.tracks.items.every((track) => track.is_playable === true)).toBe(true);
    expect(album.restrictions).toBeUndefined();
  });

  it('follows an album’s tracks past 50 through next', async () => {
    const album = await world.music.albums.get(fixtures.catalog.longAlbumId);
    const tracks: SimplifiedTrack[] = [];
    for await (const track of world.music.paging.iterate(album.tracks)) tracks.push(track);
    expect(tracks).toHaveLength(120);
    expect(tracks.at(-1)).toMatchObject({ disc_number: 2, track_number: 60 });
  });

  it('reads one page of an album’s tracks by offset', async () => {
    const page = await world.music.albums.tracks(fixtures.catalog.liveAlbumId, { offset: 50, limit: 50 });
    expect(page.items).toHaveLength(14);
    expect(page.total).toBe(64);
    expect(page.next).toBeNull();
  });

  it('marks an album restricted outside its market, and available inside it', async () => {
    const outside = await world.music.albums.get(fixtures.catalog.restrictedAlbumId);
    expect(outside.restrictions?.reason).toBe('market');
    expect(outside.tracks.items.every((track) => track.is_playable === false)).toBe(true);
    const inside = await world.music.albums.get(fixtures.catalog.restrictedAlbumId, { market: 'JP' });
    expect(inside.restrictions).toBeUndefined();
  });

  it('gets 120 artists in 3 requests, in order, with null for unknown ids', async () => {
    const ids = fixtures.artistIds.slice(0, 120);
    ids[7] = UNKNOWN_ARTIST;
    world.emulator.resetCounters();
    const artists = await world.music.artists.several(ids);
    expect(world.emulator.requestCount({ path: '/v1/artists' })).toBe(3);
    expect(artists).toHaveLength(120);
    expect(artists[7]).toBeNull();
    expect(artists.map((artist, i) => (i === 7 ? null : artist?.id))).toEqual(
      ids.map((id, i) => (i === 7 ? null : id)),
    );
    const sizes = world.emulator
      .requests({ path: '/v1/artists' })
      .map((r) => new URLSearchParams(r.search).get('ids')?.split(',').length);
    expect(sizes).toEqual([50, 50, 20]);
  });

  it('keeps unreadable references in place as null without asking the service', async () => {
    world.emulator.resetCounters();
    const artists = await world.music.artists.several(['not an artist', fixtures.artistIds[0] ?? '']);
    expect(artists[0]).toBeNull();
    expect(artists[1]?.id).toBe(fixtures.artistIds[0]);
    expect(world.emulator.requestCount({ path: '/v1/artists' })).toBe(1);
  });

  it('gets one artist from a share link', async () => {
    const artist = await world.music.artists.get(
      `https://open.service.example/intl-de/artist/${fixtures.catalog.artistId}?si=x`,
    );
    expect(artist.id).toBe(fixtures.catalog.artistId);
    expect(artist.popularity).toBeTypeOf('number');
  });

  it('gets an artist’s top tracks in a market', async () => {
    const tracks = await world.music.artists.topTracks(fixtures.catalog.artistId, { market: 'SE' });
    expect(tracks.length).toBeGreaterThan(0);
    expect(tracks.length).toBeLessThanOrEqual(10);
    expect(tracks.every((track) => track.artists.some((a) => a.id === fixtures.catalog.artistId))).toBe(true);
  });

  it('answers NotFoundError for an unknown album and InvalidMusicRefError for junk', async () => {
    await expect(world.music.albums.get('0000000000000000000000')).rejects.toBeInstanceOf(NotFoundError);
    await expect(world.music.albums.get('https://example.com/nope')).rejects.toBeInstanceOf(
      InvalidMusicRefError,
    );
  });
});

describe('catalog (2026 API)', () => {
  let world: MusicWorld;
  let fixtures: NonNullable<MusicWorld['emulator']['fixtures']>;

  beforeAll(async () => {
    world = await createMusicWorld({ variant: '2026' });
    fixtures = world.emulator.fixtures ?? expect.fail('seeded');
  });
  afterAll(() => world.close());

  it('falls back to one request per artist, in order, null for unknown ids', async () => {
    const ids = [...fixtures.artistIds.slice(0, 6), UNKNOWN_ARTIST];
    world.emulator.resetCounters();
    const artists = await world.music.artists.several(ids);
    expect(world.emulator.requestCount({ path: '/v1/artists' })).toBe(0);
    expect(world.emulator.requestCount({ path: /^\/v1\/artists\/[^/]+$/ })).toBe(7);
    expect(artists.map((a) => a?.id ?? null)).toEqual([...ids.slice(0, 6), null]);
    // Fields removed for development-mode apps are simply absent.
    expect(artists[0]?.popularity).toBeUndefined();
  });

  it('says top tracks are not available for this app, without a request', async () => {
    world.emulator.resetCounters();
    await expect(
      world.music.artists.topTracks(fixtures.catalog.artistId, { market: 'US' }),
    ).rejects.toBeInstanceOf(EndpointUnavailableError);
    expect(world.emulator.requestCount({ path: /^\/v1\// })).toBe(0);
  });

  it('gets an album without the removed fields', async () => {
    const album = await world.music.albums.get(fixtures.catalog.longAlbumId);
    expect(album.label).toBeUndefined();
    expect(album.tracks.total).toBe(120);
  });
});
