/**
 * Zod schemas for every music service response. They are tolerant on purpose: extra fields pass,
 * enumerations the spec says may grow (`album_type`, restriction `reason`, device `type`) are plain
 * strings, fields that development-mode apps lost in 2026 are optional, and the 2026 renames
 * (`items`/`item` for a playlist's `tracks`/`track`) are normalised to the spec's names.
 */
import { z } from 'zod';

/**
 * The object's public page. The spec keys it `service`; the real service keys it with its own name
 * (`external_urls.<name>`, the neutral-naming rule of the spec's preamble), so a link under another
 * key is read as `service` when `service` is missing.
 */
const externalUrlsSchema = z
  .object({ service: z.string().optional() })
  .catchall(z.string())
  .transform((urls) => {
    if (urls.service !== undefined) return urls;
    const other = Object.values(urls).find((url) => url !== undefined);
    return other === undefined ? urls : { ...urls, service: other };
  });

export const imageSchema = z.object({
  url: z.string(),
  height: z.number().int().nullable().optional(),
  width: z.number().int().nullable().optional(),
});

/**
 * `reason` is `market`, `product`, `explicit` or a value added later; a restriction without one is
 * still a restriction (read as unknown), not a reason to drop the item.
 */
export const restrictionsSchema = z.object({ reason: z.string().catch('unknown').default('unknown') });

/**
 * Reads `schema` with null values taken as absent (see `withoutNulls`), but for the keys in `keep`:
 * real catalog answers carry null for fields the contract gives as plain values or leaves out (an
 * album's `label`, a relinked track's `linked_from.id`, an artist's `genres` or `popularity`), and
 * one of them would otherwise make a whole album or artist view fail.
 */
function nullsAsAbsent<T extends z.ZodType>(schema: T, keep: readonly string[] = []) {
  return z.preprocess(withoutNulls(keep), schema);
}

const simplifiedArtistObject = z.object({
  external_urls: externalUrlsSchema.optional(),
  href: z.string().optional(),
  id: z.string(),
  name: z.string(),
  type: z.string(),
  uri: z.string(),
});
export const simplifiedArtistSchema = nullsAsAbsent(simplifiedArtistObject);

const artistObject = simplifiedArtistObject.extend({
  // followers and popularity are gone for development-mode apps since 2026.
  followers: z.object({ href: z.string().nullable(), total: z.number().int() }).optional(),
  genres: z.array(z.string()).default([]),
  images: z.array(imageSchema).default([]),
  popularity: z.number().int().optional(),
});
export const artistSchema = nullsAsAbsent(artistObject);

/**
 * `GET /v1/artists`: null in place of an id the service does not know, and of an artist that cannot
 * be read, so that one of them does not fail the other 49 of its batch.
 */
export const severalArtistsSchema = z.object({ artists: z.array(artistSchema.nullable().catch(null)) });

/** `album`, `single`, `compilation`, or a value the service adds later. */
export type AlbumType = 'album' | 'single' | 'compilation' | (string & {});

/**
 * `total_tracks`, `release_date` and `release_date_precision` are in every album the service sends
 * now, but not in answers it recorded before it added them (spotify-web-api-java's album and top
 * tracks fixtures): optional, so that such an album, or a track carrying one, still reads.
 */
const albumBase = z.object({
  /** See `AlbumType`. */
  album_type: z.string(),
  total_tracks: z.number().int().optional(),
  available_markets: z.array(z.string()).optional(),
  external_urls: externalUrlsSchema.optional(),
  href: z.string(),
  id: z.string(),
  images: z.array(imageSchema).default([]),
  name: z.string(),
  release_date: z.string().optional(),
  release_date_precision: z.string().optional(),
  restrictions: restrictionsSchema.optional(),
  type: z.string(),
  uri: z.string(),
  artists: z.array(simplifiedArtistSchema),
});

/** An album without `tracks`, `copyrights`, `external_ids`, `genres`, `label`, `popularity` (inside a full track). */
export const simplifiedAlbumSchema = nullsAsAbsent(albumBase);

