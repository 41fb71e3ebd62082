import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HttpError, RateLimitError } from '../../src/services/http/errors.js';
import {
  createMusicClient,
  DEFAULT_MUSIC_OPTIONS,
  ForbiddenError,
  IncompleteChangeError,
  InsufficientScopeError,
  AppCredentialsError,
  MusicAuthError,
  NoActiveDeviceError,
  NotFoundError,
  PlayerRestrictionError,
  PremiumRequiredError,
  UserNotRegisteredError,
  type MusicClient,
} from '../../src/services/music/index.js';
import { parseItemRefs } from '../../src/domain/music/refs.js';
import { recordingSleep } from '../fixtures/music.js';

const API = 'https://api.music.test';
const ACCOUNTS = 'https://accounts.music.test';
const ALBUM = '4aawyAB9vmqN3uQ7FjRGTy';
const JSON_HEADERS = { headers: { 'content-type': 'application/json' } };

function header(headers: unknown, name: string): string | undefined {
  if (headers === undefined || headers === null) return undefined;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[]>;
  const value = Object.entries(record).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value.join(', ') : value;
}

const album = (id = ALBUM) => ({
  album_type: 'album',
  total_tracks: 0,
  href: `${API}/v1/albums/${id}`,
  id,
  images: [],
  name: 'A',
  release_date: '2001',
  release_date_precision: 'year',
  type: 'album',
  uri: `service:album:${id}`,
  artists: [],
  tracks: {
    href: `${API}/v1/albums/${id}/tracks?offset=0&limit=50`,
    items: [],
    limit: 50,
    offset: 0,
    total: 0,
    next: null,
    previous: null,
  },
});

