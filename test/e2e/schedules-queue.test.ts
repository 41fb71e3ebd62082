/**
 * `SCHEDULER=queue` with real bot processes: two processes on one Redis, schedules due at the next
 * minute, BullMQ firing the ticks (no clock moved). Every schedule is posted exactly once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startDiscordEmulator } from '../../emulators/discord/index.js';
import { startWeatherEmulator } from '../../emulators/weather/index.js';
import { ScheduleStore } from '../../src/services/schedules/store.js';
import { latestRun, nonceFor, slotKey } from '../../src/services/schedules/timing.js';
import type { Schedule } from '../../src/services/schedules/types.js';
import { createStorage } from '../../src/storage/index.js';
import { startBotProcess, type BotProcess } from '../helpers/bot-process.js';
import { cleanRedisPrefix, haveRedis, REDIS_URL, uniquePrefix } from '../helpers/services.js';
import { dailyPost, weatherEnv } from '../helpers/fixtures-env.js';

const redisReady = await haveRedis();
const TOKEN = 'queue-test-bot-token';
const KEY = 'queue-test-weather-key';
const running: BotProcess[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((bot) => bot.kill('SIGKILL')));
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const PLACES = [
  { lat: 52.52, lon: 13.405, label: 'Berlin, DE' },
  { lat: 51.507, lon: -0.128, label: 'London, GB' },
  { lat: 35.68, lon: 139.69, label: 'Tokyo, JP' },
];

/** `HH:MM` in UTC of the next whole minute. */
function nextMinuteUtc(): string {
  const at = new Date(Date.now() + 60_000);
  return `${String(at.getUTCHours()).padStart(2, '0')}:${String(at.getUTCMinutes()).padStart(2, '0')}`;
}

describe.runIf(redisReady)('scheduled posts on BullMQ with real bot processes', () => {
  it('posts every schedule exactly once with two processes sharing the queue', async () => {
    const discord = await startDiscordEmulator({ botToken: TOKEN });
    const weather = await startWeatherEmulator({ apiKeys: [KEY] });
    const prefix = uniquePrefix('queue-e2e');
    cleanups.push(
      () => discord.close(),
      () => weather.close(),
      () => cleanRedisPrefix(prefix),
    );
    const guild = discord.createGuild({ name: 'Queue' });
    const channels = Array.from(
      { length: 10 },
      (_, i) => discord.createChannel(guild.id, { name: `c${i}` }).id,
    );

    const storage = await createStorage({ dataDir: 'unused', redisUrl: REDIS_URL, redisPrefix: prefix });
    const store = new ScheduleStore(storage, 1000);
    const time = nextMinuteUtc();
    const schedules: Schedule[] = [];
    for (let i = 0; i < 30; i++) {
      schedules.push(
        await store.add(
          dailyPost({
            guildId: guild.id,
            channelId: channels[i % channels.length]!,
            place: PLACES[i % PLACES.length]!,
            time: time,
          }),
        ),
      );
    }
    await storage.close();

    const env = {
      DISCORD_TOKEN: TOKEN,
      DISCORD_APPLICATION_ID: discord.applicationId,
      DISCORD_API_URL: discord.restUrl,
      ...weatherEnv(weather, KEY),
      HTTP_PORT: '0',
      SCHEDULES_PER_GUILD: '1000',
      REDIS_URL,
      REDIS_PREFIX: prefix,
      SCHEDULER: 'queue',
      // Each post made is a debug line: counted below to see both processes' workers at work.
      LOG_LEVEL: 'debug',
    };
    const bots = [startBotProcess(env), startBotProcess(env)];
    running.push(...bots);
    await Promise.all(bots.map((bot) => bot.ready));

    const posts = () =>
      channels.flatMap((channel) => discord.messages(channel).map((m) => `${channel}|${String(m.nonce)}`));
    await expect.poll(() => posts().length, { timeout: 90_000, interval: 250 }).toBeGreaterThanOrEqual(30);
    await new Promise((resolve) => setTimeout(resolve, 2_000));

    const now = new Date();
    const expected = schedules
      .map((s) => `${s.channelId}|${nonceFor(s.id, slotKey(s, latestRun(s, now)!))}`)
      .sort();
    expect(posts().sort()).toEqual(expected);
    // One weather call per distinct place in the slot, though the posts were spread over two processes.
    expect(weather.requestCount({ path: '/data/2.5/weather' })).toBe(PLACES.length);
    // Both processes' workers took jobs: the ticks are shared, not run by one process alone.
    const made = bots.map((bot) => bot.logs().split('scheduled post made').length - 1);
    expect(made.reduce((a, b) => a + b, 0)).toBe(30);
    expect(Math.min(...made)).toBeGreaterThan(0);
  }, 120_000);
});
