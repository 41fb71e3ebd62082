/**
 * Turns records into the service's JSON. Applies the market rule (a market, or the user's country,
 * decides `is_playable` and `restrictions`; with neither, content is treated as unavailable) and the
 * 2026 field removals for development-mode apps.
 */
import type { AlbumRecord, ArtistRecord, Catalog, EpisodeRecord, TrackRecord } from './catalog.js';
import { OPEN_HOST, URI_SCHEME, type Entry, type PlaylistRecord, type UserRecord } from './state.js';

export type Variant = 'classic' | '2026';

export interface RenderContext {
  apiUrl: string;
  variant: Variant;
  /** The effective market: the user's country, else the `market` parameter, else none. */
  market: string | undefined;
  /** The caller's account filters explicit content. */
  explicitFilter?: boolean;
  /**
   * The request named `episode` in `additional_types`: episodes in playlists come as episode
   * objects. Without it they come in the track format (`episodeAsTrack`), as the service keeps
   * them for clients that know only tracks.
   */
  fullEpisodes?: boolean;
  catalog: Catalog;
  users: Map<string, UserRecord>;
}

type Json = Record<string, unknown>;

function imagesFor(id: string, sizes: readonly number[] = [640, 300, 64]): Json[] {
  return sizes.map((size) => ({
    url: `https://images.service.example/${id.slice(0, 12)}/${size}`,
    height: size,
    width: size,
  }));
}

export function artistRef(ctx: RenderContext, artist: ArtistRecord): Json {
  return {
    external_urls: { service: `${OPEN_HOST}/artist/${artist.id}` },
    href: `${ctx.apiUrl}/v1/artists/${artist.id}`,
    id: artist.id,
    name: artist.name,
    type: 'artist',
    uri: `${URI_SCHEME}:artist:${artist.id}`,
  };
}

export function artistFull(ctx: RenderContext, artist: ArtistRecord): Json {
  const out: Json = { ...artistRef(ctx, artist), genres: artist.genres, images: imagesFor(artist.id) };
  if (ctx.variant === 'classic') {
    out['followers'] = { href: null, total: artist.followers };
    out['popularity'] = artist.popularity;
  }
  return out;
}

function artistsOf(ctx: RenderContext, ids: readonly string[]): Json[] {
  return ids.flatMap((id) => {
    const artist = ctx.catalog.artists.get(id);
    return artist === undefined ? [] : [artistRef(ctx, artist)];
  });
}

function availableIn(ctx: RenderContext, album: AlbumRecord): boolean {
  return ctx.market !== undefined && album.markets.includes(ctx.market);
}

export function albumSimple(ctx: RenderContext, album: AlbumRecord): Json {
  const out: Json = {
    album_type: album.albumType,
    total_tracks: album.trackIds.length,
    external_urls: { service: `${OPEN_HOST}/album/${album.id}` },
    href: `${ctx.apiUrl}/v1/albums/${album.id}`,
    id: album.id,
    images: imagesFor(album.id),
    name: album.name,
    release_date: album.releaseDate,
    release_date_precision: album.releaseDatePrecision,
    type: 'album',
    uri: `${URI_SCHEME}:album:${album.id}`,
    artists: artistsOf(ctx, album.artistIds),
  };
  // Markets are listed only when no market applied, and not at all for 2026 development-mode apps.
  if (ctx.market === undefined && ctx.variant === 'classic') out['available_markets'] = album.markets;
  if (!availableIn(ctx, album)) out['restrictions'] = { reason: 'market' };
  return out;
}

export function trackSimple(ctx: RenderContext, track: TrackRecord): Json {
  const album = ctx.catalog.albums.get(track.albumId);
  const inMarket = album !== undefined && availableIn(ctx, album);
  const filtered = ctx.explicitFilter === true && track.explicit;
  const playable = inMarket && !filtered;
  const out: Json = {
    artists: artistsOf(ctx, track.artistIds),
    disc_number: track.discNumber,
    duration_ms: track.durationMs,
    explicit: track.explicit,
    external_urls: { service: `${OPEN_HOST}/track/${track.id}` },
    href: `${ctx.apiUrl}/v1/tracks/${track.id}`,
    id: track.id,
    is_playable: playable,
    name: track.name,
    preview_url: track.previewUrl,
    track_number: track.trackNumber,
    type: 'track',
    uri: `${URI_SCHEME}:track:${track.id}`,
    is_local: false,
  };
  if (ctx.market === undefined && ctx.variant === 'classic') out['available_markets'] = album?.markets ?? [];
  if (!playable) out['restrictions'] = { reason: inMarket ? 'explicit' : 'market' };
  return out;
}

