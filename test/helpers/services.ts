/**
 * Finds the optional local services the tests need (Redis, Chromium). On a developer machine a
 * missing one skips its tests with a printed reason; under CI (`CI=true`) it fails instead, so a
 * green CI run never hides a skipped suite.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient } from '@keyv/redis';
import type { StorageOptions } from '../../src/storage/index.js';

export const REDIS_URL = process.env['REDIS_TEST_URL'] ?? 'redis://127.0.0.1:6379';
export const CHROMIUM_PATH = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const inCi = process.env['CI'] === 'true' || process.env['CI'] === '1';

/** Whether something accepts a TCP connection at `url`'s host and port (Redis's by default) within a second. */
export function canConnect(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || 6379) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

function unavailable(what: string, why: string): boolean {
  if (inCi) throw new Error(`${what} is required under CI but ${why}`);
  console.warn(`SKIPPED: tests that need ${what}, because ${why}.`);
  return false;
}

/** True when Redis answers; false (with a printed reason) on a developer machine without it. */
export async function haveRedis(): Promise<boolean> {
  return (await canConnect(REDIS_URL)) || unavailable('Redis', `nothing answers at ${REDIS_URL}`);
}

/**
 * True when the `redis-server` program can be run: tests that need a Redis server with settings of
 * their own (a password, no persistence) start one, apart from the shared one `haveRedis` finds.
 */
export function haveRedisServerProgram(): boolean {
  const run = spawnSync('redis-server', ['--version'], { stdio: 'ignore', timeout: 10_000 });
  return (
    (run.error === undefined && run.status === 0) ||
    unavailable('the redis-server program', 'it cannot be run here (apt-get install -y redis-server)')
  );
}

/** True when Debian's chromium is installed. */
export function haveChromium(): boolean {
  return (
    existsSync(CHROMIUM_PATH) ||
    unavailable('Chromium', `${CHROMIUM_PATH} does not exist (apt-get install -y chromium)`)
  );
}

/** A key prefix unique to one test run, so tests sharing a Redis server never touch each other's keys. */
export function uniquePrefix(label: string): string {
  return `test:${label}:${process.pid}:${Date.now().toString(36)}:${Math.random().toString(36).slice(2, 8)}`;
}

/** Deletes every Redis key under `prefix` (and nothing else: the server is shared). */
export async function cleanRedisPrefix(prefix: string): Promise<void> {
  const client = createClient({ url: REDIS_URL });
  await client.connect();
  for await (const keys of client.scanIterator({ MATCH: `${prefix}:*`, COUNT: 500 })) {
    if (keys.length > 0) await client.del(keys);
  }
  await client.close();
}

/**
 * The two storage backends a test runs on: a SQLite file in a directory of its own and, when Redis
 * answers, Redis under a prefix of its own. `cleanups` gets what removes them afterwards.
 */
export function storageBackends(
  label: string,
  redisReady: boolean,
  cleanups: (() => Promise<unknown>)[],
): { name: string; available: boolean; options: () => Promise<StorageOptions> }[] {
  return [
    {
      name: 'SQLite',
      available: true,
      options: async () => {
        const dataDir = await mkdtemp(path.join(tmpdir(), `bot-${label}-`));
        cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
        return { dataDir };
      },
    },
    {
      name: 'Redis',
      available: redisReady,
      options: () => {
        const redisPrefix = uniquePrefix(label);
        cleanups.push(() => cleanRedisPrefix(redisPrefix));
        return Promise.resolve({ dataDir: 'unused', redisUrl: REDIS_URL, redisPrefix });
      },
    },
  ];
}

/** A TCP pass-through to the test Redis that can be cut (connections dropped and refused) and restored. */
export async function redisLink() {
  const { hostname, port } = new URL(REDIS_URL);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(port || 6379), hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => socket.destroy());
      socket.on('close', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  const listen = (at: number) => new Promise<void>((resolve) => server.listen(at, '127.0.0.1', resolve));
  await listen(0);
  const at = (server.address() as net.AddressInfo).port;
  return {
    url: `redis://127.0.0.1:${at}`,
    cut: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
    },
    restore: () => listen(at),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
