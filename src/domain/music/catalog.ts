/** Albums and artists, looked up by link, URI or id, in the member's market. */
import { z } from 'zod';
import {
  DEFAULT_MUSIC_OPTIONS,
  isFeatureUnavailable,
  type Album,
  type Artist,
  type SimplifiedTrack,
  type Track,
} from '../../services/music/index.js';
import { cached } from './cache.js';
import type { MusicDeps } from './deps.js';
import { parseRefList, requireAllValid, requireRef } from './refs.js';
import { rememberRecent } from './recent.js';
import { MusicInputError } from './errors.js';

/** Tracks of an album fetched at most (20 pages of 50); longer albums show this many. */
export const MAX_ALBUM_TRACKS = 1_000;
/** How long an album's summary is reused: page turns and the save button cost no request then. */
export const ALBUM_CACHE_TTL_MS = 60 * 60_000;

const trackLineSchema = z.object({
  name: z.string(),
  artists: z.array(z.string()),
  durationMs: z.number(),
  trackNumber: z.number(),
  discNumber: z.number(),
  explicit: z.boolean(),
  /** False when the track cannot be played in the market. */
  playable: z.boolean(),
});

const albumSummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  albumType: z.string(),
  url: z.string().optional(),
  image: z.string().optional(),
  artists: z.array(z.object({ id: z.string(), name: z.string() })),
  /** Absent when the service did not say (old answers). */
  releaseDate: z.string().optional(),
  releaseDatePrecision: z.string().optional(),
  label: z.string().optional(),
  totalTracks: z.number(),
  /** Why the album is not available in the market (`market`, `product`, `explicit` or newer). */
  restriction: z.string().optional(),
  /** Listed by the service only when no market applied. */
  availableMarkets: z.array(z.string()).optional(),
  market: z.string().optional(),
  copyright: z.string().optional(),
  /** The tracks fetched, in order: all of them up to `MAX_ALBUM_TRACKS`. */
  tracks: z.array(trackLineSchema),
});

export type TrackLine = z.output<typeof trackLineSchema>;
export type AlbumSummary = z.output<typeof albumSummarySchema>;

export function summarizeAlbum(
  album: Album,
  tracks: readonly SimplifiedTrack[],
  market: string | undefined,
): AlbumSummary {
  const summary: AlbumSummary = {
    id: album.id,
    name: album.name,
    albumType: album.album_type,
    artists: album.artists.map((artist) => ({ id: artist.id, name: artist.name })),
    // The paging object counts the album's tracks too, where `total_tracks` is missing.
    totalTracks: album.total_tracks ?? album.tracks.total,
    tracks: tracks.map((track) => ({
      name: track.name,
      artists: track.artists.map((artist) => artist.name),
      durationMs: track.duration_ms,
      trackNumber: track.track_number,
      discNumber: track.disc_number,
      explicit: track.explicit,
      playable: track.is_playable !== false && track.restrictions === undefined,
    })),
  };
  const url = album.external_urls?.service;
  if (url !== undefined) summary.url = url;
  const image = album.images[0]?.url;
  if (image !== undefined) summary.image = image;
  if (album.release_date !== undefined) summary.releaseDate = album.release_date;
  if (album.release_date_precision !== undefined) summary.releaseDatePrecision = album.release_date_precision;
  if (album.label !== undefined) summary.label = album.label;
  if (album.restrictions !== undefined) summary.restriction = album.restrictions.reason;
  if (album.available_markets !== undefined) summary.availableMarkets = album.available_markets;
  if (market !== undefined) summary.market = market;
  const copyright = album.copyrights.find((c) => c.type === 'C') ?? album.copyrights[0];
  if (copyright !== undefined) summary.copyright = copyright.text;
  return summary;
}

/** An album with its tracks (from the cache when it was looked at in the last hour). */
export function getAlbumSummary(
  deps: MusicDeps,
  album: string,
  market: string | undefined,
): Promise<AlbumSummary> {
  const id = requireRef(album, 'album');
  // Without the member's country (development-mode apps are not told it since 2026) the album is
  // asked for in the default market: named as such, not as "your market".
  const where = market ?? DEFAULT_MUSIC_OPTIONS.defaultMarket;
  return cached(deps.cache, `album:${id}:${where}`, ALBUM_CACHE_TTL_MS, albumSummarySchema, async () => {
    const full = await deps.client.albums.get(id, { market: where });
    const tracks: SimplifiedTrack[] = [];
    for await (const track of deps.client.paging.iterate(full.tracks, { max: MAX_ALBUM_TRACKS }))
      tracks.push(track);
    return summarizeAlbum(full, tracks, where);
  });
}

/** `/music album`: the album, remembered as one of the member's recent albums. */
export async function viewAlbum(
  deps: MusicDeps,
  userId: string,
  album: string,
  market: string | undefined,
): Promise<AlbumSummary> {
  const summary = await getAlbumSummary(deps, album, market);
  await rememberRecent(deps.recent, userId, 'albums', [
    { id: summary.id, name: summary.name, detail: summary.artists.map((a) => a.name).join(', ') },
  ]);
  return summary;
}

export interface ArtistView {
  artist: Artist;
  /** `undefined` when the service does not offer top tracks to this app. */
  topTracks: Track[] | undefined;
  market: string;
}

/** `/music artist`: the artist and their top tracks in the member's market. */
export async function viewArtist(
  deps: MusicDeps,
  userId: string,
  artist: string,
  market: string | undefined,
): Promise<ArtistView> {
  const id = requireRef(artist, 'artist');
  const where = market ?? DEFAULT_MUSIC_OPTIONS.defaultMarket;
  const [found, topTracks] = await Promise.all([
    deps.client.artists.get(id),
    deps.client.artists.topTracks(id, { market: where }).catch((error: unknown) => {
      if (isFeatureUnavailable(error)) return undefined;
      throw error;
    }),
  ]);
  await rememberRecent(deps.recent, userId, 'artists', [
    { id: found.id, name: found.name, detail: found.genres.slice(0, 2).join(', ') },
  ]);
  return { artist: found, topTracks, market: where };
}

export interface ArtistsView {
  found: Artist[];
  /** Ids the service does not know. */
  missing: string[];
}

/** `/music artists`: several artists at once, in batches of 50. */
export async function viewArtists(deps: MusicDeps, userId: string, artists: string): Promise<ArtistsView> {
  const { ids, invalid } = parseRefList(artists, 'artist');
  requireAllValid(invalid, 'artist');
  if (ids.length === 0) throw new MusicInputError('Give at least one artist link, URI or id.');
  const results = await deps.client.artists.several(ids);
  const found = results.filter((artist): artist is Artist => artist !== null);
  const missing = ids.filter((_, index) => results[index] === null);
  await rememberRecent(
    deps.recent,
    userId,
    'artists',
    found.map((artist) => ({
      id: artist.id,
      name: artist.name,
      detail: artist.genres.slice(0, 2).join(', '),
    })),
  );
  return { found, missing };
}
