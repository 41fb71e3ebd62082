/**
 * Playlists: read, list, and change items.
 *
 * `classic` uses the spec's `/v1/playlists/{id}/tracks` (DELETE body key `tracks`); `2026` uses
 * `/v1/playlists/{id}/items` (DELETE body key `items`) and reads the renamed `items`/`item` fields,
 * which the schemas normalise back to `tracks`/`track`.
 *
 * The service applies each request on its own. Adding over 100 items takes several requests: if
 * one fails, the earlier ones stay applied, and the error says how many (`IncompleteChangeError`).
 * A replacement is one request, so at most 100 items: a second request could fail after the first
 * had overwritten everything.
 */
import { chunk, chunkPositions } from './batch.js';
import type { MusicContext } from './context.js';
import { callerFor, pageQuery, requireId } from './context.js';
import { EndpointUnavailableError, IncompleteChangeError } from './errors.js';
import { sliceOf, type Page, type PageRequest } from './paging.js';
import {
  myPlaylistsSchema,
  playlistItemsSchema,
  playlistSchema,
  snapshotSchema,
  type Playlist,
  type PlaylistEntry,
  type SimplifiedPlaylist,
} from './schemas.js';

/** `uris` / `tracks` per playlist request (spec §8). */
export const MAX_PLAYLIST_ITEMS_PER_REQUEST = 100;

/** An item to remove: its URI, and optionally its positions in the version named by the snapshot. */
export type PlaylistItemToRemove = string | { uri: string; positions?: number[] };

export interface ReorderOptions {
  /** Position of the first item to move. */
  rangeStart: number;
  /** Where the items go; the playlist's length for the end. */
  insertBefore: number;
  /** How many items move (1 when omitted). */
  rangeLength?: number;
  /** The version the positions refer to. */
  snapshotId?: string;
}

export interface PlaylistsApi {
  /**
   * A playlist with its first page of items (registered, so `paging.iterate(playlist.tracks)` works).
   * With `userId` the member's token is used (needed for private playlists, and since 2026 to see
   * items at all); otherwise the application token.
   */
  get(playlist: string, options?: { market?: string; userId?: string }): Promise<Playlist>;
  /**
   * One page of a playlist's items: one request whatever the offset. Under `2026` it needs the
   * `userId` of the owner or a collaborator (`EndpointUnavailableError` without one).
   */
  items(
    playlist: string,
    page: PageRequest,
    options?: { userId?: string; market?: string },
  ): Promise<Page<PlaylistEntry>>;
  /** One page of the member's playlists. */
  mine(userId: string, page: PageRequest): Promise<Page<SimplifiedPlaylist>>;
  /**
   * Adds items in the order given, at `position` (appended when omitted), 100 per request; each
   * chunk goes right after the previous one. Resolves to the last snapshot id, `undefined` when
   * `uris` is empty. When a request after the first fails, rejects with `IncompleteChangeError`
   * (the earlier chunks stay added); when the first fails, with its own error (nothing added).
   */
  addItems(
    userId: string,
    playlist: string,
    uris: readonly string[],
    options?: { position?: number },
  ): Promise<string | undefined>;
  /**
   * Removes items, 100 per request, every request against `snapshotId`. Items named by URI alone
   * go in every copy; the contract's service checks `positions` against that version, but the real
   * one has ignored them since 2024 (see the domain's `copiesOf`).
   */
  removeItems(
    userId: string,
    playlist: string,
    items: readonly PlaylistItemToRemove[],
    snapshotId: string,
  ): Promise<string | undefined>;
  /** Moves `rangeLength` items from `rangeStart` to before `insertBefore`. */
  reorder(userId: string, playlist: string, options: ReorderOptions): Promise<string>;
  /**
   * Replaces every item, in one request: at most `MAX_PLAYLIST_ITEMS_PER_REQUEST` items (a
   * `RangeError` for more, before anything is sent). An empty list clears the playlist.
   */
  replaceItems(userId: string, playlist: string, uris: readonly string[]): Promise<string>;
}

