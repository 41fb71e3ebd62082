/**
 * The store when it is not what the bot expects: a Redis that is not there at start or goes away
 * while the bot runs, a SQLite file that cannot be opened or written, and expired values that are
 * never read again.
 */
import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import KeyvSqlite from '@keyv/sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../emulators/net.js';
import { createStorage, StorageError } from '../../src/storage/index.js';
import {
  cleanRedisPrefix,
  haveRedis,
  haveRedisServerProgram,
  redisLink,
  uniquePrefix,
} from '../helpers/services.js';

const redisReady = await haveRedis();
/** Tests that start a Redis server of their own, with its own settings. */
const redisProgram = haveRedisServerProgram();
const dirs: string[] = [];
const prefixes: string[] = [];

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'bot-storage-failures-'));
  dirs.push(dir);
  return dir;
}

afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  await Promise.all(prefixes.map((prefix) => cleanRedisPrefix(prefix)));
});

/** Settles `promise` or says it is still pending after `ms`. */
function within<T>(promise: Promise<T>, ms: number): Promise<{ value: T } | { error: unknown } | 'pending'> {
  return Promise.race([
    promise.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    ),
    delay(ms).then(() => 'pending' as const),
  ]);
}

describe('Redis at start', () => {
  it('gives up on an unreachable Redis within the connect timeout, naming where and not the password', async () => {
    const port = await freePort();
    const started = Date.now();
    const errors: unknown[] = [];
    const opening = createStorage({
      dataDir: 'unused',
      redisUrl: `redis://:hunter2-redis-password@127.0.0.1:${port}`,
      connectTimeoutMs: 1_000,
      onError: (error) => errors.push(error),
    });
    const outcome = await within(opening, 5_000);
    expect(outcome).not.toBe('pending');
    const error = (outcome as { error: unknown }).error;
    expect(error).toBeInstanceOf(StorageError);
    expect((error as Error).message).toBe(
      `cannot connect to Redis at 127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}`,
    );
    expect(Date.now() - started).toBeLessThan(3_000);
    // One error, the rejection: not one log line per retry.
    expect(errors).toEqual([]);
  });
});

/** A Redis server of its own that wants a password (the machine's Redis is shared and has none). */
function passwordedRedis(password: string) {
  return privateRedis(['--requirepass', password, '--save', '', '--appendonly', 'no']);
}

/** A Redis server of its own, with these settings, on `port` (a free one by default). */
async function privateRedis(settings: string[], port?: number) {
  port ??= await freePort();
  const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', ...settings], {
    stdio: 'ignore',
  });
  let failed: Error | undefined;
  server.on('error', (error) => (failed = error));
  const started = Date.now();
  for (;;) {
    if (failed)
      throw new Error(`redis-server could not be run (apt-get install -y redis-server): ${failed.message}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) break;
    if (Date.now() - started > 10_000) throw new Error('redis-server did not start');
    await delay(50);
  }
  return { port, stop: () => server.kill('SIGKILL') };
}

describe.runIf(redisProgram)('Redis that wants a password', () => {
  it('fails the start naming REDIS_URL when none is given, rather than every command once running', async () => {
    const password = 'redis-password-canary-77';
    const redis = await passwordedRedis(password);
    try {
      const error = await createStorage({
        dataDir: 'unused',
        redisUrl: `redis://127.0.0.1:${redis.port}`,
      }).then(
        (storage) => storage.close().then(() => expect.fail('the storage opened without a password')),
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(StorageError);
      expect((error as Error).message).toBe(
        `Redis at 127.0.0.1:${redis.port} needs a password: put it in REDIS_URL ` +
          `(redis://:PASSWORD@127.0.0.1:${redis.port}, or redis://USER:PASSWORD@… for an ACL user)`,
      );
      // With it, the storage opens and works.
      const storage = await createStorage({
        dataDir: 'unused',
        redisUrl: `redis://:${password}@127.0.0.1:${redis.port}`,
      });
      await storage.ns('prefs').set('member', 'kept');
      expect(await storage.ns('prefs').get('member')).toBe('kept');
      await storage.close();
    } finally {
      redis.stop();
    }
  });
});

