/**
 * The member's saved albums.
 *
 * `classic`: `PUT`/`DELETE /v1/me/albums`, ids in the JSON body (at most 50 a request; the query
 * form allows only 20 and would override the body, so it is never used).
 * `2026`: `PUT`/`DELETE /v1/me/library?uris=…`, at most 40 `service:album:<id>` URIs a request.
 */
import { chunk } from './batch.js';
import type { MusicContext } from './context.js';
import { requireId } from './context.js';
import { toMusicUri } from './refs.js';

/** Body `ids` per save/remove request (spec §8). */
export const MAX_LIBRARY_BODY_IDS = 50;
/** Query `ids` per save/remove request (spec §8); not used, see above. */
export const MAX_LIBRARY_QUERY_IDS = 20;
/** `uris` per `/v1/me/library` request (2026). */
export const MAX_LIBRARY_URIS = 40;

export interface LibraryApi {
  /** Saves albums to the member's library, in as many requests as the limits need. */
  saveAlbums(userId: string, albums: readonly string[]): Promise<void>;
  /** Removes albums from the member's library. */
  removeAlbums(userId: string, albums: readonly string[]): Promise<void>;
}

export function createLibraryApi(ctx: MusicContext): LibraryApi {
  async function change(method: 'PUT' | 'DELETE', userId: string, albums: readonly string[]): Promise<void> {
    const ids = [...new Set(albums.map((album) => requireId(album, 'album')))];
    const caller = { userId };
    if (ctx.variant === '2026') {
      for (const ids40 of chunk(ids, MAX_LIBRARY_URIS)) {
        const uris = ids40.map((id) => toMusicUri('album', id, ctx.uriScheme)).join(',');
        await ctx.empty(caller, { method, url: '/v1/me/library', query: { uris } });
      }
      return;
    }
    for (const ids50 of chunk(ids, MAX_LIBRARY_BODY_IDS)) {
      await ctx.empty(caller, { method, url: '/v1/me/albums', json: { ids: ids50 } });
    }
  }

  return {
    saveAlbums: (userId, albums) => change('PUT', userId, albums),
    removeAlbums: (userId, albums) => change('DELETE', userId, albums),
  };
}
