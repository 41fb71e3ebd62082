/**
 * One scheduled slot: 2,000 posts over 100 distinct places, the whole bot in-process (the real
 * runner and poster) against the Discord and weather emulators. Weather calls, Discord requests,
 * 429s received, and the wall time against the floor of 2,000 posts at Discord's 50 per second.
 *
 *   npx tsx bench/schedule-slot.ts
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { startDiscordEmulator } from '../emulators/discord/index.js';
import { startWeatherEmulator } from '../emulators/weather/index.js';
import { loadConfig } from '../src/config.js';
import { startApp } from '../src/index.js';
import { ScheduleStore } from '../src/services/schedules/store.js';
import { createStorage } from '../src/storage/index.js';
import { invokedDirectly, printTable, saveResults, type BenchRow } from './lib.js';
import { dailyPost, weatherEnv } from '../test/helpers/fixtures-env.js';

const TOKEN = 'bench-slot-token';
const KEY = 'bench-slot-key';
const POSTS = Number(process.env['SLOT_POSTS'] ?? 2_000);
const PLACES = 100;
const GUILDS = Math.ceil(POSTS / 1_000);

export async function main(): Promise<BenchRow[]> {
  const discord = await startDiscordEmulator({ botToken: TOKEN });
  const weather = await startWeatherEmulator({ apiKeys: [KEY] });
  const dataDir = await mkdtemp(path.join(tmpdir(), 'bench-slot-'));
  const channels: { guildId: string; channelId: string }[] = [];
  for (let g = 0; g < GUILDS; g++) {
    const guild = discord.createGuild({ name: `g${g}` });
    for (let c = 0; c < 100 / GUILDS; c++) {
      channels.push({ guildId: guild.id, channelId: discord.createChannel(guild.id, { name: `c${c}` }).id });
    }
  }
  const now = new Date();
  const time = `${String(now.getUTCHours()).padStart(2, '0')}:${String(now.getUTCMinutes()).padStart(2, '0')}`;
  const storage = await createStorage({ dataDir });
  const store = new ScheduleStore(storage, 1_000);
  for (let i = 0; i < POSTS; i++) {
    const where = channels[i % channels.length]!;
    const p = i % PLACES;
    await store.add(
      dailyPost({
        guildId: where.guildId,
        channelId: where.channelId,
        place: { lat: -60 + p * 1.2, lon: -170 + p * 3.3, label: `Place ${p}, XX` },
        time: time,
      }),
    );
  }
  await storage.close();
  const config = loadConfig({
    DISCORD_TOKEN: TOKEN,
    DISCORD_APPLICATION_ID: discord.applicationId,
    DISCORD_API_URL: discord.restUrl,
    ...weatherEnv(weather, KEY),
    HTTP_PORT: '0',
    SCHEDULES_PER_GUILD: '1000',
    DATA_DIR: dataDir,
  });
  const posts = () => channels.reduce((n, c) => n + discord.messages(c.channelId).length, 0);
  const started = performance.now();
  const app = await startApp(config, { logger: pino({ level: 'silent' }) });
  let firstAt: number | undefined;
  while (posts() < POSTS && performance.now() - started < 300_000) {
    if (firstAt === undefined && posts() > 0) firstAt = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const endAt = performance.now();
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const floorMs = (POSTS / 50) * 1000;
  const wallMs = endAt - (firstAt ?? started);
  const weatherCalls = weather.requestCount();
  const rows: BenchRow[] = [
    {
      name: `slot of ${POSTS} posts: posts made`,
      value: posts(),
      unit: 'posts',
      target: `= ${POSTS}`,
      ok: posts() === POSTS,
    },
    {
      name: 'slot: weather calls',
      value: weatherCalls,
      unit: 'calls',
      floor: PLACES,
      target: `= ${PLACES} distinct places`,
      ok: weatherCalls === PLACES,
    },
    { name: 'slot: Discord requests (all)', value: discord.requestCount(), unit: 'req' },
    {
      name: 'slot: Discord message posts',
      value: discord.requestCount({ method: 'POST', route: /\/channels\/[^/]+\/messages$/ }),
      unit: 'req',
    },
    {
      name: 'slot: 429s received',
      value: discord.requestCount({ status: 429 }),
      unit: '429s',
      target: '0',
      ok: discord.requestCount({ status: 429 }) === 0,
    },
    {
      name: 'slot: wall time, first post to last',
      value: wallMs,
      unit: 'ms',
      floor: floorMs,
      target: '≤ 1.1x floor',
      ok: wallMs <= 1.1 * floorMs,
    },
    { name: 'slot: start of app to first post', value: (firstAt ?? endAt) - started, unit: 'ms' },
    {
      name: 'slot: posts per second',
      value: (POSTS / wallMs) * 1000,
      unit: '/s',
      floor: 50,
      target: '≈ 50/s minus margin',
    },
  ];
  await app.stop();
  await discord.close();
  await weather.close();
  await rm(dataDir, { recursive: true, force: true });
  printTable('one scheduled slot', rows);
  await saveResults('schedule-slot', rows);
  return rows;
}

if (invokedDirectly(import.meta.url)) {
  await main();
  process.exit(0);
}
