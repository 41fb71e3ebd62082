/**
 * The Keyv factory: an embedded SQLite file under `DATA_DIR` by default, Redis when `REDIS_URL`
 * is set. One Keyv per kind of data (namespace), all sharing one backend.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import Keyv from 'keyv';
import type { RedisClientType } from '@keyv/redis';
import KeyvSqlite from '@keyv/sqlite';
import { withinMs } from '../services/time-limit.js';

/** Every kind of data the bot keeps. Each gets its own namespace, so one can be cleared alone. */
export const NAMESPACES = [
  'links',
  'link-lapses',
  'keyring',
  'oauth-states',
  'prefs',
  'schedules',
  'schedule-markers',
  'weather-cache',
  'locks',
  'music-cache',
  'music-recent',
] as const;
export type Namespace = (typeof NAMESPACES)[number];

/**
 * Namespaces whose reads and writes throw when the backend fails (a lost Redis connection, a busy
 * SQLite file) instead of Keyv's default of reading "nothing" and writing nothing without a word:
 * what they hold is read, changed and written back (a guild's schedules, the guild index, a link
 * being refreshed), and a failed read taken for "nothing" would be written back over what is
 * there, and a failed write reported as done. Caches stay lenient: a failed read there is a miss.
 */
const STRICT: ReadonlySet<string> = new Set<Namespace>([
  'links',
  'keyring',
  'oauth-states',
  'prefs',
  'schedules',
  'schedule-markers',
]);

export interface StorageOptions {
  /** Directory for the SQLite file when no Redis URL is given. */
  dataDir: string;
  redisUrl?: string | undefined;
  /** Prefix of every Redis key, so several bots (or tests) can share one server. */
  redisPrefix?: string;
  /** SQLite file name inside `dataDir`. */
  sqliteFile?: string;
  /** Where store errors go (a lost connection must not crash the process). */
  onError?: (error: unknown, namespace: string) => void;
  /**
   * Told once Redis answers again after {@link onError} reported it lost: where it is, whether it
   * restarted meanwhile, and whether it came back without what the bot had stored there.
   */
  onRecovered?: (where: string, how: { restarted: boolean; emptied: boolean }) => void;
  /** Told at start about a backend set up to lose what the bot stores (a Redis that evicts keys). */
  onWarning?: (message: string) => void;
  /** How long to keep trying to reach Redis at start before giving up with a {@link StorageError}. */
  connectTimeoutMs?: number;
  /** How often expired values are deleted from the SQLite file (Redis expires them itself). */
  sweepIntervalMs?: number;
}

/**
 * The store cannot be opened or written at start: the message says which, where (never with
 * credentials) and why, in full, so it has no `cause` to repeat it.
 */
export class StorageError extends Error {
  override readonly name = 'StorageError';
}

const STORAGE_DEFAULTS = {
  connectTimeoutMs: 10_000,
  sweepIntervalMs: 3_600_000,
} as const satisfies Required<Pick<StorageOptions, 'connectTimeoutMs' | 'sweepIntervalMs'>>;

/** How long creating DATA_DIR may take (a network file system that does not answer). */
const MAKE_DATA_DIR_MS = 10_000;

