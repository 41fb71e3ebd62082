/**
 * Scheduled posts with real bot processes: a crash (SIGKILL) in the middle of a slot, and two
 * processes sharing Redis. Posts are due "now" (within the grace window), so no clock is moved.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startDiscordEmulator, type DiscordEmulator } from '../../emulators/discord/index.js';
import { startWeatherEmulator, type WeatherEmulator } from '../../emulators/weather/index.js';
import { ScheduleStore } from '../../src/services/schedules/store.js';
import { latestRun, nonceFor, slotKey } from '../../src/services/schedules/timing.js';
import type { Schedule } from '../../src/services/schedules/types.js';
import { createStorage, type StorageOptions } from '../../src/storage/index.js';
import { startBotProcess, type BotProcess } from '../helpers/bot-process.js';
import { cleanRedisPrefix, haveRedis, REDIS_URL, uniquePrefix } from '../helpers/services.js';
import { dailyPost, weatherEnv } from '../helpers/fixtures-env.js';

const redisReady = await haveRedis();
const TOKEN = 'process-test-bot-token';
const KEY = 'process-test-weather-key';
const running: BotProcess[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((bot) => bot.kill('SIGKILL')));
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

interface World {
  discord: DiscordEmulator;
  weather: WeatherEmulator;
  guildId: string;
  channels: string[];
  env: Record<string, string>;
}

async function world(channelCount: number): Promise<World> {
  const discord = await startDiscordEmulator({ botToken: TOKEN });
  const weather = await startWeatherEmulator({ apiKeys: [KEY] });
  cleanups.push(
    () => discord.close(),
    () => weather.close(),
  );
  const guild = discord.createGuild({ name: 'Schedules' });
  const channels = Array.from(
    { length: channelCount },
    (_, i) => discord.createChannel(guild.id, { name: `c${i}` }).id,
  );
  return {
    discord,
    weather,
    guildId: guild.id,
    channels,
    env: {
      DISCORD_TOKEN: TOKEN,
      DISCORD_APPLICATION_ID: discord.applicationId,
      DISCORD_API_URL: discord.restUrl,
      ...weatherEnv(weather, KEY),
      HTTP_PORT: '0',
      SCHEDULES_PER_GUILD: '1000',
    },
  };
}

const PLACES = [
  { lat: 52.52, lon: 13.405, label: 'Berlin, DE' },
  { lat: 48.137, lon: 11.575, label: 'München, DE' },
  { lat: 51.507, lon: -0.128, label: 'London, GB' },
  { lat: 40.713, lon: -74.006, label: 'New York, US' },
  { lat: 35.68, lon: 139.69, label: 'Tokyo, JP' },
];

/** `HH:MM` in UTC, `minutesAgo` before now. */
function utcTime(minutesAgo: number): string {
  const at = new Date(Date.now() - minutesAgo * 60_000);
  return `${String(at.getUTCHours()).padStart(2, '0')}:${String(at.getUTCMinutes()).padStart(2, '0')}`;
}

async function seed(options: StorageOptions, w: World, count: number, times: string[]): Promise<Schedule[]> {
  const storage = await createStorage(options);
  const store = new ScheduleStore(storage, 1000);
  const created: Schedule[] = [];
  for (let i = 0; i < count; i++) {
    created.push(
      await store.add(
        dailyPost({
          guildId: w.guildId,
          channelId: w.channels[i % w.channels.length]!,
          place: PLACES[i % PLACES.length]!,
          time: times[i % times.length]!,
        }),
      ),
    );
  }
  await storage.close();
  return created;
}

/** Scheduled posts the emulator holds, as `channel|nonce` strings, one per message. */
function posts(w: World): string[] {
  return w.channels.flatMap((channel) =>
    w.discord.messages(channel).map((message) => `${channel}|${String(message.nonce)}`),
  );
}

/** What the posts must be: one per schedule, for the slot that is due now. */
function expected(schedules: readonly Schedule[]): string[] {
  const now = new Date();
  return schedules.map((s) => `${s.channelId}|${nonceFor(s.id, slotKey(s, latestRun(s, now)!))}`).sort();
}

describe('scheduled posts with real bot processes', () => {
  it('makes every post exactly once when the bot is killed mid-slot and restarted', async () => {
    const w = await world(40);
    const dataDir = await mkdtemp(path.join(tmpdir(), 'bot-crash-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const schedules = await seed({ dataDir }, w, 200, [utcTime(0)]);

    const first = startBotProcess({ ...w.env, DATA_DIR: dataDir });
    running.push(first);
    await first.ready;
    await expect.poll(() => posts(w).length, { timeout: 20_000, interval: 20 }).toBeGreaterThanOrEqual(30);
    await first.kill('SIGKILL');
    const atKill = posts(w).length;
    expect(atKill).toBeLessThan(200);

    const second = startBotProcess({ ...w.env, DATA_DIR: dataDir });
    running.push(second);
    await second.ready;
    await expect.poll(() => posts(w).length, { timeout: 60_000, interval: 200 }).toBeGreaterThanOrEqual(200);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    // Each schedule's post, exactly once: no post lost, none doubled.
    expect(posts(w).sort()).toEqual(expected(schedules));
  }, 120_000);

  it.runIf(redisReady)(
    'posts every slot exactly once with two processes on one Redis',
    async () => {
      const w = await world(25);
      const prefix = uniquePrefix('sched');
      cleanups.push(async () => {
        await cleanRedisPrefix(prefix);
      });
      // 100 schedules over three slots: two, one and zero minutes ago.
      const schedules = await seed({ dataDir: 'unused', redisUrl: REDIS_URL, redisPrefix: prefix }, w, 100, [
        utcTime(2),
        utcTime(1),
        utcTime(0),
      ]);
      const env = { ...w.env, REDIS_URL, REDIS_PREFIX: prefix };
      const bots = [startBotProcess(env), startBotProcess(env)];
      running.push(...bots);
      await Promise.all(bots.map((bot) => bot.ready));
      await expect
        .poll(() => posts(w).length, { timeout: 30_000, interval: 100 })
        .toBeGreaterThanOrEqual(100);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(posts(w).sort()).toEqual(expected(schedules));
    },
    90_000,
  );
});
