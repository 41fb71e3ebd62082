/**
 * Finds the optional local services the tests need (Redis, Chromium). On a developer machine a
 * missing one skips its tests with a printed reason; under CI (`CI=true`) it fails instead, so a
 * green CI run never hides a skipped suite.
 */
import { existsSync } from 'node:fs';
import net from 'node:net';
import { createClient } from '@keyv/redis';

export const REDIS_URL = process.env['REDIS_TEST_URL'] ?? 'redis://127.0.0.1:6379';
export const CHROMIUM_PATH = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const inCi = process.env['CI'] === 'true' || process.env['CI'] === '1';

function canConnect(url: string): Promise<boolean> {
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