/** Rows deleted per statement by the SQLite sweep, so other processes on the file never wait long. */
const SWEEP_BATCH = 5_000;

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export interface Storage {
  readonly backend: 'sqlite' | 'redis';
  /** The Keyv for one kind of data. Values are JSON; TTLs are in milliseconds. */
  ns<T = unknown>(namespace: Namespace | (string & {})): Keyv<T>;
  /**
   * Atomically takes `key` in `namespace` for `ttlMs` unless someone holds it: true when this caller
   * got it. Holds across processes sharing the backend. Used for locks and idempotency markers;
   * keys taken this way are read only through `claim` and `release`.
   */
  claim(namespace: Namespace, key: string, ttlMs: number, owner?: string): Promise<boolean>;
  /** Whether someone holds the claim on `key` now. */
  held(namespace: Namespace, key: string): Promise<boolean>;
  /** Gives up a claim, but only if `owner` still holds it. */
  release(namespace: Namespace, key: string, owner: string): Promise<void>;
  /**
   * Makes `owner`'s claim on `key` last `ttlMs` from now, for work that may take longer than the
   * claim was taken for: true when `owner` still held it, false when it ran out and was lost.
   */
  extend(namespace: Namespace, key: string, ttlMs: number, owner: string): Promise<boolean>;
  /**
   * Hands out turns `intervalMs` apart on `key`, in order, to every process sharing the backend:
   * answers how long this caller must wait for its turn (0 when it may go now). For keeping a pace
   * that a limit counts across processes (Discord's 50 requests per second for the whole bot).
   */
  nextTurn(namespace: Namespace, key: string, intervalMs: number): Promise<number>;
  /** Closes every connection. */
  close(): Promise<void>;
}

/** A lock stayed taken for longer than the caller would wait (see {@link withLock}). */
export class LockBusyError extends Error {
  override readonly name = 'LockBusyError';
  readonly userMessage =
    'Another change to the same settings is still being saved. Please try again in a moment.';
}

const LOCK_DEFAULTS = { ttlMs: 10_000, waitMs: 5_000 } as const satisfies Required<
  Omit<LockOptions, 'signal'>
>;

export interface LockOptions {
  /**
   * How long the lock lasts once its holder stops keeping it (a crash): its holder keeps it while
   * its work runs (see {@link withLock}).
   */
  ttlMs?: number;
  /** How long to wait for a lock someone else holds before giving up with {@link LockBusyError}. */
  waitMs?: number;
  /** Stops waiting for the lock (throws its reason) once aborted: the process is stopping. */
  signal?: AbortSignal;
}

/**
 * Keeps `owner`'s claim on `key` from running out while its holder works (extended every third of
 * `ttlMs`); the returned function stops keeping it. A process that dies stops keeping it too, and
 * the claim runs out for another to take over.
 */
export function keepClaim(
  storage: Pick<Storage, 'extend'>,
  namespace: Namespace,
  key: string,
  ttlMs: number,
  owner: string,
): () => void {
  const timer = setInterval(() => {
    storage.extend(namespace, key, ttlMs, owner).catch(() => false);
  }, ttlMs / 3);
  return () => clearInterval(timer);
}

/**
 * Runs storage `work`, trying again after a failure (pauses from 100 ms, doubling up to 2 s) for
 * `forMs`, then letting the last failure through; at once when `signal` is aborted. For a write
 * that must not be lost to a storage blip or a failover: a post's "done" marker, a refresh token
 * the service has just rotated.
 */
export async function retryStorage<T>(
  work: () => Promise<T>,
  forMs: number,
  signal?: AbortSignal,
): Promise<T> {
  const giveUpAt = performance.now() + forMs;
  for (let pause = 100; ; pause = Math.min(pause * 2, 2_000)) {
    try {
      return await work();
    } catch (error) {
      if (signal?.aborted || performance.now() + pause > giveUpAt) throw error;
      // An abort during the pause ends it, with the last failure.
      await delay(pause, undefined, signal ? { signal } : {}).catch(() => {
        throw error;
      });
    }
  }
}

/**
 * Runs `task` holding the lock `key` (a claim in the `locks` namespace), across every process that
 * shares the backend: for reading a stored value, changing it and writing it back without losing a
 * change made at the same time. A lock someone else holds is tried again after growing pauses. The
 * lock is kept while `task` runs (see {@link keepClaim}): a read and a write that each wait out a
 * busy SQLite file can take longer than `ttlMs`, and a lock that ran out meanwhile let a second
 * writer read the old value and write over the change.
 */
