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
});
