/**
 * The music service's OAuth 2.0 endpoints, by Authorization Code with PKCE (RFC 6749 §4.1,
 * RFC 7636), through oauth4webapi. The service publishes no discovery document, so the
 * authorization server's metadata is written here from upstream-facts.md:
 * `GET {auth_url}/authorize`, `POST {auth_url}/api/token`.
 *
 * The bot is a PKCE public client at the token endpoint (client_id in the body, no secret), the
 * way the service documents PKCE: its refresh tokens are then single-use and rotate on every
 * refresh. Any newer refresh token in an answer replaces the stored one.
 */
import * as oauth from 'oauth4webapi';
import { fetch as undiciFetch, type Dispatcher } from 'undici';
import { UpstreamError } from '../services/http/errors.js';
import { redactText } from '../services/http/redact.js';

/**
 * What the bot's features need, and nothing more (upstream-facts.md, scopes per endpoint):
 * profile and premium status, saving albums, devices, pause/next, reading and editing playlists.
 */
export const MUSIC_SCOPES = [
  'user-read-private',
  'user-library-modify',
  'user-read-playback-state',
  'user-modify-playback-state',
  'playlist-read-private',
  'playlist-read-collaborative',
  'playlist-modify-public',
  'playlist-modify-private',
] as const;

export interface MusicOAuthOptions {
  authUrl: string;
  clientId: string;
  redirectUri: string;
  timeoutMs?: number;
  dispatcher?: Dispatcher;
  /**
   * Other secrets an error answer might echo (the client secret): stripped from the error's message
   * with the request's own (code, verifier, state, refresh token).
   */
  secrets?: () => Iterable<string>;
}

export interface TokenSet {
  accessToken: string;
  /** Absent when the service kept the old refresh token. */
  refreshToken: string | undefined;
  expiresInSeconds: number;
  scopes: string[];
}

/** RFC 6749 §4.1.2.1 codes for a fault on the service's side that passes; `unreachable` is ours. */
const TRANSIENT_CODES: ReadonlySet<string> = new Set([
  'unreachable',
  'server_error',
  'temporarily_unavailable',
]);

/** Why a token request failed, for the callback page and the logs (never the secret values). */
export class OAuthError extends UpstreamError {
  override readonly name = 'OAuthError';
  /** True when the service is down or failing for now (no answer, a 5xx, a 429): trying later may work. */
  readonly transient: boolean;
  /** For the member when the service is down for now; otherwise the error is the bot's to log. */
  readonly userMessage: string | undefined;
  constructor(
    /**
     * The RFC 6749 §5.2 error code (`invalid_grant`, ...), or one of ours: `unreachable` (no answer),
     * `no_oauth_error` (an error status without an OAuth error: a proxy's or gateway's page),
     * `invalid_response` (a success the bot cannot use), `invalid_callback`.
     */
    readonly oauthError: string,
    message: string,
    { status, ...options }: ErrorOptions & { status?: number | undefined } = {},
  ) {
    super(message, 'music', options);
    this.transient = TRANSIENT_CODES.has(oauthError) || (status ?? 0) >= 500 || status === 429;
    // The same sentence as for any other music call the service does not answer.
    this.userMessage = this.transient
      ? 'The music service is not answering right now. Please try again in a minute.'
      : undefined;
  }
}

export class MusicOAuth {
  private readonly as: oauth.AuthorizationServer;
  private readonly client: oauth.Client;
  private readonly requestOptions: oauth.TokenEndpointRequestOptions;

  constructor(private readonly options: MusicOAuthOptions) {
    this.as = {
      issuer: options.authUrl,
      authorization_endpoint: `${options.authUrl}/authorize`,
      token_endpoint: `${options.authUrl}/api/token`,
    };
    this.client = { client_id: options.clientId };
    const timeoutMs = options.timeoutMs ?? 10_000;
    this.requestOptions = {
      // The local emulators speak plain http; the real service is https only.
      // (From the parsed address: the environment may write the scheme in capitals.)
      [oauth.allowInsecureRequests]: new URL(options.authUrl).protocol === 'http:',
      // undici's own fetch, so the dispatcher (pooling, tests' MockAgent) is the installed undici's.
      [oauth.customFetch]: (url, init) =>
        undiciFetch(url, {
          ...init,
          ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
        }),
      signal: () => AbortSignal.timeout(timeoutMs),
    };
  }

  /** RFC 7636 §4.2: the S256 challenge of a verifier (base64url of its SHA-256, no padding). */
  static pkceChallenge(verifier: string): Promise<string> {
    return oauth.calculatePKCECodeChallenge(verifier);
  }

  /** RFC 6749 §4.1.1: where to send the member's browser. */
  authorizeUrl(state: string, challenge: string, options: { showDialog?: boolean } = {}): string {
    const url = new URL(this.as.authorization_endpoint!);
    url.searchParams.set('client_id', this.options.clientId);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('redirect_uri', this.options.redirectUri);
    url.searchParams.set('scope', MUSIC_SCOPES.join(' '));
    url.searchParams.set('state', state);
    url.searchParams.set('code_challenge_method', 'S256');
    url.searchParams.set('code_challenge', challenge);
    if (options.showDialog) url.searchParams.set('show_dialog', 'true');
    return url.toString();
  }

