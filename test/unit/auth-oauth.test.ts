import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MUSIC_SCOPES, MusicOAuth, OAuthError } from '../../src/auth/oauth.js';
import { describeForUser } from '../../src/bot/errors.js';
import { UpstreamError } from '../../src/services/http/errors.js';

const AUTH = 'https://auth.test';
const REDIRECT = 'https://bot.test/callback';
const STATE = 's'.repeat(43);
const NOT_ANSWERING = 'The music service is not answering right now. Please try again in a minute.';

let agent: MockAgent;
let oauth: MusicOAuth;
beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  oauth = new MusicOAuth({ authUrl: AUTH, clientId: 'cid', redirectUri: REDIRECT, dispatcher: agent });
});
afterEach(async () => {
  agent.assertNoPendingInterceptors();
  await agent.close();
});

const tokenEndpoint = () => agent.get(AUTH).intercept({ path: '/api/token', method: 'POST' });
const json = { headers: { 'content-type': 'application/json' } };
const callback = () => new URLSearchParams({ code: 'the-code', state: STATE });

describe('the code exchange', () => {
  it('keeps the scopes that were asked for when the answer names none (RFC 6749 §5.1)', async () => {
    tokenEndpoint().reply(
      200,
      { access_token: 'at', token_type: 'Bearer', expires_in: 3600, refresh_token: 'rt' },
      json,
    );
    const tokens = await oauth.exchangeCode(callback(), STATE, 'v'.repeat(64));
    expect(tokens.scopes.sort()).toEqual([...MUSIC_SCOPES].sort());
  });

  it('keeps the scopes the service names when it narrowed them', async () => {
    tokenEndpoint().reply(
      200,
      { access_token: 'at', token_type: 'Bearer', refresh_token: 'rt', scope: 'user-read-private' },
      json,
    );
    const tokens = await oauth.exchangeCode(callback(), STATE, 'v'.repeat(64));
    expect(tokens.scopes).toEqual(['user-read-private']);
  });
});

describe('a token endpoint that fails', () => {
  it.each([
    ['503 temporarily_unavailable', 503, { error: 'temporarily_unavailable' }],
    ['500 server_error', 500, { error: 'server_error' }],
    ['a 502 with an HTML page', 502, '<html>Bad gateway</html>'],
    ['a 429 with an HTML page', 429, '<html>Slow down</html>'],
    ['400 temporarily_unavailable', 400, { error: 'temporarily_unavailable' }],
  ])('tells the member the service is not answering (%s)', async (_name, status, body) => {
    tokenEndpoint().reply(status, body, typeof body === 'string' ? {} : json);
    const error = await oauth.refresh('rt').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OAuthError);
    // An upstream problem: the bot logs it as service trouble, not as its own fault.
    expect(error).toBeInstanceOf(UpstreamError);
    expect(describeForUser(error)).toBe(NOT_ANSWERING);
  });

  it('tells the member the service is not answering when it times out', async () => {
    const slow = new MusicOAuth({
      authUrl: AUTH,
      clientId: 'cid',
      redirectUri: REDIRECT,
      dispatcher: agent,
      timeoutMs: 50,
    });
    tokenEndpoint().reply(200, { access_token: 'at', token_type: 'Bearer' }, json).delay(500);
    const error = await slow.refresh('rt').catch((e: unknown) => e);
    expect(describeForUser(error)).toBe(NOT_ANSWERING);
  });

  it.each([
    ['invalid_grant sent as text/plain', 400, { 'content-type': 'text/plain' }, 'invalid_grant'],
    ['invalid_grant sent without a type', 400, {}, 'invalid_grant'],
    [
      'invalid_client with WWW-Authenticate',
      401,
      { ...json.headers, 'www-authenticate': 'Basic' },
      'invalid_client',
    ],
  ])('reads the OAuth error of a refusal however it is sent (%s)', async (_name, status, headers, code) => {
    tokenEndpoint().reply(
      status,
      JSON.stringify({ error: code, error_description: 'Invalid refresh token' }),
      {
        headers,
      },
    );
    const error = await oauth.refresh('rt').catch((e: unknown) => e);
    expect((error as OAuthError).oauthError).toBe(code);
    expect((error as OAuthError).transient).toBe(false);
    expect(describeForUser(error)).not.toBe(NOT_ANSWERING);
  });

  it.each([
    ['a 403 page of a proxy or firewall', 403, '<html>Blocked</html>', {}, 'no_oauth_error'],
    ['a 400 with no OAuth error', 400, { message: 'bad' }, json, 'no_oauth_error'],
    [
      'a success with a token type other than Bearer',
      200,
      { access_token: 'at', token_type: 'MAC' },
      json,
      'invalid_response',
    ],
    [
      'a success that is not JSON',
      200,
      'hello',
      { headers: { 'content-type': 'text/plain' } },
      'invalid_response',
    ],
  ])(
    'keeps an answer that is no OAuth answer, and will not pass, for the log rather than telling the member to wait (%s)',
    async (_name, status, body, options, code) => {
      tokenEndpoint().reply(status, body, options);
      const error = await oauth.refresh('rt').catch((e: unknown) => e);
      expect((error as OAuthError).oauthError).toBe(code);
      expect((error as OAuthError).transient).toBe(false);
      expect(describeForUser(error)).toBeUndefined();
    },
  );

  it('keeps a refusal that is the bot’s own fault for the log, not the member', async () => {
    tokenEndpoint().reply(400, { error: 'unsupported_grant_type' }, json);
    const error = await oauth.refresh('rt').catch((e: unknown) => e);
    expect((error as OAuthError).oauthError).toBe('unsupported_grant_type');
    expect(describeForUser(error)).toBeUndefined();
  });
});
