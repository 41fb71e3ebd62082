import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMusicEmulator, type MusicEmulator } from '../../emulators/music/index.js';
import { BOT_SCOPES } from '../fixtures/music.js';
import { callMusicApi, requestAppToken } from '../helpers/music-auth.js';

describe('music emulator: error answers a client sees', () => {
  let emulator: MusicEmulator;
  let token: string;

  beforeAll(async () => {
    emulator = await startMusicEmulator();
    token = emulator.issueUserToken('alice', BOT_SCOPES).access_token;
  });
  afterAll(() => emulator.close());

  const call = (method: string, path: string) => callMusicApi(emulator, token, path, method);

  it('answers a well-formed id that names no album or artist as the service does, and an unknown playlist its own way', async () => {
    const unknown = '0000000000000000000000';
    const noSuchId = { error: { status: 404, message: 'non existing id' } };
    for (const path of [
      `/v1/albums/${unknown}`,
      `/v1/albums/${unknown}/tracks`,
      `/v1/artists/${unknown}`,
      `/v1/artists/${unknown}/top-tracks?market=DE`,
    ]) {
      const answer = await call('GET', path);
      expect([path, answer.status, answer.body]).toEqual([path, 404, noSuchId]);
    }
    expect((await call('GET', `/v1/playlists/${unknown}`)).body).toEqual({
      error: { status: 404, message: 'Resource not found' },
    });
  });

  it('gives an injected 429 a Retry-After of 1 second by default', async () => {
    emulator.failNext('/v1/me', 429);
    expect(await call('GET', '/v1/me')).toEqual({
      status: 429,
      retryAfter: '1',
      body: { error: { status: 429, message: 'API rate limit exceeded' } },
    });
    expect((await call('GET', '/v1/me')).status).toBe(200);
  });

  it('gives an injected 429 the Retry-After asked for', async () => {
    emulator.failNext(/^\/v1\/me\/player/, 429, { retryAfterSeconds: 17 });
    const answer = await call('GET', '/v1/me/player/devices');
    expect([answer.status, answer.retryAfter]).toEqual([429, '17']);
  });

  it('sends no Retry-After with other injected failures', async () => {
    emulator.failNext('/v1/me', 503);
    expect((await call('GET', '/v1/me')).retryAfter).toBeNull();
  });

  it('refuses a Retry-After for an injected status that is not 429', () => {
    expect(() => emulator.failNext('/v1/me', 503, { retryAfterSeconds: 5 })).toThrow(/429/);
  });

  it('refuses a Retry-After the service never sends (a fraction, a negative number) for every injected 429', () => {
    for (const seconds of [1.5, -1]) {
      expect(() => emulator.failNext('/v1/me', 429, { retryAfterSeconds: seconds })).toThrow(/whole seconds/);
      expect(() => emulator.setRateLimit({ retryAfterSeconds: seconds, count: 1 })).toThrow(/whole seconds/);
      expect(() => emulator.exceedQuota({ retryAfterSeconds: seconds, count: 1 })).toThrow(/whole seconds/);
    }
  });

  describe('on the token endpoint', () => {
    async function clientCredentials() {
      const response = await requestAppToken(emulator);
      return {
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        cacheControl: response.headers.get('cache-control'),
        body: await response.json(),
      };
    }

    it('answers an injected failure with the OAuth error body (RFC 6749 §5.2), named with or without /accounts', async () => {
      emulator.failNext('/api/token', 503);
      expect(await clientCredentials()).toEqual({
        status: 503,
        retryAfter: null,
        cacheControl: 'no-store',
        body: { error: 'temporarily_unavailable', error_description: 'Service unavailable' },
      });
      emulator.failNext('/accounts/api/token', 400, {
        error: 'invalid_grant',
        message: 'Invalid refresh token',
      });
      expect((await clientCredentials()).body).toEqual({
        error: 'invalid_grant',
        error_description: 'Invalid refresh token',
      });
      emulator.failNext(/\/api\/token$/, 500);
      expect((await clientCredentials()).body).toEqual({
        error: 'server_error',
        error_description: 'Server error',
      });
      expect((await clientCredentials()).status).toBe(200);
    });

    it('answers an injected 429 there with Retry-After and the OAuth error body', async () => {
      emulator.setRateLimit({ retryAfterSeconds: 7, count: 1, path: '/api/token' });
      expect(await clientCredentials()).toMatchObject({
        status: 429,
        retryAfter: '7',
        body: { error: 'temporarily_unavailable', error_description: 'API rate limit exceeded' },
      });
      expect((await clientCredentials()).status).toBe(200);
    });

    it('refuses to inject a 401 there: the service answers invalid_client with 400', async () => {
      for (const path of ['/api/token', '/accounts/api/token', /token/])
        expect(() => emulator.failNext(path, 401)).toThrow(/400 invalid_client/);
      emulator.failNext('/api/token', 400, { error: 'invalid_client', message: 'Invalid client' });
      expect(await clientCredentials()).toMatchObject({
        status: 400,
        body: { error: 'invalid_client', error_description: 'Invalid client' },
      });
      expect((await clientCredentials()).status).toBe(200);
    });

    it('counts token requests filtered by the path without /accounts', async () => {
      emulator.resetCounters();
      await clientCredentials();
      expect(emulator.requestCount({ path: '/api/token' })).toBe(1);
      expect(emulator.requestCount({ path: '/accounts/api/token' })).toBe(1);
    });
  });

  it('refuses a path to inject at that can never match a request', () => {
    expect(() => emulator.failNext('/v1/me?market=US', 503)).toThrow(/not a pathname/);
    expect(() => emulator.stallNext(`${emulator.authUrl}/api/token`, 100)).toThrow(/not a pathname/);
    expect(() => emulator.setRateLimit({ retryAfterSeconds: 1, count: 1, path: 'v1/me' })).toThrow(
      /not a pathname/,
    );
    // A count of such a path would be 0 whatever was called: refused too.
    expect(() => emulator.requestCount({ path: `${emulator.apiUrl}/v1/me` })).toThrow(/not a pathname/);
  });

  it('says how to authenticate on an injected 401 (RFC 6750 §3)', async () => {
    emulator.failNext('/v1/me', 401, { message: 'The access token expired' });
    const response = await fetch(`${emulator.apiUrl}/v1/me`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.headers.get('www-authenticate')).toBe(
      'Bearer realm="service", error="invalid_token", error_description="The access token expired"',
    );
  });

  it('refuses to pause what is paused with reason UNKNOWN, as the service does lately', async () => {
    emulator.setPlayer('alice', { isPlaying: false, activeDeviceId: 'alice-laptop' });
    expect(await call('PUT', '/v1/me/player/pause')).toEqual({
      status: 403,
      retryAfter: null,
      body: {
        error: { status: 403, message: 'Player command failed: Restriction violated', reason: 'UNKNOWN' },
      },
    });
  });
});
