/**
 * The member's saved albums.
 *
 * `classic`: `PUT`/`DELETE /v1/me/albums?ids=…`, at most 20 ids a request. The spec gives the
 * query `ids` as required and the body's `ids` (up to 50) as optional and ignored beside it; the
 * real service takes either, but a service that keeps to the contract refuses a request without
 * the query, so the query is what is sent. (A save from the bot is one album, so the smaller
 * chunks cost nothing in practice.)
 * `2026`: `PUT`/`DELETE /v1/me/library?uris=…`, at most 40 `service:album:<id>` URIs a request.
 *
 * The service applies each request on its own: when one after the first fails, the earlier ones
 * stay applied, and the error says how many (`IncompleteChangeError`).
 */
import { chunk } from './batch.js';
import type { MusicContext } from './context.js';
import { requireId } from './context.js';
import { IncompleteChangeError } from './errors.js';
import { toMusicUri } from './refs.js';

/** Query `ids` per save/remove request (spec §8). */
export const MAX_LIBRARY_QUERY_IDS = 20;
/** `uris` per `/v1/me/library` request (2026). */
export const MAX_LIBRARY_URIS = 40;

export interface LibraryApi {
  /**
   * Saves albums to the member's library, in as many requests as the limits need (duplicates sent
   * once). When a request after the first fails, rejects with `IncompleteChangeError`.
   */
  saveAlbums(userId: string, albums: readonly string[]): Promise<void>;
  /** Removes albums from the member's library; batched, and failing part-way, as `saveAlbums`. */
  removeAlbums(userId: string, albums: readonly string[]): Promise<void>;
}

export function createLibraryApi(ctx: MusicContext): LibraryApi {
  async function change(method: 'PUT' | 'DELETE', userId: string, albums: readonly string[]): Promise<void> {
    const ids = [...new Set(albums.map((album) => requireId(album, 'album')))];
    const caller = { userId };
    const send =
      ctx.variant === '2026'
        ? (part: string[]) =>
            ctx.empty(caller, {
              method,
              url: '/v1/me/library',
              query: { uris: part.map((id) => toMusicUri('album', id, ctx.uriScheme)).join(',') },
            })
        : (part: string[]) =>
            ctx.empty(caller, { method, url: '/v1/me/albums', query: { ids: part.join(',') } });
    let applied = 0;
    for (const part of chunk(ids, ctx.variant === '2026' ? MAX_LIBRARY_URIS : MAX_LIBRARY_QUERY_IDS)) {
      try {
        await send(part);
      } catch (error) {
        if (applied === 0) throw error;
        throw new IncompleteChangeError(
          applied,
          ids.length,
          error,
          method === 'PUT' ? 'albums-save' : 'albums-remove',
        );
      }
      applied += part.length;
    }
  }

  return {
    saveAlbums: (userId, albums) => change('PUT', userId, albums),
    removeAlbums: (userId, albums) => change('DELETE', userId, albums),
  };
}
