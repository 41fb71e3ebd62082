/**
 * The accounts host: `GET /authorize` (consent page), `POST /authorize` (the page's decision) and
 * `POST /api/token` for the authorization code (with or without PKCE, RFC 7636), refresh token and
 * client credentials grants (RFC 6749); any other method on those paths is 405 with `Allow`. Error
 * shapes and texts from upstream-facts.md.
 *
 * Who the user is: whoever logs in on the consent page (its user chooser). The decision sets a login
 * session cookie on the accounts host; a later authorize request carrying it comes from that user,
 * who is sent straight back with a code when they already granted this app every scope asked and
 * `show_dialog` is not `true` (upstream-facts: "show_dialog | optional, default false; true = ask
 * consent again").
 */
import { createHash, randomBytes } from 'node:crypto';
import { escapeHtml, OAuthFailure, type EmulatorRequest, type Reply } from './http.js';
import {
  CODE_LIFETIME_MS,
  REFRESH_LIFETIME_MS,
  SCOPES,
  TOKEN_LIFETIME_S,
  consentKey,
  type EmulatorState,
  type PendingAuthorization,
} from './state.js';

export interface AccountsOptions {
  state: EmulatorState;
  clientId: string;
  clientSecret: string;
  redirectUris: readonly string[];
  /** The path prefix of the accounts host on this server (`/accounts`). */
  prefix: string;
  /** Which refresh tokens are single use and replaced on every refresh. */
  refreshTokenRotation: RefreshTokenRotation;
}

/** `pkce`: PKCE refresh tokens only (documented); `always`: a confidential client's too. */
export type RefreshTokenRotation = 'pkce' | 'always';

export interface IssuedToken {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope?: string;
  refresh_token?: string;
}

const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const KNOWN_SCOPES: ReadonlySet<string> = new Set(SCOPES);

/** The parameters each endpoint reads; others are ignored, repeated or not (RFC 6749 §3.1). */
const AUTHORIZE_PARAMETERS = [
  'client_id',
  'redirect_uri',
  'response_type',
  'state',
  'scope',
  'show_dialog',
  'code_challenge_method',
  'code_challenge',
] as const;
const TOKEN_PARAMETERS = [
  'grant_type',
  'code',
  'redirect_uri',
  'client_id',
  'client_secret',
  'code_verifier',
  'refresh_token',
  'scope',
] as const;

/** The first of `names` that `params` carries more than once (RFC 6749 §3.1, §3.2 forbid it). */
function repeated(params: URLSearchParams, names: readonly string[]): string | undefined {
  return names.find((name) => params.getAll(name).length > 1);
}

const secret = (prefix: string) => prefix + randomBytes(48).toString('base64url');

/** The accounts host's login session cookie. */
const SESSION_COOKIE = 'session';

/** The value of cookie `name` in a `Cookie` header (RFC 6265 §5.4), if sent. */
function cookie(header: string | undefined, name: string): string | undefined {
  for (const pair of (header ?? '').split(';')) {
    const eq = pair.indexOf('=');
    if (eq !== -1 && pair.slice(0, eq).trim() === name) return pair.slice(eq + 1).trim();
  }
  return undefined;
}