const externalIdsSchema = z.object({
  isrc: z.string().optional(),
  ean: z.string().optional(),
  upc: z.string().optional(),
});

const linkedFromSchema = nullsAsAbsent(
  z.object({
    external_urls: externalUrlsSchema.optional(),
    href: z.string().optional(),
    id: z.string().optional(),
    type: z.string().optional(),
    uri: z.string().optional(),
  }),
);

const simplifiedTrackObject = z.object({
  artists: z.array(simplifiedArtistSchema),
  available_markets: z.array(z.string()).optional(),
  disc_number: z.number().int(),
  duration_ms: z.number().int(),
  /** Sent as null now and then (see `withoutNulls`): one such track must not fail its album. */
  explicit: z.boolean().default(false),
  external_urls: externalUrlsSchema.optional(),
  href: z.string().optional(),
  id: z.string(),
  /** Present when a market applied; false also when no market applied (spec's market rule). */
  is_playable: z.boolean().optional(),
  linked_from: linkedFromSchema.optional(),
  restrictions: restrictionsSchema.optional(),
  name: z.string(),
  preview_url: z.string().nullable().optional(),
  track_number: z.number().int(),
  type: z.string(),
  uri: z.string(),
  is_local: z.boolean().default(false),
});
/** A null `preview_url` says there is no preview; kept as it is. */
export const simplifiedTrackSchema = nullsAsAbsent(simplifiedTrackObject, ['preview_url']);

export const trackSchema = nullsAsAbsent(
  simplifiedTrackObject.extend({
    album: simplifiedAlbumSchema,
    external_ids: externalIdsSchema.optional(),
    popularity: z.number().int().optional(),
  }),
  ['preview_url'],
);

/** An artist's top tracks; a track that cannot be read is left out rather than failing the list. */
export const topTracksSchema = z.object({
  tracks: z
    .array(trackSchema.nullable().catch(null))
    .transform((tracks) => tracks.filter((track) => track !== null)),
});

/** A paging object whose `items` are validated by `item`. */
export function pagingSchema<T extends z.ZodType>(item: T) {
  return z.object({
    href: z.string(),
    items: z.array(item),
    limit: z.number().int(),
    offset: z.number().int(),
    total: z.number().int(),
    next: z.string().nullable(),
    previous: z.string().nullable().default(null),
  });
}

/**
 * A page of an album's tracks. A track that cannot be read (null, or a local or unavailable one with
 * null `id` and `uri`) is left out rather than failing the album; `total` still counts it.
 */
export const albumTracksSchema = pagingSchema(simplifiedTrackSchema.nullable().catch(null)).transform(
  (page) => ({ ...page, items: page.items.filter((track) => track !== null) }),
);

export const albumSchema = nullsAsAbsent(
  albumBase.extend({
    tracks: albumTracksSchema,
    copyrights: z.array(z.object({ text: z.string(), type: z.string() })).default([]),
    external_ids: externalIdsSchema.optional(),
    genres: z.array(z.string()).default([]),
    label: z.string().optional(),
    popularity: z.number().int().optional(),
  }),
);

const userRefSchema = z.object({
  external_urls: externalUrlsSchema.optional(),
  href: z.string().optional(),
  id: z.string(),
  type: z.string().optional(),
  uri: z.string().optional(),
});

export const playlistOwnerSchema = userRefSchema.extend({ display_name: z.string().nullable().optional() });

/** An artist or album reference inside a playlist item: a local file has null ids and uris. */
const looseRefSchema = z.object({
  id: z.string().nullable().optional(),
  name: z.string().nullable().optional(),
  uri: z.string().nullable().optional(),
  type: z.string().optional(),
  href: z.string().nullable().optional(),
});

