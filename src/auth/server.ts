/**
 * The callback server: `GET /link/start?ticket=…` (the short link in Discord: a page naming the
 * Discord account that would get access, with a Continue button; the ticket stands for the OAuth
 * state, which never goes into Discord), `POST /link/continue` (that button: on to
 * the consent page, from the browser the start page bound), `GET /callback` (RFC 6749 §4.1.2),
 * `GET /healthz`, `GET /metrics`. Every failure ends on a readable page and stores nothing.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Counter, type Registry } from 'prom-client';
import type { Logger } from '../logger.js';
import {
  ForbiddenError,
  MusicAuthError,
  QuotaExceededError,
  UserNotRegisteredError,
} from '../services/music/errors.js';
import { MusicOAuth, OAuthError } from './oauth.js';
import { pages, renderPage, type Page } from './pages.js';
import { missingScopes } from './scopes.js';
import { seal, unseal, type Keyring } from './seal.js';
import { hashState, type LinkOutcome, type LinkStates, type PendingLink, type TakeResult } from './states.js';
import { LinkBusyError, type MusicLink, type TokenVault } from './vault.js';

export interface MusicProfile {
  accountId: string;
  displayName: string | null;
  product?: string | undefined;
  country?: string | undefined;
}

/** What finishing a link takes; absent when the music service is not configured. */
export interface LinkingParts {
  states: LinkStates;
  oauth: Pick<MusicOAuth, 'authorizeUrl' | 'exchangeCode'>;
  vault: TokenVault;
  /** Keys for the browser-binding cookie (the vault's). */
  cookieKey: Keyring;
  fetchProfile: (accessToken: string) => Promise<MusicProfile>;
  /** Told about every completed link, e.g. to edit the member's `/music link` message. */
  onLinked?: (userId: string, link: MusicLink, notify: PendingLink['notify']) => Promise<void>;
}

export interface CallbackServerOptions {
  host: string;
  port: number;
  /** How browsers reach this server; decides whether cookies are `Secure`. */
  publicUrl: string;
  linking: LinkingParts | undefined;
  registry: Registry;
  logger: Logger;
  now?: () => number;
  /** How long `close` lets requests in progress finish (default {@link CLOSE_GRACE_MS}). */
  closeGraceMs?: number;
}

export interface CallbackServer {
  url: string;
  /**
   * Stops taking connections, closes idle ones at once, lets requests in progress (a callback
   * storing its link) finish for up to the grace period, then cuts what remains.
   */
  close(): Promise<void>;
}

/**
 * How long a stop waits for requests in progress (a callback whose code exchange the music service
 * is slow to answer, up to its 10 s time limit): as long as the bot's drain, which it runs beside,
 * and with a second to close storage after, within the 15 s stop deadline (`STOP_DEADLINE_MS`).
 */
export const CLOSE_GRACE_MS = 10_000;

const MAX_URL_LENGTH = 2_048;
const STATE_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;
/** A state's SHA-256 in base64url: how the Continue button names its link without the state. */
const STATE_HASH_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const CODE_PATTERN = /^[\x21-\x7e]{1,1024}$/;
/**
 * Two cookies per state, each named with 8 characters of the state's hash so that two links started
 * in one browser do not overwrite each other's:
 * - the start cookie (`link_session_…`), set by the start page, tells the Continue button which
 *   state it is for, so that no page has to show the state;
 * - the binding cookie (`link_bound_…`), set only by the Continue button (a same-origin POST), is
 *   what the callback requires (RFC 6749 §10.12, RFC 9700 §4.7). Were the start page's cookie
 *   enough, a page elsewhere could open someone's start link in a pop-up (a top-level GET, which
 *   stores a SameSite=Lax cookie) and send that browser to the consent address it got by pressing
 *   Continue itself: the service, if already agreed to, comes straight back, and the victim's music
 *   account would be linked to the other person's Discord account without a click.
 * Over HTTPS the binding cookie takes the `__Host-` prefix (RFC 6265bis §4.1.3.2), which no sibling
 * subdomain can set.
 */