/** `http://`, a loopback IP literal (never `localhost`), an optional port, the rest as written. */
const LOOPBACK = /^http:\/\/(127\.0\.0\.1|\[::1\])(?::(\d{1,5}))?([/?#].*)?$/;

/**
 * A redirect URI is allowed when it is registered exactly (case, trailing slash and all), or, for
 * a registered loopback URI, when only the port differs: the service takes any port there
 * (upstream-facts.md), as RFC 8252 §7.3 asks of servers, since native apps get theirs at run time.
 */
export function redirectAllowed(registered: readonly string[], uri: string): boolean {
  if (registered.includes(uri)) return true;
  const asked = LOOPBACK.exec(uri);
  if (asked === null || Number(asked[2] ?? 80) > 65_535) return false;
  return registered.some((candidate) => {
    const known = LOOPBACK.exec(candidate);
    return known !== null && known[1] === asked[1] && (known[3] ?? '') === (asked[3] ?? '');
  });
}

/** RFC 7636 §4.2: `BASE64URL(SHA256(ASCII(code_verifier)))`. */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

export interface Accounts {
  handle(req: EmulatorRequest): Reply;
  issueAccessToken(userId: string | null, scopes: readonly string[]): IssuedToken;
  issueUserTokens(userId: string, scopes: readonly string[], pkce: boolean): IssuedToken;
}

export function createAccounts(options: AccountsOptions): Accounts {
  const { state, prefix } = options;

  function issueAccessToken(userId: string | null, scopes: readonly string[], code?: string): IssuedToken {
    const value = secret('BQ');
    state.accessTokens.set(value, {
      value,
      userId,
      scopes: new Set(scopes),
      expiresAt: state.now() + TOKEN_LIFETIME_S * 1000,
      ...(code === undefined ? {} : { code }),
    });
    return { access_token: value, token_type: 'Bearer', expires_in: TOKEN_LIFETIME_S };
  }

  function issueRefreshToken(
    userId: string,
    scopes: readonly string[],
    pkce: boolean,
    consentAt: number,
    code: string | undefined,
  ): string {
    const value = secret('AQ');
    state.refreshTokens.set(value, {
      value,
      userId,
      scopes: [...scopes],
      pkce,
      consentAt,
      used: false,
      ...(code === undefined ? {} : { code }),
    });
    return value;
  }

  function issueUserTokens(
    userId: string,
    scopes: readonly string[],
    pkce: boolean,
    code?: string,
  ): IssuedToken {
    return {
      ...issueAccessToken(userId, scopes, code),
      scope: scopes.join(' '),
      refresh_token: issueRefreshToken(userId, scopes, pkce, state.now(), code),
    };
  }

  /**
   * RFC 6749 §4.1.2: a code presented twice should make the server revoke every token issued on
   * it. Here that is the access and refresh tokens of its first redemption and all that refreshing
   * those gave; they become unknown (401 `Invalid access token`, `invalid_grant`).
   */
  function revokeTokensOf(code: string): void {
    for (const [value, record] of state.accessTokens)
      if (record.code === code) state.accessTokens.delete(value);
    for (const [value, record] of state.refreshTokens)
      if (record.code === code) state.refreshTokens.delete(value);
  }

  // ---- Authorization endpoint ----------------------------------------------------------------

  function page(status: number, title: string, body: string): Reply {
    return {
      status,
      body: `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body>${body}</body></html>`,
    };
  }

  function redirect(redirectUri: string, params: Record<string, string | null>): Reply {
    const location = new URL(redirectUri);
    for (const [name, value] of Object.entries(params))
      if (value !== null) location.searchParams.set(name, value);
    return { status: 302, headers: { location: location.toString() } };
  }

  function authorize(req: EmulatorRequest): Reply {
    const q = req.query;
    // A client or redirect URI given twice cannot be trusted to redirect to (RFC 6749 §4.1.2.1): it
    // stops on the page an invalid one gets.
    if (q.getAll('client_id').length > 1 || q.get('client_id') !== options.clientId)
      return page(400, 'Error', '<p>INVALID_CLIENT: Invalid client</p>');
    const redirectUri = q.get('redirect_uri');
    // No redirect to an unlisted URI. The token request must then name this one, port and all.
    if (
      q.getAll('redirect_uri').length > 1 ||
      redirectUri === null ||
      !redirectAllowed(options.redirectUris, redirectUri)
    ) {
      return page(400, 'Error', '<p>INVALID_CLIENT: Invalid redirect URI</p>');
    }
    // A repeated state has no one value to echo back exactly (§4.1.2.1), so none is.
    const stateParam = q.getAll('state').length > 1 ? null : q.get('state');
    // Any other parameter given twice is `invalid_request`, answered at the redirect URI.
    if (repeated(q, AUTHORIZE_PARAMETERS) !== undefined)
      return redirect(redirectUri, { error: 'invalid_request', state: stateParam });
    // RFC 6749 §4.1.2.1: a required parameter missing is `invalid_request`; a value the service does
    // not support, `unsupported_response_type`.
    const responseType = q.get('response_type');
    if (responseType === null) return redirect(redirectUri, { error: 'invalid_request', state: stateParam });
    if (responseType !== 'code')
      return redirect(redirectUri, { error: 'unsupported_response_type', state: stateParam });
    const scopes = (q.get('scope') ?? '').split(' ').filter((scope) => scope !== '');
    // An unknown scope stops on the service's own page, as an unlisted redirect URI does: the real
    // service answers 400 "Illegal scope" and does not redirect (RFC 6749 §4.1.2.1 would redirect
    // with invalid_scope; its public issue threads show the page).
    if (scopes.some((scope) => !KNOWN_SCOPES.has(scope))) return page(400, 'Error', '<p>Illegal scope</p>');
    const method = q.get('code_challenge_method');
    const challenge = q.get('code_challenge');
    if (
      (method !== null || challenge !== null) &&
      (method !== 'S256' || challenge === null || !CHALLENGE.test(challenge))
    ) {
      return redirect(redirectUri, { error: 'invalid_request', state: stateParam });
    }
    const pending: PendingAuthorization = {
      id: randomBytes(16).toString('hex'),
      redirectUri,
      state: stateParam,
      scopes: [...new Set(scopes)],
      challenge,
    };
    // Consent already given for all of it: no page, unless the app asks to show it again.
    const userId = state.sessions.get(cookie(req.headers.cookie, SESSION_COOKIE) ?? '');
    const granted =
      userId === undefined ? undefined : state.consents.get(consentKey(userId, options.clientId));
    if (
      userId !== undefined &&
      state.users.has(userId) &&
      q.get('show_dialog') !== 'true' &&
      granted !== undefined &&
      pending.scopes.every((scope) => granted.has(scope))
    ) {
      return redirect(redirectUri, { code: issueCode(userId, pending), state: stateParam });
    }
    state.pending.set(pending.id, pending);
    const scopeList =
      pending.scopes.length === 0
        ? '<li>Public data only</li>'
        : pending.scopes
            .map((scope) => `<li data-scope="${escapeHtml(scope)}">${escapeHtml(scope)}</li>`)
            .join('');
    const users = [...state.users.values()]
      .map(
        (user) =>
          `<option value="${escapeHtml(user.id)}">${escapeHtml(user.displayName ?? user.id)} (${escapeHtml(user.id)})</option>`,
      )
      .join('');
    return page(
      200,
      'Authorize access',
      `<h1>Allow this app to access your account?</h1>
<p id="emulated">This is the music service's emulator: its accounts are made up, and nothing leaves this machine.</p>
<p>It will be able to:</p>
<ul id="scopes">${scopeList}</ul>
<form method="post" action="${prefix}/authorize">
<input type="hidden" name="request_id" value="${pending.id}">
<label>Log in as <select name="user_id">${users}</select></label>
<button type="submit" name="decision" value="approve">Agree</button>
<button type="submit" name="decision" value="deny">Cancel</button>
</form>`,
    );
  }

  function decide(req: EmulatorRequest): Reply {
    const form = new URLSearchParams(req.rawBody);
    const pending = state.pending.get(form.get('request_id') ?? '');
    if (pending === undefined)
      return page(400, 'Error', '<p>This authorization request has expired. Start again.</p>');
    state.pending.delete(pending.id);
    if (form.get('decision') !== 'approve')
      return redirect(pending.redirectUri, { error: 'access_denied', state: pending.state });
    const user = state.users.get(form.get('user_id') ?? '');
    if (user === undefined)
      return redirect(pending.redirectUri, { error: 'access_denied', state: pending.state });
    const key = consentKey(user.id, options.clientId);
    state.consents.set(key, new Set([...(state.consents.get(key) ?? []), ...pending.scopes]));
    const session = secret('');
    state.sessions.set(session, user.id);
    const reply = redirect(pending.redirectUri, { code: issueCode(user.id, pending), state: pending.state });
    return {
      ...reply,
      headers: {
        ...reply.headers,
        'set-cookie': `${SESSION_COOKIE}=${session}; Path=${prefix}; HttpOnly; SameSite=Lax`,
      },
    };
  }

  function issueCode(userId: string, pending: PendingAuthorization): string {
    const code = secret('AQ');
    state.codes.set(code, {
      value: code,
      userId,
      scopes: pending.scopes,
      redirectUri: pending.redirectUri,
      challenge: pending.challenge,
      expiresAt: state.now() + CODE_LIFETIME_MS,
      used: false,
    });
    return code;
  }

  // ---- Token endpoint ------------------------------------------------------------------------

  /**
   * RFC 6749 §5.1: an answer carrying tokens has `Cache-Control: no-store` and `Pragma: no-cache`.
   * The token endpoint's error answers (§5.2) carry them too, so no answer of it is ever cached.
   */
  function uncacheable(reply: Reply): Reply {
    return { ...reply, headers: { ...reply.headers, 'cache-control': 'no-store', pragma: 'no-cache' } };
  }

  /**
   * RFC 6749 §2.3.1: HTTP Basic with the secret, or `client_id` and `client_secret` in the body
   * (the service's former guide allowed both), or (PKCE) just `client_id` in the body. With a Basic
   * header, the body's credentials are not looked at.
   */
  function authenticateClient(req: EmulatorRequest, form: URLSearchParams): { confidential: boolean } {
    const header = req.headers.authorization;
    if (header !== undefined) {
      const match = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header.trim());
      const decoded = match === null ? '' : Buffer.from(match[1] ?? '', 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon === -1) throw new OAuthFailure('invalid_client', 'Invalid client');
      const unescape = (text: string) => {
        try {
          return decodeURIComponent(text.replace(/\+/g, ' '));
        } catch {
          return text;
        }
      };
      if (unescape(decoded.slice(0, colon)) !== options.clientId)
        throw new OAuthFailure('invalid_client', 'Invalid client');
      if (unescape(decoded.slice(colon + 1)) !== options.clientSecret)
        throw new OAuthFailure('invalid_client', 'Invalid client secret');
      return { confidential: true };
    }
    if (form.get('client_id') !== options.clientId)
      throw new OAuthFailure('invalid_client', 'Invalid client');
    const bodySecret = form.get('client_secret');
    if (bodySecret === null) return { confidential: false };
    if (bodySecret !== options.clientSecret)
      throw new OAuthFailure('invalid_client', 'Invalid client secret');
    return { confidential: true };
  }

  function token(req: EmulatorRequest): Reply {
    const contentType = req.headers['content-type'] ?? '';
    const form = contentType.includes('application/x-www-form-urlencoded')
      ? new URLSearchParams(req.rawBody)
      : new URLSearchParams();
    const twice = repeated(form, TOKEN_PARAMETERS);
    if (twice !== undefined) throw new OAuthFailure('invalid_request', `${twice} parameter is repeated`);
    const grant = form.get('grant_type');
    if (grant === null) throw new OAuthFailure('unsupported_grant_type', 'grant_type parameter is missing');
    if (!['authorization_code', 'refresh_token', 'client_credentials'].includes(grant)) {
      throw new OAuthFailure(
        'unsupported_grant_type',
        `grant_type must be client_credentials, authorization_code or refresh_token`,
      );
    }
    const { confidential } = authenticateClient(req, form);

    if (grant === 'client_credentials') {
      if (!confidential) throw new OAuthFailure('invalid_client', 'Invalid client');
      return { status: 200, body: issueAccessToken(null, []) };
    }

    if (grant === 'authorization_code') {
      const presented = form.get('code') ?? '';
      if (presented === '') throw new OAuthFailure('invalid_request', 'code must be supplied');
      const code = state.codes.get(presented);
      // A replay (RFC 6749 §4.1.2): the code may be in other hands, so what it gave stops working.
      if (code?.used) revokeTokensOf(code.value);
      if (code === undefined || code.used)
        throw new OAuthFailure('invalid_grant', 'Invalid authorization code');
      if (state.now() >= code.expiresAt)
        throw new OAuthFailure('invalid_grant', 'Authorization code expired');
      // Without a challenge the code can only be redeemed with the secret.
      if (code.challenge === null && !confidential)
        throw new OAuthFailure('invalid_client', 'Invalid client');
      // Single use: spent on its first presentation, whatever the outcome.
      code.used = true;
      if (form.get('redirect_uri') !== code.redirectUri)
        throw new OAuthFailure('invalid_grant', 'Invalid redirect URI');
      const verifier = form.get('code_verifier');
      if (code.challenge !== null) {
        if (verifier === null) throw new OAuthFailure('invalid_request', 'code_verifier required');
        if (!VERIFIER.test(verifier) || s256(verifier) !== code.challenge) {
          throw new OAuthFailure('invalid_grant', 'code_verifier was incorrect');
        }
      } else if (verifier !== null) {
        // RFC 9700 §4.8.2 (PKCE downgrade): a verifier for a code asked for without a challenge is
        // refused, or an attacker who stripped the challenge from the request would redeem it.
        throw new OAuthFailure('invalid_grant', 'code_verifier was not expected');
      }
      return { status: 200, body: issueUserTokens(code.userId, code.scopes, !confidential, code.value) };
    }

    const presented = form.get('refresh_token') ?? '';
    if (presented === '') throw new OAuthFailure('invalid_request', 'refresh_token must be supplied');
    const refresh = state.refreshTokens.get(presented);
    if (refresh === undefined || refresh.used || state.now() >= refresh.consentAt + REFRESH_LIFETIME_MS) {
      throw new OAuthFailure('invalid_grant', 'Invalid refresh token');
    }
    if (!refresh.pkce && !confidential) throw new OAuthFailure('invalid_client', 'Invalid client');
    const body: IssuedToken = {
      ...issueAccessToken(refresh.userId, refresh.scopes, refresh.code),
      scope: refresh.scopes.join(' '),
    };
    if (refresh.pkce || options.refreshTokenRotation === 'always') {
      // Rotated refresh tokens work once; the answer carries the next one, with the same consent date.
      refresh.used = true;
      body.refresh_token = issueRefreshToken(
        refresh.userId,
        refresh.scopes,
        refresh.pkce,
        refresh.consentAt,
        refresh.code,
      );
    }
    return { status: 200, body };
  }

  return {
    issueAccessToken,
    issueUserTokens,
    handle(req) {
      const path = req.path.slice(prefix.length);
      try {
        if (path === '/authorize') {
          if (req.method === 'GET') return authorize(req);
          if (req.method === 'POST') return decide(req);
          // RFC 6749 §3.1 asks for GET and allows POST, here the consent page's decision. HEAD is
          // refused, as the API refuses it: answered as GET it would mint a code for a logged-in user
          // and hand it over in the Location header, and neither source says the service takes it.
          return { ...page(405, 'Error', '<p>Method not allowed</p>'), headers: { allow: 'GET, POST' } };
        }
        if (path === '/api/token') {
          if (req.method === 'POST') return uncacheable(token(req));
          // RFC 6749 §3.2: the token endpoint takes POST only; a 405 names it (RFC 9110 §15.5.6).
          return uncacheable({
            status: 405,
            headers: { allow: 'POST' },
            body: { error: 'invalid_request', error_description: 'Method not allowed' },
          });
        }
      } catch (error) {
        if (!(error instanceof OAuthFailure)) throw error;
        const reply = error.toReply();
        return path === '/api/token' ? uncacheable(reply) : reply;
      }
      return page(404, 'Not found', '<p>Not found</p>');
    },
  };
}
