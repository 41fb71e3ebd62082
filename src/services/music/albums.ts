/** Albums: `GET /v1/albums/{id}` and `GET /v1/albums/{id}/tracks`. Catalog calls, with the application token. */
import type { MusicContext } from './context.js';
import { pageQuery, requireId } from './context.js';
import type { Page, PageRequest } from './paging.js';
import { albumSchema, albumTracksSchema, type Album, type SimplifiedTrack } from './schemas.js';

export interface AlbumsApi {
  /** One album with its first page of tracks (registered, so `paging.iterate(album.tracks)` continues it). */
  get(album: string, options?: { market?: string }): Promise<Album>;
  /** One page of an album's tracks. */
  tracks(album: string, page: PageRequest, options?: { market?: string }): Promise<Page<SimplifiedTrack>>;
}

export function createAlbumsApi(ctx: MusicContext): AlbumsApi {
  return {
    async get(album, options = {}) {
      const id = requireId(album, 'album');
      const result = await ctx.json(
        'app',
        { url: `/v1/albums/${id}`, query: { market: ctx.market('app', options.market) } },
        albumSchema,
      );
      ctx.adopt('app', result.tracks, albumTracksSchema);
      return result;
    },
    tracks(album, page, options = {}) {
      const id = requireId(album, 'album');
      return ctx.page(
        'app',
        {
          url: `/v1/albums/${id}/tracks`,
          query: pageQuery(page, { market: ctx.market('app', options.market) }),
        },
        albumTracksSchema,
      );
    },
  };
}
