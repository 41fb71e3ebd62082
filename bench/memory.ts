/**
 * Memory of the bot as a server owner runs it, `npm start`: the compiled JavaScript under dist/
 * (built first) with the start script's Node flags, as a child process; RSS and heap read from its
 * /metrics. After ready with 1,000 guilds and 10,000 schedules, then after 5,000 and 10,000 `/help`
 * interactions, 20 in flight. The growth from 5,000 to 10,000 says whether anything kept per
 * interaction grows without bound under steady load.
 *
 * The start script's `--heap-growing-percent=20` lets V8 grow the heap by a fifth of what survives a
 * full collection before the next one, rather than by up to four times: without it the heap fills
 * with two to three times the live objects in garbage under load (RSS +150 MB after 10,000
 * interactions, with no more live objects). `--max-semi-space-size=8` keeps the young generation at
 * half its default size: with the default (16 MB a semi-space) RSS after ready was 160 MB; with 4
 * MB the bot spent twice as long collecting under 100 deferred commands at once as with 8 MB.
 *
 *   npx tsx bench/memory.ts
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startDiscordEmulator } from '../emulators/discord/index.js';
import { startWeatherEmulator } from '../emulators/weather/index.js';
import { freePort } from '../emulators/net.js';
import { registerCommands } from '../src/bot/register.js';
import { commands } from '../src/commands/index.js';
import { ScheduleStore } from '../src/services/schedules/store.js';
import { createStorage } from '../src/storage/index.js';
import { startBotProcess } from '../test/helpers/bot-process.js';
import { invokedDirectly, printTable, saveResults, type BenchRow } from './lib.js';

const TOKEN = 'bench-memory-token';
const KEY = 'bench-memory-key';
const GUILDS = Number(process.env['MEMORY_GUILDS'] ?? 1_000);
const SCHEDULES = Number(process.env['MEMORY_SCHEDULES'] ?? 10_000);
const INTERACTIONS = Number(process.env['MEMORY_INTERACTIONS'] ?? 10_000);
const MB = 1024 * 1024;

async function memory(port: number): Promise<{ rss: number; heap: number }> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const read = (name: string) =>
    Number(
      new RegExp(`^${name}(?:\\{[^}]*\\})? (\\d+(?:\\.\\d+)?(?:e\\+\\d+)?)`, 'm').exec(text)?.[1] ?? NaN,
    );
  return { rss: read('process_resident_memory_bytes') / MB, heap: read('nodejs_heap_size_used_bytes') / MB };
}

export async function main(): Promise<BenchRow[]> {
  execFileSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
  const discord = await startDiscordEmulator({ botToken: TOKEN });
  const weather = await startWeatherEmulator({ apiKeys: [KEY] });
  const dataDir = await mkdtemp(path.join(tmpdir(), 'bench-memory-'));
  const user = discord.createUser({ username: 'load' });
  const guilds: { id: string; channel: string }[] = [];
  for (let g = 0; g < GUILDS; g++) {
    const guild = discord.createGuild({ name: `g${g}`, ownerId: user.id });
    guilds.push({ id: guild.id, channel: discord.createChannel(guild.id, { name: 'general' }).id });
  }
  const storage = await createStorage({ dataDir });
  const store = new ScheduleStore(storage, 1_000);
  for (let i = 0; i < SCHEDULES; i++) {
    const where = guilds[i % GUILDS]!;
    await store.add({
      guildId: where.id,
      channelId: where.channel,
      place: { lat: -60 + (i % 100) * 1.2, lon: (i % 50) * 3, label: `Place ${i % 100}, XX` },
      // Never due during the run: an hour and a half from now.
      time: new Date(Date.now() + 90 * 60_000).toISOString().slice(11, 16),
      timezone: 'UTC',
      days: [],
      kind: 'current',
      units: 'metric',
      lang: 'en',
      createdBy: user.id,
      createdAt: Date.now(),
    });
  }
  await storage.close();
  await registerCommands({
    token: TOKEN,
    applicationId: discord.applicationId,
    apiUrl: discord.restUrl,
    commands,
  });
  const port = await freePort();
  const bot = startBotProcess(
    {
      DISCORD_TOKEN: TOKEN,
      DISCORD_APPLICATION_ID: discord.applicationId,
      DISCORD_API_URL: discord.restUrl,
      WEATHER_API_KEY: KEY,
      WEATHER_API_URL: weather.apiUrl,
      WEATHER_PRO_URL: weather.proUrl,
      WEATHER_HISTORY_URL: weather.historyUrl,
      WEATHER_BULK_URL: weather.bulkUrl,
      HTTP_PORT: String(port),
      SCHEDULES_PER_GUILD: '1000',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
    },
    { compiled: true },
  );
  const rows: BenchRow[] = [];
  try {
    await bot.ready;
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const ready = await memory(port);
    rows.push({
      name: `npm start (dist/), after ready, ${GUILDS} guilds, ${SCHEDULES} schedules: RSS`,
      value: ready.rss,
      unit: 'MB',
      target: '≤ 150 MB',
      ok: ready.rss <= 150,
    });
    rows.push({ name: 'after ready: heap used', value: ready.heap, unit: 'MB' });
    let sent = 0;
    let answered = 0;
    const half = Math.floor(INTERACTIONS / 2);
    let middle: { rss: number; heap: number } | undefined;
    const worker = async () => {
      while (sent < INTERACTIONS) {
        const i = sent++;
        const where = guilds[i % GUILDS]!;
        const handle = discord.slash({
          guildId: where.id,
          channelId: where.channel,
          userId: user.id,
          name: 'help',
        });
        await handle.waitForCallback(5_000).then(
          () => answered++,
          (error: unknown) => {
            if (answered === 0 && i < 3) console.error(`memory bench: ${(error as Error).message}`);
          },
        );
        if (i === half) middle = await memory(port);
      }
    };
    await Promise.all(Array.from({ length: 20 }, worker));
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const after = await memory(port);
    rows.push({ name: `/help interactions answered`, value: answered, unit: 'of ' + INTERACTIONS });
    if (middle) rows.push({ name: `after ${half} interactions: RSS`, value: middle.rss, unit: 'MB' });
    rows.push({
      name: `after ${INTERACTIONS} interactions: RSS`,
      value: after.rss,
      unit: 'MB',
      floor: ready.rss,
      target: '≤ ready + 20 MB',
      ok: after.rss - ready.rss <= 20,
    });
    if (middle) rows.push({ name: `after ${half} interactions: heap used`, value: middle.heap, unit: 'MB' });
    rows.push({
      name: `after ${INTERACTIONS} interactions: heap used`,
      value: after.heap,
      unit: 'MB',
      floor: ready.heap,
    });
  } finally {
    await bot.kill('SIGTERM');
    await discord.close();
    await weather.close();
    await rm(dataDir, { recursive: true, force: true });
  }
  printTable('memory', rows);
  await saveResults('memory', rows);
  return rows;
}

if (invokedDirectly(import.meta.url)) {
  await main();
  process.exit(0);
}