/**
 * Drops the keys of an object whose value is null, but for `keep` (where null means something).
 * The service sends null for fields the contract gives as plain values now and then (a track's
 * `explicit` or `popularity`, an entry's `is_local`); read as absent, they take their defaults
 * instead of making the whole entry unreadable, which would lose its URI (and with it removal by
 * URI and the confirmation's fingerprint).
 */
function withoutNulls(keep: readonly string[]) {
  return (raw: unknown): unknown => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
    return Object.fromEntries(
      Object.entries(raw).filter(([key, value]) => value !== null || keep.includes(key)),
    );
  };
}

/**
 * What a playlist holds: a track, an episode, or a local file (null `id` and `uri`). One tolerant
 * shape for all three; `PlaylistEntry.kind` says which it is.
 */
const playlistItemObjectSchema = z.object({
  type: z.string(),
  id: z.string().nullable(),
  uri: z.string().nullable(),
  name: z.string().nullable().default(''),
  duration_ms: z.number().int().nullable().optional(),
  explicit: z.boolean().optional(),
  is_local: z.boolean().default(false),
  is_playable: z.boolean().optional(),
  restrictions: restrictionsSchema.optional(),
  href: z.string().nullable().optional(),
  external_urls: externalUrlsSchema.optional(),
  /** Tracks. */
  artists: z.array(looseRefSchema).optional(),
  album: looseRefSchema.optional(),
  track_number: z.number().int().optional(),
  disc_number: z.number().int().optional(),
  popularity: z.number().int().optional(),
  /** Episodes. */
  show: looseRefSchema.optional(),
  release_date: z.string().optional(),
  description: z.string().optional(),
});
/**
 * An episode in the track format carries its show as `album` (`type: 'show'`) and no `show`: the
 * real service answers so to a playlist request without `additional_types=episode`, which the
 * contract does not name and this client does not send (spotify/web-api #1528, rspotify #320).
 */
function withShow(item: z.output<typeof playlistItemObjectSchema>) {
  if (item.type !== 'episode' || item.show !== undefined || item.album?.type !== 'show') return item;
  return { ...item, show: item.album };
}
export const playlistItemSchema = z.preprocess(
  withoutNulls(['id', 'uri']),
  playlistItemObjectSchema.transform(withShow),
);

/**
 * `track` — a catalog track; `episode` — a podcast episode; `local` — a file on the owner's device
 * (no id, cannot be played through the API); `unavailable` — the item was removed (`track` null);
 * `unsupported` — an entry this client could not read (kept so positions stay right).
 */
export type PlaylistEntryKind = 'track' | 'episode' | 'local' | 'unavailable' | 'unsupported';

function entryKind(item: z.output<typeof playlistItemSchema> | null, isLocal: boolean): PlaylistEntryKind {
  if (item === null) return 'unavailable';
  if (isLocal || item.is_local || item.id === null || item.uri === null) return 'local';
  if (item.type === 'episode') return 'episode';
  if (item.type === 'track') return 'track';
  return 'unsupported';
}

/**
 * Reads a 2026 key under the spec's name. The new name wins when it has a value: the OAS keeps the
 * old names beside the new ones, deprecated (upstream-facts), and an answer carrying both may shape
 * the old one differently (a playlist's `tracks` as a bare `{href, total}` reference beside the full
 * `items` page). The old name is read only when the new one is absent or null.
 */
function renameKey(from: string, to: string) {
  return (raw: unknown): unknown => {
    if (typeof raw !== 'object' || raw === null || !(from in raw)) return raw;
    const { [from]: value, ...rest } = raw as Record<string, unknown>;
    if (value === undefined || value === null) return rest;
    return { ...rest, [to]: value };
  };
}

const playlistEntryObjectSchema = z
  .object({
    added_at: z.string().nullable().default(null),
    added_by: userRefSchema.nullable().default(null),
    is_local: z.boolean().default(false),
    track: playlistItemSchema.nullable().default(null),
  })
  .transform((entry) => ({ ...entry, kind: entryKind(entry.track, entry.is_local) }));

