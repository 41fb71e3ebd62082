/**
 * Memory of the bot as a server owner runs it, `npm start`: the compiled JavaScript under dist/
 * (built first) with the start script's Node flags, as a child process; RSS and heap read from its
 * /metrics. After ready with 1,000 guilds and 10,000 schedules, after 300 interactions (the first
 * use of each command), then after 10,000 interactions more, 20 in flight: every other one `/help`
 * (an immediate reply), the others `/weather now` (deferred, then an edit with an embed), spread
 * over the guilds' channels. Whether anything kept per
 * interaction grows without bound under steady load shows in what stays once the load is over (the
 * deferred replies are there for discord.js's message cache, which kept up to 200 edited replies
 * per channel until the bot turned it off), and in what 10,000 more add to it.
 *
 * Twice when the system has jemalloc (Debian's libjemalloc2): as `npm start` runs the bot, with
 * glibc's allocator, and with jemalloc preloaded (`LD_PRELOAD`, as the README's systemd unit can
 * run it), each bot from a copy of the same stored state. On 30 November, with glibc, RSS after the
 * load stayed about 30 MB above its figure after ready while the heap was back to within 2 MB of
 * it, and a `malloc_trim(0)` called into the bot from gdb then took RSS from 152 to 111 MB: what
 * stays is memory the bot freed and glibc's allocator keeps. jemalloc hands it back: 117-118 MB
 * in two readings of three after a load, below its figure after ready (bench/README.md).
 *
 * Once more with Redis as the storage (`REDIS_URL`, under a key prefix of its own, removed after)
 * when a Redis answers at `REDIS_TEST_URL` (127.0.0.1:6379 by default), as a bot scaled out runs,
 * with glibc's allocator and the local scheduler: the Redis client is loaded only then, and the
 * schedules are read over the network rather than from a file. Left out, with a line saying so,
 * when no Redis answers.
 *
 * Each figure is the bot at rest: the median of one reading a second from 20 to 50 s after ready, or
 * after the load. V8 leaves the garbage of a burst (the start: 1,000 guilds arriving; the load) in
 * the heap until its memory reducer runs, some 8 to 15 s after the burst's last full collection,
 * and a reading taken before that says how far the heap had grown, not what the bot keeps. Those
 * are reported too, as figures without a target: the first reading after ready, the highest reading
 * at rest (the schedule runner's once-a-minute pass over every schedule), and the highest reading
 * under load.
 *
 * The start script's `--heap-growing-percent=20` lets V8 grow the heap by a fifth of what survives a
 * full collection before the next one, rather than by up to four times, and
 * `--max-semi-space-size=2` keeps the young generation at an eighth of its default size. Without
 * these two (tried on 24 November) the interaction benchmark came out about the same (deferred
 * completion at 100 in flight 2.48x its floor, against 2.53x with them), and the figures at rest
 * still met their targets (122 MB after ready, 139 MB after the load: 17 MB more, against 6 MB with
 * them), while RSS reached 230 to 240 MB under this load, against about 160 MB with them. The young
 * generation was 8 MB a semi-space until 30 November; at 2 MB V8 collects it four times as often,
 * and with it the buffers whose native memory it holds, so fewer are alive at once and glibc's
 * allocator is left with less freed memory to keep: after 10,000 interactions RSS stayed 16 to 17 MB
 * above the figure after ready in three runs, against 29 to 36 MB with 8, at about a quarter more CPU
 * on a burst of deferred commands (bench/README.md has the runs, and those with 4).
 * `--v8-pool-size=1` (from 30 November) gives V8 one helper thread instead of Node's four: each
 * helper that allocates gets a malloc arena of its own from glibc, which keeps what it freed, and
 * under this load the four kept 47 MB above the figure after the first 300 interactions in the run
 * before the change.
 *
 *   npx tsx bench/memory.ts
 */
import { execFileSync } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startDiscordEmulator } from '../emulators/discord/index.js';
import { startWeatherEmulator } from '../emulators/weather/index.js';
import { freePort } from '../emulators/net.js';
import { registerCommands } from '../src/bot/register.js';
import { commands } from '../src/commands/index.js';
import { ScheduleStore } from '../src/services/schedules/store.js';
import { createStorage, type Storage } from '../src/storage/index.js';
import { startBotProcess } from '../test/helpers/bot-process.js';
import { canConnect, cleanRedisPrefix, REDIS_URL } from '../test/helpers/services.js';
import { invokedDirectly, percentile, printTable, saveResults, type BenchRow } from './lib.js';

const TOKEN = 'bench-memory-token';
const KEY = 'bench-memory-key';
const GUILDS = Number(process.env['MEMORY_GUILDS'] ?? 1_000);
const SCHEDULES = Number(process.env['MEMORY_SCHEDULES'] ?? 10_000);
const INTERACTIONS = Number(process.env['MEMORY_INTERACTIONS'] ?? 10_000);
/** Interactions before the measured load: the first use of each command (see `load`). */
const WARMUP = Number(process.env['MEMORY_WARMUP'] ?? 300);
/** A place as the autocomplete hands it over: no geocoding call for it. */
const BERLIN = 'geo:52.517,13.3889|Berlin, Berlin, DE';
const MB = 1024 * 1024;

