import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMusicEmulator, type MusicEmulator } from '../../emulators/music/index.js';
import { manualClock, pkcePair } from '../fixtures/music.js';

const REDIRECT = 'http://127.0.0.1:8787/callback';

describe('music emulator: accounts', () => {
  let emulator: MusicEmulator;
  const clock = manualClock();

  beforeAll(async () => {
    emulator = await startMusicEmulator({ now: clock.now, redirectUris: [REDIRECT] });
  });
  afterAll(() => emulator.close());

  function authorizeUrl(params: Record<string, string>): string {
    const url = new URL(`${emulator.authUrl}/authorize`);
    const all = {
      client_id: emulator.clientId,
      response_type: 'code',
      redirect_uri: REDIRECT,
      state: 'st4te',
      ...params,
    };
    for (const [name, value] of Object.entries(all)) url.searchParams.set(name, value);
    return url.toString();
  }

  async function token(
    form: Record<string, string> | [string, string][],
    basic = false,
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    if (basic)
      headers['authorization'] =
        `Basic ${Buffer.from(`${emulator.clientId}:${emulator.clientSecret}`).toString('base64')}`;
    const response = await fetch(`${emulator.authUrl}/api/token`, {
      method: 'POST',
      headers,
      body: new URLSearchParams(form),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  async function api(path: string, accessToken: string): Promise<{ status: number; body: unknown }> {
    const response = await fetch(`${emulator.apiUrl}${path}`, {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    return { status: response.status, body: response.status === 204 ? undefined : await response.json() };
  }

  it('shows a consent page listing the scopes, with a user chooser, that says it is the emulator', async () => {
    const response = await fetch(authorizeUrl({ scope: 'user-read-private playlist-read-private' }));
    const html = await response.text();
    expect(response.status).toBe(200);
    // Someone trying the offline demo is not left wondering whether a real account is asked for.
    expect(html).toMatch(/<p id="emulated">[^<]*emulator[^<]*nothing leaves this machine/);
    expect(html).toContain('data-scope="user-read-private"');
    expect(html).toContain('data-scope="playlist-read-private"');
    expect(html).toContain('<option value="alice">');
    expect(html).toMatch(/value="approve"/);
    expect(html).toMatch(/value="deny"/);
  });

  it('runs the authorization code flow with the client secret', async () => {
    const location = await emulator.approve(authorizeUrl({ scope: 'user-read-private' }), 'alice');
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    expect(location.searchParams.get('state')).toBe('st4te');
    const code = location.searchParams.get('code') ?? '';
    const answer = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT }, true);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'user-read-private' });
    expect(answer.body['refresh_token']).toBeTypeOf('string');
    const me = await api('/v1/me', String(answer.body['access_token']));
    expect(me.body).toMatchObject({ id: 'alice', country: 'US' });
  });

  it('refuses a code twice', async () => {
    const code = (await emulator.approve(authorizeUrl({}), 'alice')).searchParams.get('code') ?? '';
    expect(
      (await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT }, true)).status,
    ).toBe(200);
    const again = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT }, true);
    expect(again).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'Invalid authorization code' },
    });
  });

  it('revokes the tokens a code gave when the code comes back (RFC 6749 §4.1.2)', async () => {
    const code =
      (await emulator.approve(authorizeUrl({ scope: 'user-read-private' }), 'alice')).searchParams.get(
        'code',
      ) ?? '';
    const first = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT }, true);
    const accessToken = String(first.body['access_token']);
    const refreshToken = String(first.body['refresh_token']);
    expect((await api('/v1/me', accessToken)).status).toBe(200);

    const replay = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT }, true);
    expect(replay.body).toEqual({ error: 'invalid_grant', error_description: 'Invalid authorization code' });
    expect(await api('/v1/me', accessToken)).toEqual({
      status: 401,
      body: { error: { status: 401, message: 'Invalid access token' } },
    });
    expect(await token({ grant_type: 'refresh_token', refresh_token: refreshToken }, true)).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'Invalid refresh token' },
    });
  });

  it('revokes what the refresh tokens of a replayed PKCE code gave too', async () => {
    const { verifier, challenge } = pkcePair();
    const url = authorizeUrl({ code_challenge_method: 'S256', code_challenge: challenge });
    const code = (await emulator.approve(url, 'alice')).searchParams.get('code') ?? '';
    const redeem = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: emulator.clientId,
      code_verifier: verifier,
    };
    const first = await token(redeem);
    const renewed = await token({
      grant_type: 'refresh_token',
      refresh_token: String(first.body['refresh_token']),
      client_id: emulator.clientId,
    });
    expect(renewed.status).toBe(200);

    expect((await token(redeem)).body).toMatchObject({ error: 'invalid_grant' });
    expect((await api('/v1/me', String(renewed.body['access_token']))).status).toBe(401);
    expect(
      await token({
        grant_type: 'refresh_token',
        refresh_token: String(renewed.body['refresh_token']),
        client_id: emulator.clientId,
      }),
    ).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'Invalid refresh token' } });
  });

  it('revokes nothing else when a code comes back', async () => {
    const other = emulator.issueUserToken('alice', ['user-read-private']);
    const code = (await emulator.approve(authorizeUrl({}), 'alice')).searchParams.get('code') ?? '';
    await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT }, true);
    await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT }, true);
    expect((await api('/v1/me', other.access_token)).status).toBe(200);
  });

  it('tells caches not to keep any token endpoint answer (RFC 6749 §5.1)', async () => {
    const basic = `Basic ${Buffer.from(`${emulator.clientId}:${emulator.clientSecret}`).toString('base64')}`;
    const post = (body: Record<string, string>, withSecret = true) =>
      fetch(`${emulator.authUrl}/api/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          ...(withSecret ? { authorization: basic } : {}),
        },
        body: new URLSearchParams(body),
      });
    const code = (await emulator.approve(authorizeUrl({}), 'alice')).searchParams.get('code') ?? '';
    const issued = await post({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT });
    const refreshToken = String(((await issued.clone().json()) as Record<string, unknown>)['refresh_token']);
    const answers = {
      'client credentials': await post({ grant_type: 'client_credentials' }),
      'authorization code': issued,
      refresh: await post({ grant_type: 'refresh_token', refresh_token: refreshToken }),
      invalid_grant: await post({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT }),
      invalid_client: await post({ grant_type: 'client_credentials' }, false),
      unsupported_grant_type: await post({ grant_type: 'password' }),
    };
    const seen = Object.entries(answers).map(([name, response]) => [
      name,
      response.status,
      response.headers.get('cache-control'),
      response.headers.get('pragma'),
    ]);
    expect(seen).toEqual([
      ['client credentials', 200, 'no-store', 'no-cache'],
      ['authorization code', 200, 'no-store', 'no-cache'],
      ['refresh', 200, 'no-store', 'no-cache'],
      ['invalid_grant', 400, 'no-store', 'no-cache'],
      ['invalid_client', 400, 'no-store', 'no-cache'],
      ['unsupported_grant_type', 400, 'no-store', 'no-cache'],
    ]);
  });

  it('refuses a code after 10 minutes, saying it expired', async () => {
    const code = (await emulator.approve(authorizeUrl({}), 'alice')).searchParams.get('code') ?? '';
    clock.advance(10 * 60_000 + 1);
    const late = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT }, true);
    expect(late).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'Authorization code expired' },
    });
    const unknown = await token(
      { grant_type: 'authorization_code', code: 'AQnot-a-code', redirect_uri: REDIRECT },
      true,
    );
    expect(unknown.body).toEqual({ error: 'invalid_grant', error_description: 'Invalid authorization code' });
  });

  it('refuses a redirect URI that differs from the one authorized', async () => {
    const code = (await emulator.approve(authorizeUrl({}), 'alice')).searchParams.get('code') ?? '';
    const answer = await token(
      { grant_type: 'authorization_code', code, redirect_uri: `${REDIRECT}/` },
      true,
    );
    expect(answer.body).toEqual({ error: 'invalid_grant', error_description: 'Invalid redirect URI' });
  });

  it('runs PKCE without the secret, and refuses a wrong verifier', async () => {
    const { verifier, challenge } = pkcePair();
    const url = authorizeUrl({ code_challenge_method: 'S256', code_challenge: challenge });
    const wrongCode = (await emulator.approve(url, 'alice')).searchParams.get('code') ?? '';
    const wrong = await token({
      grant_type: 'authorization_code',
      code: wrongCode,
      redirect_uri: REDIRECT,
      client_id: emulator.clientId,
      code_verifier: pkcePair().verifier,
    });
    expect(wrong).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'code_verifier was incorrect' },
    });

    const missingCode = (await emulator.approve(url, 'alice')).searchParams.get('code') ?? '';
    const missing = await token({
      grant_type: 'authorization_code',
      code: missingCode,
      redirect_uri: REDIRECT,
      client_id: emulator.clientId,
    });
    expect(missing.body).toEqual({ error: 'invalid_request', error_description: 'code_verifier required' });

    const code = (await emulator.approve(url, 'alice')).searchParams.get('code') ?? '';
    const right = await token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: emulator.clientId,
      code_verifier: verifier,
    });
    expect(right.status).toBe(200);
  });

  it('refuses a code_verifier for a code asked for without a challenge (RFC 9700 §4.8.2, PKCE downgrade)', async () => {
    const code = (await emulator.approve(authorizeUrl({}), 'alice')).searchParams.get('code') ?? '';
    const answer = await token(
      {
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        code_verifier: pkcePair().verifier,
      },
      true,
    );
    expect(answer).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'code_verifier was not expected' },
    });
    // Spent on that presentation, as any code is.
    const again = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT }, true);
    expect(again.body).toEqual({ error: 'invalid_grant', error_description: 'Invalid authorization code' });
  });

  it('rotates PKCE refresh tokens and refuses a used one', async () => {
    const { verifier, challenge } = pkcePair();
    const code =
      (
        await emulator.approve(
          authorizeUrl({
            code_challenge_method: 'S256',
            code_challenge: challenge,
            scope: 'user-read-private',
          }),
          'bob',
        )
      ).searchParams.get('code') ?? '';
    const first = await token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: emulator.clientId,
      code_verifier: verifier,
    });
    const refresh = String(first.body['refresh_token']);
    const renewed = await token({
      grant_type: 'refresh_token',
      refresh_token: refresh,
      client_id: emulator.clientId,
    });
    expect(renewed.status).toBe(200);
    expect(renewed.body['refresh_token']).toBeTypeOf('string');
    expect(renewed.body['refresh_token']).not.toBe(refresh);
    const reused = await token({
      grant_type: 'refresh_token',
      refresh_token: refresh,
      client_id: emulator.clientId,
    });
    expect(reused).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'Invalid refresh token' },
    });
    const next = await token({
      grant_type: 'refresh_token',
      refresh_token: String(renewed.body['refresh_token']),
      client_id: emulator.clientId,
    });
    expect(next.status).toBe(200);
  });

  it('keeps a confidential client’s refresh token (no rotation) and needs the secret for it', async () => {
    const issued = emulator.issueUserToken('alice', ['user-read-private']);
    const refresh = issued.refresh_token ?? '';
    const once = await token({ grant_type: 'refresh_token', refresh_token: refresh }, true);
    expect(once.status).toBe(200);
    expect(once.body['refresh_token']).toBeUndefined();
    expect((await token({ grant_type: 'refresh_token', refresh_token: refresh }, true)).status).toBe(200);
    expect(
      (await token({ grant_type: 'refresh_token', refresh_token: refresh, client_id: emulator.clientId }))
        .body,
    ).toMatchObject({
      error: 'invalid_client',
    });
  });

  describe('a user who already consented (show_dialog)', () => {
    /** Opens the consent page and agrees as `userId`, keeping the login cookie as a browser would. */
    async function consentInBrowser(url: string, userId: string): Promise<{ location: URL; cookie: string }> {
      const html = await (await fetch(url)).text();
      const requestId = /name="request_id" value="([^"]+)"/.exec(html)?.[1] ?? expect.fail('consent page');
      const answer = await fetch(`${emulator.authUrl}/authorize`, {
        method: 'POST',
        body: new URLSearchParams({ request_id: requestId, decision: 'approve', user_id: userId }),
        redirect: 'manual',
      });
      const setCookie = answer.headers.get('set-cookie') ?? expect.fail('no login cookie');
      return {
        location: new URL(answer.headers.get('location') ?? expect.fail('no redirect')),
        cookie: setCookie.split(';')[0] ?? '',
      };
    }
    const again = (url: string, cookie: string) => fetch(url, { headers: { cookie }, redirect: 'manual' });

    it('is sent straight back with a code when the scopes were all granted and show_dialog is not true', async () => {
      const scope = 'user-read-private playlist-read-private';
      const { cookie } = await consentInBrowser(authorizeUrl({ scope }), 'alice');
      for (const extra of [{}, { show_dialog: 'false' }, { scope: 'playlist-read-private' }]) {
        const response = await again(authorizeUrl({ scope, state: 'n3xt', ...extra }), cookie);
        expect(response.status).toBe(302);
        const location = new URL(response.headers.get('location') ?? '');
        expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
        expect(location.searchParams.get('state')).toBe('n3xt');
        const code = location.searchParams.get('code') ?? '';
        const answer = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT }, true);
        expect(answer.status).toBe(200);
        expect(answer.body['scope']).toBe('scope' in extra ? extra.scope : scope);
        const me = await api('/v1/me', String(answer.body['access_token']));
        expect(me.body).toMatchObject({ id: 'alice' });
      }
    });

    it('sees the consent page again with show_dialog=true, for a new scope, or without the login cookie', async () => {
      const scope = 'user-read-private';
      const { cookie } = await consentInBrowser(authorizeUrl({ scope }), 'bob');
      for (const [url, sent] of [
        [authorizeUrl({ scope, show_dialog: 'true' }), cookie],
        [authorizeUrl({ scope: `${scope} user-read-email` }), cookie],
        [authorizeUrl({ scope }), ''],
      ] as const) {
        const response = await again(url, sent);
        expect(response.status).toBe(200);
        expect(await response.text()).toMatch(/value="approve"/);
      }
      // Agreeing to the new scope adds it to what was granted.
      await consentInBrowser(authorizeUrl({ scope: 'user-read-email' }), 'bob');
      expect((await again(authorizeUrl({ scope: `${scope} user-read-email` }), cookie)).status).toBe(302);
    });

    it('still checks the request first: client, redirect URI, response type, scopes and PKCE', async () => {
      const { cookie } = await consentInBrowser(authorizeUrl({}), 'carol');
      const page = async (params: Record<string, string>, text: string) => {
        const response = await again(authorizeUrl(params), cookie);
        expect([response.status, response.headers.get('location')]).toEqual([400, null]);
        expect(await response.text()).toContain(text);
      };
      await page({ client_id: 'someone-else' }, 'INVALID_CLIENT: Invalid client');
      await page({ redirect_uri: `${REDIRECT}/` }, 'INVALID_CLIENT: Invalid redirect URI');
      await page({ scope: 'user-read-birthdate' }, 'Illegal scope');
      const refusedWith = async (params: Record<string, string>) => {
        const response = await again(authorizeUrl(params), cookie);
        expect(response.status).toBe(302);
        const location = new URL(response.headers.get('location') ?? '');
        expect(location.searchParams.has('code')).toBe(false);
        return location.searchParams.get('error');
      };
      expect(await refusedWith({ response_type: 'token' })).toBe('unsupported_response_type');
      // Missing altogether, it is a required parameter missing (RFC 6749 §4.1.2.1).
      const withoutType = new URL(authorizeUrl({}));
      withoutType.searchParams.delete('response_type');
      const missing = await again(withoutType.toString(), cookie);
      expect(missing.status).toBe(302);
      expect(new URL(missing.headers.get('location') ?? '').searchParams.get('error')).toBe(
        'invalid_request',
      );
      expect(await refusedWith({ code_challenge_method: 'plain', code_challenge: 'x'.repeat(43) })).toBe(
        'invalid_request',
      );
    });
  });

  it('redirects with access_denied when the user cancels', async () => {
    const location = await emulator.deny(authorizeUrl({}), 'alice');
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('state')).toBe('st4te');
    expect(location.searchParams.has('code')).toBe(false);
  });

  it('shows INVALID_CLIENT and does not redirect for an unlisted redirect URI', async () => {
    for (const redirect of [
      `${REDIRECT}/`,
      'http://localhost:8787/callback',
      'http://127.0.0.1:8787/Callback',
    ]) {
      const response = await fetch(authorizeUrl({ redirect_uri: redirect }), { redirect: 'manual' });
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      expect(await response.text()).toContain('INVALID_CLIENT: Invalid redirect URI');
    }
    await expect(emulator.approve(authorizeUrl({ redirect_uri: `${REDIRECT}/` }), 'alice')).rejects.toThrow(
      /Invalid redirect URI/,
    );
  });

  it('stops on an "Illegal scope" page, without redirecting, for a scope it does not know', async () => {
    const response = await fetch(authorizeUrl({ scope: 'user-read-private user-read-birthdate' }), {
      redirect: 'manual',
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(await response.text()).toContain('Illegal scope');
  });

  it('says which parameter is missing when a grant comes without its code or refresh token', async () => {
    for (const code of [undefined, '']) {
      const form: Record<string, string> = { grant_type: 'authorization_code', redirect_uri: REDIRECT };
      if (code !== undefined) form.code = code;
      expect(await token(form, true)).toEqual({
        status: 400,
        body: { error: 'invalid_request', error_description: 'code must be supplied' },
      });
    }
    for (const refreshToken of [undefined, '']) {
      const form: Record<string, string> = { grant_type: 'refresh_token' };
      if (refreshToken !== undefined) form.refresh_token = refreshToken;
      expect(await token(form, true)).toEqual({
        status: 400,
        body: { error: 'invalid_request', error_description: 'refresh_token must be supplied' },
      });
    }
  });

  it('refuses PKCE with another method than S256, or without a challenge', async () => {
    for (const params of [
      { code_challenge_method: 'plain', code_challenge: pkcePair().challenge },
      { code_challenge_method: 'S256' },
    ]) {
      const location = await emulator.approve(authorizeUrl(params), 'alice');
      expect(location.searchParams.get('error')).toBe('invalid_request');
    }
  });

  describe('a parameter given twice (RFC 6749 §3.1, §3.2)', () => {
    /** The authorize URL with `extras` appended, so that the parameters they name come again. */
    const twice = (...extras: Record<string, string>[]) =>
      [authorizeUrl({}), ...extras.map((extra) => new URLSearchParams(extra).toString())].join('&');

    it('stops on the error page, without redirecting, for a repeated client or redirect URI', async () => {
      for (const [extra, text] of [
        [{ client_id: emulator.clientId }, 'INVALID_CLIENT: Invalid client'],
        [{ redirect_uri: REDIRECT }, 'INVALID_CLIENT: Invalid redirect URI'],
      ] as const) {
        const response = await fetch(twice(extra), { redirect: 'manual' });
        expect([response.status, response.headers.get('location')]).toEqual([400, null]);
        expect(await response.text()).toContain(text);
      }
    });

    it('redirects with invalid_request for any other repeated parameter, echoing no state when it is the one repeated', async () => {
      const pkce = { code_challenge_method: 'S256', code_challenge: pkcePair().challenge };
      for (const [url, state] of [
        [twice({ state: 'other' }), null],
        [twice({ response_type: 'code' }), 'st4te'],
        [twice({ scope: 'user-read-private' }, { scope: 'user-read-private' }), 'st4te'],
        [twice({ show_dialog: 'true' }, { show_dialog: 'false' }), 'st4te'],
        [twice(pkce, pkce), 'st4te'],
      ] as const) {
        const response = await fetch(url, { redirect: 'manual' });
        expect(response.status).toBe(302);
        const location = new URL(response.headers.get('location') ?? '');
        expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
        expect(location.searchParams.get('error')).toBe('invalid_request');
        expect(location.searchParams.has('code')).toBe(false);
        expect(location.searchParams.get('state')).toBe(state);
      }
    });

    it('answers invalid_request at the token endpoint, and ignores a repeated parameter it does not read', async () => {
      const code = (await emulator.approve(authorizeUrl({}), 'alice')).searchParams.get('code') ?? '';
      const base: [string, string][] = [
        ['grant_type', 'authorization_code'],
        ['code', code],
        ['redirect_uri', REDIRECT],
      ];
      expect(await token([...base, ['code', 'bogus']], true)).toEqual({
        status: 400,
        body: { error: 'invalid_request', error_description: 'code parameter is repeated' },
      });
      expect(await token([...base, ['grant_type', 'authorization_code']], true)).toEqual({
        status: 400,
        body: { error: 'invalid_request', error_description: 'grant_type parameter is repeated' },
      });
      const issued = await token([...base, ['unheard_of', '1'], ['unheard_of', '2']], true);
      expect(issued.status).toBe(200);
    });
  });

  it('takes only POST at the token endpoint, answering 405 with Allow: POST (RFC 6749 §3.2)', async () => {
    for (const method of ['GET', 'HEAD', 'PUT', 'DELETE']) {
      const response = await fetch(`${emulator.authUrl}/api/token?grant_type=client_credentials`, {
        method,
        headers: {
          authorization: `Basic ${Buffer.from(`${emulator.clientId}:${emulator.clientSecret}`).toString('base64')}`,
        },
      });
      expect([
        method,
        response.status,
        response.headers.get('allow'),
        response.headers.get('cache-control'),
      ]).toEqual([method, 405, 'POST', 'no-store']);
      if (method !== 'HEAD')
        expect(await response.json()).toEqual({
          error: 'invalid_request',
          error_description: 'Method not allowed',
        });
    }
  });

  it('takes GET and the consent page’s POST at authorize, answering 405 with Allow to any other, HEAD too', async () => {
    for (const method of ['HEAD', 'PUT', 'DELETE', 'PATCH']) {
      const response = await fetch(authorizeUrl({}), { method, redirect: 'manual' });
      expect([
        method,
        response.status,
        response.headers.get('allow'),
        response.headers.get('location'),
      ]).toEqual([method, 405, 'GET, POST', null]);
    }
  });

  it('takes any port on a registered loopback redirect URI, and needs that same URI for the code', async () => {
    const loopback = await startMusicEmulator({
      redirectUris: ['http://127.0.0.1/callback', 'http://[::1]:8787/cb', 'https://bot.example/callback'],
    });
    try {
      const at = (redirectUri: string) => {
        const url = new URL(`${loopback.authUrl}/authorize`);
        url.search = new URLSearchParams({
          client_id: loopback.clientId,
          response_type: 'code',
          redirect_uri: redirectUri,
          state: 's',
        }).toString();
        return url;
      };
      const location = await loopback.approve(at('http://127.0.0.1:54321/callback'), 'alice');
      expect(`${location.origin}${location.pathname}`).toBe('http://127.0.0.1:54321/callback');
      expect((await loopback.approve(at('http://[::1]:40000/cb'), 'alice')).port).toBe('40000');

      for (const refused of [
        'http://127.0.0.1:54321/other',
        'http://127.0.0.1:54321/callback/',
        'http://localhost:54321/callback',
        'http://[::1]:40000/callback',
        'https://127.0.0.1:54321/callback',
        'https://bot.example:8443/callback',
      ]) {
        const response = await fetch(at(refused), { redirect: 'manual' });
        expect([refused, response.status, response.headers.get('location')]).toEqual([refused, 400, null]);
      }

      const basic = `Basic ${Buffer.from(`${loopback.clientId}:${loopback.clientSecret}`).toString('base64')}`;
      const exchange = async (redirectUri: string) => {
        const code = (
          await loopback.approve(at('http://127.0.0.1:54321/callback'), 'alice')
        ).searchParams.get('code');
        const response = await fetch(`${loopback.authUrl}/api/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic },
          body: new URLSearchParams({
            grant_type: 'authorization_code',
            code: code ?? '',
            redirect_uri: redirectUri,
          }),
        });
        return { status: response.status, body: (await response.json()) as Record<string, unknown> };
      };
      expect((await exchange('http://127.0.0.1:54321/callback')).status).toBe(200);
      expect(await exchange('http://127.0.0.1/callback')).toEqual({
        status: 400,
        body: { error: 'invalid_grant', error_description: 'Invalid redirect URI' },
      });
      expect((await exchange('http://127.0.0.1:5555/callback')).body).toMatchObject({
        error: 'invalid_grant',
      });
    } finally {
      await loopback.close();
    }
  });

  it('refuses `localhost` redirect URIs at registration, over HTTPS too, in any case, with a trailing dot', async () => {
    for (const uri of [
      'http://localhost:8787/callback',
      'https://localhost:8443/callback',
      'https://localhost/callback',
      'https://LocalHost/callback',
      'HTTPS://LOCALHOST.:8443/callback',
      'http://localhost./callback',
    ]) {
      await expect(startMusicEmulator({ redirectUris: [uri] }), uri).rejects.toThrow(
        `redirect URI not allowed: ${uri}`,
      );
    }
  });

  it('takes an app’s own lowercase scheme with a path after "://" (iOS-style) as a redirect URI, and no other', async () => {
    const app = await startMusicEmulator({ redirectUris: ['skybeat-app://callback'] });
    try {
      const url = new URL(`${app.authUrl}/authorize`);
      url.search = new URLSearchParams({
        client_id: app.clientId,
        response_type: 'code',
        redirect_uri: 'skybeat-app://callback',
        state: 's',
      }).toString();
      const location = await app.approve(url, 'alice');
      expect(location.protocol).toBe('skybeat-app:');
      expect(location.searchParams.get('code')).toMatch(/.+/);
      expect(location.searchParams.get('state')).toBe('s');
    } finally {
      await app.close();
    }
    for (const uri of [
      'SkyBeat-App://callback',
      'skybeat-app:callback',
      'skybeat-app://',
      'ftp://files/cb',
    ]) {
      await expect(startMusicEmulator({ redirectUris: [uri] }), uri).rejects.toThrow(
        `redirect URI not allowed: ${uri}`,
      );
    }
  });

  it('takes the client id and secret in the form body as a confidential client (RFC 6749 §2.3.1)', async () => {
    const credentials = { client_id: emulator.clientId, client_secret: emulator.clientSecret };
    const app = await token({ grant_type: 'client_credentials', ...credentials });
    expect(app.status).toBe(200);
    expect(app.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });

    // A code issued without PKCE needs the secret: in the body it is as good as in Basic.
    const code = (await emulator.approve(authorizeUrl({}), 'alice')).searchParams.get('code') ?? '';
    const user = await token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      ...credentials,
    });
    expect(user.status).toBe(200);
    const refreshed = await token({
      grant_type: 'refresh_token',
      refresh_token: String(user.body['refresh_token']),
      ...credentials,
    });
    expect(refreshed.status).toBe(200);

    const wrong = await token({
      grant_type: 'client_credentials',
      client_id: emulator.clientId,
      client_secret: 'wrong',
    });
    expect(wrong).toEqual({
      status: 400,
      body: { error: 'invalid_client', error_description: 'Invalid client secret' },
    });
    const otherApp = await token({
      grant_type: 'client_credentials',
      client_id: 'someone-else',
      client_secret: emulator.clientSecret,
    });
    expect(otherApp.body).toEqual({ error: 'invalid_client', error_description: 'Invalid client' });
    // A client id alone is a public client: no application token for it.
    expect((await token({ grant_type: 'client_credentials', client_id: emulator.clientId })).body).toEqual({
      error: 'invalid_client',
      error_description: 'Invalid client',
    });
  });

  it('issues application tokens with Basic, and refuses a wrong secret', async () => {
    const ok = await token({ grant_type: 'client_credentials' }, true);
    expect(ok.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    const response = await fetch(`${emulator.authUrl}/api/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${emulator.clientId}:wrong`).toString('base64')}`,
      },
      body: 'grant_type=client_credentials',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: 'invalid_client',
      error_description: 'Invalid client secret',
    });
  });

  it('answers 403 to an application token on user endpoints', async () => {
    const app = String((await token({ grant_type: 'client_credentials' }, true)).body['access_token']);
    const refused = { error: { status: 403, message: 'This request requires user authentication.' } };
    expect(await api('/v1/me', app)).toEqual({ status: 403, body: refused });
    expect(await api('/v1/me/player/devices', app)).toEqual({ status: 403, body: refused });
    expect(await api('/v1/me/playlists', app)).toEqual({ status: 403, body: refused });
  });

  it('expires access tokens after 3600 s by the emulator clock', async () => {
    const issued = emulator.issueUserToken('alice', ['user-read-private']);
    expect((await api('/v1/me', issued.access_token)).status).toBe(200);
    clock.advance(3_600_000);
    expect(await api('/v1/me', issued.access_token)).toEqual({
      status: 401,
      body: { error: { status: 401, message: 'The access token expired' } },
    });
  });

  it('says how to authenticate on every 401 (RFC 6750 §3)', async () => {
    const challenge = async (authorization?: string) =>
      (
        await fetch(`${emulator.apiUrl}/v1/me`, {
          headers: authorization === undefined ? {} : { authorization },
        })
      ).headers.get('www-authenticate');
    expect(await challenge()).toBe('Bearer realm="service"');
    expect(await challenge('Bearer nonsense')).toBe(
      'Bearer realm="service", error="invalid_token", error_description="Invalid access token"',
    );
    const issued = emulator.issueUserToken('alice', ['user-read-private']);
    emulator.expireToken(issued.access_token);
    expect(await challenge(`Bearer ${issued.access_token}`)).toBe(
      'Bearer realm="service", error="invalid_token", error_description="The access token expired"',
    );
    // Not a 401: a token with too few scopes is answered 403 without a challenge.
    const narrow = emulator.issueUserToken('alice', []);
    const forbidden = await fetch(`${emulator.apiUrl}/v1/me/playlists`, {
      headers: { authorization: `Bearer ${narrow.access_token}` },
    });
    expect([forbidden.status, forbidden.headers.get('www-authenticate')]).toEqual([403, null]);
  });

  it('answers 401 with the real messages for a missing or unknown token', async () => {
    const none = await fetch(`${emulator.apiUrl}/v1/me`);
    expect(await none.json()).toEqual({ error: { status: 401, message: 'No token provided' } });
    expect((await api('/v1/me', 'nonsense')).body).toEqual({
      error: { status: 401, message: 'Invalid access token' },
    });
  });

  it('checks scopes per endpoint', async () => {
    const issued = emulator.issueUserToken('alice', ['user-read-private']);
    expect(await api('/v1/me/player/devices', issued.access_token)).toEqual({
      status: 403,
      body: { error: { status: 403, message: 'Insufficient client scope' } },
    });
    expect((await api('/v1/me/playlists', issued.access_token)).status).toBe(403);
  });

  it('refuses users who are not on the development-mode allow-list', async () => {
    emulator.createUser({ id: 'dave', registered: false });
    const issued = emulator.issueUserToken('dave', ['user-read-private']);
    expect((await api('/v1/me', issued.access_token)).body).toEqual({
      error: { status: 403, message: 'User not registered in the Developer Dashboard' },
    });
  });
});

describe('music emulator: 2026 variant', () => {
  let emulator: MusicEmulator;
  beforeAll(async () => {
    emulator = await startMusicEmulator({ variant: '2026' });
  });
  afterAll(() => emulator.close());

  it('answers 403 on removed endpoints and serves their replacements', async () => {
    const token = emulator.issueUserToken('alice', [
      'user-library-modify',
      'playlist-read-private',
    ]).access_token;
    const fixtures = emulator.fixtures ?? expect.fail('seeded');
    const call = (method: string, path: string) =>
      fetch(`${emulator.apiUrl}${path}`, { method, headers: { authorization: `Bearer ${token}` } });
    const big = fixtures.playlists.big;
    const album = fixtures.albumIds[0] ?? '';
    expect((await call('GET', `/v1/playlists/${big}/tracks`)).status).toBe(403);
    expect((await call('PUT', `/v1/me/albums?ids=${album}`)).status).toBe(403);
    expect((await call('GET', `/v1/artists?ids=${fixtures.artistIds[0] ?? ''}`)).status).toBe(403);
    expect((await call('GET', `/v1/playlists/${big}/items`)).status).toBe(200);
    expect((await call('PUT', `/v1/me/library?uris=service:album:${album}`)).status).toBe(200);
    // Removed paths the contract does not list answer the same 403, not "not found".
    for (const path of ['/v1/albums?ids=' + album, '/v1/users/alice/playlists', '/v1/markets']) {
      const refused = await call('GET', path);
      expect(refused.status).toBe(403);
      expect(await refused.json()).toEqual({ error: { status: 403, message: 'Forbidden' } });
    }
    expect((await call('GET', '/v1/nothing-here')).status).toBe(404);
    // A method the path does not take: 405, naming those it takes.
    const wrongMethod = await call('POST', '/v1/me/library');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('PUT, DELETE');
    expect(await wrongMethod.json()).toEqual({ error: { status: 405, message: 'Method not allowed' } });
    const bobs = emulator.issueUserToken('bob', ['playlist-read-private']).access_token;
    const forbidden = await fetch(`${emulator.apiUrl}/v1/playlists/${big}/items`, {
      headers: { authorization: `Bearer ${bobs}` },
    });
    expect(forbidden.status).toBe(403);
  });

  it('lists a user’s playlists with `items` only on those the user owns or collaborates on', async () => {
    const bobs = emulator.issueUserToken('bob', ['playlist-read-private', 'playlist-read-collaborative']);
    const response = await fetch(`${emulator.apiUrl}/v1/me/playlists?limit=50`, {
      headers: { authorization: `Bearer ${bobs.access_token}` },
    });
    const { items } = (await response.json()) as {
      items: { id: string; owner: { id: string }; collaborative: boolean; items?: { total: number } }[];
    };
    const others = items.filter((playlist) => playlist.owner.id !== 'bob' && !playlist.collaborative);
    const own = items.filter((playlist) => playlist.owner.id === 'bob');
    expect(others.length).toBeGreaterThan(0);
    expect(own.length).toBeGreaterThan(0);
    for (const playlist of others) expect(playlist).not.toHaveProperty('items');
    for (const playlist of own) expect(playlist.items?.total).toBeGreaterThanOrEqual(0);
  });

  it('tells which URIs are in the library, one boolean each, in order', async () => {
    const token = emulator.issueUserToken('alice', ['user-library-modify', 'user-library-read']).access_token;
    const fixtures = emulator.fixtures ?? expect.fail('seeded');
    const [saved = '', other = ''] = fixtures.albumIds;
    const call = (method: string, path: string) =>
      fetch(`${emulator.apiUrl}${path}`, { method, headers: { authorization: `Bearer ${token}` } });
    expect((await call('PUT', `/v1/me/library?uris=service:album:${saved}`)).status).toBe(200);
    const contains = await call(
      'GET',
      `/v1/me/library/contains?uris=service:album:${other},service:album:${saved}`,
    );
    expect(contains.status).toBe(200);
    expect(await contains.json()).toEqual([false, true]);
    expect((await call('GET', '/v1/me/library/contains')).status).toBe(400);
    const unscoped = emulator.issueUserToken('alice', ['user-library-modify']).access_token;
    const refused = await fetch(`${emulator.apiUrl}/v1/me/library/contains?uris=service:album:${saved}`, {
      headers: { authorization: `Bearer ${unscoped}` },
    });
    expect(refused.status).toBe(403);
  });

  it('refuses only the writes and checks of saved tracks and follows, not their reads', async () => {
    const token = emulator.issueUserToken('alice', [
      'user-library-modify',
      'user-library-read',
      'user-follow-modify',
      'user-follow-read',
    ]).access_token;
    const album = emulator.fixtures?.albumIds[0] ?? expect.fail('seeded');
    const track = emulator.fixtures?.trackIds[0] ?? expect.fail('seeded');
    const call = (method: string, path: string) =>
      fetch(`${emulator.apiUrl}${path}`, { method, headers: { authorization: `Bearer ${token}` } });
    for (const [method, path] of [
      ['PUT', `/v1/me/tracks?ids=${track}`],
      ['DELETE', `/v1/me/tracks?ids=${track}`],
      ['PUT', '/v1/me/following?type=artist&ids=x'],
      ['DELETE', '/v1/me/following?type=artist&ids=x'],
      ['GET', `/v1/me/albums/contains?ids=${album}`],
      ['GET', `/v1/me/tracks/contains?ids=${track}`],
      ['GET', '/v1/me/following/contains?type=artist&ids=x'],
    ] as const) {
      const refused = await call(method, path);
      expect([method, path, refused.status]).toEqual([method, path, 403]);
      expect(await refused.json()).toEqual({ error: { status: 403, message: 'Forbidden' } });
    }
    // The reads stayed: not refused as removed, answered as any path the emulator does not serve.
    for (const path of ['/v1/me/tracks', '/v1/me/following?type=artist']) {
      const read = await call('GET', path);
      const unknown = await call('GET', '/v1/nothing-here');
      expect([path, read.status]).toEqual([path, unknown.status]);
      expect(await read.json()).toEqual(await unknown.json());
    }
  });

  it('answers 401 with the 2026 wording', async () => {
    const response = await fetch(`${emulator.apiUrl}/v1/me`, {
      headers: { authorization: 'Bearer nonsense' },
    });
    expect(await response.json()).toEqual({
      error: { status: 401, message: 'Missing/invalid/expired access token' },
    });
    expect(response.headers.get('www-authenticate')).toBe(
      'Bearer realm="service", error="invalid_token", error_description="Missing/invalid/expired access token"',
    );
  });
});

describe('music emulator: empty seed', () => {
  it('starts with nobody and nothing, and takes users made by the test', async () => {
    const emulator = await startMusicEmulator({ seed: 'empty' });
    try {
      expect(emulator.users).toEqual([]);
      expect(emulator.fixtures).toBeUndefined();
      emulator.createUser({ id: 'erin', product: 'free', country: 'FR' });
      const token = emulator.issueUserToken('erin', ['user-read-private']).access_token;
      const response = await fetch(`${emulator.apiUrl}/v1/me`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(await response.json()).toMatchObject({ id: 'erin', product: 'free', country: 'FR' });
    } finally {
      await emulator.close();
    }
  });
});