export function createPlaylistsApi(ctx: MusicContext): PlaylistsApi {
  const itemsPath = (id: string) => `/v1/playlists/${id}/${ctx.variant === '2026' ? 'items' : 'tracks'}`;
  const removalKey = ctx.variant === '2026' ? 'items' : 'tracks';

  async function add(userId: string, id: string, uris: readonly string[], position: number | undefined) {
    const chunks = chunk(uris, MAX_PLAYLIST_ITEMS_PER_REQUEST);
    const positions = chunkPositions(position, chunks.length, MAX_PLAYLIST_ITEMS_PER_REQUEST);
    let snapshot: string | undefined;
    let applied = 0;
    for (const [index, part] of chunks.entries()) {
      const at = positions[index];
      const body = at === undefined ? { uris: part } : { uris: part, position: at };
      try {
        ({ snapshot_id: snapshot } = await ctx.json(
          { userId },
          { method: 'POST', url: itemsPath(id), json: body },
          snapshotSchema,
        ));
      } catch (error) {
        if (applied === 0) throw error;
        throw new IncompleteChangeError(applied, uris.length, error);
      }
      applied += part.length;
    }
    return snapshot;
  }

  /**
   * The member's playlists come with `href`, `next` and `previous` on `/v1/users/{id}/playlists`
   * (answers recorded from the service), a path development-mode apps lost in 2026 (upstream-facts):
   * another page is asked for with that link's offset and limit on `/v1/me/playlists`, the path
   * the bot is granted, rather than on the link's own path.
   */
  async function myPlaylists(userId: string, page: PageRequest): Promise<Page<SimplifiedPlaylist>> {
    const caller = { userId };
    const answer = await ctx.json(
      caller,
      { url: '/v1/me/playlists', query: pageQuery(page) },
      myPlaylistsSchema,
    );
    return ctx.paging.register(answer, (url) => myPlaylists(userId, sliceOf(url)));
  }

  return {
    async get(playlist, options = {}) {
      const id = requireId(playlist, 'playlist');
      const caller = callerFor(options.userId);
      const result = await ctx.json(
        caller,
        { url: `/v1/playlists/${id}`, query: { market: ctx.market(caller, options.market) } },
        playlistSchema,
      );
      if (result.tracks !== undefined) ctx.adopt(caller, result.tracks, playlistItemsSchema);
      return result;
    },

    async items(playlist, page, options = {}) {
      const id = requireId(playlist, 'playlist');
      if (ctx.variant === '2026' && options.userId === undefined) {
        throw new EndpointUnavailableError(
          'playlists.items',
          'since 2026 only the owner or a collaborator may read items; pass their userId',
        );
      }
      const caller = callerFor(options.userId);
      return ctx.page(
        caller,
        { url: itemsPath(id), query: pageQuery(page, { market: ctx.market(caller, options.market) }) },
        playlistItemsSchema,
      );
    },

    mine: (userId, page) => myPlaylists(userId, page),

    addItems: (userId, playlist, uris, options = {}) =>
      add(userId, requireId(playlist, 'playlist'), uris, options.position),

    async removeItems(userId, playlist, items, snapshotId) {
      const id = requireId(playlist, 'playlist');
      let snapshot: string | undefined;
      for (const part of chunk(items, MAX_PLAYLIST_ITEMS_PER_REQUEST)) {
        const body = {
          [removalKey]: part.map((item) => (typeof item === 'string' ? { uri: item } : item)),
          snapshot_id: snapshotId,
        };
        ({ snapshot_id: snapshot } = await ctx.json(
          { userId },
          { method: 'DELETE', url: itemsPath(id), json: body },
          snapshotSchema,
        ));
      }
      return snapshot;
    },

    async reorder(userId, playlist, options) {
      const id = requireId(playlist, 'playlist');
      const body: Record<string, unknown> = {
        range_start: options.rangeStart,
        insert_before: options.insertBefore,
      };
      if (options.rangeLength !== undefined) body['range_length'] = options.rangeLength;
      if (options.snapshotId !== undefined) body['snapshot_id'] = options.snapshotId;
      const result = await ctx.json(
        { userId },
        // A move sent twice moves twice: never retried (see `RequestSpec.idempotent`).
        { method: 'PUT', url: itemsPath(id), json: body, idempotent: false },
        snapshotSchema,
      );
      return result.snapshot_id;
    },

    async replaceItems(userId, playlist, uris) {
      const id = requireId(playlist, 'playlist');
      if (uris.length > MAX_PLAYLIST_ITEMS_PER_REQUEST) {
        throw new RangeError(
          `a replacement takes at most ${MAX_PLAYLIST_ITEMS_PER_REQUEST} items (one request), got ${uris.length}`,
        );
      }
      const replaced = await ctx.json(
        { userId },
        { method: 'PUT', url: itemsPath(id), json: { uris } },
        snapshotSchema,
      );
      return replaced.snapshot_id;
    },
  };
}
