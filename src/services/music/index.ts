/**
 * The music service client, grouped by resource: `music.albums.get(id)`,
 * `music.playlists.addItems(...)`. Built from base URLs, the app's credentials and a
 * `getAccessToken(userId)` function; it never stores a member's token itself.
 */
import { createMemoryRateGate } from '../http/rate-gate.js';
import { Transport, type RateLimitGate, type TransportOptions } from '../http/transport.js';
import { AppTokenSource } from './app-token.js';
import { createAlbumsApi, type AlbumsApi } from './albums.js';
import { createArtistsApi, type ArtistsApi } from './artists.js';
import { createContext, type MusicApiVariant } from './context.js';
import { describeMusicError } from './errors.js';
import { createLibraryApi, type LibraryApi } from './library.js';
import { PagingRegistry, type Page, type PageRequest } from './paging.js';
import { createPlayerApi, type PlayerApi } from './player.js';
import { createPlaylistsApi, type PlaylistsApi } from './playlists.js';
import { DEFAULT_URI_SCHEME, toMusicUri, type MusicRefType } from './refs.js';
import { createUsersApi, type UsersApi } from './users.js';

export interface MusicClientOptions {
  /** The API host, e.g. `https://api.<service>.com`; paths start with `/v1/`. */
  apiUrl: string;
  /** The accounts host; the token endpoint is `{authUrl}/api/token`. */
  authUrl: string;
  clientId: string;
  clientSecret: string;
  variant: MusicApiVariant;
  /**
   * A member's current access token (refreshed by the caller when needed). After a 401 it is asked
   * once more with the refused token as `rejected`, and should then hand back a refreshed one.
   */
  getAccessToken: (userId: string, rejected?: string) => Promise<string>;
  /** Transport settings; `service`, `describeError` and `secrets` are filled in (secrets are merged). */
  transport?: Partial<TransportOptions>;
  /**
   * The pause every call honours after a 429. Pass `createStorageRateGate(store, 'music')` so that
   * every process of the bot pauses together; by default the pause is shared by this client's calls
   * only.
   */
  rateGate?: RateLimitGate;
  /** The clock for the application token's expiry and for rate-limit pauses. */
  now?: () => number;
  /**
   * Market sent with catalog calls made with the application token when the caller gives none.
   * The spec treats content as unavailable when there is neither a market nor a user country, so
   * some market must be sent; pick the one most members are in.
   */
  defaultMarket?: string;
  /** Scheme of resource URIs, `service` in the spec (`service:album:<id>`). */
  uriScheme?: string;
}

/** Defaults for the optional settings of `createMusicClient`. */
export const DEFAULT_MUSIC_OPTIONS = {
  defaultMarket: 'US',
  uriScheme: DEFAULT_URI_SCHEME,
  /** Renew the application token this long before it expires. */
  renewBeforeMs: 60_000,
  /** 429 with a `Retry-After` up to this long is waited out; longer fails at once with `RateLimitError`. */
  maxRateLimitWaitMs: 5_000,
} as const satisfies Required<Pick<MusicClientOptions, 'defaultMarket' | 'uriScheme'>> & {
  renewBeforeMs: number;
  maxRateLimitWaitMs: number;
};

export interface MusicClient {
  readonly variant: MusicApiVariant;
  readonly albums: AlbumsApi;
  readonly artists: ArtistsApi;
  readonly library: LibraryApi;
  readonly player: PlayerApi;
  readonly playlists: PlaylistsApi;
  readonly users: UsersApi;
  /** The service's URI for an object, `<scheme>:<type>:<id>`, with this client's `uriScheme`. */
  readonly uri: (type: MusicRefType, id: string) => string;
  readonly paging: {
    /** Another slice of the list `page` came from: exactly one request, whatever the offset. */
    fetch<T>(page: Page<T>, at: PageRequest): Promise<Page<T>>;
    /** Items of `first` and of the following pages, fetched lazily through `next`; at most `max` (10,000) items. */
    iterate<T>(first: Page<T>, options?: { max?: number }): AsyncGenerator<T, void, undefined>;
  };
  /** Releases the connection pool. */
  close(): Promise<void>;
}

export function createMusicClient(options: MusicClientOptions): MusicClient {
  const apiUrl = options.apiUrl.replace(/\/+$/, '');
  const authUrl = options.authUrl.replace(/\/+$/, '');
  const now = options.now ?? Date.now;
  const extra = options.transport ?? {};
  const clock = extra.now ?? now;
  const transport: Transport = new Transport({
    ...extra,
    service: 'music',
    describeError: extra.describeError ?? describeMusicError,
    rateLimit: { maxWaitMs: DEFAULT_MUSIC_OPTIONS.maxRateLimitWaitMs, ...extra.rateLimit },
    gate: options.rateGate ?? extra.gate ?? createMemoryRateGate(clock),
    now: clock,
    secrets: (): string[] => {
      const known = [options.clientSecret, ...(extra.secrets?.() ?? [])];
      // Called only when an error is built, by which time appToken exists.
      const current = appToken.current();
      return current === undefined ? known : [...known, current];
    },
  });
  const appToken: AppTokenSource = new AppTokenSource({
    transport,
    authUrl,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    now,
    renewBeforeMs: DEFAULT_MUSIC_OPTIONS.renewBeforeMs,
  });
  const paging = new PagingRegistry(new URL(apiUrl).origin);
  const ctx = createContext({
    variant: options.variant,
    apiUrl,
    uriScheme: options.uriScheme ?? DEFAULT_MUSIC_OPTIONS.uriScheme,
    defaultMarket: options.defaultMarket ?? DEFAULT_MUSIC_OPTIONS.defaultMarket,
    transport,
    appToken,
    getAccessToken: options.getAccessToken,
    paging,
  });

  return {
    variant: options.variant,
    albums: createAlbumsApi(ctx),
    artists: createArtistsApi(ctx),
    library: createLibraryApi(ctx),
    player: createPlayerApi(ctx),
    playlists: createPlaylistsApi(ctx),
    users: createUsersApi(ctx),
    uri: (type, id) => toMusicUri(type, id, ctx.uriScheme),
    paging: {
      fetch: (page, at) => paging.fetch(page, at),
      iterate: (first, iterateOptions) => paging.iterate(first, iterateOptions),
    },
    close: () => transport.close(),
  };
}

export type { MusicApiVariant } from './context.js';
export type { AlbumsApi } from './albums.js';
export type { ArtistsApi } from './artists.js';
export type { LibraryApi } from './library.js';
export type { PlayerApi } from './player.js';
export type { PlaylistsApi, PlaylistItemToRemove, ReorderOptions } from './playlists.js';
export type { UsersApi } from './users.js';
export { MAX_ARTIST_IDS } from './artists.js';
export { MAX_LIBRARY_QUERY_IDS, MAX_LIBRARY_URIS } from './library.js';
export { MAX_PLAYLIST_ITEMS_PER_REQUEST } from './playlists.js';
export { chunk, chunkPositions } from './batch.js';
export {
  DEFAULT_ITERATE_MAX,
  MAX_PAGE_SIZE,
  pageCount,
  pageOf,
  pageUrl,
  type Page,
  type PageRequest,
} from './paging.js';
export {
  DEFAULT_URI_SCHEME,
  isMusicId,
  parseMusicRef,
  toMusicUri,
  unwrapRef,
  type MusicRefType,
} from './refs.js';
export {
  createMemoryRateGate,
  createStorageRateGate,
  type StorageRateGateOptions,
} from '../http/rate-gate.js';
export type { RateLimitGate } from '../http/transport.js';
export * from './errors.js';
export * from './schemas.js';