export function trackFull(ctx: RenderContext, track: TrackRecord): Json {
  const album = ctx.catalog.albums.get(track.albumId);
  const out: Json = {
    ...trackSimple(ctx, track),
    album: album === undefined ? null : albumSimple(ctx, album),
    external_ids: { isrc: track.isrc },
  };
  if (ctx.variant === 'classic') out['popularity'] = track.popularity;
  return out;
}

export function albumFull(ctx: RenderContext, album: AlbumRecord, tracks: Json): Json {
  const out: Json = {
    ...albumSimple(ctx, album),
    tracks,
    copyrights: [
      { text: `© ${album.releaseDate.slice(0, 4)} ${album.label}`, type: 'C' },
      { text: `℗ ${album.releaseDate.slice(0, 4)} ${album.label}`, type: 'P' },
    ],
    external_ids: { upc: album.upc },
    genres: album.genres,
  };
  if (ctx.variant === 'classic') {
    out['label'] = album.label;
    out['popularity'] = album.popularity;
  }
  return out;
}

export function episode(ctx: RenderContext, record: EpisodeRecord): Json {
  return {
    type: 'episode',
    id: record.id,
    uri: `${URI_SCHEME}:episode:${record.id}`,
    name: record.name,
    description: record.description,
    duration_ms: record.durationMs,
    explicit: record.explicit,
    external_urls: { service: `${OPEN_HOST}/episode/${record.id}` },
    href: `${ctx.apiUrl}/v1/episodes/${record.id}`,
    images: imagesFor(record.id),
    is_externally_hosted: false,
    is_playable: ctx.market !== undefined,
    language: record.language,
    languages: [record.language],
    release_date: record.releaseDate,
    release_date_precision: 'day',
    show: {
      id: record.showId,
      name: record.showName,
      publisher: record.publisher,
      type: 'show',
      uri: `${URI_SCHEME}:show:${record.showId}`,
      href: `${ctx.apiUrl}/v1/shows/${record.showId}`,
    },
  };
}

/**
 * An episode in the track format, for a playlist request without `additional_types=episode`: the
 * contract's playlist items are full tracks, and the service shapes an episode as one, its show in
 * `album` (`type` `show`) and `artists` (without names), with the flags it really sends
 * (`episode: false`, `track: true`; spotify-player #494, recorded 2024; spotify/web-api #1528).
 */
function episodeAsTrack(ctx: RenderContext, record: EpisodeRecord): Json {
  const show = {
    external_urls: { service: `${OPEN_HOST}/show/${record.showId}` },
    href: `${ctx.apiUrl}/v1/shows/${record.showId}`,
    id: record.showId,
    name: null,
    type: 'show',
    uri: `${URI_SCHEME}:show:${record.showId}`,
  };
  return {
    type: 'episode',
    episode: false,
    track: true,
    id: record.id,
    uri: `${URI_SCHEME}:episode:${record.id}`,
    name: record.name,
    duration_ms: record.durationMs,
    explicit: record.explicit,
    is_local: false,
    is_playable: ctx.market !== undefined,
    disc_number: 0,
    track_number: 0,
    external_ids: { service: `${OPEN_HOST}/episode/${record.id}` },
    external_urls: { service: `${OPEN_HOST}/episode/${record.id}` },
    href: `${ctx.apiUrl}/v1/episodes/${record.id}`,
    album: {
      ...show,
      name: record.showName,
      album_type: 'compilation',
      images: imagesFor(record.showId),
      release_date: null,
      release_date_precision: null,
      total_tracks: 0,
      artists: [show],
    },
    artists: [show],
    ...(ctx.variant === 'classic' ? { popularity: 0 } : {}),
  };
}

/**
 * A local file: no id, no link, artists and album without ids or URIs either, as the real service
 * sends them. Its own URI has a form of its own (the public local-files guide: "The track URI has a
 * special formatting"): `<scheme>:local:<artist>:<album>:<title>:<seconds>`, each part form-encoded
 * (spaces as `+`) and empty where the file had no such tag. The service refuses that URI in every
 * request (400 `Invalid track uri: …`, spotify/web-api #510 and #612; see `ITEM_URI` in `api.ts`).
 */
