/**
 * Artists. Catalog calls, with the application token.
 *
 * Under the `2026` variant a development-mode app has lost `GET /v1/artists` (several) and
 * `GET /v1/artists/{id}/top-tracks`: `several` falls back to one `GET /v1/artists/{id}` per id
 * (a few at a time), and `topTracks` fails with `EndpointUnavailableError` without a request.
 */
import { chunk, mapLimit } from './batch.js';
import type { MusicContext } from './context.js';
import { requireId } from './context.js';
import { EndpointUnavailableError, NotFoundError } from './errors.js';
import { parseMusicRef } from './refs.js';
import { artistSchema, severalArtistsSchema, topTracksSchema, type Artist, type Track } from './schemas.js';

/** `ids` per `GET /v1/artists` (spec §8). */
export const MAX_ARTIST_IDS = 50;
/** Requests in flight at once when one request per chunk or per id is needed. */
const CONCURRENCY = 4;

export interface ArtistsApi {
  get(artist: string): Promise<Artist>;
  /**
   * Many artists, in the order asked, `null` in place of any id (or unreadable reference) the
   * service does not know. Chunks of at most 50 ids.
   */
  several(artists: readonly string[]): Promise<(Artist | null)[]>;
  /** An artist's top tracks in a market (required: without one, nothing is available). */
  topTracks(artist: string, options: { market: string }): Promise<Track[]>;
}

export function createArtistsApi(ctx: MusicContext): ArtistsApi {
  const get = (id: string) => ctx.json('app', { url: `/v1/artists/${id}` }, artistSchema);

  return {
    get: (artist) => get(requireId(artist, 'artist')),

    async several(artists) {
      const ids = artists.map((ref) => parseMusicRef(ref, 'artist'));
      const known = ids.filter((id): id is string => id !== undefined);
      const unique = [...new Set(known)];
      const found = new Map<string, Artist | null>();
      if (ctx.variant === '2026') {
        const results = await mapLimit(unique, CONCURRENCY, async (id) => {
          try {
            return await get(id);
          } catch (error) {
            if (error instanceof NotFoundError) return null;
            throw error;
          }
        });
        unique.forEach((id, index) => found.set(id, results[index] ?? null));
      } else {
        const chunks = chunk(unique, MAX_ARTIST_IDS);
        const answers = await mapLimit(chunks, CONCURRENCY, (ids) =>
          ctx.json('app', { url: '/v1/artists', query: { ids: ids.join(',') } }, severalArtistsSchema),
        );
        chunks.forEach((ids, c) => ids.forEach((id, i) => found.set(id, answers[c]?.artists[i] ?? null)));
      }
      return ids.map((id) => (id === undefined ? null : (found.get(id) ?? null)));
    },

    async topTracks(artist, options) {
      const id = requireId(artist, 'artist');
      if (ctx.variant === '2026') {
        throw new EndpointUnavailableError(
          'artists.topTracks',
          'the service removed top tracks for development-mode apps in 2026',
        );
      }
      const result = await ctx.json(
        'app',
        { url: `/v1/artists/${id}/top-tracks`, query: { market: ctx.market('app', options.market) } },
        topTracksSchema,
      );
      return result.tracks;
    },
  };
}
