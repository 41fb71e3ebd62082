import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const minimal = { DISCORD_TOKEN: 'fake-token-for-tests', DISCORD_APPLICATION_ID: '100000000000000001' };

function problemsOf(env: Record<string, string | undefined>): readonly string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected the configuration to be refused');
}

describe('configuration', () => {
  it('reports a missing Discord token and a malformed URL in one error', () => {
    const problems = problemsOf({ DISCORD_APPLICATION_ID: '100000000000000001', MUSIC_API_URL: 'not a url' });
    expect(problems).toHaveLength(2);
    expect(problems.join('\n')).toMatch(/DISCORD_TOKEN is required/);
    expect(problems.join('\n')).toMatch(/MUSIC_API_URL must be an http/);
  });

  it('takes a Discord token pasted with "Bot " in front, and refuses one with spaces inside, never showing it', () => {
    const secret = 'MTAwMDAwMDAwMDAwMDAwMDAx.canary.token';
    // discord.js's login takes the prefix off as well: a bot that ran with it keeps running.
    expect(loadConfig({ ...minimal, DISCORD_TOKEN: `Bot ${secret}` }).discord.token).toBe(secret);
    const split = problemsOf({ ...minimal, DISCORD_TOKEN: `${secret.slice(0, 10)} ${secret.slice(10)}` });
    expect(split.join('\n')).toMatch(/DISCORD_TOKEN must not contain spaces or quotes/);
    expect(split.join('\n')).not.toContain(secret.slice(10));
    // Spaces around it (a .env line with a trailing blank) are not part of it.
    expect(loadConfig({ ...minimal, DISCORD_TOKEN: ` ${secret} ` }).discord.token).toBe(secret);
  });

  it('refuses a Discord token with a character no token has (a zero-width space copied with it), never showing it', () => {
    const secret = 'MTAwMDAwMDAwMDAwMDAwMDAx.GcanAry.invisible-token-canary';
    for (const invisible of ['\u200b', '\u2060', '\ufeff', '\u00a0', 'é']) {
      const problems = problemsOf({
        ...minimal,
        DISCORD_TOKEN: `${secret.slice(0, 20)}${invisible}${secret.slice(20)}`,
      });
      expect(problems).toEqual([
        'DISCORD_TOKEN contains a character no token has (an invisible one, perhaps copied with it): copy it again from the Developer Portal (Bot → Reset Token)',
      ]);
      expect(problems.join('\n')).not.toContain(secret.slice(20));
    }
    expect(loadConfig({ ...minimal, DISCORD_TOKEN: secret }).discord.token).toBe(secret);
  });

  it('refuses base URLs that end with the API version the bot adds itself, saying to leave it out', () => {
    const problems = problemsOf({
      ...minimal,
      DISCORD_API_URL: 'https://discord.com/api/v10',
      MUSIC_API_URL: 'https://api.spotify.com/v1/',
      WEATHER_API_URL: 'https://api.openweathermap.org/data/2.5',
    });
    expect(problems).toEqual([
      'DISCORD_API_URL must leave out the API version, which the bot adds (for example https://discord.com/api, not https://discord.com/api/v10)',
      'MUSIC_API_URL must leave out the API version, which the bot adds (for example https://api.spotify.com, not https://api.spotify.com/v1)',
      'WEATHER_API_URL must leave out the API version, which the bot adds (for example https://api.openweathermap.org, not https://api.openweathermap.org/data/2.5)',
    ]);
    // A path of its own (a proxy, the emulators) is kept.
    expect(
      loadConfig({ ...minimal, DISCORD_API_URL: 'http://127.0.0.1:8790/discord/api' }).discord.apiUrl,
    ).toBe('http://127.0.0.1:8790/discord/api');
  });

  it('names secrets and ids left in quotes (as Docker’s --env-file keeps them), never showing them', () => {
    const problems = problemsOf({
      ...minimal,
      WEATHER_API_KEY: '"weather-key-canary"',
      MUSIC_CLIENT_ID: "'music-id-canary'",
      MUSIC_CLIENT_SECRET: '"music-secret-canary"',
      TOKEN_ENCRYPTION_KEY: `"${Buffer.alloc(32, 7).toString('base64')}"`,
    });
    const quoted = 'is in quotes: remove the quotes around the value (Docker’s --env-file keeps them)';
    expect([...problems].sort()).toEqual(
      ['MUSIC_CLIENT_ID', 'MUSIC_CLIENT_SECRET', 'TOKEN_ENCRYPTION_KEY', 'WEATHER_API_KEY'].map(
        (name) => `${name} ${quoted}`,
      ),
    );
    expect(problems.join('\n')).not.toMatch(/canary|AAAA|BwcH/);
    // A quote inside a value is the value's own.
    expect(loadConfig({ ...minimal, WEATHER_API_KEY: ' ab"cd ' }).weather?.apiKey).toBe('ab"cd');
  });

  it('names any setting left in quotes, once and as quoted, rather than as the text the quotes make it', () => {
    const problems = problemsOf({
      DISCORD_TOKEN: '"MTAwMDAwMDAwMDAwMDAwMDAx.quoted-token-canary"',
      DISCORD_APPLICATION_ID: '" 100000000000000001 "',
      DISCORD_GUILD_ID: "'100000000000000002'",
      HTTP_PORT: '"18787"',
      PUBLIC_URL: '"https://bot.example.org"',
      REDIS_URL: '"redis://:redis-password-canary@127.0.0.1:6379"',
      SCHEDULER: '"queue"',
      LOG_LEVEL: '"info"',
    });
    const quoted = 'is in quotes: remove the quotes around the value (Docker’s --env-file keeps them)';
    expect(problems).toEqual(
      [
        'DISCORD_TOKEN',
        'DISCORD_APPLICATION_ID',
        'DISCORD_GUILD_ID',
        'HTTP_PORT',
        'PUBLIC_URL',
        'REDIS_URL',
        'SCHEDULER',
        'LOG_LEVEL',
      ].map((name) => `${name} ${quoted}`),
    );
    expect(problems.join('\n')).not.toMatch(/canary/);
    // Spaces around a value, without quotes, are not part of it.
    const spaced = loadConfig({
      ...minimal,
      DISCORD_APPLICATION_ID: ' 100000000000000001 ',
      HTTP_PORT: ' 18787 ',
      PUBLIC_URL: ' https://bot.example.org ',
      REDIS_URL: 'redis://127.0.0.1:6379 ',
      LOG_LEVEL: 'info ',
    });
    expect(spaced.discord.applicationId).toBe('100000000000000001');
    expect(spaced.http).toMatchObject({ port: 18_787, publicUrl: 'https://bot.example.org' });
    expect(spaced.storage.redisUrl).toBe('redis://127.0.0.1:6379');
    expect(spaced.log.level).toBe('info');
  });

  it('says how long a Discord id is and where to copy each from, for an id too short or with letters', () => {
    expect(
      problemsOf({ ...minimal, DISCORD_APPLICATION_ID: '12345', DISCORD_GUILD_ID: '1000000000000000x2' }),
    ).toEqual([
      'DISCORD_APPLICATION_ID must be a Discord id: 17 to 20 digits (Developer Portal → General Information → Application ID)',
      'DISCORD_GUILD_ID must be a Discord id: 17 to 20 digits (in Discord, right-click the server → Copy Server ID, with Developer Mode on)',
    ]);
    expect(problemsOf({ ...minimal, DISCORD_GUILD_ID: '123456789012345678901' })).toHaveLength(1);
    expect(loadConfig({ ...minimal, DISCORD_GUILD_ID: '81384788765712384' }).discord.guildId).toBe(
      '81384788765712384',
    );
  });

  it('treats an empty string as missing', () => {
    const problems = problemsOf({ DISCORD_TOKEN: '  ', DISCORD_APPLICATION_ID: '' });
    expect(problems.join('\n')).toMatch(/DISCORD_TOKEN is required/);
    expect(problems.join('\n')).toMatch(/DISCORD_APPLICATION_ID is required/);
  });

  it('starts with only the Discord token and application id, both services switched off', () => {
    const config = loadConfig(minimal);
    expect(config.music).toBeUndefined();
    expect(config.weather).toBeUndefined();
    expect(config.storage.dataDir).toBe('./data');
    expect(config.discord.apiUrl).toBe('https://discord.com/api');
  });

  it('lets every upstream base URL be pointed elsewhere, without a trailing slash', () => {
    const config = loadConfig({
      ...minimal,
      DISCORD_API_URL: 'http://127.0.0.1:8790/api/',
      WEATHER_API_KEY: 'k'.repeat(32),
      WEATHER_API_URL: 'http://127.0.0.1:8792',
      WEATHER_PRO_URL: 'http://127.0.0.1:8792/pro',
      WEATHER_HISTORY_URL: 'http://127.0.0.1:8792/history',
      WEATHER_BULK_URL: 'http://127.0.0.1:8792/bulk',
      MUSIC_CLIENT_ID: 'id',
      MUSIC_CLIENT_SECRET: 'secret',
      TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
      MUSIC_API_URL: 'http://127.0.0.1:8791',
      MUSIC_AUTH_URL: 'http://127.0.0.1:8791/accounts',
    });
    expect(config.discord.apiUrl).toBe('http://127.0.0.1:8790/api');
    expect(config.weather?.historyUrl).toBe('http://127.0.0.1:8792/history');
    expect(config.music?.authUrl).toBe('http://127.0.0.1:8791/accounts');
    expect(config.music?.redirectUri).toBe('http://127.0.0.1:8787/callback');
  });

  it('speaks to the real service as a new app must, and to any other host (the emulator) as the spec says', () => {
    const music = { ...minimal, MUSIC_CLIENT_ID: 'id', MUSIC_CLIENT_SECRET: 'secret' };
    expect(loadConfig(music).music).toMatchObject({ uriScheme: 'spotify', variant: '2026' });
    expect(loadConfig({ ...music, MUSIC_API_URL: 'http://127.0.0.1:8791' }).music).toMatchObject({
      uriScheme: 'service',
      variant: 'classic',
    });
    expect(loadConfig({ ...music, MUSIC_API_VARIANT: 'classic' }).music?.variant).toBe('classic');
    expect(
      loadConfig({ ...music, MUSIC_API_URL: 'https://music-proxy.example', MUSIC_URI_SCHEME: 'spotify' })
        .music?.uriScheme,
    ).toBe('spotify');
    expect(problemsOf({ ...music, MUSIC_URI_SCHEME: 'Spotify:' })).toEqual([
      'MUSIC_URI_SCHEME must be a lowercase word, such as spotify',
    ]);
  });

  it('refuses a half-configured music service and names what is missing', () => {
    const problems = problemsOf({ ...minimal, MUSIC_CLIENT_ID: 'id' });
    expect(problems).toEqual(['MUSIC_CLIENT_SECRET is required when the music service is configured']);
  });

  it('turns the music catalog on without an encryption key, but not account linking', () => {
    const config = loadConfig({ ...minimal, MUSIC_CLIENT_ID: 'id', MUSIC_CLIENT_SECRET: 'secret' });
    expect(config.music?.clientId).toBe('id');
    expect(config.music?.encryption).toBeUndefined();
  });

  it('never echoes a value in its message, since values may be secrets', () => {
    const secret = 'not-32-bytes-but-very-secret';
    try {
      loadConfig({
        ...minimal,
        MUSIC_CLIENT_ID: 'id',
        MUSIC_CLIENT_SECRET: 's',
        TOKEN_ENCRYPTION_KEY: secret,
        HTTP_PORT: 'abc',
      });
      expect.unreachable();
    } catch (error) {
      expect(String(error)).not.toContain(secret);
      expect(String(error)).toMatch(/TOKEN_ENCRYPTION_KEY must be 32 bytes/);
      expect(String(error)).toMatch(/HTTP_PORT must be a whole number/);
    }
  });

  it('runs every shard in one process, the local scheduler and the callback server by default', () => {
    const config = loadConfig(minimal);
    expect(config.shards).toEqual({ count: 1, ids: [0] });
    expect(config.schedules.scheduler).toBe('local');
    expect(config.web).toBe(true);
  });

  it('takes shard ids as a list or a range out of SHARD_COUNT', () => {
    expect(loadConfig({ ...minimal, SHARD_COUNT: '4', SHARD_IDS: '2-3' }).shards).toEqual({
      count: 4,
      ids: [2, 3],
    });
    expect(loadConfig({ ...minimal, SHARD_COUNT: '4', SHARD_IDS: '0, 3' }).shards.ids).toEqual([0, 3]);
    expect(loadConfig({ ...minimal, SHARD_COUNT: '3' }).shards.ids).toEqual([0, 1, 2]);
    expect(loadConfig({ ...minimal, WEB: 'off' }).web).toBe(false);
  });

  it('refuses a grace window of 0 minutes, which would count every post as missed', () => {
    expect(problemsOf({ ...minimal, SCHEDULE_GRACE_MINUTES: '0' }).join('\n')).toMatch(
      /SCHEDULE_GRACE_MINUTES must be at least 1/,
    );
  });

  it('reports SCHEDULER=queue without Redis and shard ids out of range in one error', () => {
    const problems = problemsOf({ ...minimal, SCHEDULER: 'queue', SHARD_COUNT: '2', SHARD_IDS: '1-2' });
    expect(problems).toHaveLength(2);
    expect(problems.join('\n')).toMatch(/SCHEDULER=queue requires REDIS_URL/);
    expect(problems.join('\n')).toMatch(/SHARD_IDS must be shard numbers below SHARD_COUNT \(2\)/);
    expect(
      loadConfig({ ...minimal, SCHEDULER: 'queue', REDIS_URL: 'redis://127.0.0.1:6379' }).schedules.scheduler,
    ).toBe('queue');
  });
  it('reports a cross-key problem together with a missing key, not after it is fixed', () => {
    const problems = problemsOf({ DISCORD_APPLICATION_ID: '100000000000000001', SCHEDULER: 'queue' });
    expect(problems).toEqual([
      'DISCORD_TOKEN is required (the bot token from the Discord developer portal)',
      'SCHEDULER=queue requires REDIS_URL (the job schedulers live in Redis)',
    ]);
  });

  it('names the words a choice may be, without echoing the value given', () => {
    const problems = problemsOf({ ...minimal, LOG_LEVEL: 'verbose', MUSIC_API_VARIANT: 'v2' });
    expect(problems).toEqual([
      'MUSIC_API_VARIANT must be one of: classic, 2026',
      'LOG_LEVEL must be one of: fatal, error, warn, info, debug, trace, silent',
    ]);
  });

  it('takes only a web address as PUBLIC_URL and only a Redis address as REDIS_URL', () => {
    const problems = problemsOf({
      ...minimal,
      PUBLIC_URL: 'redis://127.0.0.1:6379',
      REDIS_URL: 'http://127.0.0.1:6379',
    });
    expect(problems).toEqual([
      'PUBLIC_URL must be an http:// or https:// URL',
      'REDIS_URL must be a redis:// or rediss:// URL',
    ]);
    expect(loadConfig({ ...minimal, REDIS_URL: 'rediss://cache.example.org:6380' }).storage.redisUrl).toBe(
      'rediss://cache.example.org:6380',
    );
  });

  it('says what to write in a REDIS_URL the Redis client cannot read, never showing its password', () => {
    const problem = (url: string) => problemsOf({ ...minimal, REDIS_URL: url });
    expect(problem('redis://:pw-canary@127.0.0.1:6379/abc')).toEqual([
      'REDIS_URL must end with a database number after the host and port, 0 to 15 (redis://HOST:PORT/0), or with nothing (database 0)',
    ]);
    expect(problem('redis://:pw-canary@127.0.0.1:6379/3/')).toHaveLength(1);
    for (const password of ['pw#canary', 'pw/canary', 'pw?canary', 'canary#'])
      expect(problem(`redis://:${password}@127.0.0.1:6379`)).toEqual([
        'REDIS_URL must be a redis:// or rediss:// URL: if its password has #, / or ? in it, write them percent-encoded (# as %23, / as %2F, ? as %3F)',
      ]);
    // User `admin`, password `123/canary`: read as host `admin`, port 123, path `/canary@…`.
    expect(problem('redis://admin:123/canary@127.0.0.1:6379')).toEqual([
      'REDIS_URL must be a redis:// or rediss:// URL: if its password has #, / or ? in it, write them percent-encoded (# as %23, / as %2F, ? as %3F)',
    ]);
    expect(problem('redis://:50%canary@127.0.0.1:6379')).toEqual([
      'REDIS_URL has a % in its user or password that starts no percent-encoded character: write % as %25',
    ]);
    expect(JSON.stringify(problem('redis://:pw#canary@127.0.0.1:6379/abc'))).not.toMatch(/canary/);
    // Encoded, each is what the server is asked with; a database number, or none, is taken.
    for (const url of [
      'redis://:pw%23canary@127.0.0.1:6379/2',
      'redis://:50%25canary@127.0.0.1:6379/',
      'rediss://user:p@ss@cache.example.org:6380',
    ])
      expect(loadConfig({ ...minimal, REDIS_URL: url }).storage.redisUrl).toBe(url);
  });

  it('sends secrets only over https, or plain http to this machine (the emulators)', () => {
    const problems = problemsOf({
      ...minimal,
      DISCORD_API_URL: 'http://discord.example.org/api',
      MUSIC_API_URL: 'http://music.example.org',
      MUSIC_AUTH_URL: 'http://10.0.0.5:8788',
      WEATHER_API_URL: 'http://weather.example.org',
      WEATHER_PRO_URL: 'http://weather.example.org',
      WEATHER_HISTORY_URL: 'http://weather.example.org',
      WEATHER_BULK_URL: 'http://weather.example.org',
      // Icon addresses only: no secret goes there.
      WEATHER_SITE_URL: 'http://weather.example.org',
    });
    const keys = problems.map((problem) => problem.split(' ')[0]);
    expect(keys).toEqual([
      'DISCORD_API_URL',
      'MUSIC_API_URL',
      'MUSIC_AUTH_URL',
      'WEATHER_API_URL',
      'WEATHER_PRO_URL',
      'WEATHER_HISTORY_URL',
      'WEATHER_BULK_URL',
    ]);
    expect(problems[0]).toMatch(/must be https:\/\/, or http:\/\/ only on this machine/);
    const local = loadConfig({
      ...minimal,
      DISCORD_API_URL: 'http://127.0.0.1:8790/api',
      MUSIC_API_URL: 'http://localhost:8788',
      MUSIC_AUTH_URL: 'http://[::1]:8788',
      WEATHER_API_URL: 'https://weather.example.org',
    });
    expect(local.discord.apiUrl).toBe('http://127.0.0.1:8790/api');
  });

  it('refuses a PUBLIC_URL that the music service would refuse as a redirect URI', () => {
    const music = { ...minimal, MUSIC_CLIENT_ID: 'id', MUSIC_CLIENT_SECRET: 'secret' };
    expect(problemsOf({ ...music, PUBLIC_URL: 'http://localhost:8787' })).toEqual([
      'PUBLIC_URL must not use localhost, which the music service refuses in a redirect URI: use http://127.0.0.1:PORT',
    ]);
    expect(problemsOf({ ...music, PUBLIC_URL: 'http://bot.example.org' }).join('\n')).toMatch(
      /PUBLIC_URL must be https:\/\/, or http:\/\/ on 127\.0\.0\.1 or \[::1\]/,
    );
    expect(loadConfig({ ...music, PUBLIC_URL: 'https://bot.example.org/' }).music?.redirectUri).toBe(
      'https://bot.example.org/callback',
    );
    expect(
      loadConfig({ ...music, HTTP_HOST: '::1', HTTP_PORT: '9000', PUBLIC_URL: 'http://[::1]:9000' }).music
        ?.redirectUri,
    ).toBe('http://[::1]:9000/callback');
    // Without the music service no redirect URI is used.
    expect(loadConfig({ ...minimal, PUBLIC_URL: 'http://localhost:8787' }).http.publicUrl).toBe(
      'http://localhost:8787',
    );
  });

  it('refuses a PUBLIC_URL with a query or fragment, which the pages and /callback are appended to', () => {
    expect(problemsOf({ ...minimal, PUBLIC_URL: 'https://bot.example.org/?a=1' })).toEqual([
      'PUBLIC_URL must not have a query (?…) or fragment (#…): only scheme, host, port and path',
    ]);
    expect(problemsOf({ ...minimal, PUBLIC_URL: 'https://bot.example.org/#top' })).toHaveLength(1);
  });

  it('refuses a PUBLIC_URL ending in /callback, which the bot adds itself', () => {
    const music = { ...minimal, MUSIC_CLIENT_ID: 'id', MUSIC_CLIENT_SECRET: 'secret' };
    for (const publicUrl of ['https://bot.example.org/callback', 'https://bot.example.org/skybeat/callback/'])
      expect(problemsOf({ ...music, PUBLIC_URL: publicUrl })).toEqual([
        'PUBLIC_URL must be the bot’s base address, without /callback (the bot adds it)',
      ]);
    expect(loadConfig({ ...music, PUBLIC_URL: 'https://bot.example.org/callbacks' }).music?.redirectUri).toBe(
      'https://bot.example.org/callbacks/callback',
    );
  });

  it('takes a PUBLIC_URL on this machine with another port than HTTP_PORT (a tunnel may join them; a warning at start says so)', () => {
    const music = { ...minimal, MUSIC_CLIENT_ID: 'id', MUSIC_CLIENT_SECRET: 'secret', HTTP_PORT: '18787' };
    // `ssh -L 8888:127.0.0.1:18787` from the owner's own machine, or a proxy on this one.
    const tunnel = loadConfig({ ...music, PUBLIC_URL: 'http://127.0.0.1:8888' });
    expect([tunnel.http.publicUrl, tunnel.http.publicUrlGiven]).toEqual(['http://127.0.0.1:8888', true]);
    expect(loadConfig(music).http).toMatchObject({
      publicUrl: 'http://127.0.0.1:18787',
      publicUrlGiven: false,
    });
  });

  it('asks for PUBLIC_URL when the music service needs a redirect URI and HTTP_PORT is 0 (any port)', () => {
    const music = {
      ...minimal,
      MUSIC_CLIENT_ID: 'id',
      MUSIC_CLIENT_SECRET: 'secret',
      TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
      HTTP_PORT: '0',
    };
    expect(problemsOf(music)).toEqual([
      'PUBLIC_URL is required with HTTP_PORT=0: the redirect URI registered with the music service must name the port members reach',
    ]);
    expect(loadConfig({ ...music, PUBLIC_URL: 'https://bot.example.org' }).http.port).toBe(0);
    // Without the music service, or without a callback server in this process, no redirect URI.
    expect(loadConfig({ ...minimal, HTTP_PORT: '0' }).http.port).toBe(0);
    expect(loadConfig({ ...music, WEB: 'off' }).http.port).toBe(0);
    // Without the encryption key there is no linking, so no redirect URI.
    expect(loadConfig({ ...music, TOKEN_ENCRYPTION_KEY: '' }).http.port).toBe(0);
    // A PUBLIC_URL given but malformed is said once, as malformed.
    expect(problemsOf({ ...music, PUBLIC_URL: 'not a url' })).toEqual([
      expect.stringMatching(/^PUBLIC_URL must be/),
    ]);
  });

  it('reads an encryption key only as 64 hex digits or well-formed base64, never one with typos skipped', () => {
    const key = Buffer.alloc(32, 7);
    const withKey = (value: string) => ({
      ...minimal,
      MUSIC_CLIENT_ID: 'id',
      MUSIC_CLIENT_SECRET: 's',
      TOKEN_ENCRYPTION_KEY: value,
    });
    expect(loadConfig(withKey(key.toString('base64'))).music?.encryption?.current).toEqual(key);
    expect(loadConfig(withKey(key.toString('base64url'))).music?.encryption?.current).toEqual(key);
    expect(loadConfig(withKey(key.toString('hex'))).music?.encryption?.current).toEqual(key);
    // Node's decoder would skip the "!!!!" and read the rest as a key.
    expect(problemsOf(withKey(`!!!!${key.toString('base64')}`))).toEqual([
      'TOKEN_ENCRYPTION_KEY must be 32 bytes, as 64 hex digits or base64 (openssl rand -base64 32)',
    ]);
  });

  it('names SHARDS, not SHARD_IDS, when the id a sharding manager gave is out of range', () => {
    expect(problemsOf({ ...minimal, SHARD_COUNT: '2', SHARDS: '2', SHARD_IDS: '0-1' })).toEqual([
      'SHARDS must be shard numbers below SHARD_COUNT (2), as a list or range: 0,1 or 2-3',
    ]);
  });
});