  /**
   * RFC 6749 §4.1.2 and §4.1.3–4.1.4 with RFC 7636 §4.5: checks the authorization response that
   * came back to the callback (its `state` against the one we issued) and trades the code for tokens.
   */
  async exchangeCode(callback: URLSearchParams, expectedState: string, verifier: string): Promise<TokenSet> {
    // RFC 6749 §5.1: `scope` is left out when the service granted exactly what was asked for.
    const sent = [callback.get('code') ?? '', expectedState, verifier];
    let parameters: URLSearchParams;
    try {
      parameters = oauth.validateAuthResponse(this.as, this.client, callback, expectedState);
    } catch (error) {
      // The address that came back is not a valid answer (a parameter twice, an `iss` the service
      // never sends): refused outright, and not the service being down. A code of our own, not one
      // of RFC 6749's, which would say the service refused something the bot sent.
      const reason = error instanceof Error ? redactText(error.message, sent) : 'unknown error';
      throw new OAuthError('invalid_callback', `The callback address is not a valid answer: ${reason}`);
    }
    return this.run([...MUSIC_SCOPES], sent, async () => {
      const response = await oauth.authorizationCodeGrantRequest(
        this.as,
        this.client,
        oauth.None(),
        parameters,
        this.options.redirectUri,
        verifier,
        this.requestOptions,
      );
      await refusalIn(response);
      return oauth.processAuthorizationCodeResponse(this.as, this.client, response);
    });
  }

  /** RFC 6749 §6: a new access token (and, with PKCE, a new refresh token). */
  async refresh(refreshToken: string): Promise<TokenSet> {
    // No `scope` in the answer: the same as before (RFC 6749 §6), which the caller keeps.
    return this.run([], [refreshToken], async () => {
      const response = await oauth.refreshTokenGrantRequest(
        this.as,
        this.client,
        oauth.None(),
        refreshToken,
        this.requestOptions,
      );
      await refusalIn(response);
      return oauth.processRefreshTokenResponse(this.as, this.client, response);
    });
  }

  /** `scopes`: what the answer means when it names none; `sent`: the request's secrets. */
  private async run(
    scopes: string[],
    sent: string[],
    call: () => Promise<oauth.TokenEndpointResponse>,
  ): Promise<TokenSet> {
    let result: oauth.TokenEndpointResponse;
    try {
      result = await call();
    } catch (error) {
      throw toOAuthError(error, [...sent, ...(this.options.secrets?.() ?? [])]);
    }
    return {
      accessToken: result.access_token,
      refreshToken: result.refresh_token,
      expiresInSeconds: typeof result.expires_in === 'number' ? result.expires_in : 3600,
      scopes: typeof result.scope === 'string' ? result.scope.split(' ').filter(Boolean) : scopes,
    };
  }
}

/** An OAuth error answer (RFC 6749 §5.2) read by {@link refusalIn}. */
class Refusal extends Error {
  override readonly name = 'Refusal';
  constructor(
    readonly status: number,
    readonly error: string,
    // The service's text, redacted when it becomes an OAuthError (see `toOAuthError`).
    readonly error_description: string | undefined,
  ) {
    super(`the token endpoint refused the request (${error})`);
  }
}

/**
 * Throws the OAuth error a 4xx token answer carries. oauth4webapi reads one only from a body sent
 * as application/json and without WWW-Authenticate; an `invalid_grant` sent as text/plain, or a
 * 401 `invalid_client` with `WWW-Authenticate: Basic` (RFC 6749 §5.2 allows it), was taken for the
 * service being down: a dead link was never dropped, and the member heard "try again later".
 */
async function refusalIn(response: Response): Promise<void> {
  if (response.status < 400) return;
  let body: unknown;
  try {
    body = JSON.parse(await response.clone().text());
  } catch {
    body = undefined;
  }
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const { error, error_description: description } = fields;
  if (typeof error === 'string')
    throw new Refusal(response.status, error, typeof description === 'string' ? description : undefined);
  // No OAuth error in it (a proxy's or a firewall's page, a gateway's 502): its status says whether
  // it passes (a 5xx, a 429) or not, rather than every such answer reading as the service being down.
  throw new Unanswered(response.status);
}

/** An error status from the token endpoint with no OAuth error in its body (see {@link refusalIn}). */
class Unanswered extends Error {
  override readonly name = 'Unanswered';
  constructor(readonly status: number) {
    super(`the token endpoint answered ${status} without an OAuth error`);
  }
}

/** `known`: secrets the service's text may echo back (what the request sent, the client secret). */
function toOAuthError(error: unknown, known: readonly string[]): OAuthError {
  if (error instanceof oauth.ResponseBodyError || error instanceof Refusal) {
    // error_description is the service's text, which may quote what it was sent.
    const description = error.error_description ? `: ${redactText(error.error_description, known)}` : '';
    return new OAuthError(
      error.error,
      `The music service refused the token request (${error.error}${description})`,
      { status: error.status },
    );
  }
  if (error instanceof Unanswered) {
    return new OAuthError(
      'no_oauth_error',
      `The music service's token endpoint answered ${error.status} without an OAuth error`,
      {
        status: error.status,
      },
    );
  }
  const message = error instanceof Error ? redactText(error.message, known) : 'unknown error';
  // A success the bot cannot use (not JSON, no access token, a token type other than Bearer):
  // trying again gets the same answer.
  if (error instanceof oauth.OperationProcessingError || error instanceof oauth.UnsupportedOperationError) {
    return new OAuthError(
      'invalid_response',
      `The music service's token endpoint sent an answer the bot cannot use: ${message}`,
    );
  }
  return new OAuthError('unreachable', `The music service's token endpoint failed: ${message}`);
}