const START_COOKIE = { name: 'link_session', context: 'link-cookie' } as const;
const BOUND_COOKIE = { name: 'link_bound', context: 'link-bound' } as const;
type CookieKind = typeof START_COOKIE | typeof BOUND_COOKIE;
const LINK_METHODS = new Map([
  ['/link/start', ['GET']],
  ['/link/continue', ['POST']],
  ['/callback', ['GET']],
]);
/**
 * Errors that say the bot's request was wrong, not the member's (RFC 6749 §4.1.2.1 and §5.2): a
 * client id the service does not know, an app not allowed this flow, a scope or parameter it
 * refuses. Only the owner can fix them, so the member is not told to try again.
 */
const APP_FAULTS: ReadonlySet<string> = new Set([
  'invalid_client',
  'unauthorized_client',
  'unsupported_response_type',
  'unsupported_grant_type',
  'invalid_scope',
  'invalid_request',
]);
/**
 * Code exchanges that failed on an answer the bot itself cannot use, not on a refusal: the same
 * answer comes again on the next try, so they are for the owner to look into, with what the log
 * says of each (see `OAuthError.oauthError`).
 */
const UNUSABLE_ANSWERS: ReadonlyMap<string, string> = new Map([
  [
    'invalid_callback',
    'the address the music service sent the browser back to is not an answer the bot accepts (a parameter it never sends, such as `iss`?)',
  ],
  ['invalid_response', 'the token endpoint’s success answer is not one the bot can use'],
  // An error status that passes (a 5xx, a 429) is the service being down, not this.
  ['no_oauth_error', 'the token endpoint’s answer is no OAuth answer (is a proxy or firewall in between?)'],
]);
/** RFC 6749 §4.1.2.1: an error code is printable ASCII without `"` and `\`. */
const ERROR_CODE_PATTERN = /^[\x20\x21\x23-\x5b\x5d-\x7e]{1,64}$/;

/** Forms may post only where `formAction` says (the start page's Continue, and its redirect). */
const contentSecurityPolicy = (formAction: string) =>
  `default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action ${formAction}; frame-ancestors 'none'`;

const SECURITY_HEADERS = {
  'content-security-policy': contentSecurityPolicy("'none'"),
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  // The callback URL carries the code and state: never send it on as a referrer.
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'cross-origin-opener-policy': 'same-origin',
} as const;
/** The headers of every page. */
const PAGE_HEADERS = { ...SECURITY_HEADERS, 'content-type': 'text/html; charset=utf-8' } as const;

/** How a callback that used up its state ended (see `conclude`). */
interface Conclusion {
  /** For the `bot_music_links_total` metric. */
  outcome: string;
  page: Page;
  /** What the state is remembered as, for a page that comes back to it. */
  settled: LinkOutcome;
  /** The link stored, when it was. */
  linked?: MusicLink;
}

const ended = (outcome: string, page: Page, settled: LinkOutcome = 'failed'): Conclusion => ({
  outcome,
  page,
  settled,
});

/** The page for a link that is no longer pending. */
const notPending = (result: Exclude<TakeResult, { kind: 'ok' }>): Page =>
  result.kind === 'replayed' ? pages.replayed(result.outcome) : pages[result.kind]();

/**
 * What a link cookie holds: the Discord user and the hash of the state it binds, and the state
 * itself (absent in cookies set before the Continue button), so that no page has to show it.
 */
interface Binding {
  userId: string;
  state: string;
  value?: string;
}

/**
 * The values of the browser's cookies of one kind (any state) named as this server names them:
 * `prefix` is `__Host-` for the binding cookie over HTTPS, and a cookie of that kind without it is
 * not read, since a sibling subdomain could have set it (the prefix's whole point).
 */
