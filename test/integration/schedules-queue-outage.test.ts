/**
 * `SCHEDULER=queue` while Redis is out of reach: the owner's log says so once a minute per part of
 * the queue (the repeats at debug), not several lines a second, and the bot still stops promptly.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createQueueScheduler } from '../../src/services/schedules/queue.js';
import { ScheduleStore } from '../../src/services/schedules/store.js';
import { createStorage } from '../../src/storage/index.js';
import { cleanRedisPrefix, haveRedis, redisLink, uniquePrefix } from '../helpers/services.js';

const redisReady = await haveRedis();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.runIf(redisReady)('scheduled posts on BullMQ while Redis is out of reach', () => {
  it('logs the outage once per part of the queue, and stops within a few seconds', async () => {
    const link = await redisLink();
    const prefix = uniquePrefix('queue-outage');
    cleanups.push(() => cleanRedisPrefix(prefix));
    const storage = await createStorage({ dataDir: 'unused', redisUrl: link.url, redisPrefix: prefix });
    cleanups.push(() => storage.close());
    const lines: { level: string; message: string }[] = [];
    const log = (level: string) => (_fields: unknown, message?: string) =>
      void lines.push({ level, message: message ?? '' });
    const scheduler = createQueueScheduler({
      store: new ScheduleStore(storage, 100),
      storage,
      logger: { info: log('info'), warn: log('warn'), error: log('error'), debug: log('debug') },
      graceMs: 30 * 60_000,
      redisUrl: link.url,
      prefix,
      fetch: () => Promise.resolve({ temp: 1 }),
      post: () => Promise.resolve(),
    });
    await scheduler.start();
    await link.cut();
    // The queue's clients retry their connection many times a second meanwhile.
    await delay(3_000);
    const errors = lines.filter((line) => line.level === 'error').map((line) => line.message);
    expect(errors.length).toBeGreaterThan(0);
    expect(new Set(errors).size).toBe(errors.length);
    expect(lines.filter((line) => line.level === 'debug').length).toBeGreaterThan(0);

    const stopped = await Promise.race([
      scheduler.stop().then(() => 'stopped'),
      delay(5_000, 'still stopping'),
    ]);
    expect(stopped).toBe('stopped');
  }, 20_000);
});
