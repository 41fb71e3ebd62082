/**
 * The Keyv factory: an embedded SQLite file under `DATA_DIR` by default, Redis when `REDIS_URL`
 * is set. One Keyv per kind of data (namespace), all sharing one backend.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import Keyv from 'keyv';
import KeyvRedis, { createClient, type RedisClientType } from '@keyv/redis';
import KeyvSqlite from '@keyv/sqlite';

/** Every kind of data the bot keeps. Each gets its own namespace, so one can be cleared alone. */
export const NAMESPACES = [
  'links',
  'oauth-states',
  'prefs',
  'schedules',
  'schedule-markers',
  'weather-cache',
  'locks',
] as const;
export type Namespace = (typeof NAMESPACES)[number];

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
}

export interface Storage {
  readonly backend: 'sqlite' | 'redis';
  /** The Keyv for one kind of data. Values are JSON; TTLs are in milliseconds. */
  ns<T = unknown>(namespace: Namespace | (string & {})): Keyv<T>;
  /** Closes every connection. */
  close(): Promise<void>;
}

/** Opens the storage backend chosen by the configuration. */
export async function createStorage(options: StorageOptions): Promise<Storage> {
  const stores = new Map<string, Keyv>();
  const onError = options.onError ?? (() => {});

  if (options.redisUrl) {
    const client = createClient({ url: options.redisUrl }) as RedisClientType;
    client.on('error', (error: unknown) => onError(error, 'redis'));
    await client.connect();
    const prefix = options.redisPrefix ?? 'bot';
    return {
      backend: 'redis',
      ns<T>(namespace: string) {
        let keyv = stores.get(namespace);
        if (!keyv) {
          // Keyv hands its namespace to the adapter, which prefixes keys in Redis itself; with
          // Keyv's own prefixing on as well, keys would be prefixed twice (`a::a:key`).
          const store = new KeyvRedis(client, { keyPrefixSeparator: ':' });
          keyv = new Keyv({ store, namespace: `${prefix}:${namespace}`, useKeyPrefix: false });
          keyv.on('error', (error: unknown) => onError(error, namespace));
          stores.set(namespace, keyv);
        }
        return keyv as Keyv<T>;
      },
      async close() {
        stores.clear();
        if (client.isOpen) await client.close();
      },
    };
  }

  await mkdir(options.dataDir, { recursive: true });
  const file = path.resolve(options.dataDir, options.sqliteFile ?? 'bot.sqlite');
  const adapters: KeyvSqlite[] = [];
  return {
    backend: 'sqlite',
    ns<T>(namespace: string) {
      let keyv = stores.get(namespace);
      if (!keyv) {
        const store = new KeyvSqlite({ uri: `sqlite://${file}`, busyTimeout: 10_000 });
        adapters.push(store);
        keyv = new Keyv({ store, namespace });
        keyv.on('error', (error: unknown) => onError(error, namespace));
        stores.set(namespace, keyv);
      }
      return keyv as Keyv<T>;
    },
    async close() {
      stores.clear();
      await Promise.all(adapters.splice(0).map((adapter) => adapter.disconnect()));
    },
  };
}