function readLinkCookies(req: IncomingMessage, kind: CookieKind, prefix: string): string[] {
  const values: string[] = [];
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key = '', ...rest] = part.trim().split('=');
    if (key.startsWith(`${prefix}${kind.name}_`)) values.push(rest.join('='));
  }
  return values;
}

/** The bindings in the browser's cookies of one kind (see {@link readLinkCookies}) that open with our keys. */
function readBindings(req: IncomingMessage, cookieKey: Keyring, kind: CookieKind, prefix: string): Binding[] {
  const bound: Binding[] = [];
  for (const raw of readLinkCookies(req, kind, prefix)) {
    try {
      bound.push(unseal(cookieKey, kind.context, raw) as Binding);
    } catch {
      // Not ours, damaged, of the other kind or sealed with a retired key: it binds nothing.
    }
  }
  return bound;
}

/**
 * Whether a POST came from a page of this server: `Sec-Fetch-Site` where the browser sends it
 * (every current one), else `Origin` (the start page's referrer policy lets it through).
 */
function fromOwnPage(req: IncomingMessage, publicOrigin: string): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin';
  return req.headers.origin === publicOrigin;
}

export async function startCallbackServer(options: CallbackServerOptions): Promise<CallbackServer> {
  const { logger, linking } = options;
  const now = options.now ?? Date.now;
  const publicAddress = new URL(options.publicUrl);
  // From the parsed address: `HTTPS://…` is https too, and must not lose the cookies' protections.
  const secure = publicAddress.protocol === 'https:';
  const publicOrigin = publicAddress.origin;
  const cookiePrefix = (kind: CookieKind) => (secure && kind === BOUND_COOKIE ? '__Host-' : '');
  const cookieName = (kind: CookieKind, stateHash: string) =>
    `${cookiePrefix(kind)}${kind.name}_${stateHash.slice(0, 8)}`;
  const setCookie = (kind: CookieKind, stateHash: string, value: string, maxAge: number) =>
    `${cookieName(kind, stateHash)}=${value}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
  const links = new Counter({
    name: 'bot_music_links_total',
    help: 'Account-linking attempts that reached the callback, by outcome',
    labelNames: ['outcome'] as const,
    registers: [options.registry],
  });
  const requests = new Counter({
    name: 'bot_callback_http_requests_total',
    help: 'Requests to the callback server, by route and status',
    labelNames: ['route', 'status'] as const,
    registers: [options.registry],
  });

  function send(
    res: ServerResponse,
    route: string,
    page: Page,
    extra: Record<string, string | string[]> = {},
  ) {
    requests.inc({ route, status: String(page.status) });
    res.writeHead(page.status, { ...PAGE_HEADERS, ...extra });
    res.end(renderPage(page));
  }

  function outcome(
    res: ServerResponse,
    name: string,
    page: Page,
    headers?: Record<string, string | string[]>,
  ) {
    links.inc({ outcome: name });
    send(res, '/callback', page, headers);
  }

  /**
   * The consent page's address for a pending link (RFC 6749 §4.1.1, RFC 7636 §4.3). `show_dialog`:
   * the service asks every time, even an account that has agreed before, so a browser sent there is
   * never linked without the member seeing whose app asks.
   */
  async function consentUrl(state: string, link: PendingLink): Promise<string> {
    const challenge = await MusicOAuth.pkceChallenge(link.verifier);
    return linking!.oauth.authorizeUrl(state, challenge, { showDialog: true });
  }

  // Answers a page, never a redirect: a start link that reached someone else's browser must say
  // whose Discord account it is for before that browser goes anywhere.
  async function start(url: URL, res: ServerResponse) {
    const ticket = url.searchParams.get('ticket') ?? '';
    if (!linking) return send(res, '/link/start', pages.notFound());
    if (!STATE_PATTERN.test(ticket))
      return send(res, '/link/start', pages.badRequest('The link is incomplete.'));
    const state = await linking.states.stateOf(ticket);
    if (state === undefined) return send(res, '/link/start', pages.unknown());
    const found = await linking.states.peek(state);
    if (found.kind !== 'ok') return send(res, '/link/start', notPending(found));
    const stateHash = hashState(state);
    const binding: Binding = { userId: found.link.userId, state: stateHash, value: state };
    const cookie = seal(linking.cookieKey, START_COOKIE.context, binding);
    // The Continue button's form is followed by a redirect to the consent page, which form-action
    // also governs.
    const consentOrigin = new URL(await consentUrl(state, found.link)).origin;
    // Relative to this page (`…/link/start`), so it works under PUBLIC_URL's path as well.
    const action = `continue?link=${stateHash}`;
    send(res, '/link/start', pages.confirmLink(found.link.account, action), {
      'content-security-policy': contentSecurityPolicy(`'self' ${consentOrigin}`),
      // The Continue button's POST carries this page's origin in `Origin` (with no-referrer it would
      // carry "null"), for browsers without `Sec-Fetch-Site`; the address itself is never sent.
      'referrer-policy': 'strict-origin',
      'set-cookie': setCookie(START_COOKIE, stateHash, cookie, 600),
    });
  }

  // Only the start page's button, pressed in this browser, binds it: a same-origin POST that brings
  // the start page's cookie. A page elsewhere can send a POST here too (a form, top-level), so where
  // it came from is checked as well.
  async function proceed(url: URL, req: IncomingMessage, res: ServerResponse) {
    if (!linking) return send(res, '/link/continue', pages.notFound());
    const stateHash = url.searchParams.get('link') ?? '';
    if (!STATE_HASH_PATTERN.test(stateHash))
      return send(res, '/link/continue', pages.badRequest('The link is incomplete.'));
    if (!fromOwnPage(req, publicOrigin)) return send(res, '/link/continue', pages.notFromStartPage());
    const binding = readBindings(req, linking.cookieKey, START_COOKIE, cookiePrefix(START_COOKIE)).find(
      (cookie) => cookie.state === stateHash && typeof cookie.value === 'string',
    );
    // No cookie from the start page: its ten minutes are over, the browser does not keep cookies, or
    // the button was not pressed on that page in this browser. Whether the link itself still works
    // says which (read only: the state stays as it is).
    if (!binding?.value || hashState(binding.value) !== stateHash) {
      const found = await linking.states.peekHash(stateHash);
      return send(res, '/link/continue', found.kind === 'ok' ? pages.otherBrowser() : notPending(found));
    }
    const found = await linking.states.peek(binding.value);
    if (found.kind !== 'ok') return send(res, '/link/continue', notPending(found));
    const bound = seal(linking.cookieKey, BOUND_COOKIE.context, {
      userId: found.link.userId,
      state: stateHash,
    } satisfies Binding);
    requests.inc({ route: '/link/continue', status: '303' });
    res.writeHead(303, {
      ...SECURITY_HEADERS,
      location: await consentUrl(binding.value, found.link),
      'set-cookie': setCookie(BOUND_COOKIE, stateHash, bound, 600),
    });
    res.end();
  }

  async function callback(url: URL, req: IncomingMessage, res: ServerResponse) {
    if (!linking) return send(res, '/callback', pages.notFound());
    const { cookieKey, states } = linking;
    const state = url.searchParams.get('state') ?? '';
    const code = url.searchParams.get('code');
    const error = url.searchParams.get('error');
    // RFC 6749 §3.1: no parameter may come twice. Refused before the state is used up, so the
    // member's own link, still pending, goes through.
    const names = [...url.searchParams.keys()];
    if (new Set(names).size !== names.length)
      return outcome(res, 'bad_request', pages.badRequest('The address repeats a parameter.'));
    if (!STATE_PATTERN.test(state))
      return outcome(res, 'bad_request', pages.badRequest('The address has no valid state.'));
    if (code === null && error === null) {
      return outcome(res, 'bad_request', pages.badRequest('The address has neither a code nor an error.'));
    }
    if (code !== null && !CODE_PATTERN.test(code)) {
      return outcome(res, 'bad_request', pages.badRequest('The code in the address is malformed.'));
    }

    // The browser must be the one that pressed Continue on this state's start page (RFC 6749 §10.12).
    const stateHash = hashState(state);
    const bound = readBindings(req, cookieKey, BOUND_COOKIE, cookiePrefix(BOUND_COOKIE));
    const pending = await states.peek(state);
    if (pending.kind === 'ok' && !bound.some((cookie) => cookie.state === stateHash)) {
      return bound.some((cookie) => cookie.userId !== pending.link.userId)
        ? outcome(res, 'other_user', pages.otherUser())
        : outcome(res, 'other_browser', pages.otherBrowser());
    }

    const taken = await states.take(state);
    if (taken.kind !== 'ok') return outcome(res, taken.kind, notPending(taken));
    const end = await conclude(linking, url, state, taken.link);
    // Before the page goes out, so that the page reloaded reads as what happened. A link stored
    // stays linked if this fails: going back to it then reads as used, without saying how.
    try {
      await states.settle(state, end.settled);
    } catch (failure) {
      logger.warn({ err: failure, userId: taken.link.userId }, 'could not note how a link ended');
    }
    // Only this state's cookies: another link started in this browser may still be under way.
    outcome(res, end.outcome, end.page, {
      'set-cookie': [setCookie(START_COOKIE, stateHash, '', 0), setCookie(BOUND_COOKIE, stateHash, '', 0)],
    });
    if (end.linked && linking.onLinked) {
      linking.onLinked(taken.link.userId, end.linked, taken.link.notify).catch((failure: unknown) => {
        logger.warn({ err: failure, userId: taken.link.userId }, 'could not tell Discord about the new link');
      });
    }
  }

  /**
   * Finishes a link whose state the callback has used up: what the service sent back, traded for
   * tokens and stored. Answers the page, the metric's outcome and what the state is remembered as.
   */
  async function conclude(
    parts: LinkingParts,
    url: URL,
    state: string,
    pending: PendingLink,
  ): Promise<Conclusion> {
    const { oauth, vault, states } = parts;
    const { userId } = pending;
    const error = url.searchParams.get('error');
    if (error !== null) {
      // RFC 6749 §4.1.2.1: only `access_denied` is the member's refusal.
      if (error === 'access_denied') return ended('denied', pages.denied(), 'denied');
      const code = ERROR_CODE_PATTERN.test(error) ? error : 'unrecognised';
      if (APP_FAULTS.has(error)) {
        logger.error(
          { userId, error: code },
          'the music service refused the bot’s authorization request: check MUSIC_CLIENT_ID, and that the app allows the Authorization Code flow with PKCE',
        );
        return ended('app_misconfigured', pages.appMisconfigured());
      }
      logger.warn({ userId, error: code }, 'the music service sent back an error');
      if (error === 'server_error' || error === 'temporarily_unavailable')
        return ended('service_down', pages.serviceDown());
      return ended('error', pages.linkFailed());
    }

    // RFC 6749 §5.1: `expires_in` counts from the answer. Timed from before the request, not from
    // after the profile read (which may retry for many seconds): the link renews a little early
    // rather than use a token past its end.
    const requestedAt = now();
    let tokens;
    try {
      tokens = await oauth.exchangeCode(url.searchParams, state, pending.verifier);
    } catch (failure) {
      if (failure instanceof OAuthError && APP_FAULTS.has(failure.oauthError)) {
        logger.error(
          { err: failure, userId },
          'the music service refused the bot’s code exchange: check MUSIC_CLIENT_ID and the redirect URI (PUBLIC_URL/callback) registered for the app',
        );
        return ended('app_misconfigured', pages.appMisconfigured());
      }
      const down = failure instanceof OAuthError && failure.transient;
      const unusable = failure instanceof OAuthError && !down && UNUSABLE_ANSWERS.get(failure.oauthError);
      if (unusable) {
        logger.error({ err: failure, userId }, `music code exchange failed: ${unusable}`);
        return ended('unusable_answer', pages.unusableAnswer());
      }
      logger.warn({ err: failure, userId }, 'music code exchange failed');
      return down
        ? ended('service_down', pages.serviceDown())
        : ended('exchange_failed', pages.exchangeFailed());
    }
    // Without one the link would end with its first access token, an hour from now.
    const refreshToken = tokens.refreshToken;
    if (!refreshToken) {
      logger.error(
        { userId },
        'music code exchange failed: the token endpoint’s answer has no refresh token, without which the bot cannot keep a link',
      );
      return ended('unusable_answer', pages.unusableAnswer());
    }
    let profile: MusicProfile;
    try {
      profile = await parts.fetchProfile(tokens.accessToken);
    } catch (failure) {
      // A development-mode app hands out tokens to any account but answers only those on its user
      // list: trying again cannot help, the owner has to add the account.
      if (failure instanceof UserNotRegisteredError) {
        logger.warn(
          { userId },
          'a member’s music account is not on the music app’s user list: add it under User Management in the music dashboard',
        );
        return ended('not_registered', pages.notRegistered());
      }
      // A token the service has just issued, refused (401) or not allowed to read the profile
      // (403: a scope, an endpoint a development-mode app lost): trying again gives the same answer.
      if (failure instanceof MusicAuthError || failure instanceof ForbiddenError) {
        logger.error(
          { err: failure, userId },
          'the music service refused a new link’s token for the profile: check MUSIC_API_URL and MUSIC_API_VARIANT',
        );
        return ended('app_misconfigured', pages.appMisconfigured());
      }
      // A development-mode app's quota, used up: the owner's to mend, not the service being down.
      if (failure instanceof QuotaExceededError) {
        logger.error(
          { err: failure, userId },
          'the music app has used up its request quota with the music service (counted per developer account): wait, or ask for an extended quota in its dashboard',
        );
        return ended('quota_exceeded', pages.quotaUsedUp());
      }
      logger.warn({ err: failure, userId }, 'could not read the music profile');
      return ended('service_down', pages.serviceDown());
    }
    const at = now();
    const link: MusicLink = {
      accountId: profile.accountId,
      displayName: profile.displayName,
      ...(profile.product ? { product: profile.product } : {}),
      ...(profile.country ? { country: profile.country } : {}),
      scopes: tokens.scopes,
      accessToken: tokens.accessToken,
      refreshToken,
      expiresAt: requestedAt + tokens.expiresInSeconds * 1000,
      linkedAt: at,
    };
    let withdrawn = false;
    try {
      // Under the link lock, so a refresh of the previous link in flight cannot write over this one,
      // and an unlink made while the code was traded (it withdraws the link, under the same lock)
      // is not undone.
      await vault.locked(userId, async () => {
        withdrawn = await states.withdrawnFrom(pending);
        if (!withdrawn) await vault.put(userId, link);
      });
    } catch (failure) {
      if (!(failure instanceof LinkBusyError)) throw failure;
      logger.warn({ err: failure, userId }, 'could not store the new music link');
      return ended('service_down', pages.serviceDown());
    }
    if (withdrawn) return ended('withdrawn', pages.withdrawn(), 'withdrawn');
    logger.info({ userId, accountId: profile.accountId }, 'music account linked');
    return {
      outcome: 'linked',
      page: pages.linked(profile.displayName ?? profile.accountId, missingScopes(link.scopes)),
      settled: 'linked',
      linked: link,
    };
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    if ((req.url ?? '').length > MAX_URL_LENGTH) {
      return send(res, 'other', { ...pages.badRequest('The address is too long.'), status: 414 });
    }
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://callback.invalid');
    } catch {
      // A target Node's parser lets through but that is no address (`//host:99999/`): the sender's
      // mistake, not ours, so a 400 and no error in the log.
      return send(res, 'other', pages.badRequest('The address is not valid.'));
    }
    // Only a path as written is served: the parser resolves `%2e%2e` and `..` segments, reads `\`
    // as `/` and `//host/…` as an address, so `/link/%2e%2e/metrics` would reach /metrics past a
    // proxy that forwards only /link/ (the README's set-up).
    const written = (req.url ?? '/').split('?', 1)[0];
    if (written !== url.pathname) {
      return send(res, 'other', pages.notFound());
    }
    // The link routes act (use up a state, set a cookie, trade a code) on one method alone: a HEAD
    // from a link preview or a prefetch must not do any of that.
    const allow = LINK_METHODS.get(url.pathname) ?? ['GET', 'HEAD'];
    if (!allow.includes(req.method ?? '')) {
      const page = pages.methodNotAllowed(LINK_METHODS.has(url.pathname));
      return send(res, 'other', page, { allow: allow.join(', ') });
    }
    switch (url.pathname) {
      case '/healthz':
        requests.inc({ route: '/healthz', status: '200' });
        res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'application/json' });
        return res.end('{"status":"ok"}\n');
      case '/metrics': {
        const body = await options.registry.metrics();
        requests.inc({ route: '/metrics', status: '200' });
        res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': options.registry.contentType });
        return res.end(body);
      }
      case '/link/start':
        return start(url, res);
      case '/link/continue':
        return proceed(url, req, res);
      case '/callback':
        return callback(url, req, res);
      default:
        return send(res, 'other', pages.notFound());
    }
  }

  // Responses not yet sent: once closing, each ends its connection rather than keeping it alive.
  const unanswered = new Set<ServerResponse>();
  let closing = false;
  const server = http.createServer({ maxHeaderSize: 16_384, requestTimeout: 30_000 }, (req, res) => {
    if (closing) res.setHeader('connection', 'close');
    unanswered.add(res);
    res.once('close', () => unanswered.delete(res));
    handle(req, res).catch((error: unknown) => {
      const reference = randomBytes(3).toString('hex');
      logger.error({ err: error, reference, path: req.url?.split('?')[0] }, 'callback server error');
      if (!res.headersSent) send(res, 'other', pages.internal(reference));
      else res.end();
    });
  });
  // What Node's parser refuses before `handle` sees it (an address past the header limit, a request
  // that is not HTTP) gets a page with the same headers as every other, not a bare status line.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    const started = (socket as { _httpMessage?: ServerResponse })._httpMessage?.headersSent;
    if (!socket.writable || started || error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const page: Page =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? { ...pages.badRequest('The address is too long.'), status: 431 }
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? { ...pages.badRequest('The request took too long to arrive.'), status: 408 }
          : pages.badRequest('The request could not be read.');
    requests.inc({ route: 'other', status: String(page.status) });
    const body = renderPage(page);
    const headers = {
      ...PAGE_HEADERS,
      'content-length': String(Buffer.byteLength(body)),
      connection: 'close',
    };
    const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
    // Closed once written, whether or not the client closes its side (Node keeps half-open sockets).
    socket.end(
      `HTTP/1.1 ${page.status} ${http.STATUS_CODES[page.status]}\r\n${head.join('')}\r\n${body}`,
      () => socket.destroy(),
    );
  });
  server.listen(options.port, options.host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`,
    close: async () => {
      closing = true;
      for (const res of unanswered) if (!res.headersSent) res.setHeader('connection', 'close');
      const closed = new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
      });
      server.closeIdleConnections();
      const cut = setTimeout(() => server.closeAllConnections(), options.closeGraceMs ?? CLOSE_GRACE_MS);
      try {
        await closed;
      } finally {
        clearTimeout(cut);
      }
    },
  };
}
