/**
 * What every resource module shares: the transport, the token sources, the market rule, error
 * re-typing and page registration.
 */
import type { z } from 'zod';
import type { QueryValue, RequestSpec, Transport } from '../http/transport.js';
import type { AppTokenSource } from './app-token.js';
import {
  AppCredentialsError,
  endpointRemovedError,
  InvalidMusicRefError,
  MusicAuthError,
  toMusicError,
} from './errors.js';
import type { Page, PageRequest, PagingRegistry } from './paging.js';
import { parseMusicRef, type MusicRefType } from './refs.js';

/** `classic`: the spec's paths. `2026`: a development-mode app after the 2026 changes (upstream-facts.md). */
export type MusicApiVariant = 'classic' | '2026';

/**
 * Whose token a call carries: the application's (catalog), a member's, or a token in hand (account
 * linking reads the profile before the token is stored).
 */
export type Caller = 'app' | { readonly userId: string } | { readonly accessToken: string };

export interface MusicContext {
  readonly variant: MusicApiVariant;
  readonly apiUrl: string;
  readonly uriScheme: string;
  readonly defaultMarket: string;
  readonly paging: PagingRegistry;
  json<S extends z.ZodType>(caller: Caller, spec: RequestSpec, schema: S): Promise<z.output<S>>;
  empty(caller: Caller, spec: RequestSpec): Promise<void>;
  /** Fetches a paging object and registers it, so `paging.fetch`/`paging.iterate` can continue it. */
  page<T>(caller: Caller, spec: RequestSpec, schema: z.ZodType<Page<T>, unknown>): Promise<Page<T>>;
  /** Registers a paging object that came embedded in another answer (an album's tracks…). */
  adopt<T>(caller: Caller, page: Page<T>, schema: z.ZodType<Page<T>, unknown>): Page<T>;
  /**
   * The market rule: with a member's token the account's country wins, so an explicit market is
   * passed through as is and none is added; with the application token there is no account country
   * and the spec says content is then "treated as unavailable", so the default market is sent.
   */
  market(caller: Caller, market: string | undefined): string | undefined;
}

export interface ContextOptions {
  variant: MusicApiVariant;
  apiUrl: string;
  uriScheme: string;
  defaultMarket: string;
  transport: Transport;
  appToken: AppTokenSource;
  /** See `MusicClientOptions.getAccessToken`. */
  getAccessToken: (userId: string, rejected?: string) => Promise<string>;
  paging: PagingRegistry;
}

export function createContext(options: ContextOptions): MusicContext {
  const { transport, appToken, getAccessToken, apiUrl } = options;

  async function authorized<R>(
    caller: Caller,
    spec: RequestSpec,
    send: (spec: RequestSpec) => Promise<R>,
  ): Promise<R> {
    const withToken = (token: string): RequestSpec => ({
      ...spec,
      baseUrl: apiUrl,
      headers: { ...spec.headers, authorization: `Bearer ${token}` },
    });
    try {
      if (caller !== 'app' && 'accessToken' in caller) return await send(withToken(caller.accessToken));
      if (caller !== 'app') {
        const token = await getAccessToken(caller.userId);
        try {
          return await send(withToken(token));
        } catch (error) {
          const typed = toMusicError(error);
          if (!(typed instanceof MusicAuthError)) throw typed;
          // The service refused a token we held for valid (revoked, or expired early): one refresh,
          // one more try. A refresh the service refuses asks the member to link again.
          return await send(withToken(await getAccessToken(caller.userId, token)));
        }
      }
      const token = await appToken.get();
      try {
        return await send(withToken(token));
      } catch (error) {
        const typed = toMusicError(error);
        if (!(typed instanceof MusicAuthError)) throw typed;
        // The app token was revoked or expired early: one fresh token, one more try.
        appToken.invalidate(token);
        try {
          return await send(withToken(await appToken.get()));
        } catch (retryError) {
          const retyped = toMusicError(retryError);
          // A token the service has just issued, refused as well: the app itself is not allowed
          // (removed, or its credentials no longer good). Linking again cannot mend that, so this
          // is not the member's link problem but the owner's.
          if (retyped instanceof MusicAuthError)
            throw new AppCredentialsError('it refuses a token it has just issued', { cause: retyped });
          throw retyped;
        }
      }
    } catch (error) {
      throw retype(error, spec);
    }
  }

  /**
   * The music meaning of a failure. Speaking the spec's paths, a bare 403 on one the service removed
   * in 2026 says which setting to change rather than looking like a permission problem.
   */
  function retype(error: unknown, spec: RequestSpec): unknown {
    const typed = toMusicError(error);
    if (options.variant !== 'classic') return typed;
    const pathname = new URL(spec.url, `${apiUrl}/`).pathname;
    return endpointRemovedError(typed, spec.method ?? 'GET', pathname) ?? typed;
  }

  const context: MusicContext = {
    variant: options.variant,
    apiUrl,
    uriScheme: options.uriScheme,
    defaultMarket: options.defaultMarket,
    paging: options.paging,
    json: (caller, spec, schema) => authorized(caller, spec, (s) => transport.json(s, schema)),
    empty: (caller, spec) => authorized(caller, spec, (s) => transport.empty(s)),
    async page(caller, spec, schema) {
      const page = await context.json(caller, spec, schema);
      return context.adopt(caller, page, schema);
    },
    adopt(caller, page, schema) {
      return options.paging.register(page, (url) => context.page(caller, { url }, schema));
    },
    market(caller, market) {
      return caller === 'app' ? (market ?? options.defaultMarket) : market;
    },
  };
  return context;
}

/** The caller for an optional member: their token when given, the application's otherwise. */
export function callerFor(userId: string | undefined): Caller {
  return userId === undefined ? 'app' : { userId };
}

/** An id from an id, URI or link; throws `InvalidMusicRefError` otherwise. */
export function requireId(input: string, type: MusicRefType): string {
  const id = parseMusicRef(input, type);
  if (id === undefined) throw new InvalidMusicRefError(type, input);
  return id;
}

/** Query parameters for a page. */
export function pageQuery(
  page: PageRequest,
  extra: Record<string, QueryValue> = {},
): Record<string, QueryValue> {
  return { ...extra, offset: page.offset, limit: page.limit };
}
