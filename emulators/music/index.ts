/**
 * A local, spec-faithful stand-in for the music service: the `/v1` API and the accounts host on one
 * node:http server, seeded with a deterministic catalog, users, devices and playlists, plus a
 * driver for tests (approve a consent, issue or expire tokens, inject 429s of every seen shape and
 * failures, count requests, inspect playlists and players).
 *
 * Behaviour comes from the spec and upstream-facts.md only; where both are silent the choice is
 * written next to the code that makes it.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAccounts, type IssuedToken, type RefreshTokenRotation } from './accounts.js';
import { createApi } from './api.js';
import type { CatalogFixtures } from './catalog.js';
import {
  ApiFailure,
  matchesPath,
  readRequest,
  writeReply,
  type EmulatorRequest,
  type PathMatcher,
  type Reply,
} from './http.js';
import type { Variant } from './render.js';
import { EmulatorState, type CreateUserInput, type DeviceRecord, type SeedFixtures } from './state.js';

export { s256 } from './accounts.js';
export type { IssuedToken, RefreshTokenRotation } from './accounts.js';
export { LIMITS } from './api.js';
export { SCOPES, URI_SCHEME } from './state.js';
export type { CreateUserInput } from './state.js';

export interface MusicEmulatorOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  host?: string;
  clientId?: string;
  clientSecret?: string;
  /**
   * Registered redirect URIs: HTTPS, or `http://127.0.0.1:PORT` / `http://[::1]:PORT`; `localhost` is
   * refused. A loopback one is taken at authorize with any port (RFC 8252 §7.3).
   */
  redirectUris?: string[];
  variant?: Variant;
  /** The clock for token, code and refresh-token lifetimes, and for the rolling rate-limit window. */
  now?: () => number;
  seed?: 'default' | 'empty';
  /**
   * A rate limit over a rolling window, as the real service has (per app, 30 s window): at most
   * `requests` `/v1/` requests served in any `windowMs`; beyond that 429 with `Retry-After` saying
   * when the oldest one leaves the window. `null` (the default): no limit.
   */
  rateLimit?: RollingRateLimit | null;
  /**
   * Which refresh tokens rotate (single use, a new one in every answer): PKCE ones only (the
   * documented behaviour, the default) or every one.
   */
  refreshTokenRotation?: RefreshTokenRotation;
}

export interface FailNextOptions {
  /** The API's `message`; on the token endpoint, the `error_description`. */
  message?: string;
  /** The player's `reason` (API paths only). */
  reason?: string;
  /**
   * Token endpoint only: the RFC 6749 §5.2 `error` code. By default one that fits the status
   * (`invalid_request`, `temporarily_unavailable` for 429 and 503, `server_error`).
   */
  error?: string;
  /**
   * Only for a 429: the `Retry-After` it carries, in seconds; `null` for none (the service sometimes
   * sends none, upstream-facts).
   */
  retryAfterSeconds?: number | null;
  /** No body at all, as some of the service's 429s come (upstream-facts). Off by default. */
  emptyBody?: boolean;
}

export interface RateLimitOptions {
  /** The `Retry-After` of each 429, in seconds; `null` for none. */
  retryAfterSeconds: number | null;
  count: number;
  /** Any `/v1/` request when absent. */
  path?: PathMatcher;
  /** No body instead of `{"error":{"status":429,"message":"API rate limit exceeded"}}`. Off by default. */
  emptyBody?: boolean;
}

export interface QuotaOptions {
  count: number;
  /** Any `/v1/` request when absent; only `/v1/` requests ever match. */
  path?: PathMatcher;
  /** A `Retry-After` to send with it; none by default. */
  retryAfterSeconds?: number;
}

/**
 * The development-mode quota's answer (Jul 2026, upstream-facts), counted per developer account: a
 * 429 whose body says the quota, not the rate, is what ran out.
 */
const QUOTA_EXCEEDED_MESSAGE = 'Too many requests';
const QUOTA_EXCEEDED_REASON = 'QUOTA_EXCEEDED';

/** An injected 429 without a `retryAfterSeconds` asks for this short wait. */
export const DEFAULT_INJECTED_RETRY_AFTER_SECONDS = 1;