export interface PlaylistEntry {
  added_at: string | null;
  added_by: z.output<typeof userRefSchema> | null;
  is_local: boolean;
  /** The item (`track` in the spec, `item` since 2026); null when it was removed. */
  track: z.output<typeof playlistItemSchema> | null;
  kind: PlaylistEntryKind;
}

/** One playlist entry; an entry that cannot be read becomes `kind: 'unsupported'` instead of failing the page. */
export const playlistEntrySchema: z.ZodType<PlaylistEntry, unknown> = z
  .preprocess(
    (raw) => withoutNulls(['track', 'item', 'added_at', 'added_by'])(renameKey('item', 'track')(raw)),
    playlistEntryObjectSchema,
  )
  .catch(() => ({
    added_at: null,
    added_by: null,
    is_local: false,
    track: null,
    kind: 'unsupported' as const,
  }));

export const playlistItemsSchema = pagingSchema(playlistEntrySchema);

export const playlistSchema = z.preprocess(
  renameKey('items', 'tracks'),
  z.object({
    collaborative: z.boolean(),
    // Null when the playlist has none; read the same when left out.
    description: z.string().nullable().default(null),
    external_urls: externalUrlsSchema.optional(),
    href: z.string(),
    id: z.string(),
    images: z.array(imageSchema).nullable().default([]),
    name: z.string(),
    owner: playlistOwnerSchema,
    public: z.boolean().nullable().default(null),
    snapshot_id: z.string(),
    /**
     * Absent (or null) since 2026 for playlists the user neither owns nor collaborates on, where the
     * deprecated `tracks` may still come as a bare `{href, total}` reference: no items either way.
     */
    tracks: z
      .union([
        playlistItemsSchema,
        z.object({ href: z.string().nullish(), total: z.number(), items: z.never().optional() }),
      ])
      .nullish()
      .transform((page) => (page && 'limit' in page ? page : undefined)),
    type: z.string(),
    uri: z.string(),
  }),
);

export const simplifiedPlaylistSchema = z.preprocess(
  renameKey('items', 'tracks'),
  z.object({
    collaborative: z.boolean(),
    /** Missing on the playlists below that have no name. */
    description: z
      .string()
      .nullish()
      .transform((description) => description ?? null),
    external_urls: externalUrlsSchema.optional(),
    href: z.string(),
    id: z.string(),
    images: z.array(imageSchema).nullable().default([]),
    /** Missing or null on some playlists the service generates (spotify/web-api #828); shown as "Untitled". */
    name: z
      .string()
      .nullish()
      .transform((name) => name ?? ''),
    owner: playlistOwnerSchema,
    /** Null when the owner has not said; read the same when left out. */
    public: z
      .boolean()
      .nullish()
      .transform((value) => value ?? null),
    /** Missing on the same playlists; the bot reads the snapshot from the full playlist only. */
    snapshot_id: z.string().optional(),
    /** `total` is null for generated playlists (aome510/spotify-player #398). */
    tracks: z
      .object({ href: z.string(), total: z.number().int().nullable() })
      .nullish()
      .transform((ref) => ref ?? undefined),
    type: z.string(),
    uri: z.string(),
  }),
);

/**
 * The member's playlists. Since December 2024 the service answers null in place of the playlists it
 * owns itself (editorial and algorithmic ones a member follows), and one playlist it cannot describe
 * must not hide the others: both are left out of `items` (`total` still counts them).
 */
export const myPlaylistsSchema = pagingSchema(simplifiedPlaylistSchema.nullable().catch(null)).transform(
  (page) => ({ ...page, items: page.items.filter((playlist) => playlist !== null) }),
);

export const snapshotSchema = z.object({ snapshot_id: z.string() });

/** `type` is `Computer`, `Smartphone`, `Speaker`… with varying case, or a value added later. */
export const deviceSchema = z.object({
  /** Null for some devices; read the same when left out. */
  id: z
    .string()
    .nullish()
    .transform((id) => id ?? null),
  is_active: z.boolean(),
  is_private_session: z.boolean().default(false),
  is_restricted: z.boolean(),
  name: z.string(),
  type: z.string(),
  volume_percent: z.number().int().nullable().optional(),
  supports_volume: z.boolean().optional(),
});