export async function withLock<T>(
  storage: Pick<Storage, 'claim' | 'release' | 'extend'>,
  key: string,
  task: () => Promise<T>,
  options: LockOptions = {},
): Promise<T> {
  const { ttlMs, waitMs } = { ...LOCK_DEFAULTS, ...options };
  const owner = randomUUID();
  const deadline = Date.now() + waitMs;
  for (let pause = 10; ; pause = Math.min(pause * 2, 200)) {
    options.signal?.throwIfAborted();
    if (await storage.claim('locks', key, ttlMs, owner)) {
      const stopKeeping = keepClaim(storage, 'locks', key, ttlMs, owner);
      try {
        return await task();
      } finally {
        stopKeeping();
        // A lock that cannot be given up runs out after `ttlMs`: the task's outcome stands.
        await storage.release('locks', key, owner).catch(() => {});
      }
    }
    if (Date.now() >= deadline) throw new LockBusyError(`${key} stayed locked for ${waitMs} ms`);
    // Jittered, so waiters that collided do not keep colliding.
    await delay(pause / 2 + Math.random() * pause);
  }
}

/** Compare-and-delete, so a lock that expired and was taken by someone else is not released by us. */
const RELEASE_SCRIPT = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

/** Compare-and-expire: a claim is made to last longer only by the one who holds it. */
const EXTEND_SCRIPT = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;

/**
 * The furthest ahead a stored turn can lie: 30,000 posts at Discord's 50 a second. One further
 * ahead comes from a clock set back (a wrong time at boot that NTP put right) and is dropped, the
 * turns starting again from now: kept, it made every post wait as long as the clock went back,
 * all scheduled posting stopped meanwhile.
 */
const TURN_HORIZON_MS = 10 * 60_000;

/**
 * A turn on Redis's clock: the key holds the time the next turn may start (a "theoretical arrival
 * time"); this caller's turn starts then, or now if that has passed, and the next one interval later.
 */
const NEXT_TURN_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval = tonumber(ARGV[1])
local stored = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
if stored > now + tonumber(ARGV[2]) then stored = 0 end
local start = math.max(now, stored)
redis.call('SET', KEYS[1], tostring(start + interval), 'PX', math.ceil(start - now + interval) + 60000)
return start - now`;

/**
 * The policy by which a Redis drops keys when its memory is full, read from its `INFO memory`
 * answer: undefined when it never drops any (`noeviction`, or no memory limit: `maxmemory` 0) or
 * the answer does not say.
 */
export function evictionPolicyIn(info: string): string | undefined {
  const policy = /^maxmemory_policy:(\S+)/m.exec(info)?.[1];
  const limit = /^maxmemory:(\d+)/m.exec(info)?.[1];
  return policy === 'noeviction' || limit === '0' ? undefined : policy;
}

/** {@link evictionPolicyIn} of the server (`INFO` is allowed where managed services refuse `CONFIG GET`). */
async function evictionPolicy(client: RedisClientType): Promise<string | undefined> {
  try {
    return evictionPolicyIn(String(await client.info('memory')));
  } catch {
    return undefined;
  }
}

/**
 * Whether a Redis server keeps an append-only file, from its `INFO persistence` answer: false when
 * it says it does not (`aof_enabled:0`), undefined when the answer does not say.
 */
export function keepsAppendOnlyFileIn(info: string): boolean | undefined {
  const enabled = /^aof_enabled:(\d)/m.exec(info)?.[1];
  return enabled === undefined ? undefined : enabled === '1';
}

/** The server's `run_id` (a new one at each start of Redis), or undefined when it cannot be read. */
async function runIdOf(client: RedisClientType): Promise<string | undefined> {
  try {
    return /^run_id:(\S+)/m.exec(String(await client.info('server')))?.[1];
  } catch {
    return undefined;
  }
}

/**
 * What to change in REDIS_URL when Redis refuses its credentials (`message` is Redis's error), or
 * undefined for any other error. Never with the credentials themselves.
 */
function credentialsRefused(message: string, where: string): string | undefined {
  // Redis 6 and later; before, `ERR invalid password` and `ERR Client sent AUTH, but no password is set`.
  if (/^NOAUTH\b/.test(message))
    return `Redis at ${where} needs a password: put it in REDIS_URL (redis://:PASSWORD@${where}, or redis://USER:PASSWORD@… for an ACL user)`;
  if (
    /^ERR AUTH\b.*without any password configured|^ERR Client sent AUTH, but no password is set/.test(message)
  )
    return `Redis at ${where} has no password, and REDIS_URL gives one: leave the user and password out of REDIS_URL (redis://${where}), or check that it names the right server`;
  if (/^WRONGPASS\b|^ERR invalid password\b/.test(message))
    return `Redis at ${where} refused the user or password in REDIS_URL: check them (redis://:PASSWORD@${where}, or redis://USER:PASSWORD@${where} for an ACL user)`;
  return undefined;
}

