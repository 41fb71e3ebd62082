/**
 * The `/v1` API: catalog, library, player, playlists and the current user, with the spec's limits,
 * market rule, paging and errors, plus the per-endpoint scopes and 2026 removals of upstream-facts.md.
 *
 * Where both are silent, this emulator chooses (and the tests rely on nothing else):
 * - no market and no user country: tracks come with `is_playable: false` and
 *   `restrictions.reason: 'market'`, top tracks are empty ("treated as unavailable");
 * - playlist item pages allow `limit` up to 100 (the real service's limit; its playlist object
 *   embeds 100), every other list 50;
 * - `classic` also serves `/items` and `/me/library` (extended apps have both); `GET …/items`
 *   needs a user token with `playlist-read-private` (the OAS scope), `GET …/tracks` does not for
 *   public playlists; a private playlist is 404 to an application token;
 * - replacing items (PUT) with `uris` in both the body and the query uses the body's (the
 *   reference says the query wins only for adding);
 * - removal by URI without positions removes every occurrence in the named version; removals and
 *   moves name entries of that version and apply to the current one (entries have identity);
 * - a player command to an idle (not active) device is `NO_ACTIVE_DEVICE`, to a restricted one
 *   `DEVICE_NOT_CONTROLLABLE`; pause while paused is `UNKNOWN`, the reason upstream-facts.md
 *   records for it (`ALREADY_PAUSED` is only in copies of the former official table of reasons);
 *   `next` at the end of the queue is `NO_NEXT_TRACK`;
 *   listing devices also needs premium (the spec marks the whole player section premium only);
 * - an application token on a user endpoint gets 403 `This request requires user authentication.`
 *   (issue 4 asks for 403; the spec's "authenticated but lacking permission" is 403 too; the wording
 *   is the one seen in the service's issue tracker);
 * - changing a playlist one may not edit is 403 `You cannot add tracks to a playlist you don't own.`
 *   (seen), with `remove … from` / `reorder or replace … in` for the other methods (unconfirmed):
 *   never the bare `Forbidden`, which is the 2026 removal's answer;
 * - 2026: every 401 says `Missing/invalid/expired access token`; removed endpoints answer 403
 *   `Forbidden`; `/v1/me` has no country, email, product, explicit_content or followers.
 */
import { createHash } from 'node:crypto';
import { ApiFailure, jsonBody, type EmulatorRequest, type Reply } from './http.js';
import {
  albumFull,
  artistFull,
  paging,
  playlistEntry,
  playlistHead,
  playlistSimple,
  trackFull,
  trackSimple,
  type RenderContext,
  type Variant,
} from './render.js';
import {
  URI_SCHEME,
  type AccessTokenRecord,
  type EmulatorState,
  type Entry,
  type PlaylistRecord,
  type UserRecord,
} from './state.js';

export interface ApiOptions {
  state: EmulatorState;
  variant: Variant;
  apiUrl: () => string;
}

interface Auth {
  token: AccessTokenRecord;
  /** The user behind a user token; undefined for the application token. */
  user: UserRecord | undefined;
}

interface Route {
  method: string;
  pattern: RegExp;
  /** Refuses application tokens. */
  user?: boolean;
  /** At least one of these scopes is needed. */
  scopes?: readonly string[];
  /** Answers 403 `Forbidden` for development-mode apps since 2026. */
  removedIn2026?: boolean;
  handle(req: EmulatorRequest, auth: Auth, params: string[]): Reply;
}

/** Limits of spec §8 and upstream-facts.md. */
export const LIMITS = {
  severalArtistIds: 50,
  libraryQueryIds: 20,
  libraryBodyIds: 50,
  libraryUris: 40,
  playlistItemsPerRequest: 100,
  pageSize: 50,
  /** Playlist item pages allow 100, as the real service does (its playlist object embeds 100). */
  playlistPageSize: 100,
  myPlaylistsMaxOffset: 100_000,
} as const;

const ID = /^[0-9A-Za-z]{22}$/;
/**
 * The 404 message of a well-formed catalog id (album, artist) that names nothing: recorded from the
 * real service for albums and their tracks (spotipy #575, spotifydl-core #6; shows too). A playlist's
 * 404 says `Resource not found` instead.
 */
const NO_SUCH_ID = 'non existing id';
const ITEM_URI = new RegExp(`^${URI_SCHEME}:(track|episode):([0-9A-Za-z]{22})$`);

const fail = (status: number, message: string, reason?: string): never => {
  throw new ApiFailure(status, message, reason);
};

export interface Api {
  handle(req: EmulatorRequest): Reply;
  /** The `WWW-Authenticate` header of a 401 answering `req` (RFC 6750 §3). */
  challenge(req: EmulatorRequest, message: string): Record<string, string>;
  /** `GET /v1/albums/{id}`: the endpoint a request is for (its method and path template). */
  endpointOf(method: string, path: string): string;
}

/** `^\/v1\/albums\/([^/]+)$` → `/v1/albums/{id}`. */
function template(pattern: RegExp): string {
  return pattern.source
    .replace(/^\^|\$$/g, '')
    .replaceAll('\\/', '/')
    .replaceAll('([^/]+)', '{id}');
}