export interface RollingRateLimit {
  requests: number;
  windowMs: number;
}

export const DEFAULT_MUSIC_EMULATOR_OPTIONS = {
  port: 0,
  host: '127.0.0.1',
  clientId: '5f1e0c3a9b7d4e2f8a6c0b1d3e5f7a9c',
  clientSecret: '0d9c8b7a6f5e4d3c2b1a0f9e8d7c6b5a',
  redirectUris: ['http://127.0.0.1:8787/callback'],
  variant: 'classic',
  now: Date.now,
  seed: 'default',
  rateLimit: null,
  refreshTokenRotation: 'pkce',
} as const satisfies Required<MusicEmulatorOptions>;

export interface RecordedRequest {
  method: string;
  path: string;
  /** The endpoint: method and path template, e.g. `GET /v1/albums/{id}`, `POST /api/token`. */
  endpoint: string;
  search: string;
  status: number;
  /** For token requests: the `grant_type` sent. */
  grantType?: string;
}

export interface RequestFilter {
  method?: string;
  /**
   * A string is an exact pathname; a RegExp is tested against the pathname. Accounts paths match
   * with or without the `/accounts` prefix (`/api/token` and `/accounts/api/token` alike).
   */
  path?: PathMatcher;
}

export interface PlaylistView {
  id: string;
  name: string;
  ownerId: string;
  snapshotId: string;
  /** Item URIs in order; `null` for local files. */
  uris: (string | null)[];
  kinds: ('track' | 'episode' | 'local' | 'missing')[];
  length: number;
}

export interface PlayerView {
  isPlaying: boolean;
  trackIndex: number;
  trackUri: string | undefined;
  activeDeviceId: string | null;
  devices: DeviceRecord[];
}

export interface UserView {
  id: string;
  displayName: string | null;
  product: string;
  country: string;
  registered: boolean;
}

export interface MusicEmulator {
  readonly apiUrl: string;
  readonly authUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly redirectUris: readonly string[];
  readonly variant: Variant;
  /** Ids of the seeded objects (undefined with `seed: 'empty'`). */
  readonly fixtures:
    | (SeedFixtures & {
        catalog: CatalogFixtures;
        artistIds: string[];
        albumIds: string[];
        trackIds: string[];
        episodeIds: string[];
      })
    | undefined;
  readonly users: UserView[];

  /** Opens the consent page at `authorizeUrl` and clicks Agree as `userId`; resolves to the redirect location. */
  approve(authorizeUrl: string | URL, userId: string): Promise<URL>;
  /** Same, clicking Cancel. */
  deny(authorizeUrl: string | URL, userId?: string): Promise<URL>;
  /** Tokens as if `userId` had consented to `scopes` (confidential client; `pkce` for rotating refresh tokens). */
  issueUserToken(userId: string, scopes: readonly string[], options?: { pkce?: boolean }): IssuedToken;
  /** Makes an access token (or refresh token) expired from now on. */
  expireToken(token: string): void;
  /**
   * The next `count` matching requests (any `/v1/` request without `path`) answer 429 with
   * `Retry-After` (none when `retryAfterSeconds` is `null`) and the API's rate-limit body (none with
   * `emptyBody`). Here and in `failNext` and `stallNext`, accounts paths match with or without the
   * `/accounts` prefix, and a string that is not a pathname (a query, a whole URL) is refused.
   */
  setRateLimit(options: RateLimitOptions): void;
  /**
   * The next `count` matching `/v1/` requests answer as a development-mode app whose quota is used
   * up: 429 `{"error":{"status":429,"message":"Too many requests","reason":"QUOTA_EXCEEDED"}}`, with
   * no `Retry-After` unless `retryAfterSeconds` is given. Checked after `setRateLimit`'s 429s.
   */
  exceedQuota(options: QuotaOptions): void;
  /** Sets (or with `null` lifts) the rolling-window rate limit; see `MusicEmulatorOptions.rateLimit`. */
  setRollingRateLimit(limit: RollingRateLimit | null): void;
  /**
   * The next request matching `path` answers `status` with the error body of what it asked: the
   * API's `{error:{status,message}}`, or on the token endpoint RFC 6749 §5.2's
   * `{error, error_description}`, or none at all with `emptyBody`. A 429 carries `Retry-After` (spec
   * §7): `retryAfterSeconds`, 1 by default, none for `null`; other statuses take none. An API 401
   * carries `WWW-Authenticate` (RFC 6750 §3). A 401 for a path that matches the token endpoint is
   * refused: the service answers `invalid_client` there with 400 (upstream-facts).
   */
  failNext(path: PathMatcher, status: number, options?: FailNextOptions): void;
  /**
   * The next request matching `path` is held for `ms` (real time) before it is answered: before
   * anything is sent (`headers`, the default), or after the headers and half the body (`body`). For
   * client time limits. The request is handled (and counted) as usual, only late.
   */
  stallNext(path: PathMatcher, ms: number, options?: { phase?: 'headers' | 'body' }): void;
  requestCount(filter?: RequestFilter): number;
  /** Requests served so far, by endpoint (`GET /v1/albums/{id}` → 3). */
  requestCounts(filter?: RequestFilter): Record<string, number>;
  requests(filter?: RequestFilter): RecordedRequest[];
  /** Token endpoint requests, of one grant type or all. */
  tokenRequests(grantType?: string): number;
  resetCounters(): void;
  playlist(id: string): PlaylistView | undefined;
  createPlaylist(
    ownerId: string,
    input: {
      name: string;
      uris?: readonly string[];
      public?: boolean;
      collaborative?: boolean;
      collaborators?: readonly string[];
    },
  ): string;
  player(userId: string): PlayerView | undefined;
  setPlayer(
    userId: string,
    patch: { isPlaying?: boolean; activeDeviceId?: string | null; trackIndex?: number },
  ): void;
  /** URIs saved in the user's library. */
  library(userId: string): string[];
  createUser(input: CreateUserInput): UserView;
  close(): Promise<void>;
}