/**
 * Creates `dir` and whichever of its parents are missing, one at a time. Not Node's `mkdir` with
 * `recursive`: where the file system answers ENOENT to a new directory under one that exists (/proc,
 * /sys), that one tries again for ever, spinning a CPU, and the start never ends.
 */
async function makeDirectory(dir: string, parentMade = false): Promise<void> {
  try {
    await mkdir(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Another process (a shard) may have made it meanwhile.
    if (code === 'EEXIST' && (await stat(dir)).isDirectory()) return;
    if (code !== 'ENOENT' || path.dirname(dir) === dir) throw error;
    if (parentMade) throw new RefusedDirectoryError();
    await makeDirectory(path.dirname(dir));
    await makeDirectory(dir, true);
  }
}

/** The parent is there, and the file system still says it is not: it makes no directories. */
class RefusedDirectoryError extends Error {}

/** Why DATA_DIR could not be created, and what to do about it when the error alone does not say. */
function dataDirProblem(error: unknown): string {
  if (error instanceof RefusedDirectoryError)
    return `the file system there makes no directories (as /proc and /sys do not): ${ELSEWHERE}`;
  return messageOf(error);
}

const ELSEWHERE = 'point DATA_DIR at a directory on a disk the bot’s user can write, such as ./data';

/** Opens the storage backend chosen by the configuration. */
export async function createStorage(options: StorageOptions): Promise<Storage> {
  const stores = new Map<string, Keyv>();
  const onError = options.onError ?? (() => {});

  if (options.redisUrl) {
    // Loaded only here: the Redis client costs some 20 MB that a bot on SQLite never uses.
    const { default: KeyvRedis, createClient } = await import('@keyv/redis');
    const { hostname, port } = new URL(options.redisUrl);
    // Where, for messages: never the URL itself, which may carry a password.
    const where = `${hostname}:${port || 6379}`;
    const connectTimeoutMs = options.connectTimeoutMs ?? STORAGE_DEFAULTS.connectTimeoutMs;
    const startedAt = Date.now();
    let connected = false;
    let gaveUp: StorageError | undefined;
    const client = createClient({
      url: options.redisUrl,
      // While Redis is unreachable, commands fail at once instead of queueing until it is back: a
      // queued command would hang the member's interaction and the scheduled posts waiting on it,
      // and be applied minutes later.
      disableOfflineQueue: true,
      socket: {
        connectTimeout: Math.min(connectTimeoutMs, 5_000),
        // At start, give up after `connectTimeoutMs`, so a wrong REDIS_URL ends the process with one
        // clear error instead of retrying for ever; once connected, reconnect for as long as it takes.
        reconnectStrategy: (retries: number, cause: Error) => {
          // A refused password is refused again at every try: said at once, not after the timeout.
          const refusal = connected ? undefined : credentialsRefused(cause.message, where);
          if (refusal !== undefined) return (gaveUp = new StorageError(refusal));
          if (!connected && Date.now() - startedAt >= connectTimeoutMs) {
            return (gaveUp = new StorageError(`cannot connect to Redis at ${where}: ${cause.message}`));
          }
          return Math.min(50 * 2 ** retries, 2_000) + Math.floor(Math.random() * 200);
        },
      },
    }) as RedisClientType;
    // Before the first connection, the failure is reported once, by `connect()` below.
    // Once running, a lost connection is told through `onError` and its return through
    // `onRecovered`, so the log that said Redis was away also says when it came back, and whether
    // it came back empty (a Redis that keeps nothing on disk, restarted).
    let lost = false;
    let runId: string | undefined;
    const prefix = options.redisPrefix ?? 'bot';
    /** Written at start; a Redis that answers without it lost everything the bot stored. */
    const sentinel = `${prefix}:storage-sentinel`;
    client.on('error', (error: unknown) => {
      if (!connected) return;
      lost = true;
      onError(error, 'redis');
    });
    client.on('ready', () => {
      if (!connected || !lost) return;
      lost = false;
      void (async () => {
        const now = await runIdOf(client);
        const restarted = runId !== undefined && now !== undefined && now !== runId;
        runId = now ?? runId;
        let emptied = false;
        try {
          emptied = (await client.exists(sentinel)) === 0;
          if (emptied) await client.set(sentinel, String(Date.now()));
        } catch {
          // Asked again at the next reconnection; the outage itself is already told.
        }
        options.onRecovered?.(where, { restarted, emptied });
      })();
    });
    try {
      await client.connect();
    } catch (error) {
      throw gaveUp ?? new StorageError(`cannot connect to Redis at ${where}: ${messageOf(error)}`);
    }
    // A server that wants a password takes the connection and refuses every command after it
    // (NOAUTH): asked once here, so that is one clear error at start rather than every read and
    // write failing once the bot runs.
    try {
      await client.ping();
    } catch (error) {
      await client.close().catch(() => undefined);
      const message = messageOf(error);
      throw new StorageError(
        credentialsRefused(message, where) ?? `Redis at ${where} refused the first command: ${message}`,
      );
    }
    connected = true;
    runId = await runIdOf(client);
    await client.set(sentinel, String(Date.now())).catch(() => undefined);
    const policy = await evictionPolicy(client);
    if (policy !== undefined) {
      options.onWarning?.(
        `Redis at ${where} evicts keys when its memory limit is reached (maxmemory-policy ${policy}): music links, ` +
          `schedules and the markers that keep a scheduled post from going out twice can then be dropped ` +
          `without a word. Set maxmemory-policy to noeviction (Redis's default) for the bot's data.`,
      );
    }
    const appendOnly = await client
      .info('persistence')
      .then((info) => keepsAppendOnlyFileIn(String(info)))
      .catch(() => undefined);
    if (appendOnly === false) {
      options.onWarning?.(
        `Redis at ${where} keeps no append-only file (appendonly no): if it stops without saving (a crash, ` +
          `a container recreated without its volume, a server that keeps nothing on disk), it comes back ` +
          `empty or as its last snapshot, and music links (members then link again), schedules and the ` +
          `markers that keep a post from going out twice are lost or rolled back. Set appendonly yes ` +
          `(appendfsync everysec) for the bot's Redis.`,
      );
    }
    return {
      backend: 'redis',
      ns<T>(namespace: string) {
        let keyv = stores.get(namespace);
        if (!keyv) {
          // Keyv hands its namespace to the adapter, which prefixes keys in Redis itself; with
          // Keyv's own prefixing on as well, keys would be prefixed twice (`a::a:key`).
          const throwOnErrors = STRICT.has(namespace);
          const store = new KeyvRedis(client, { keyPrefixSeparator: ':', throwOnErrors });
          keyv = new Keyv({ store, namespace: `${prefix}:${namespace}`, useKeyPrefix: false, throwOnErrors });
          keyv.on('error', (error: unknown) => onError(error, namespace));
          stores.set(namespace, keyv);
        }
        return keyv as Keyv<T>;
      },
      async claim(namespace, key, ttlMs, owner = randomUUID()) {
        const result = await client.set(`${prefix}:${namespace}:claim:${key}`, owner, {
          condition: 'NX',
          expiration: { type: 'PX', value: Math.max(1, Math.round(ttlMs)) },
        });
        return result === 'OK';
      },
      async held(namespace, key) {
        return (await client.exists(`${prefix}:${namespace}:claim:${key}`)) === 1;
      },
      async release(namespace, key, owner) {
        await client.eval(RELEASE_SCRIPT, {
          keys: [`${prefix}:${namespace}:claim:${key}`],
          arguments: [owner],
        });
      },
      async extend(namespace, key, ttlMs, owner) {
        const extended = await client.eval(EXTEND_SCRIPT, {
          keys: [`${prefix}:${namespace}:claim:${key}`],
          arguments: [owner, String(Math.max(1, Math.round(ttlMs)))],
        });
        return Number(extended) === 1;
      },
      async nextTurn(namespace, key, intervalMs) {
        const wait = await client.eval(NEXT_TURN_SCRIPT, {
          keys: [`${prefix}:${namespace}:turn:${key}`],
          arguments: [String(Math.max(0, Math.round(intervalMs))), String(TURN_HORIZON_MS)],
        });
        return Math.max(0, Number(wait));
      },
      async close() {
        stores.clear();
        if (client.isOpen) await client.close();
      },
    };
  }

  const dataDir = path.resolve(options.dataDir);
  try {
    await withinMs(
      makeDirectory(dataDir),
      MAKE_DATA_DIR_MS,
      `the file system did not answer within ${MAKE_DATA_DIR_MS / 1000} s (a network mount that is away?): ${ELSEWHERE}`,
    );
  } catch (error) {
    throw new StorageError(`cannot create DATA_DIR ${dataDir}: ${dataDirProblem(error)}`);
  }
  const file = path.resolve(options.dataDir, options.sqliteFile ?? 'bot.sqlite');
  const adapters: KeyvSqlite[] = [];
  // Claims use the adapter's own SQL: one statement, so it is atomic even with several processes
  // on one file. A claim is a row in Keyv's table whose value is Keyv's `{value, expires}` JSON.
  const claims = new KeyvSqlite({ uri: `sqlite://${file}`, busyTimeout: 10_000 });
  // A file that cannot be opened is reported by the write below; without a listener, the adapter's
  // own 'error' event would end the process first, with a stack trace instead of that message.
  claims.on('error', () => {});
  adapters.push(claims);
  // Opening succeeds on a file the bot may only read (SQLite falls back to read-only), and every
  // write would fail later, one command at a time: write once now, so start-up fails instead.
  try {
    await claims.query(
      `INSERT INTO keyv (key, value) VALUES ('storage:opened', ?)
       ON CONFLICT(key) DO UPDATE SET value = excluded.value`,
      JSON.stringify({ value: Date.now(), expires: null }),
    );
  } catch (error) {
    await claims.disconnect().catch(() => {});
    throw new StorageError(
      `cannot write the SQLite file ${file}: ${messageOf(error)} (DATA_DIR must be a directory the bot's user can write, holding a database file or none)`,
    );
  }
  const claimKey = (namespace: string, key: string) => `${namespace}:claim:${key}`;

  /**
   * SQLite has no expiry of its own: Keyv drops an expired value only when it is read again, and
   * most never are (a past slot's markers, a place's cached forecast, a lock), so the file would
   * grow for as long as the bot runs. Deletes expired rows a batch at a time.
   */
  async function sweep(): Promise<void> {
    for (;;) {
      const rows = (await claims.query(
        `DELETE FROM keyv WHERE rowid IN (
           SELECT rowid FROM keyv WHERE json_valid(value) AND json_extract(value, '$.expires') <= ? LIMIT ?)
         RETURNING 1`,
        Date.now(),
        SWEEP_BATCH,
      )) as unknown[];
      if (rows.length < SWEEP_BATCH) return;
    }
  }
  let sweeping: Promise<void> | undefined;
  const sweepNow = () => {
    sweeping ??= sweep().then(
      () => {
        sweeping = undefined;
      },
      (error: unknown) => {
        sweeping = undefined;
        onError(error, 'sqlite');
      },
    );
  };
  sweepNow();
  const sweeper = setInterval(sweepNow, options.sweepIntervalMs ?? STORAGE_DEFAULTS.sweepIntervalMs);
  sweeper.unref();
  return {
    backend: 'sqlite',
    ns<T>(namespace: string) {
      let keyv = stores.get(namespace);
      if (!keyv) {
        const store = new KeyvSqlite({ uri: `sqlite://${file}`, busyTimeout: 10_000 });
        adapters.push(store);
        keyv = new Keyv({ store, namespace, throwOnErrors: STRICT.has(namespace) });
        keyv.on('error', (error: unknown) => onError(error, namespace));
        stores.set(namespace, keyv);
      }
      return keyv as Keyv<T>;
    },
    async claim(namespace, key, ttlMs, owner = randomUUID()) {
      const now = Date.now();
      const value = JSON.stringify({ value: owner, expires: now + Math.max(1, Math.round(ttlMs)) });
      await claims.query(
        `INSERT INTO keyv (key, value) VALUES (?, ?)
         ON CONFLICT(key) DO UPDATE SET value = excluded.value
         WHERE json_extract(keyv.value, '$.expires') <= ?`,
        claimKey(namespace, key),
        value,
        now,
      );
      const rows = (await claims.query('SELECT value FROM keyv WHERE key = ?', claimKey(namespace, key))) as {
        value: string;
      }[];
      return rows[0]?.value === value;
    },
    async held(namespace, key) {
      const rows = (await claims.query(
        `SELECT 1 FROM keyv WHERE key = ? AND json_extract(value, '$.expires') > ?`,
        claimKey(namespace, key),
        Date.now(),
      )) as unknown[];
      return rows.length > 0;
    },
    async release(namespace, key, owner) {
      await claims.query(
        `DELETE FROM keyv WHERE key = ? AND json_extract(value, '$.value') = ?`,
        claimKey(namespace, key),
        owner,
      );
    },
    async extend(namespace, key, ttlMs, owner) {
      // Only while unexpired, as on Redis, where an expired claim is gone even if no one took it.
      const now = Date.now();
      const rows = (await claims.query(
        `UPDATE keyv SET value = ? WHERE key = ? AND json_extract(value, '$.value') = ?
           AND json_extract(value, '$.expires') > ?
         RETURNING 1`,
        JSON.stringify({ value: owner, expires: now + Math.max(1, Math.round(ttlMs)) }),
        claimKey(namespace, key),
        owner,
        now,
      )) as unknown[];
      return rows.length > 0;
    },
    async nextTurn(namespace, key, intervalMs) {
      // One statement, so atomic across processes on the file; the row's value is the time the
      // next turn may start (the processes share this host's clock).
      const now = Date.now();
      const interval = Math.max(0, Math.round(intervalMs));
      // A turn stored further ahead than TURN_HORIZON_MS is dropped (see there).
      const start = `max(?2, CASE WHEN json_extract(keyv.value, '$.value') > ?2 + ?4 THEN ?2
                                  ELSE json_extract(keyv.value, '$.value') END)`;
      const rows = (await claims.query(
        `INSERT INTO keyv (key, value) VALUES (?1, json_object('value', ?2 + ?3, 'expires', ?2 + ?3 + 60000))
         ON CONFLICT(key) DO UPDATE SET value = json_object(
           'value', ${start} + ?3,
           'expires', ${start} + ?3 + 60000)
         RETURNING json_extract(value, '$.value') AS next`,
        `${namespace}:turn:${key}`,
        now,
        interval,
        TURN_HORIZON_MS,
      )) as { next: number }[];
      return Math.max(0, Number(rows[0]?.next ?? now + interval) - interval - now);
    },
    async close() {
      clearInterval(sweeper);
      await sweeping;
      stores.clear();
      await Promise.all(adapters.splice(0).map((adapter) => adapter.disconnect()));
    },
  };
}