describe('music client (mocked HTTP)', () => {
  let agent: MockAgent;
  let music: MusicClient;
  let now = 0;
  const tokens: Record<string, string> = { alice: 'alice-token-0123456789' };

  beforeEach(() => {
    agent = new MockAgent();
    agent.disableNetConnect();
    now = 1_000_000;
    music = clientWith();
  });

  /** A client on the mocked service, with the test's clock; `options` replace the defaults. */
  const clientWith = (options: Partial<Parameters<typeof createMusicClient>[0]> = {}, retries = 0) =>
    createMusicClient({
      apiUrl: API,
      authUrl: ACCOUNTS,
      clientId: 'client-id',
      clientSecret: 'client-secret-abcdef',
      variant: 'classic',
      getAccessToken: (userId) => Promise.resolve(tokens[userId] ?? ''),
      transport: { dispatcher: agent, sleep: recordingSleep().sleep, retries },
      now: () => now,
      ...options,
    });
  afterEach(async () => {
    agent.assertNoPendingInterceptors();
    await agent.close();
  });

  const appToken = (value = 'app-token-0123456789', times = 1) =>
    agent
      .get(ACCOUNTS)
      .intercept({ path: '/api/token', method: 'POST', body: 'grant_type=client_credentials' })
      .reply((opts) => {
        expect(header(opts.headers, 'authorization')).toBe(
          `Basic ${Buffer.from('client-id:client-secret-abcdef').toString('base64')}`,
        );
        expect(header(opts.headers, 'content-type')).toBe('application/x-www-form-urlencoded');
        return {
          statusCode: 200,
          data: { access_token: value, token_type: 'Bearer', expires_in: 3600 },
          responseOptions: JSON_HEADERS,
        };
      })
      .times(times);

  describe('player commands never parse a body', () => {
    it.each([
      ['204 No Content', 204, ''],
      ['200 with an empty body', 200, ''],
      ['200 with a non-JSON body', 200, 'OK, paused'],
      ['200 with broken JSON', 200, '{"oops'],
    ])('accepts %s', async (_label, status, body) => {
      agent.get(API).intercept({ path: '/v1/me/player/pause', method: 'PUT' }).reply(status, body);
      agent
        .get(API)
        .intercept({ path: '/v1/me/player/next?device_id=dev1', method: 'POST' })
        .reply(status, body);
      await expect(music.player.pause('alice')).resolves.toBeUndefined();
      await expect(music.player.next('alice', { deviceId: 'dev1' })).resolves.toBeUndefined();
    });
  });

  it('sends the member’s token and no market on user calls', async () => {
    agent
      .get(API)
      .intercept({
        path: (path) => path.startsWith(`/v1/playlists/${ALBUM}?`) || path === `/v1/playlists/${ALBUM}`,
        method: 'GET',
      })
      .reply((opts) => {
        expect(opts.path).toBe(`/v1/playlists/${ALBUM}`);
        expect(header(opts.headers, 'authorization')).toBe('Bearer alice-token-0123456789');
        return {
          statusCode: 404,
          data: { error: { status: 404, message: 'Resource not found' } },
          responseOptions: JSON_HEADERS,
        };
      });
    await expect(music.playlists.get(ALBUM, { userId: 'alice' })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('sends the application token and the default market on catalog calls; an explicit market wins', async () => {
    appToken();
    const seen: string[] = [];
    agent
      .get(API)
      .intercept({ path: (path) => path.startsWith(`/v1/albums/${ALBUM}`), method: 'GET' })
      .reply((opts) => {
        seen.push(opts.path);
        expect(header(opts.headers, 'authorization')).toBe('Bearer app-token-0123456789');
        return { statusCode: 200, data: album(), responseOptions: JSON_HEADERS };
      })
      .times(2);
    await music.albums.get(ALBUM);
    await music.albums.get(ALBUM, { market: 'SE' });
    expect(seen).toEqual([`/v1/albums/${ALBUM}?market=US`, `/v1/albums/${ALBUM}?market=SE`]);
  });

  it('renews the application token 60 s before it expires', async () => {
    appToken('app-token-first-000000');
    appToken('app-token-second-00000');
    const used: (string | undefined)[] = [];
    agent
      .get(API)
      .intercept({ path: (path) => path.startsWith(`/v1/albums/${ALBUM}`), method: 'GET' })
      .reply((opts) => {
        used.push(header(opts.headers, 'authorization'));
        return { statusCode: 200, data: album(), responseOptions: JSON_HEADERS };
      })
      .times(3);
    await music.albums.get(ALBUM);
    now += 3_600_000 - 60_001;
    await music.albums.get(ALBUM);
    now += 2;
    await music.albums.get(ALBUM);
    expect(used).toEqual([
      'Bearer app-token-first-000000',
      'Bearer app-token-first-000000',
      'Bearer app-token-second-00000',
    ]);
  });

  it('after a 429 with Retry-After: 30, fails a different call at once without sending it', async () => {
    appToken();
    agent
      .get(API)
      .intercept({ path: `/v1/albums/${ALBUM}?market=US`, method: 'GET' })
      .reply(
        429,
        { error: { status: 429, message: 'API rate limit exceeded' } },
        {
          headers: { 'retry-after': '30', 'content-type': 'application/json' },
        },
      );
    const first = await music.albums.get(ALBUM).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(RateLimitError);
    expect(first).toMatchObject({ retryAfterMs: 30_000, retryAfterSeconds: 30, paused: false });

    now += 10_000;
    // Nothing intercepts these: a request sent would fail as a network error, not a rate limit.
    const artist = await music.artists.get(ALBUM).catch((e: unknown) => e);
    expect(artist).toBeInstanceOf(RateLimitError);
    expect(artist).toMatchObject({ retryAfterMs: 20_000, paused: true });
    const pause = await music.player.pause('alice').catch((e: unknown) => e);
    expect(pause).toMatchObject({ name: 'RateLimitError', retryAfterMs: 20_000, paused: true });
  });

  it('waits at most 5 s for a rate limit inside a call', () => {
    expect(DEFAULT_MUSIC_OPTIONS.maxRateLimitWaitMs).toBe(5_000);
  });

  it('reports refused client credentials as the owner’s problem, not the member’s link', async () => {
    agent
      .get(ACCOUNTS)
      .intercept({ path: '/api/token', method: 'POST' })
      .reply(400, { error: 'invalid_client', error_description: 'Invalid client secret' }, JSON_HEADERS);
    const error = await music.albums.get(ALBUM).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppCredentialsError);
    expect(error).not.toBeInstanceOf(MusicAuthError);
    expect(String(error)).toContain('invalid_client: Invalid client secret');
    expect(String(error)).toContain('MUSIC_CLIENT_SECRET');
    expect((error as AppCredentialsError).userMessage).toMatch(/tell the bot’s owner/);
  });

  it('reports a catalog call refused with a token the service has just issued as the owner’s problem', async () => {
    appToken('app-token-0123456789', 2);
    agent
      .get(API)
      .intercept({ path: (path) => path.startsWith(`/v1/albums/${ALBUM}`), method: 'GET' })
      .reply(401, { error: { status: 401, message: 'Invalid access token' } }, JSON_HEADERS)
      .times(2);
    const error = await music.albums.get(ALBUM).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppCredentialsError);
    // No link prompt: linking again cannot mend the app's own token.
    expect((error as AppCredentialsError).userMessage).not.toMatch(/link/i);
  });

  it('writes the URIs it sends with its scheme: the real service refuses the spec’s `service:`', async () => {
    const real = clientWith({ variant: '2026', uriScheme: 'spotify' });
    agent
      .get(API)
      .intercept({ path: `/v1/me/library?uris=spotify%3Aalbum%3A${ALBUM}`, method: 'PUT' })
      .reply(200, '');
    await real.library.saveAlbums('alice', [`service:album:${ALBUM}`]);
    expect(real.uri('track', ALBUM)).toBe(`spotify:track:${ALBUM}`);
    expect(
      parseItemRefs(`service:episode:${ALBUM} https://open.spotify.com/track/${ALBUM}`, real.uri).uris,
    ).toEqual([`spotify:episode:${ALBUM}`, `spotify:track:${ALBUM}`]);
    expect(music.uri('album', ALBUM)).toBe(`service:album:${ALBUM}`);
  });

  it('never sends a playlist move twice after a 503, while other PUTs are retried', async () => {
    const retrying = clientWith({}, 2);
    const playlist = '37i9dQZF1DXcBWIGoYBM5M';
    const items = agent.get(API);
    let moves = 0;
    // The service may have applied the move before failing: a second one would move the items again.
    items
      .intercept({ path: `/v1/playlists/${playlist}/tracks`, method: 'PUT' })
      .reply(() => ({ statusCode: 503, data: (moves++, '') }));
    const move = retrying.playlists.reorder('alice', playlist, { rangeStart: 0, insertBefore: 5 });
    await expect(move).rejects.toMatchObject({ status: 503 });
    expect(moves).toBe(1);
    items.intercept({ path: `/v1/playlists/${playlist}/tracks`, method: 'PUT' }).reply(503, '');
    items
      .intercept({ path: `/v1/playlists/${playlist}/tracks`, method: 'PUT' })
      .reply(200, { snapshot_id: 's2' }, JSON_HEADERS);
    await expect(retrying.playlists.replaceItems('alice', playlist, [])).resolves.toBe('s2');
    await retrying.close();
  });

  it('says how many of the albums were saved when a later request fails, and that the others were not', async () => {
    const ids = Array.from(
      { length: 25 },
      (_, index) => `${ALBUM.slice(0, -2)}${String(index).padStart(2, '0')}`,
    );
    const library = agent.get(API);
    const albumsPut = (path: string) => path.startsWith('/v1/me/albums?');
    library.intercept({ path: albumsPut, method: 'PUT' }).reply(200, '');
    library.intercept({ path: albumsPut, method: 'PUT' }).reply(503, '');
    const error = await music.library.saveAlbums('alice', ids).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IncompleteChangeError);
    expect(error).toMatchObject({ applied: 20, total: 25, cause: { status: 503 } });
    expect((error as IncompleteChangeError).userMessage).toBe(
      'Only the first 20 of the 25 albums were saved: the music service then failed, so the other 5 were ' +
        'not. Save those again later.',
    );
  });

  it('passes on a failure of the first request as it is: nothing was saved', async () => {
    agent
      .get(API)
      .intercept({ path: (path) => path.startsWith('/v1/me/albums?'), method: 'PUT' })
      .reply(503, '');
    const error = await music.library.saveAlbums('alice', [ALBUM]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect(error).not.toBeInstanceOf(IncompleteChangeError);
  });

  describe('maps service errors to their own types', () => {
    it.each([
      [
        403,
        { status: 403, message: 'Player command failed: Premium required', reason: 'PREMIUM_REQUIRED' },
        PremiumRequiredError,
      ],
      [
        404,
        { status: 404, message: 'Player command failed: No active device found', reason: 'NO_ACTIVE_DEVICE' },
        NoActiveDeviceError,
      ],
      [
        403,
        { status: 403, message: 'Player command failed: Restriction violated', reason: 'UNKNOWN' },
        PlayerRestrictionError,
      ],
      [403, { status: 403, message: 'Insufficient client scope' }, InsufficientScopeError],
      [
        403,
        { status: 403, message: 'User not registered in the Developer Dashboard' },
        UserNotRegisteredError,
      ],
      [401, { status: 401, message: 'The access token expired' }, MusicAuthError],
      [404, { status: 404, message: 'Device not found' }, NotFoundError],
    ] as const)('%i %o', async (status, error, type) => {
      const reply = agent
        .get(API)
        .intercept({ path: '/v1/me/player/next', method: 'POST' })
        .reply(status, { error }, JSON_HEADERS);
      // A 401 is tried once more with a fresh token; the second 401 is the answer.
      if (status === 401) reply.times(2);
      const thrown = await music.player.next('alice').catch((e: unknown) => e);
      expect(thrown).toBeInstanceOf(type);
      expect(thrown).toBeInstanceOf(HttpError);
      expect(thrown).toMatchObject({ status, method: 'POST' });
      if ('reason' in error) expect(thrown).toMatchObject({ reason: error.reason });
    });

    it.each([
      'Check settings on developer.service.com/dashboard, the user may not be registered.',
      'The user is not registered for this application. Please check your settings on https://developer.service.com/dashboard.',
    ])('tells a member missing from the app’s user list so, from the plain-text 403 “%s”', async (text) => {
      agent
        .get(API)
        .intercept({ path: '/v1/me/player/next', method: 'POST' })
        .reply(403, text, { headers: { 'content-type': 'text/plain; charset=utf-8' } });
      const thrown = await music.player.next('alice').catch((e: unknown) => e);
      expect(thrown).toBeInstanceOf(UserNotRegisteredError);
      expect(thrown).toMatchObject({
        status: 403,
        userMessage: 'Your music account is not on this app’s user list; ask the bot’s owner to add you.',
      });
    });

    it('keeps a plain 403 Forbidden as a ForbiddenError', async () => {
      agent
        .get(API)
        .intercept({ path: '/v1/me/player/next', method: 'POST' })
        .reply(403, { error: { status: 403, message: 'Forbidden' } }, JSON_HEADERS);
      const thrown = await music.player.next('alice').catch((e: unknown) => e);
      expect(thrown).toBeInstanceOf(ForbiddenError);
      expect(thrown).toBeInstanceOf(HttpError);
      expect(thrown).not.toBeInstanceOf(PlayerRestrictionError);
      expect(thrown).toMatchObject({ status: 403, userMessage: undefined });
    });

    it('says what to do next: which command links again, and what to check before trying again', () => {
      const source = (status: number, body: unknown, path = '/v1/me/player/next') =>
        new HttpError('music', 'POST', `${API}${path}`, status, 'Refused', body, undefined, {});
      expect(new MusicAuthError(source(401, {})).userMessage).toBe(
        'Your music account link needs renewing: run `/music link` to link it again.',
      );
      expect(new InsufficientScopeError(source(403, {})).userMessage).toBe(
        'This needs a permission your music account link does not include (`/music status` shows what it allows). ' +
          '`/music link` asks for it again; the music service decides what it grants.',
      );
      const refused =
        'The player refused that command right now. Check that something is playing on a device you can ' +
        'control, then try again.';
      for (const reason of ['UNKNOWN', 'SOMETHING_NEW']) {
        const body = { error: { status: 403, message: 'Player command failed', reason } };
        expect(new PlayerRestrictionError(source(403, body)).userMessage).toBe(refused);
      }
    });
  });
});