const ACCOUNTS_PREFIX = '/accounts';
const TOKEN_PATH = `${ACCOUNTS_PREFIX}/api/token`;

/**
 * A driver matcher against a request's pathname. Accounts endpoints are known by the paths their
 * documentation gives (`/api/token`, as `endpointOf` names them), so those match too: a stall on
 * `/api/token` that silently never hit would make a test pass without testing anything.
 */
function matchesRequest(matcher: PathMatcher | undefined, path: string): boolean {
  if (matchesPath(matcher, path)) return true;
  return (
    matcher !== undefined &&
    path.startsWith(`${ACCOUNTS_PREFIX}/`) &&
    matchesPath(matcher, path.slice(ACCOUNTS_PREFIX.length))
  );
}

/** A string matcher is a pathname; one with a query, a fragment or an origin can never match. */
function checkMatcher(caller: string, matcher: PathMatcher | undefined): void {
  if (typeof matcher === 'string' && (!matcher.startsWith('/') || /[?#]/.test(matcher)))
    throw new Error(
      `${caller}: '${matcher}' is not a pathname (like '/v1/me' or '/api/token'), so it never matches`,
    );
}

/** Schemes no app may claim as its own for a redirect URI. */
const GENERAL_SCHEMES = new Set(['http', 'https', 'ftp', 'file', 'data', 'javascript', 'ws', 'wss']);

/** `Retry-After` is delta-seconds (RFC 9110 §10.2.3); `null` or absent means none is sent. */
function checkRetryAfter(caller: string, seconds: number | null | undefined): void {
  if (seconds !== null && seconds !== undefined && !(Number.isInteger(seconds) && seconds >= 0))
    throw new Error(`${caller}: Retry-After is whole seconds, not ${seconds}`);
}

/**
 * RFC 6749 §5.2 codes for an injected token endpoint failure, by status. (No 401: `failNext` refuses
 * it there, the service answering `invalid_client` with 400.)
 */
function oauthErrorFor(status: number): string {
  if (status === 429 || status === 503) return 'temporarily_unavailable';
  if (status >= 500) return 'server_error';
  return 'invalid_request';
}

/**
 * Registration rule: HTTPS, or a loopback IP literal over HTTP; `localhost` is refused (since 2025)
 * over HTTP(S) whatever the case or trailing dot. An app's own scheme (iOS-style) is taken as the
 * spec describes it: all lowercase, not a general scheme, and a path after the first pair of
 * slashes (`skybeat-app://callback`); what follows its `://` is the app's, not a host.
 */
function checkRedirectUri(uri: string): void {
  const url = new URL(uri);
  const scheme = url.protocol.slice(0, -1);
  if (!GENERAL_SCHEMES.has(scheme.toLowerCase())) {
    const rest = /^[^:]+:\/\/(.+)$/.exec(uri)?.[1];
    if (uri === uri.toLowerCase() && rest !== undefined) return;
    throw new Error(
      `redirect URI not allowed: ${uri} (an app's own scheme must be all lowercase, with a path after "://")`,
    );
  }
  // Hosts of non-special schemes keep their case; `localhost.` is the same name, fully qualified.
  if (url.hostname.toLowerCase().replace(/\.+$/, '') === 'localhost')
    throw new Error(`redirect URI not allowed: ${uri} (localhost is refused; use http://127.0.0.1:PORT)`);
  const loopback = url.hostname === '127.0.0.1' || url.hostname === '[::1]';
  if (url.protocol === 'https:' || (url.protocol === 'http:' && loopback)) return;
  throw new Error(`redirect URI not allowed: ${uri} (use HTTPS, or http://127.0.0.1:PORT)`);
}

export async function startMusicEmulator(options: MusicEmulatorOptions = {}): Promise<MusicEmulator> {
  const settings = { ...DEFAULT_MUSIC_EMULATOR_OPTIONS, ...options };
  const redirectUris = [...settings.redirectUris];
  redirectUris.forEach(checkRedirectUri);
  const state = new EmulatorState(settings.seed, settings.now);
  let apiUrl = '';
  const accounts = createAccounts({
    state,
    clientId: settings.clientId,
    clientSecret: settings.clientSecret,
    redirectUris,
    prefix: ACCOUNTS_PREFIX,
    refreshTokenRotation: settings.refreshTokenRotation,
  });
  const api = createApi({ state, variant: settings.variant, apiUrl: () => apiUrl });
  let rollingLimit: RollingRateLimit | null = settings.rateLimit;
  /** When each `/v1/` request the rolling window let through was served (emulator clock). */
  const served: number[] = [];
  const stalls: { path: PathMatcher; ms: number; phase: 'headers' | 'body' }[] = [];
  const held = new Set<{ timer: NodeJS.Timeout; release: () => void }>();

  function hold(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const entry = {
        timer: setTimeout(() => {
          held.delete(entry);
          resolve();
        }, ms),
        release: resolve,
      };
      held.add(entry);
    });
  }

  /** The rolling window: 429 when `requests` were served in the last `windowMs`. */
  function overRollingLimit(path: string): Reply | undefined {
    if (rollingLimit === null || !path.startsWith('/v1/')) return undefined;
    const now = state.now();
    while (served.length > 0 && (served[0] ?? 0) <= now - rollingLimit.windowMs) served.shift();
    if (served.length < rollingLimit.requests) {
      served.push(now);
      return undefined;
    }
    const freeAt = (served[0] ?? now) + rollingLimit.windowMs;
    return {
      status: 429,
      headers: { 'retry-after': String(Math.max(1, Math.ceil((freeAt - now) / 1000))) },
      body: { error: { status: 429, message: 'API rate limit exceeded' } },
    };
  }

  function endpointOf(method: string, path: string): string {
    if (path.startsWith(`${ACCOUNTS_PREFIX}/`)) return `${method} ${path.slice(ACCOUNTS_PREFIX.length)}`;
    return api.endpointOf(method, path);
  }

  const log: RecordedRequest[] = [];
  const rateLimits: {
    retryAfterSeconds: number | null;
    remaining: number;
    path: PathMatcher | undefined;
    emptyBody: boolean;
  }[] = [];
  const quotas: {
    retryAfterSeconds: number | undefined;
    remaining: number;
    path: PathMatcher | undefined;
  }[] = [];
  const failures: {
    path: PathMatcher;
    status: number;
    message: string | undefined;
    reason: string | undefined;
    error: string | undefined;
    headers: Record<string, string>;
    emptyBody: boolean;
  }[] = [];

  /**
   * An injected error in the shape of the endpoint it stands in for: the token endpoint answers
   * RFC 6749 §5.2 bodies and is never cached (as `accounts.ts` answers); an API 401 says how to
   * authenticate (RFC 6750 §3), as `api.ts` does.
   */
  function injectedFailure(
    request: EmulatorRequest,
    status: number,
    headers: Record<string, string>,
    options: {
      message?: string | undefined;
      reason?: string | undefined;
      error?: string | undefined;
      emptyBody?: boolean;
    },
  ): Reply {
    const message = options.message ?? defaultMessage(status);
    if (request.path === TOKEN_PATH) {
      return {
        status,
        headers: { ...headers, 'cache-control': 'no-store', pragma: 'no-cache' },
        ...(options.emptyBody === true
          ? {}
          : { body: { error: options.error ?? oauthErrorFor(status), error_description: message } }),
      };
    }
    const extra = status === 401 && request.path.startsWith('/v1/') ? api.challenge(request, message) : {};
    const reply = new ApiFailure(status, message, options.reason, { ...headers, ...extra }).toReply();
    return options.emptyBody === true ? { status: reply.status, headers: reply.headers ?? {} } : reply;
  }

  const retryAfterHeader = (seconds: number | null | undefined): Record<string, string> =>
    seconds === null || seconds === undefined ? {} : { 'retry-after': String(seconds) };

  function injected(request: EmulatorRequest): Reply | undefined {
    const { path } = request;
    const limit = rateLimits.find(
      (rule) =>
        rule.remaining > 0 &&
        (rule.path === undefined ? path.startsWith('/v1/') : matchesRequest(rule.path, path)),
    );
    if (limit !== undefined) {
      limit.remaining--;
      return injectedFailure(request, 429, retryAfterHeader(limit.retryAfterSeconds), {
        message: 'API rate limit exceeded',
        emptyBody: limit.emptyBody,
      });
    }
    const quota = quotas.find(
      (rule) => rule.remaining > 0 && path.startsWith('/v1/') && matchesRequest(rule.path, path),
    );
    if (quota !== undefined) {
      quota.remaining--;
      return new ApiFailure(
        429,
        QUOTA_EXCEEDED_MESSAGE,
        QUOTA_EXCEEDED_REASON,
        retryAfterHeader(quota.retryAfterSeconds),
      ).toReply();
    }
    const index = failures.findIndex((rule) => matchesRequest(rule.path, path));
    if (index === -1) return undefined;
    const [rule] = failures.splice(index, 1);
    if (rule === undefined) return undefined;
    return injectedFailure(request, rule.status, rule.headers, rule);
  }

  const server: Server = createServer((req, res) => {
    void (async () => {
      const request = await readRequest(req, apiUrl || 'http://127.0.0.1');
      const record: RecordedRequest = {
        method: request.method,
        path: request.path,
        endpoint: endpointOf(request.method, request.path),
        search: request.url.search,
        status: 0,
      };
      if (request.path === TOKEN_PATH) {
        const grant = new URLSearchParams(request.rawBody).get('grant_type');
        if (grant !== null) record.grantType = grant;
      }
      log.push(record);
      const stallIndex = stalls.findIndex((rule) => matchesRequest(rule.path, request.path));
      const [stall] = stallIndex === -1 ? [] : stalls.splice(stallIndex, 1);
      if (stall?.phase === 'headers') await hold(stall.ms);
      let reply: Reply;
      try {
        reply =
          injected(request) ??
          overRollingLimit(request.path) ??
          (request.path.startsWith(`${ACCOUNTS_PREFIX}/`) ? accounts.handle(request) : api.handle(request));
      } catch (error) {
        reply =
          error instanceof ApiFailure
            ? error.toReply()
            : { status: 500, body: { error: { status: 500, message: 'Server error' } } };
      }
      record.status = reply.status;
      if (stall?.phase === 'body') await writeStalled(res, reply, () => hold(stall.ms));
      else writeReply(res, reply);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.port, settings.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  apiUrl = `http://${host}:${port}`;
  const authUrl = `${apiUrl}${ACCOUNTS_PREFIX}`;

  const filterLog = (filter: RequestFilter = {}) => {
    checkMatcher('request filter', filter.path);
    return log.filter(
      (entry) =>
        (filter.method === undefined || entry.method === filter.method) &&
        matchesRequest(filter.path, entry.path),
    );
  };

  async function decide(
    authorizeUrl: string | URL,
    userId: string | undefined,
    decision: 'approve' | 'deny',
  ): Promise<URL> {
    const consent = await fetch(authorizeUrl, { redirect: 'manual' });
    const html = await consent.text();
    const location = consent.headers.get('location');
    if (consent.status === 302 && location !== null) return new URL(location);
    if (consent.status !== 200)
      throw new Error(
        `the authorize page refused: ${html
          .replace(/<[^>]+>/g, ' ')
          .replace(/\s+/g, ' ')
          .trim()}`,
      );
    const requestId = /name="request_id" value="([^"]+)"/.exec(html)?.[1] ?? '';
    const form = new URLSearchParams({ request_id: requestId, decision });
    if (userId !== undefined) form.set('user_id', userId);
    const answer = await fetch(`${authUrl}/authorize`, { method: 'POST', body: form, redirect: 'manual' });
    await answer.body?.cancel();
    const next = answer.headers.get('location');
    if (next === null) throw new Error(`the consent decision did not redirect (${answer.status})`);
    return new URL(next);
  }

  const userView = (id: string): UserView | undefined => {
    const user = state.users.get(id);
    return user === undefined
      ? undefined
      : {
          id: user.id,
          displayName: user.displayName,
          product: user.product,
          country: user.country,
          registered: user.registered,
        };
  };

  const { catalog } = state;
  return {
    apiUrl,
    authUrl,
    clientId: settings.clientId,
    clientSecret: settings.clientSecret,
    redirectUris,
    variant: settings.variant,
    fixtures:
      state.fixtures === undefined || catalog.fixtures === undefined
        ? undefined
        : {
            ...state.fixtures,
            catalog: catalog.fixtures,
            artistIds: catalog.artistIds,
            albumIds: catalog.albumIds,
            trackIds: catalog.trackIds,
            episodeIds: catalog.episodeIds,
          },
    get users() {
      return [...state.users.keys()].flatMap((id) => userView(id) ?? []);
    },
    approve: (url, userId) => decide(url, userId, 'approve'),
    deny: (url, userId) => decide(url, userId, 'deny'),
    issueUserToken(userId, scopes, issueOptions = {}) {
      if (!state.users.has(userId)) throw new Error(`no user ${userId}`);
      return accounts.issueUserTokens(userId, scopes, issueOptions.pkce ?? false);
    },
    expireToken(token) {
      const access = state.accessTokens.get(token);
      if (access !== undefined) access.expiresAt = state.now() - 1;
      const refresh = state.refreshTokens.get(token);
      if (refresh !== undefined) refresh.consentAt = Number.NEGATIVE_INFINITY;
    },
    setRateLimit({ retryAfterSeconds, count, path, emptyBody = false }) {
      checkMatcher('setRateLimit', path);
      checkRetryAfter('setRateLimit', retryAfterSeconds);
      rateLimits.push({ retryAfterSeconds, remaining: count, path, emptyBody });
    },
    exceedQuota({ count, path, retryAfterSeconds }) {
      checkMatcher('exceedQuota', path);
      if (typeof path === 'string' && !path.startsWith('/v1/'))
        throw new Error(`exceedQuota: '${path}' is not an API path (/v1/…), so it never matches`);
      checkRetryAfter('exceedQuota', retryAfterSeconds);
      quotas.push({ retryAfterSeconds, remaining: count, path });
    },
    setRollingRateLimit(limit) {
      rollingLimit = limit;
      served.length = 0;
    },
    stallNext(path, ms, stallOptions = {}) {
      checkMatcher('stallNext', path);
      stalls.push({ path, ms, phase: stallOptions.phase ?? 'headers' });
    },
    failNext(path, status, failOptions = {}) {
      checkMatcher('failNext', path);
      // The RFC allows 401 for invalid_client; the service answers it 400 (upstream-facts), as
      // accounts.ts does, so a 401 from its token endpoint would test what never happens.
      if (status === 401 && matchesRequest(path, TOKEN_PATH))
        throw new Error(
          `failNext: the token endpoint never answers 401; it refuses a client with 400 invalid_client (failNext('/api/token', 400, { error: 'invalid_client' }))`,
        );
      const { retryAfterSeconds } = failOptions;
      if (retryAfterSeconds !== undefined && status !== 429)
        throw new Error(`failNext: retryAfterSeconds is for a 429, not a ${status}`);
      checkRetryAfter('failNext', retryAfterSeconds);
      const headers =
        status === 429
          ? retryAfterHeader(
              retryAfterSeconds === undefined ? DEFAULT_INJECTED_RETRY_AFTER_SECONDS : retryAfterSeconds,
            )
          : {};
      failures.push({
        path,
        status,
        message: failOptions.message,
        reason: failOptions.reason,
        error: failOptions.error,
        headers,
        emptyBody: failOptions.emptyBody ?? false,
      });
    },
    requestCount: (filter) => filterLog(filter).length,
    requestCounts(filter) {
      const counts: Record<string, number> = {};
      for (const entry of filterLog(filter)) counts[entry.endpoint] = (counts[entry.endpoint] ?? 0) + 1;
      return counts;
    },
    requests: (filter) => filterLog(filter).map((entry) => ({ ...entry })),
    tokenRequests: (grantType) =>
      log.filter(
        (entry) => entry.path === TOKEN_PATH && (grantType === undefined || entry.grantType === grantType),
      ).length,
    resetCounters() {
      log.length = 0;
    },
    playlist(id) {
      const playlist = state.playlists.get(id);
      if (playlist === undefined) return undefined;
      const entries = playlist.entries;
      return {
        id: playlist.id,
        name: playlist.name,
        ownerId: playlist.ownerId,
        snapshotId: playlist.snapshotId,
        uris: entries.map((entry) => (entry.kind === 'local' ? null : entry.uri)),
        kinds: entries.map((entry) => entry.kind),
        length: entries.length,
      };
    },
    createPlaylist: (ownerId, input) => state.createPlaylist({ ownerId, ...input }).id,
    player(userId) {
      const player = state.users.get(userId)?.player;
      if (player === undefined) return undefined;
      return {
        isPlaying: player.isPlaying,
        trackIndex: player.index,
        trackUri: player.queue[player.index],
        activeDeviceId: player.activeDeviceId,
        devices: player.devices.map((device) => ({ ...device })),
      };
    },
    setPlayer(userId, patch) {
      const player = state.users.get(userId)?.player;
      if (player === undefined) throw new Error(`no user ${userId}`);
      if (patch.isPlaying !== undefined) player.isPlaying = patch.isPlaying;
      if (patch.activeDeviceId !== undefined) player.activeDeviceId = patch.activeDeviceId;
      if (patch.trackIndex !== undefined) player.index = patch.trackIndex;
    },
    library: (userId) => [...(state.users.get(userId)?.library ?? [])],
    createUser(input) {
      const user = state.createUser(input);
      return userView(user.id) as UserView;
    },
    async close() {
      for (const entry of held) {
        clearTimeout(entry.timer);
        entry.release();
      }
      held.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}

/** Sends the headers and the first half of the body, waits, then the rest. */
async function writeStalled(res: ServerResponse, reply: Reply, wait: () => Promise<void>): Promise<void> {
  const payload =
    reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
  const headers: Record<string, string> = { ...reply.headers };
  if (reply.body !== undefined)
    headers['content-type'] ??=
      typeof reply.body === 'string' ? 'text/html; charset=utf-8' : 'application/json; charset=utf-8';
  headers['content-length'] = String(Buffer.byteLength(payload));
  res.writeHead(reply.status, headers);
  const bytes = Buffer.from(payload);
  const half = Math.floor(bytes.length / 2);
  res.write(bytes.subarray(0, half));
  await wait();
  if (!res.destroyed) res.end(bytes.subarray(half));
}

function defaultMessage(status: number): string {
  const texts: Record<number, string> = {
    400: 'Bad request',
    401: 'Invalid access token',
    403: 'Forbidden',
    404: 'Resource not found',
    429: 'API rate limit exceeded',
    500: 'Server error',
    502: 'Bad gateway',
    503: 'Service unavailable',
  };
  return texts[status] ?? 'Error';
}