async function memory(port: number): Promise<{ rss: number; heap: number }> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const read = (name: string) =>
    Number(
      new RegExp(`^${name}(?:\\{[^}]*\\})? (\\d+(?:\\.\\d+)?(?:e\\+\\d+)?)`, 'm').exec(text)?.[1] ?? NaN,
    );
  return { rss: read('process_resident_memory_bytes') / MB, heap: read('nodejs_heap_size_used_bytes') / MB };
}

/** One reading a second until `ms` have passed. */
async function readingsUntil(port: number, ms: number): Promise<{ rss: number; heap: number }[]> {
  const out: { rss: number; heap: number }[] = [];
  for (const end = Date.now() + ms; Date.now() < end;) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    out.push(await memory(port));
  }
  return out;
}

/** The bot at rest (see the top of this file): medians of the readings from 20 to 50 s, and the highest. */
async function atRest(port: number, waitedMs = 0): Promise<{ rss: number; heap: number; highest: number }> {
  await readingsUntil(port, 20_000 - waitedMs);
  const readings = await readingsUntil(port, 30_000);
  return {
    rss: percentile(
      readings.map((r) => r.rss),
      50,
    ),
    heap: percentile(
      readings.map((r) => r.heap),
      50,
    ),
    highest: Math.max(...readings.map((r) => r.rss)),
  };
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
  // Never due during the run: an hour and a half from now.
  const time = new Date(Date.now() + 90 * 60_000).toISOString().slice(11, 16);
  const seed = async (storage: Storage) => {
    const store = new ScheduleStore(storage, 1_000);
    for (let i = 0; i < SCHEDULES; i++) {
      const where = guilds[i % GUILDS]!;
      await store.add({
        guildId: where.id,
        channelId: where.channel,
        place: { lat: -60 + (i % 100) * 1.2, lon: (i % 50) * 3, label: `Place ${i % 100}, XX` },
        time,
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
  };
  await seed(await createStorage({ dataDir }));
  await registerCommands({
    token: TOKEN,
    applicationId: discord.applicationId,
    apiUrl: discord.restUrl,
    commands,
  });
  const rows: BenchRow[] = [];
  const setting = { discord, weather, user: user.id, guilds };
  try {
    for (const allocator of allocators()) {
      // Each bot starts from the same stored state: no weather answer cached by the one before.
      const copy = await mkdtemp(path.join(tmpdir(), 'bench-memory-'));
      await cp(dataDir, copy, { recursive: true });
      try {
        rows.push(...(await measureBot({ ...setting, storage: { dataDir: copy }, allocator })));
      } finally {
        await rm(copy, { recursive: true, force: true });
      }
    }
    if (await canConnect(REDIS_URL)) {
      const redisPrefix = `bench-memory:${process.pid}:${Date.now().toString(36)}`;
      try {
        await seed(await createStorage({ dataDir, redisUrl: REDIS_URL, redisPrefix }));
        rows.push(
          ...(await measureBot({
            ...setting,
            storage: { dataDir, redisUrl: REDIS_URL, redisPrefix },
            allocator: 'glibc',
          })),
        );
      } finally {
        await cleanRedisPrefix(redisPrefix);
      }
    } else {
      console.log(
        `memory bench: nothing answers at ${REDIS_URL} (REDIS_TEST_URL), the Redis rows are left out`,
      );
    }
  } finally {
    await discord.close();
    await weather.close();
    await rm(dataDir, { recursive: true, force: true });
  }
  printTable('memory', rows);
  await saveResults('memory', rows);
  return rows;
}

type Allocator = 'glibc' | 'jemalloc';
const JEMALLOC = 'libjemalloc.so.2';

/** glibc's allocator (as `npm start` runs), and jemalloc when the system has it (see the top). */
function allocators(): Allocator[] {
  let found = false;
  // ldconfig is in /sbin, which a user's PATH may lack; none at all: not Linux, or not glibc.
  for (const ldconfig of ['ldconfig', '/sbin/ldconfig']) {
    try {
      found = execFileSync(ldconfig, ['-p'], { encoding: 'utf8' }).includes(JEMALLOC);
      break;
    } catch {
      continue;
    }
  }
  if (!found)
    console.log(
      `memory bench: ${JEMALLOC} not found (Debian: apt-get install libjemalloc2), its rows are left out`,
    );
  return found ? ['glibc', 'jemalloc'] : ['glibc'];
}

interface Setting {
  discord: Awaited<ReturnType<typeof startDiscordEmulator>>;
  weather: Awaited<ReturnType<typeof startWeatherEmulator>>;
  user: string;
  guilds: readonly { id: string; channel: string }[];
  /** SQLite in `dataDir`; Redis when `redisUrl` is set (the weather cache's files still in `dataDir`). */
  storage: { dataDir: string; redisUrl?: string; redisPrefix?: string };
  allocator: Allocator;
}

/** The bot's figures after ready and after the loads, with one allocator. */
async function measureBot({
  discord,
  weather,
  user,
  guilds,
  storage,
  allocator,
}: Setting): Promise<BenchRow[]> {
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
      DATA_DIR: storage.dataDir,
      ...(storage.redisUrl === undefined
        ? {}
        : { REDIS_URL: storage.redisUrl, REDIS_PREFIX: storage.redisPrefix ?? 'bot' }),
      LOG_LEVEL: 'info',
      // The name alone: the dynamic loader looks for it where it looks for every library.
      ...(allocator === 'jemalloc' ? { LD_PRELOAD: JEMALLOC } : {}),
    },
    { compiled: true },
  );
  const rows: BenchRow[] = [];
  const prefix =
    storage.redisUrl !== undefined ? 'with Redis: ' : allocator === 'jemalloc' ? 'with jemalloc: ' : '';
  const mb = (name: string, value: number, more: Partial<BenchRow> = {}) =>
    void rows.push({ name: prefix + name, value, unit: 'MB', ...more });
  try {
    await bot.ready;
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const first = await memory(port);
    const ready = await atRest(port, 3_000);
    mb(
      `npm start (dist/), after ready, ${guilds.length} guilds, ${SCHEDULES} schedules, at rest: RSS`,
      ready.rss,
      {
        target: '≤ 150 MB',
        ok: ready.rss <= 150,
      },
    );
    mb('after ready, at rest: heap used', ready.heap);
    mb('after ready: RSS 3 s after ready, before V8 reduces the heap', first.rss);
    mb('after ready: highest RSS at rest (the minute pass over the schedules included)', ready.highest);
    /** `count` interactions, 20 in flight: every other one /help, the others a deferred /weather now. */
    const load = async (count: number) => {
      let sent = 0;
      let answered = 0;
      let peak = 0;
      const sampling = setInterval(() => {
        void memory(port).then(
          (m) => (peak = Math.max(peak, m.rss)),
          () => undefined,
        );
      }, 500);
      const worker = async () => {
        while (sent < count) {
          const i = sent++;
          const where = guilds[i % guilds.length]!;
          const deferred = i % 2 === 1;
          const handle = discord.slash({
            guildId: where.id,
            channelId: where.channel,
            userId: user,
            name: deferred ? 'weather' : 'help',
            ...(deferred ? { subcommand: 'now', options: { place: BERLIN } } : {}),
          });
          await (deferred ? handle.waitForEdit(1, 10_000) : handle.waitForCallback(5_000)).then(
            () => answered++,
            (error: unknown) => {
              if (answered === 0 && i < 3) console.error(`memory bench: ${(error as Error).message}`);
            },
          );
        }
      };
      await Promise.all(Array.from({ length: 20 }, worker));
      clearInterval(sampling);
      return { answered, peak };
    };
    // The first commands of each kind load what they use for good (compiled code, the time-zone
    // and locale data of the weather texts): a reading after them says what the bot needs to serve
    // them, apart from what it keeps per interaction.
    const warm = await load(WARMUP);
    const warmed = await atRest(port);
    mb(`after ${WARMUP} interactions (the first of each kind), at rest: RSS`, warmed.rss, {
      floor: ready.rss,
    });
    mb(`after ${WARMUP} interactions, at rest: heap used`, warmed.heap, { floor: ready.heap });
    const { answered, peak: loadPeak } = await load(INTERACTIONS);
    const after = await atRest(port);
    rows.push({
      name: `${prefix}interactions answered (/help, and /weather now deferred)`,
      value: warm.answered + answered,
      unit: 'of ' + (WARMUP + INTERACTIONS),
    });
    mb(`after ${INTERACTIONS} interactions more, at rest: RSS against after ready`, after.rss, {
      floor: ready.rss,
      target: '≤ ready + 20 MB',
      ok: after.rss - ready.rss <= 20,
    });
    mb(`after ${INTERACTIONS} interactions more, at rest: RSS against after the first ${WARMUP}`, after.rss, {
      floor: warmed.rss,
      target: '≤ warmed + 20 MB',
      ok: after.rss - warmed.rss <= 20,
    });
    mb(`after ${INTERACTIONS} interactions more, at rest: heap used`, after.heap, { floor: warmed.heap });
    mb(`highest RSS under load (${INTERACTIONS} interactions, 20 in flight)`, loadPeak);
    mb(`after ${INTERACTIONS} interactions: highest RSS at rest`, after.highest);
    // Whether what it keeps levels off: the same load once more.
    await load(INTERACTIONS);
    const again = await atRest(port);
    mb(
      `after ${INTERACTIONS} interactions more again (${2 * INTERACTIONS}), at rest: RSS against after the first ${INTERACTIONS}`,
      again.rss,
      {
        floor: after.rss,
      },
    );
    mb(`after ${2 * INTERACTIONS} interactions, at rest: heap used`, again.heap, { floor: after.heap });
  } finally {
    await bot.kill('SIGTERM');
  }
  return rows;
}

if (invokedDirectly(import.meta.url)) {
  await main();
  process.exit(0);
}