describe.runIf(redisProgram)('Redis refusing the password in REDIS_URL', () => {
  /** Opens the storage at `redisUrl` with the default connect timeout: what it failed with, and when. */
  async function refusal(redisUrl: string) {
    const started = Date.now();
    const error = await createStorage({ dataDir: 'unused', redisUrl }).then(
      (storage) => storage.close().then(() => expect.fail('the storage opened')),
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(StorageError);
    return { message: (error as Error).message, ms: Date.now() - started };
  }

  it('fails the start at once on a wrong password, naming REDIS_URL and never the password', async () => {
    const redis = await passwordedRedis('redis-right-password-canary');
    try {
      const { message, ms } = await refusal(`redis://:wrong-password-canary-13@127.0.0.1:${redis.port}`);
      expect(message).toBe(
        `Redis at 127.0.0.1:${redis.port} refused the user or password in REDIS_URL: check them ` +
          `(redis://:PASSWORD@127.0.0.1:${redis.port}, or redis://USER:PASSWORD@127.0.0.1:${redis.port} for an ACL user)`,
      );
      // Not retried until the 10 s connect timeout: the same password is refused at every try.
      expect(ms).toBeLessThan(2_000);
      expect(message).not.toMatch(/canary/);
    } finally {
      redis.stop();
    }
  });

  it('fails the start at once on a password given to a Redis that has none, saying to leave it out', async () => {
    const redis = await privateRedis(['--save', '', '--appendonly', 'no']);
    try {
      const { message, ms } = await refusal(`redis://:given-password-canary-14@127.0.0.1:${redis.port}`);
      expect(message).toBe(
        `Redis at 127.0.0.1:${redis.port} has no password, and REDIS_URL gives one: leave the user and ` +
          `password out of REDIS_URL (redis://127.0.0.1:${redis.port}), or check that it names the right server`,
      );
      expect(ms).toBeLessThan(2_000);
      expect(message).not.toMatch(/canary/);
    } finally {
      redis.stop();
    }
  });
});

describe.runIf(redisProgram)('a Redis that does not keep its data on disk', () => {
  it('is named at start, and a restart that emptied it is told as such once it answers again', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'bot-redis-aof-'));
    const settings = ['--save', '', '--appendonly', 'no', '--dir', dir];
    let redis = await privateRedis(settings);
    const warnings: string[] = [];
    const told: { restarted: boolean; emptied: boolean }[] = [];
    const storage = await createStorage({
      dataDir: 'unused',
      redisUrl: `redis://127.0.0.1:${redis.port}`,
      onWarning: (message) => warnings.push(message),
      onRecovered: (_where, how) => told.push(how),
    });
    try {
      expect(warnings).toEqual([
        expect.stringContaining(`Redis at 127.0.0.1:${redis.port} keeps no append-only file`),
      ]);
      await storage.ns('prefs').set('member', 'kept');
      // Redis restarts, keeping nothing: the bot's data is gone, and the log must say so.
      redis.stop();
      await expect
        .poll(() =>
          storage
            .ns('prefs')
            .get('member')
            .then(
              () => 'up',
              () => 'down',
            ),
        )
        .toBe('down');
      redis = await privateRedis(settings, redis.port);
      await expect.poll(() => told).toEqual([{ restarted: true, emptied: true }]);
      expect(await storage.ns('prefs').get('member')).toBeUndefined();
    } finally {
      await storage.close();
      redis.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('is not named when Redis keeps an append-only file', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'bot-redis-aof-'));
    const redis = await privateRedis(['--save', '', '--appendonly', 'yes', '--dir', dir]);
    const warnings: string[] = [];
    try {
      const storage = await createStorage({
        dataDir: 'unused',
        redisUrl: `redis://127.0.0.1:${redis.port}`,
        onWarning: (message) => warnings.push(message),
      });
      await storage.close();
      expect(warnings).toEqual([]);
    } finally {
      redis.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe.runIf(redisReady)('Redis going away while the bot runs', () => {
  it('fails kept data at once and reads a cache miss, and applies nothing late once Redis is back', async () => {
    const link = await redisLink();
    const redisPrefix = uniquePrefix('storage-drop');
    prefixes.push(redisPrefix);
    const told: string[] = [];
    const storage = await createStorage({
      dataDir: 'unused',
      redisUrl: link.url,
      redisPrefix,
      onError: (_error, namespace) => told.push(`error ${namespace}`),
      onRecovered: (where, how) =>
        told.push(`back ${where}${how.restarted ? ' restarted' : ''}${how.emptied ? ' empty' : ''}`),
    });
    try {
      await storage.ns('prefs').set('member', 'before');
      await storage.ns('weather-cache').set('place', 'cached');
      await link.cut();

      const read = await within(storage.ns('prefs').get('member'), 2_000);
      const write = await within(storage.ns('prefs').set('member', 'during the outage'), 2_000);
      const cache = await within(storage.ns('weather-cache').get('place'), 2_000);
      const claim = await within(storage.claim('locks', 'slot', 60_000), 2_000);
      expect(read).toHaveProperty('error');
      expect(write).toHaveProperty('error');
      expect(cache).toEqual({ value: undefined });
      expect(claim).toHaveProperty('error');
      expect(told).toContain('error redis');
      expect(told.filter((line) => line.startsWith('back'))).toEqual([]);

      await link.restore();
      await expect
        .poll(() =>
          storage
            .ns('prefs')
            .get('member')
            .catch(() => 'unreachable'),
        )
        .toBe('before');
      expect(await storage.claim('locks', 'slot', 60_000, 'after')).toBe(true);
      // The owner's log says Redis came back, once, where it said Redis was away.
      expect(told.filter((line) => line.startsWith('back'))).toEqual([`back ${new URL(link.url).host}`]);
      expect(told.at(-1)).toBe(`back ${new URL(link.url).host}`);
    } finally {
      await storage.close();
      await link.close();
    }
  });
});

describe('a SQLite file the bot cannot use', () => {
  it('refuses a file that is not a database with one error naming the file', async () => {
    const dataDir = await tempDir();
    await writeFile(
      path.join(dataDir, 'bot.sqlite'),
      'these bytes are not a SQLite database, at all'.repeat(200),
    );
    const opening = createStorage({ dataDir });
    await expect(opening).rejects.toThrow(StorageError);
    await expect(opening).rejects.toThrow(
      `cannot write the SQLite file ${path.join(dataDir, 'bot.sqlite')}: SQLITE_NOTADB`,
    );
  });

  it('refuses a path where the file cannot be created', async () => {
    const dataDir = await tempDir();
    await mkdir(path.join(dataDir, 'bot.sqlite'));
    await expect(createStorage({ dataDir })).rejects.toThrow(
      /^cannot write the SQLite file .*SQLITE_CANTOPEN/,
    );
  });

  it('refuses a DATA_DIR that cannot be created', async () => {
    const file = path.join(await tempDir(), 'a-file');
    await writeFile(file, '');
    await expect(createStorage({ dataDir: path.join(file, 'data') })).rejects.toThrow(
      new StorageError(
        `cannot create DATA_DIR ${path.join(file, 'data')}: ENOTDIR: not a directory, mkdir '${path.join(file, 'data')}'`,
      ),
    );
  });

  it('refuses a DATA_DIR on a file system that makes no directories (/proc) at once, instead of hanging', async () => {
    const started = Date.now();
    const outcome = await within(createStorage({ dataDir: '/proc/bot-data/db' }), 5_000);
    expect(outcome).toEqual({
      error: new StorageError(
        'cannot create DATA_DIR /proc/bot-data/db: the file system there makes no directories (as /proc and ' +
          '/sys do not): point DATA_DIR at a directory on a disk the bot’s user can write, such as ./data',
      ),
    });
    expect(Date.now() - started).toBeLessThan(2_000);

    // Elsewhere, missing parents are created too, and a DATA_DIR that exists is taken as it is.
    const dataDir = path.join(await tempDir(), 'a', 'b', 'data');
    for (let open = 0; open < 2; open++) {
      const storage = await createStorage({ dataDir });
      await storage.ns('prefs').set('member', 'kept');
      expect(await storage.ns('prefs').get('member')).toBe('kept');
      await storage.close();
    }
  });

  it('refuses a database the bot may only read (owned by another user), at start rather than at each write', async () => {
    const dataDir = await tempDir();
    const first = await createStorage({ dataDir });
    await first.ns('prefs').set('member', 'kept');
    await first.close();
    await chmod(path.join(dataDir, 'bot.sqlite'), 0o444);
    await chmod(dataDir, 0o555);
    // Root writes whatever the modes say: open it as an unprivileged user, in a process of its own.
    const asRoot = process.getuid?.() === 0;
    const script = `
      import { createStorage } from ${JSON.stringify(path.resolve('src/storage/index.ts'))};
      try {
        const storage = await createStorage({ dataDir: ${JSON.stringify(dataDir)} });
        await storage.close();
        console.log('opened');
      } catch (error) {
        console.log(error.name + ': ' + error.message);
      }`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, HOME: tmpdir() },
      ...(asRoot ? { uid: 65_534, gid: 65_534 } : {}),
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await new Promise((resolve) => child.once('exit', resolve));
    await chmod(dataDir, 0o755);
    expect(output.trim()).toMatch(/^StorageError: cannot write the SQLite file .*SQLITE_READONLY/);
  });
});

describe('expired values in the SQLite file', () => {
  it('are deleted without being read again, and values without an expiry stay', async () => {
    const dataDir = await tempDir();
    const storage = await createStorage({ dataDir, sweepIntervalMs: 100 });
    const raw = new KeyvSqlite({ uri: `sqlite://${path.join(dataDir, 'bot.sqlite')}` });
    try {
      // Long enough to outlast 23 writes on a busy machine (50 ms did not), short enough to watch go.
      const ttlMs = 3_000;
      for (let i = 0; i < 20; i++)
        await storage.ns('weather-cache').set(`place-${i}`, { forecast: i }, ttlMs);
      await storage.ns('schedule-markers').set('done:a:2026-01-01', true, ttlMs);
      expect(await storage.claim('locks', 'refresh:1', ttlMs)).toBe(true);
      await storage.ns('prefs').set('member', 'kept');
      const rows = async () =>
        (
          (await raw.query(`SELECT key FROM keyv WHERE key NOT LIKE 'storage:%' ORDER BY key`)) as {
            key: string;
          }[]
        ).map((row) => row.key);
      expect((await rows()).length).toBe(23);
      await expect.poll(rows, { timeout: 10_000 }).toEqual(['prefs:member']);
    } finally {
      await raw.disconnect();
      await storage.close();
    }
  });
});