export function createApi(options: ApiOptions): Api {
  const { state, variant } = options;
  const { catalog } = state;

  const sentToken = (req: EmulatorRequest) => (req.headers.authorization ?? '').trim() !== '';

  /**
   * RFC 6750 §3: a 401 names the scheme and realm; when a token was sent and refused, also
   * `invalid_token` and why (§3.1). Without a token there is no error code to give.
   */
  function challenge(req: EmulatorRequest, message: string): Record<string, string> {
    const quoted = (text: string) => `"${text.replace(/["\\]/g, '\\$&')}"`;
    const value = sentToken(req)
      ? `Bearer realm="service", error="invalid_token", error_description=${quoted(message)}`
      : 'Bearer realm="service"';
    return { 'www-authenticate': value };
  }

  const unauthorized = (req: EmulatorRequest, classic: string): never => {
    const message = variant === '2026' ? 'Missing/invalid/expired access token' : classic;
    throw new ApiFailure(401, message, undefined, challenge(req, message));
  };

  function authenticate(req: EmulatorRequest): Auth {
    const header = req.headers.authorization;
    if (header === undefined || !sentToken(req)) return unauthorized(req, 'No token provided');
    const match = /^Bearer\s+(\S+)$/i.exec(header.trim());
    if (match === null) return fail(400, 'Only valid bearer authentication supported');
    const token = state.accessTokens.get(match[1] ?? '');
    if (token === undefined) return unauthorized(req, 'Invalid access token');
    if (state.now() >= token.expiresAt) return unauthorized(req, 'The access token expired');
    if (token.userId === null) return { token, user: undefined };
    const user = state.users.get(token.userId);
    if (user === undefined) return unauthorized(req, 'Invalid access token');
    if (!user.registered) fail(403, 'User not registered in the Developer Dashboard');
    return { token, user };
  }

  function requireScope(auth: Auth, anyOf: readonly string[]): void {
    if (anyOf.length > 0 && !anyOf.some((scope) => auth.token.scopes.has(scope)))
      fail(403, 'Insufficient client scope');
  }

  function requireUser(auth: Auth): UserRecord {
    return auth.user ?? fail(403, 'This request requires user authentication.');
  }

  function render(req: EmulatorRequest, auth: Auth): RenderContext {
    const market = req.query.get('market');
    if (market !== null && market !== 'from_token' && !/^[A-Z]{2}$/.test(market))
      fail(400, 'Invalid market code');
    // Market rule: the user's country wins over `market`; with neither, content is unavailable.
    const effective = auth.user?.country ?? (market === null || market === 'from_token' ? undefined : market);
    return {
      apiUrl: options.apiUrl(),
      variant,
      market: effective,
      explicitFilter: auth.user?.explicitFilter ?? false,
      fullEpisodes: (req.query.get('additional_types') ?? '').split(',').includes('episode'),
      catalog,
      users: state.users,
    };
  }

  function pageParams(
    req: EmulatorRequest,
    max: number,
    fallback: number,
    maxOffset = Number.MAX_SAFE_INTEGER,
  ) {
    const limitText = req.query.get('limit');
    const offsetText = req.query.get('offset');
    const limit = limitText === null ? fallback : /^\d+$/.test(limitText) ? Number(limitText) : NaN;
    const offset = offsetText === null ? 0 : /^\d+$/.test(offsetText) ? Number(offsetText) : NaN;
    if (!Number.isInteger(limit) || limit < 1 || limit > max) fail(400, 'Invalid limit');
    if (!Number.isInteger(offset) || offset > maxOffset) fail(400, 'Invalid offset');
    return { offset, limit };
  }

  function marketParam(req: EmulatorRequest): Record<string, string | undefined> {
    return { market: req.query.get('market') ?? undefined };
  }

  function validId(id: string): string {
    return ID.test(id) ? id : fail(400, 'Invalid base62 id');
  }

  /** A path segment is an id: a broken percent-escape (`%E0%A4%A`) is a bad id, not a server fault. */
  function decodePathParam(segment: string): string {
    try {
      return decodeURIComponent(segment);
    } catch {
      return fail(400, 'Invalid base62 id');
    }
  }

  // ---- Catalog -------------------------------------------------------------------------------

  function albumTracksPage(
    req: EmulatorRequest,
    ctx: RenderContext,
    albumId: string,
    offset: number,
    limit: number,
  ) {
    const album = catalog.albums.get(albumId) ?? fail(404, NO_SUCH_ID);
    const items = album.trackIds.slice(offset, offset + limit).flatMap((id) => {
      const track = catalog.tracks.get(id);
      return track === undefined ? [] : [trackSimple(ctx, track)];
    });
    return paging(
      ctx.apiUrl,
      `/v1/albums/${albumId}/tracks`,
      marketParam(req),
      offset,
      limit,
      album.trackIds.length,
      items,
    );
  }

  const getAlbum: Route['handle'] = (req, auth, [id = '']) => {
    const album = catalog.albums.get(validId(id)) ?? fail(404, NO_SUCH_ID);
    const ctx = render(req, auth);
    return {
      status: 200,
      body: albumFull(ctx, album, albumTracksPage(req, ctx, album.id, 0, LIMITS.pageSize)),
    };
  };

  const getAlbumTracks: Route['handle'] = (req, auth, [id = '']) => {
    // The id in the path is checked before the parameters, as on every other route.
    const albumId = validId(id);
    const ctx = render(req, auth);
    const { offset, limit } = pageParams(req, LIMITS.pageSize, 20);
    return { status: 200, body: albumTracksPage(req, ctx, albumId, offset, limit) };
  };

  const getSeveralArtists: Route['handle'] = (req, auth) => {
    const raw = req.query.get('ids');
    if (raw === null || raw.trim() === '') return fail(400, 'Invalid base62 id');
    const ids = raw.split(',');
    if (ids.length > LIMITS.severalArtistIds) fail(400, 'too many ids requested');
    const ctx = render(req, auth);
    const artists = ids.map((id) => {
      const artist = catalog.artists.get(validId(id));
      return artist === undefined ? null : artistFull(ctx, artist);
    });
    return { status: 200, body: { artists } };
  };

  const getArtist: Route['handle'] = (req, auth, [id = '']) => {
    const artist = catalog.artists.get(validId(id)) ?? fail(404, NO_SUCH_ID);
    return { status: 200, body: artistFull(render(req, auth), artist) };
  };

  const getTopTracks: Route['handle'] = (req, auth, [id = '']) => {
    const artist = catalog.artists.get(validId(id)) ?? fail(404, NO_SUCH_ID);
    const ctx = render(req, auth);
    const market = ctx.market;
    // Only content available in the market is returned; with no market, none is.
    const tracks =
      market === undefined
        ? []
        : [...catalog.tracks.values()]
            .filter(
              (track) =>
                track.artistIds.includes(artist.id) &&
                catalog.albums.get(track.albumId)?.markets.includes(market),
            )
            .sort((a, b) => b.popularity - a.popularity || a.id.localeCompare(b.id))
            .slice(0, 10)
            .map((track) => trackFull(ctx, track));
    return { status: 200, body: { tracks } };
  };

  // ---- Library -------------------------------------------------------------------------------

  function idList(value: unknown, limit: number): string[] {
    if (!Array.isArray(value) || !value.every((id) => typeof id === 'string'))
      return fail(400, 'Missing required field: ids');
    const ids = value;
    if (ids.length === 0) fail(400, 'Missing required field: ids');
    if (ids.length > limit) fail(400, 'too many ids requested');
    return ids;
  }

  const changeSavedAlbums: Route['handle'] = (req, auth) => {
    const user = requireUser(auth);
    const query = req.query.get('ids');
    // The query wins; the body is ignored when the query is present.
    const ids =
      query !== null
        ? idList(query.split(','), LIMITS.libraryQueryIds)
        : // A bare array of ids (`["id"]`, not `{"ids": [...]}`) is read as a body without `ids`:
          // the service's answer in its SDK's issue threads (spotify-web-api-ts-sdk #131).
          idList(jsonBody(req, 'Missing required field: ids')['ids'], LIMITS.libraryBodyIds);
    for (const id of ids) if (!catalog.albums.has(validId(id))) fail(400, `Non existing id: '${id}'`);
    for (const id of ids) {
      const uri = `${URI_SCHEME}:album:${id}`;
      if (req.method === 'PUT') user.library.add(uri);
      else user.library.delete(uri);
    }
    return { status: 200 };
  };

  /** What each URI type of the library needs: the scope to change it, the scope to read it. */
  const saved = { scope: 'user-library-modify', readScope: 'user-library-read' };
  const followed = { scope: 'user-follow-modify', readScope: 'user-follow-read' };
  const LIBRARY_TYPES: Record<string, { scope: string; readScope: string; exists: (id: string) => boolean }> =
    {
      album: { ...saved, exists: (id) => catalog.albums.has(id) },
      track: { ...saved, exists: (id) => catalog.tracks.has(id) },
      episode: { ...saved, exists: (id) => catalog.episodes.has(id) },
      artist: { ...followed, exists: (id) => catalog.artists.has(id) },
      user: { ...followed, exists: (id) => state.users.has(id) },
      playlist: {
        scope: 'playlist-modify-public',
        readScope: 'playlist-read-private',
        exists: (id) => state.playlists.has(id),
      },
    };

  /**
   * The `uris` of a library call (query, else the JSON body), each checked, with what its type
   * needs. Refuses the call as the service does: none, too many, malformed or unsupported.
   */
  function libraryUris(req: EmulatorRequest) {
    const query = req.query.get('uris');
    const bodyUris = query === null && req.method !== 'GET' ? jsonBody(req)['uris'] : undefined;
    const uris =
      query !== null && query.trim() !== ''
        ? query.split(',')
        : Array.isArray(bodyUris) && bodyUris.every((u) => typeof u === 'string')
          ? bodyUris
          : [];
    if (uris.length === 0) fail(400, 'Missing required parameter: uris');
    if (uris.length > LIMITS.libraryUris) fail(400, `Too many uris: at most ${LIMITS.libraryUris}`);
    return uris.map((uri) => {
      const [scheme, type = '', id = '', ...rest] = uri.split(':');
      const kind = LIBRARY_TYPES[type];
      if (scheme !== URI_SCHEME || rest.length > 0 || (type !== 'user' && !ID.test(id)))
        fail(400, `Invalid uri: ${uri}`);
      if (kind === undefined) return fail(400, `Unsupported uri type: ${uri}`);
      return { uri, id, kind };
    });
  }

  const changeLibrary: Route['handle'] = (req, auth) => {
    const user = requireUser(auth);
    const uris = libraryUris(req);
    for (const { uri, id, kind } of uris) {
      requireScope(auth, [kind.scope]);
      if (!kind.exists(id)) fail(400, `Non existing id: '${uri}'`);
    }
    for (const { uri } of uris) {
      if (req.method === 'PUT') user.library.add(uri);
      else user.library.delete(uri);
    }
    return { status: 200 };
  };

  /** `GET /v1/me/library/contains?uris=…`: one boolean per URI, in order (upstream-facts, 2026). */
  const libraryContains: Route['handle'] = (req, auth) => {
    const user = requireUser(auth);
    const uris = libraryUris(req);
    for (const { kind } of uris) requireScope(auth, [kind.readScope]);
    return { status: 200, body: uris.map(({ uri }) => user.library.has(uri)) };
  };

  // ---- Player --------------------------------------------------------------------------------

  function premiumUser(auth: Auth): UserRecord {
    const user = requireUser(auth);
    if (user.product !== 'premium') fail(403, 'Player command failed: Premium required', 'PREMIUM_REQUIRED');
    return user;
  }

  const getDevices: Route['handle'] = (_req, auth) => {
    const { player } = premiumUser(auth);
    const devices = player.devices.map((device) => ({
      id: device.id,
      is_active: device.id === player.activeDeviceId,
      is_private_session: device.isPrivateSession,
      is_restricted: device.isRestricted,
      name: device.name,
      supports_volume: device.supportsVolume,
      type: device.type,
      volume_percent: device.volumePercent,
    }));
    return { status: 200, body: { devices } };
  };

  function commandTarget(req: EmulatorRequest, auth: Auth): UserRecord {
    const user = premiumUser(auth);
    const { player } = user;
    const deviceId = req.query.get('device_id');
    const target =
      deviceId === null
        ? player.devices.find((device) => device.id === player.activeDeviceId)
        : (player.devices.find((device) => device.id === deviceId) ?? fail(404, 'Device not found'));
    if (target?.isRestricted)
      fail(403, 'Player command failed: Restriction violated', 'DEVICE_NOT_CONTROLLABLE');
    // A command goes to where playback is; an idle device is not "active".
    if (target === undefined || target.id !== player.activeDeviceId) {
      fail(404, 'Player command failed: No active device found', 'NO_ACTIVE_DEVICE');
    }
    return user;
  }

  const pause: Route['handle'] = (req, auth) => {
    const { player } = commandTarget(req, auth);
    if (!player.isPlaying) fail(403, 'Player command failed: Restriction violated', 'UNKNOWN');
    player.isPlaying = false;
    return { status: 204 };
  };

  const next: Route['handle'] = (req, auth) => {
    const { player } = commandTarget(req, auth);
    if (player.index + 1 >= player.queue.length)
      fail(403, 'Player command failed: Restriction violated', 'NO_NEXT_TRACK');
    player.index++;
    return { status: 204 };
  };

  // ---- Playlists -----------------------------------------------------------------------------

  function findPlaylist(id: string): PlaylistRecord {
    return state.playlists.get(validId(id)) ?? fail(404, 'Resource not found');
  }

  /** Public playlists are readable by anyone; private ones need a user token with a read scope. */
  function requireReadable(playlist: PlaylistRecord, auth: Auth): void {
    if (playlist.isPublic) return;
    if (auth.user === undefined) fail(404, 'Resource not found');
    requireScope(
      auth,
      playlist.collaborative
        ? ['playlist-read-private', 'playlist-read-collaborative']
        : ['playlist-read-private'],
    );
  }

  const NOT_YOURS: Record<string, string> = {
    POST: 'You cannot add tracks to a playlist you don’t own.',
    PUT: 'You cannot reorder or replace tracks in a playlist you don’t own.',
    DELETE: 'You cannot remove tracks from a playlist you don’t own.',
  };

  /**
   * The route lets either modify scope through; which one counts depends on the playlist: public
   * ones need `playlist-modify-public`, private ones (collaborative ones are private)
   * `playlist-modify-private` (the service's reference for each edit; seen as 403 `Insufficient
   * client scope` in its issue tracker).
   */
  function requireEditable(playlist: PlaylistRecord, auth: Auth, method: string): UserRecord {
    const user = requireUser(auth);
    requireScope(auth, [playlist.isPublic ? 'playlist-modify-public' : 'playlist-modify-private']);
    if (!playlist.canEdit(user.id)) fail(403, NOT_YOURS[method] ?? 'Forbidden');
    return user;
  }

  const itemsKey = variant === '2026' ? 'items' : 'tracks';

  function entriesPage(
    req: EmulatorRequest,
    ctx: RenderContext,
    playlist: PlaylistRecord,
    path: string,
    offset: number,
    limit: number,
  ) {
    const entries = playlist.entries;
    const items = entries.slice(offset, offset + limit).map((entry) => playlistEntry(ctx, entry));
    // The page links keep the request's `additional_types`, as the service's do.
    const extra = { ...marketParam(req), additional_types: req.query.get('additional_types') ?? undefined };
    return paging(ctx.apiUrl, path, extra, offset, limit, entries.length, items);
  }

  const getPlaylist: Route['handle'] = (req, auth, [id = '']) => {
    const playlist = findPlaylist(id);
    requireReadable(playlist, auth);
    const ctx = render(req, auth);
    const body: Record<string, unknown> = {
      ...playlistHead(ctx, playlist),
      followers: { href: null, total: playlist.followers },
    };
    // Since 2026 items come only to the owner and collaborators.
    const showItems = variant === 'classic' || (auth.user !== undefined && playlist.canEdit(auth.user.id));
    if (showItems) {
      body[itemsKey] = entriesPage(
        req,
        ctx,
        playlist,
        `/v1/playlists/${playlist.id}/${itemsKey}`,
        0,
        LIMITS.playlistPageSize,
      );
    }
    return { status: 200, body };
  };

  const getPlaylistItems =
    (segment: 'tracks' | 'items'): Route['handle'] =>
    (req, auth, [id = '']) => {
      const playlist = findPlaylist(id);
      if (segment === 'items' && variant === '2026') {
        const user = requireUser(auth);
        if (!playlist.canEdit(user.id)) fail(403, 'Forbidden');
      } else requireReadable(playlist, auth);
      const ctx = render(req, auth);
      const { offset, limit } = pageParams(req, LIMITS.playlistPageSize, LIMITS.playlistPageSize);
      return {
        status: 200,
        body: entriesPage(req, ctx, playlist, `/v1/playlists/${playlist.id}/${segment}`, offset, limit),
      };
    };

  function newEntries(user: UserRecord, uris: unknown[]): Entry[] {
    const addedAt = new Date(state.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    return uris.map((uri) => {
      const match = typeof uri === 'string' ? ITEM_URI.exec(uri) : null;
      if (match === null) return fail(400, `Invalid track uri: ${String(uri)}`);
      const [, type, id = ''] = match;
      const exists = type === 'track' ? catalog.tracks.has(id) : catalog.episodes.has(id);
      if (!exists) fail(400, 'Payload contains a non-existing ID');
      return state.entry(uri as string, type === 'track' ? 'track' : 'episode', user.id, addedAt);
    });
  }

  /**
   * `uris` from the body or the query. Adding (POST), the query wins: the reference says body URIs
   * are ignored when the query has `uris`. Replacing (PUT), it says nothing of the kind, so the
   * body, the documented place for long lists, is read first.
   */
  function urisFrom(
    req: EmulatorRequest,
    body: Record<string, unknown>,
    tooMany: string,
    prefer: 'query' | 'body',
  ): unknown[] | undefined {
    const fromBody = Array.isArray(body['uris']) ? (body['uris'] as unknown[]) : undefined;
    const query = req.query.get('uris');
    const fromQuery = query === null ? undefined : query.split(',').filter((uri) => uri !== '');
    const uris = prefer === 'query' ? (fromQuery ?? fromBody) : (fromBody ?? fromQuery);
    if (uris !== undefined && uris.length > LIMITS.playlistItemsPerRequest) fail(400, tooMany);
    return uris;
  }

  function integerParam(value: unknown, name: string): number | undefined {
    if (value === undefined || value === null) return undefined;
    const number = typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
    if (typeof number !== 'number' || !Number.isInteger(number)) return fail(400, `Invalid ${name}`);
    return number;
  }

  const addItems: Route['handle'] = (req, auth, [id = '']) => {
    const playlist = findPlaylist(id);
    const user = requireEditable(playlist, auth, req.method);
    const body = jsonBody(req);
    const uris =
      urisFrom(req, body, 'You can add a maximum of 100 tracks per request.', 'query') ??
      fail(400, 'Missing required field: uris');
    const position = integerParam(body['position'] ?? req.query.get('position'), 'position');
    const current = playlist.entries;
    if (position !== undefined && (position < 0 || position > current.length))
      fail(400, 'Index out of bounds');
    const added = newEntries(user, uris);
    const at = position ?? current.length;
    const snapshot = playlist.commit([...current.slice(0, at), ...added, ...current.slice(at)]);
    return { status: 201, body: { snapshot_id: snapshot } };
  };

  function version(playlist: PlaylistRecord, snapshotId: unknown): Entry[] {
    if (typeof snapshotId !== 'string') return fail(400, 'Invalid snapshot id');
    return playlist.versions.get(snapshotId) ?? fail(400, 'Invalid snapshot id');
  }

  const updateItems: Route['handle'] = (req, auth, [id = '']) => {
    const playlist = findPlaylist(id);
    const user = requireEditable(playlist, auth, req.method);
    const body = jsonBody(req);
    if (body['range_start'] !== undefined || body['insert_before'] !== undefined) {
      const rangeStart =
        integerParam(body['range_start'], 'range_start') ?? fail(400, 'Missing required field: range_start');
      const insertBefore =
        integerParam(body['insert_before'], 'insert_before') ??
        fail(400, 'Missing required field: insert_before');
      const rangeLength = integerParam(body['range_length'], 'range_length') ?? 1;
      // Positions refer to the named version (the current one by default); the move applies to the current one.
      const base =
        body['snapshot_id'] === undefined ? playlist.entries : version(playlist, body['snapshot_id']);
      if (
        rangeStart < 0 ||
        rangeLength < 1 ||
        rangeStart + rangeLength > base.length ||
        insertBefore < 0 ||
        insertBefore > base.length
      ) {
        fail(400, 'Index out of bounds');
      }
      const moved = base.slice(rangeStart, rangeStart + rangeLength);
      const movedKeys = new Set(moved.map((entry) => entry.key));
      const anchor = base[insertBefore];
      if (anchor !== undefined && movedKeys.has(anchor.key)) {
        return { status: 200, body: { snapshot_id: playlist.commit([...playlist.entries]) } };
      }
      const current = playlist.entries;
      const stillThere = moved.filter((entry) => current.some((c) => c.key === entry.key));
      const rest = current.filter((entry) => !movedKeys.has(entry.key));
      const index = anchor === undefined ? rest.length : rest.findIndex((entry) => entry.key === anchor.key);
      const at = index === -1 ? rest.length : index;
      const snapshot = playlist.commit([...rest.slice(0, at), ...stillThere, ...rest.slice(at)]);
      return { status: 200, body: { snapshot_id: snapshot } };
    }
    const uris =
      urisFrom(req, body, 'You can set a maximum of 100 tracks per request.', 'body') ??
      fail(400, 'Missing required field: uris');
    const snapshot = playlist.commit(newEntries(user, uris));
    return { status: 200, body: { snapshot_id: snapshot } };
  };

  const removeItems =
    (key: 'tracks' | 'items'): Route['handle'] =>
    (req, auth, [id = '']) => {
      const playlist = findPlaylist(id);
      requireEditable(playlist, auth, req.method);
      const body = jsonBody(req);
      const list = body[key];
      if (!Array.isArray(list) || list.length === 0) return fail(400, `Missing required field: ${key}`);
      if (list.length > LIMITS.playlistItemsPerRequest)
        fail(400, 'You can remove a maximum of 100 tracks per request.');
      if (body['snapshot_id'] === undefined) fail(400, 'Missing required field: snapshot_id');
      const base = version(playlist, body['snapshot_id']);
      const doomed = new Set<number>();
      for (const item of list as unknown[]) {
        const uri =
          typeof item === 'object' && item !== null ? (item as Record<string, unknown>)['uri'] : undefined;
        if (typeof uri !== 'string' || !ITEM_URI.test(uri))
          return fail(400, `Invalid track uri: ${String(uri)}`);
        const positions = (item as Record<string, unknown>)['positions'];
        if (positions === undefined) {
          for (const entry of base) if (entry.uri === uri) doomed.add(entry.key);
          continue;
        }
        if (!Array.isArray(positions)) return fail(400, 'Invalid positions');
        for (const position of positions as unknown[]) {
          const entry =
            typeof position === 'number' && Number.isInteger(position) ? base[position] : undefined;
          // The items must be at those positions of the named version.
          if (entry?.uri !== uri) fail(400, 'Could not remove tracks, please check parameters.');
          else doomed.add(entry.key);
        }
      }
      // …and the removal applies to the current version, even if it has changed since.
      const snapshot = playlist.commit(playlist.entries.filter((entry) => !doomed.has(entry.key)));
      return { status: 200, body: { snapshot_id: snapshot } };
    };

  /**
   * Where the paging links of a member's playlists point. The service's answers to
   * `GET /v1/me/playlists` carry `href`/`next`/`previous` on `/v1/users/{id}/playlists` (recorded
   * answers, e.g. `"next" : "https://api.spotify.com/v1/users/jeganmatthews/playlists?offset=10&limit=10"`),
   * which serves the same list. Since 2026 that path is gone for development-mode apps; whether the
   * links changed with it is not known (not shown), so there they stay on `/v1/me/playlists`.
   */
  const myPlaylistsPath = (user: UserRecord) =>
    variant === '2026' ? '/v1/me/playlists' : `/v1/users/${user.id}/playlists`;

  const myPlaylists: Route['handle'] = (req, auth) => {
    const user = requireUser(auth);
    const { offset, limit } = pageParams(req, LIMITS.pageSize, 20, LIMITS.myPlaylistsMaxOffset);
    const ctx = render(req, auth);
    const withCollaborative = auth.token.scopes.has('playlist-read-collaborative');
    const visible = user.playlists
      .map((id) => state.playlists.get(id))
      .filter(
        (p): p is PlaylistRecord =>
          p !== undefined && (p.ownerId === user.id || !p.collaborative || withCollaborative),
      );
    const items = visible.slice(offset, offset + limit).map((p) => {
      const simple = playlistSimple(ctx, p, `/v1/playlists/${p.id}/${itemsKey}`);
      // Since 2026 `items` only on the playlists the user owns or collaborates on, as in GET
      // /v1/playlists/{id} (upstream-facts: "else absent").
      if (variant === '2026' && !p.canEdit(user.id)) delete simple[itemsKey];
      return simple;
    });
    return {
      status: 200,
      body: paging(ctx.apiUrl, myPlaylistsPath(user), {}, offset, limit, visible.length, items),
    };
  };

  /**
   * `GET /v1/users/{id}/playlists` (outside the contract, served because the member's playlists link
   * to it): for the token's own user the list `/v1/me/playlists` gives; for anyone else the public
   * playlists they own. Gone for development-mode apps in 2026 (upstream-facts).
   */
  const userPlaylists: Route['handle'] = (req, auth, [id = '']) => {
    if (auth.user?.id === id) {
      requireScope(auth, ['playlist-read-private']);
      return myPlaylists(req, auth, []);
    }
    const owner = state.users.get(id) ?? fail(404, 'Resource not found');
    const { offset, limit } = pageParams(req, LIMITS.pageSize, 20, LIMITS.myPlaylistsMaxOffset);
    const ctx = render(req, auth);
    const visible = owner.playlists
      .map((playlistId) => state.playlists.get(playlistId))
      .filter((p): p is PlaylistRecord => p !== undefined && p.ownerId === owner.id && p.isPublic === true);
    const items = visible
      .slice(offset, offset + limit)
      .map((p) => playlistSimple(ctx, p, `/v1/playlists/${p.id}/${itemsKey}`));
    return {
      status: 200,
      body: paging(ctx.apiUrl, `/v1/users/${owner.id}/playlists`, {}, offset, limit, visible.length, items),
    };
  };

  const me: Route['handle'] = (_req, auth) => {
    const user = requireUser(auth);
    const apiUrl = options.apiUrl();
    const body: Record<string, unknown> = {
      display_name: user.displayName,
      external_urls: { service: `https://open.service.example/user/${user.id}` },
      href: `${apiUrl}/v1/users/${user.id}`,
      id: user.id,
      images: [],
      type: 'user',
      uri: `${URI_SCHEME}:user:${user.id}`,
      account_id: createHash('sha256').update(`account:${user.id}`).digest('hex').slice(0, 24),
    };
    // Development-mode apps lost these in 2026; before, scopes decide.
    if (variant === 'classic') {
      body['followers'] = { href: null, total: user.followers };
      if (auth.token.scopes.has('user-read-private')) {
        body['country'] = user.country;
        body['product'] = user.product;
        body['explicit_content'] = { filter_enabled: user.explicitFilter, filter_locked: false };
      }
      if (auth.token.scopes.has('user-read-email')) body['email'] = user.email;
    }
    return { status: 200, body };
  };

  /**
   * Paths the contract does not list that the 2026 changes removed for development-mode apps, and
   * for which methods (none given: every method, where upstream-facts names only the path).
   * upstream-facts: "Removed: GET /artists (several), /artists/{id}/top-tracks, GET /albums
   * (several), /users/{id}[/playlists], /markets, browse", and "PUT/DELETE /me/albums (and tracks,
   * following…) removed → PUT/DELETE /v1/me/library …; GET /me/library/contains → [bool]".
   * Only the writes went: GET /me/tracks and GET /me/following stay, and get what any path this
   * emulator does not serve gets. The `…/contains` checks went with the writes, `/me/library/contains`
   * being the check that replaces them (the official changelog lists Check User's Saved Albums and
   * Tracks and Check If User Follows as removed). PUT/DELETE /me/albums are contract routes below.
   */
  const REMOVED_ELSEWHERE_IN_2026: readonly { methods?: readonly string[]; pattern: RegExp }[] = [
    { pattern: /^\/v1\/albums$/ },
    { pattern: /^\/v1\/users\/[^/]+$/ },
    { pattern: /^\/v1\/markets$/ },
    { pattern: /^\/v1\/browse(\/.*)?$/ },
    { methods: ['PUT', 'DELETE'], pattern: /^\/v1\/me\/(tracks|following)$/ },
    { methods: ['GET'], pattern: /^\/v1\/me\/(albums|tracks|following)\/contains$/ },
  ];
  const modify = ['playlist-modify-public', 'playlist-modify-private'];
  const P = '/v1/playlists/([^/]+)';
  const routes: Route[] = [
    { method: 'GET', pattern: /^\/v1\/albums\/([^/]+)$/, handle: getAlbum },
    { method: 'GET', pattern: /^\/v1\/albums\/([^/]+)\/tracks$/, handle: getAlbumTracks },
    { method: 'GET', pattern: /^\/v1\/artists$/, removedIn2026: true, handle: getSeveralArtists },
    { method: 'GET', pattern: /^\/v1\/artists\/([^/]+)$/, handle: getArtist },
    {
      method: 'GET',
      pattern: /^\/v1\/artists\/([^/]+)\/top-tracks$/,
      removedIn2026: true,
      handle: getTopTracks,
    },
    {
      method: 'PUT',
      pattern: /^\/v1\/me\/albums$/,
      user: true,
      scopes: ['user-library-modify'],
      removedIn2026: true,
      handle: changeSavedAlbums,
    },
    {
      method: 'DELETE',
      pattern: /^\/v1\/me\/albums$/,
      user: true,
      scopes: ['user-library-modify'],
      removedIn2026: true,
      handle: changeSavedAlbums,
    },
    { method: 'PUT', pattern: /^\/v1\/me\/library$/, user: true, handle: changeLibrary },
    { method: 'DELETE', pattern: /^\/v1\/me\/library$/, user: true, handle: changeLibrary },
    { method: 'GET', pattern: /^\/v1\/me\/library\/contains$/, user: true, handle: libraryContains },
    {
      method: 'GET',
      pattern: /^\/v1\/me\/player\/devices$/,
      user: true,
      scopes: ['user-read-playback-state'],
      handle: getDevices,
    },
    {
      method: 'PUT',
      pattern: /^\/v1\/me\/player\/pause$/,
      user: true,
      scopes: ['user-modify-playback-state'],
      handle: pause,
    },
    {
      method: 'POST',
      pattern: /^\/v1\/me\/player\/next$/,
      user: true,
      scopes: ['user-modify-playback-state'],
      handle: next,
    },
    {
      method: 'GET',
      pattern: /^\/v1\/me\/playlists$/,
      user: true,
      scopes: ['playlist-read-private'],
      handle: myPlaylists,
    },
    {
      method: 'GET',
      pattern: /^\/v1\/users\/([^/]+)\/playlists$/,
      removedIn2026: true,
      handle: userPlaylists,
    },
    { method: 'GET', pattern: /^\/v1\/me$/, user: true, handle: me },
    { method: 'GET', pattern: new RegExp(`^${P}$`), handle: getPlaylist },
    {
      method: 'GET',
      pattern: new RegExp(`^${P}/tracks$`),
      removedIn2026: true,
      handle: getPlaylistItems('tracks'),
    },
    {
      method: 'POST',
      pattern: new RegExp(`^${P}/tracks$`),
      user: true,
      scopes: modify,
      removedIn2026: true,
      handle: addItems,
    },
    {
      method: 'PUT',
      pattern: new RegExp(`^${P}/tracks$`),
      user: true,
      scopes: modify,
      removedIn2026: true,
      handle: updateItems,
    },
    {
      method: 'DELETE',
      pattern: new RegExp(`^${P}/tracks$`),
      user: true,
      scopes: modify,
      removedIn2026: true,
      handle: removeItems('tracks'),
    },
    {
      method: 'GET',
      pattern: new RegExp(`^${P}/items$`),
      user: true,
      scopes: ['playlist-read-private'],
      handle: getPlaylistItems('items'),
    },
    { method: 'POST', pattern: new RegExp(`^${P}/items$`), user: true, scopes: modify, handle: addItems },
    { method: 'PUT', pattern: new RegExp(`^${P}/items$`), user: true, scopes: modify, handle: updateItems },
    {
      method: 'DELETE',
      pattern: new RegExp(`^${P}/items$`),
      user: true,
      scopes: modify,
      handle: removeItems('items'),
    },
  ];

  return {
    handle: (req) => dispatch(req),
    challenge,
    endpointOf(method, path) {
      const known = routes.find((candidate) => candidate.method === method && candidate.pattern.test(path));
      return `${method} ${known === undefined ? path : template(known.pattern)}`;
    },
  };

  function dispatch(req: EmulatorRequest): Reply {
    const candidates = routes.filter((route) => route.pattern.test(req.path));
    if (candidates.length === 0) {
      // Endpoints outside the contract that 2026 took from development-mode apps: refused as the
      // service refuses them, after the token is checked. Before 2026 they are not emulated.
      const removed = REMOVED_ELSEWHERE_IN_2026.some(
        ({ methods, pattern }) =>
          (methods === undefined || methods.includes(req.method)) && pattern.test(req.path),
      );
      if (variant === '2026' && removed) {
        authenticate(req);
        fail(403, 'Forbidden');
      }
      fail(404, 'Service not found');
    }
    const route = candidates.find((candidate) => candidate.method === req.method);
    if (!route) {
      // A 405 names the methods the path takes (RFC 9110 §15.5.6).
      const allow = [...new Set(candidates.map((candidate) => candidate.method))].join(', ');
      throw new ApiFailure(405, 'Method not allowed', undefined, { allow });
    }
    const auth = authenticate(req);
    if (route.removedIn2026 && variant === '2026') fail(403, 'Forbidden');
    if (route.user) requireUser(auth);
    requireScope(auth, route.scopes ?? []);
    const params = (route.pattern.exec(req.path) ?? []).slice(1).map(decodePathParam);
    return route.handle(req, auth, params);
  }
}