export const devicesSchema = z.object({ devices: z.array(deviceSchema) });

/**
 * `GET /v1/me`. `country`, `product` need `user-read-private`, `email` needs `user-read-email`; since
 * 2026 development-mode apps never get `country`, `email`, `explicit_content`, `followers`, `product`.
 */
export const currentUserSchema = z.object({
  id: z.string(),
  display_name: z.string().nullable().default(null),
  external_urls: externalUrlsSchema.optional(),
  href: z.string().optional(),
  images: z.array(imageSchema).nullable().default([]),
  type: z.string(),
  uri: z.string(),
  account_id: z.string().optional(),
  country: z.string().optional(),
  email: z.string().nullable().optional(),
  explicit_content: z.object({ filter_enabled: z.boolean(), filter_locked: z.boolean() }).optional(),
  followers: z.object({ href: z.string().nullable(), total: z.number().int() }).optional(),
  /** `premium`, `free`, or `open` (an old name for free). */
  product: z.string().optional(),
});

/** The token endpoint's answer (RFC 6749 §5.1). */
export const tokenResponseSchema = z.object({
  access_token: z.string().min(1),
  token_type: z.string(),
  expires_in: z.number().int().positive(),
  scope: z.string().optional(),
  refresh_token: z.string().optional(),
});

/**
 * The API's error body for most 4xx and 5xx (spec §7): `{ error: { status, message } }`; player
 * refusals add `reason` (`PREMIUM_REQUIRED`, `NO_ACTIVE_DEVICE`, … or a value added later).
 */
export const apiErrorBodySchema = z.object({
  error: z.object({
    status: z.number().int(),
    message: z.string(),
    reason: z.string().optional(),
  }),
});

/** The spec's sample 429 body: `{ error: { code: 'rate_limited', message, request_id } }`. */
export const rateLimitedErrorBodySchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    request_id: z.string().optional(),
  }),
});

/** Anything shaped like either error body, for reading what it says when a field is missing. */
export const looseErrorBodySchema = z.object({
  error: z.object({
    status: z.number().optional().catch(undefined),
    message: z.string().optional().catch(undefined),
    reason: z.string().optional().catch(undefined),
    code: z.string().optional().catch(undefined),
  }),
});

/** The token endpoint's error body (RFC 6749 §5.2): `{ error, error_description }`. */
export const oauthErrorBodySchema = z.object({
  error: z.string(),
  error_description: z.string().optional(),
  error_uri: z.string().optional(),
});

/** A body that is either absent or anything at all: for 200 answers whose body is not documented. */
export const ignoredBodySchema = z.unknown();

export type Image = z.output<typeof imageSchema>;
export type SimplifiedArtist = z.output<typeof simplifiedArtistSchema>;
export type Artist = z.output<typeof artistSchema>;
export type SimplifiedAlbum = z.output<typeof simplifiedAlbumSchema>;
export type Album = z.output<typeof albumSchema>;
export type SimplifiedTrack = z.output<typeof simplifiedTrackSchema>;
export type Track = z.output<typeof trackSchema>;
export type PlaylistItem = z.output<typeof playlistItemSchema>;
export type Playlist = z.output<typeof playlistSchema>;
export type SimplifiedPlaylist = z.output<typeof simplifiedPlaylistSchema>;
export type Device = z.output<typeof deviceSchema>;
export type CurrentUser = z.output<typeof currentUserSchema>;
export type TokenResponse = z.output<typeof tokenResponseSchema>;
export type ApiErrorBody = z.output<typeof apiErrorBodySchema>;
export type RateLimitedErrorBody = z.output<typeof rateLimitedErrorBodySchema>;
export type OAuthErrorBody = z.output<typeof oauthErrorBodySchema>;