function localTrack(ctx: RenderContext, entry: Entry): Json {
  const local = entry.local ?? { name: '', artist: '', album: '', durationMs: 0 };
  const part = (text: string) => encodeURIComponent(text).replace(/%20/g, '+');
  const uri = [URI_SCHEME, 'local', part(local.artist), part(local.album), part(local.name)]
    .concat(String(Math.round(local.durationMs / 1000)))
    .join(':');
  // Every field of a full track, empty. The markets as for any track: not when a market applies,
  // and not after the 2026 changes, which removed them from albums and tracks (upstream facts).
  const markets = ctx.market === undefined && ctx.variant === 'classic' ? { available_markets: [] } : {};
  return {
    album: {
      album_type: null,
      artists: [],
      ...markets,
      external_urls: {},
      href: null,
      id: null,
      images: [],
      name: local.album,
      release_date: null,
      release_date_precision: null,
      type: 'album',
      uri: null,
    },
    artists: [{ external_urls: {}, href: null, id: null, name: local.artist, type: 'artist', uri: null }],
    ...markets,
    disc_number: 0,
    duration_ms: local.durationMs,
    explicit: false,
    external_ids: {},
    external_urls: {},
    href: null,
    id: null,
    is_local: true,
    name: local.name,
    // Removed from every track by the 2026 changes (upstream facts), local files included.
    ...(ctx.variant === 'classic' ? { popularity: 0 } : {}),
    preview_url: null,
    track_number: 0,
    type: 'track',
    uri,
  };
}

export function userRef(ctx: RenderContext, userId: string): Json {
  return {
    external_urls: { service: `${OPEN_HOST}/user/${userId}` },
    href: `${ctx.apiUrl}/v1/users/${userId}`,
    id: userId,
    type: 'user',
    uri: `${URI_SCHEME}:user:${userId}`,
  };
}

export function owner(ctx: RenderContext, userId: string): Json {
  return { ...userRef(ctx, userId), display_name: ctx.users.get(userId)?.displayName ?? null };
}

export function playlistEntry(ctx: RenderContext, entry: Entry): Json {
  let item: Json | null = null;
  if (entry.kind === 'local') item = localTrack(ctx, entry);
  else if (entry.kind === 'track' && entry.uri !== null) {
    const track = ctx.catalog.tracks.get(entry.uri.split(':')[2] ?? '');
    item = track === undefined ? null : trackFull(ctx, track);
  } else if (entry.kind === 'episode' && entry.uri !== null) {
    const record = ctx.catalog.episodes.get(entry.uri.split(':')[2] ?? '');
    item =
      record === undefined ? null : ctx.fullEpisodes ? episode(ctx, record) : episodeAsTrack(ctx, record);
  }
  return {
    added_at: entry.addedAt,
    added_by: userRef(ctx, entry.addedBy),
    is_local: entry.kind === 'local',
    [ctx.variant === '2026' ? 'item' : 'track']: item,
  };
}

export function playlistSimple(ctx: RenderContext, playlist: PlaylistRecord, itemsPath: string): Json {
  return {
    ...playlistHead(ctx, playlist),
    [ctx.variant === '2026' ? 'items' : 'tracks']: {
      href: `${ctx.apiUrl}${itemsPath}`,
      total: playlist.entries.length,
    },
  };
}

export function playlistHead(ctx: RenderContext, playlist: PlaylistRecord): Json {
  return {
    collaborative: playlist.collaborative,
    description: playlist.description,
    external_urls: { service: `${OPEN_HOST}/playlist/${playlist.id}` },
    href: `${ctx.apiUrl}/v1/playlists/${playlist.id}`,
    id: playlist.id,
    images: playlist.entries.length === 0 ? [] : imagesFor(playlist.id, [640]),
    name: playlist.name,
    owner: owner(ctx, playlist.ownerId),
    public: playlist.isPublic,
    snapshot_id: playlist.snapshotId,
    type: 'playlist',
    uri: `${URI_SCHEME}:playlist:${playlist.id}`,
  };
}

/**
 * A paging object: `href` is the request that produced it, `next`/`previous` absolute URLs of the
 * neighbouring pages with the same other parameters.
 */
export function paging(
  apiUrl: string,
  path: string,
  extra: Record<string, string | undefined>,
  offset: number,
  limit: number,
  total: number,
  items: unknown[],
): Json {
  const url = (at: number) => {
    const u = new URL(apiUrl + path);
    u.searchParams.set('offset', String(at));
    u.searchParams.set('limit', String(limit));
    for (const [name, value] of Object.entries(extra))
      if (value !== undefined) u.searchParams.set(name, value);
    return u.toString();
  };
  return {
    href: url(offset),
    items,
    limit,
    next: offset + limit < total ? url(offset + limit) : null,
    offset,
    previous: offset > 0 ? url(Math.max(0, offset - limit)) : null,
    total,
  };
}
