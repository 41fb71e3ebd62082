/**
 * Interaction throughput of the bot as 1 and as 2 shard processes on this machine: real bot
 * processes (src/index.ts under tsx), both on Redis storage, each against its own Discord emulator
 * with 200 guilds. One process runs `SHARD_COUNT=1`; the other setup runs two processes with
 * `SHARD_COUNT=2` and `SHARD_IDS=0` / `1` (`WEB=off`, as in test/e2e/shards.test.ts), half the guilds
 * on each shard. A round sends 5,000 `/help` (no upstream, no storage access) spread over every
 * guild, 100 in flight, and measures interactions answered per second (sent → first callback, all
 * answered) and ack latency. Rounds alternate between the setups so a change in the machine's
 * load hits both; the table gives the median round's throughput and the latency of every round.
 *
 * What limits it: the machine has 2 cores, and the emulator (gateway, REST, the driver sending
 * the interactions) runs in this bench process on the same cores as the bot processes. A second
 * shard process adds a second event loop for the bot's own work (decoding dispatches, routing,
 * rendering, the callback request), but only as far as the cores are not already busy with the
 * emulator and the other process; the CPU rows show where the time went. The machine may be
 * shared with other work while this runs, so the figures are noisy: the load average before the
 * run is printed with them. Across hosts each shard process has cores of its own, which this
 * bench cannot show.
 *
 *   npx tsx bench/shards.ts
 */
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { startDiscordEmulator, type DiscordEmulator } from '../emulators/discord/index.js';
import { registerCommands } from '../src/bot/register.js';
import { commands } from '../src/commands/index.js';
import { startBotProcess, type BotProcess } from '../test/helpers/bot-process.js';
import { cleanRedisPrefix, haveRedis, REDIS_URL, uniquePrefix } from '../test/helpers/services.js';
import { invokedDirectly, percentile, printTable, saveResults, type BenchRow } from './lib.js';

const TOKEN = 'bench-shards-token';
const GUILDS = Number(process.env['SHARDS_GUILDS'] ?? 200);
const INTERACTIONS = Number(process.env['SHARDS_INTERACTIONS'] ?? 5_000);
const IN_FLIGHT = Number(process.env['SHARDS_IN_FLIGHT'] ?? 100);
const ROUNDS = Number(process.env['SHARDS_ROUNDS'] ?? 3);
const WARM_UP = 500;
const READY_TIMEOUT_MS = 90_000;
/** Linux's USER_HZ, the unit of utime and stime in /proc/<pid>/stat. */
const CLOCK_TICKS_PER_S = 100;

interface Setup {
  label: string;
  discord: DiscordEmulator;
  procs: BotProcess[];
  guilds: { id: string; channelId: string }[];
  userId: string;
}

interface Round {
  perSecond: number;
  ackMs: number[];
  failed: number;
  /** CPU time over wall time during the round, in cores: this bench process (the emulator) and the bot processes. */
  emulatorCores: number;
  botCores: number;
}

/** CPU seconds a process has used so far (user + system), from /proc; NaN where that is unreadable. */
function cpuSeconds(pid: number | undefined): number {
  try {
    // The command name (field 2) may hold spaces; utime and stime are fields 14 and 15.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_S;
  } catch {
    return NaN;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function startSetup(
  processes: 1 | 2,
  prefix: string,
  track: { emulators: DiscordEmulator[]; procs: BotProcess[] },
): Promise<Setup> {
  const discord = await startDiscordEmulator({ botToken: TOKEN, shardCount: processes });
  track.emulators.push(discord);
  const userId = discord.createUser({ username: 'load' }).id;
  const guilds: Setup['guilds'] = [];
  for (let g = 0; g < GUILDS; g++) {
    // Ids alternate between the two shards of a 2-shard split in both setups.
    const guild = discord.createGuild({ name: `g${g}`, ownerId: userId, shard: [g % 2, 2] });
    guilds.push({ id: guild.id, channelId: discord.createChannel(guild.id, { name: 'general' }).id });
  }
  await registerCommands({
    token: TOKEN,
    applicationId: discord.applicationId,
    apiUrl: discord.restUrl,
    commands,
  });
  const env = {
    DISCORD_TOKEN: TOKEN,
    DISCORD_APPLICATION_ID: discord.applicationId,
    DISCORD_API_URL: discord.restUrl,
    REDIS_URL,
    REDIS_PREFIX: prefix,
    SHARD_COUNT: String(processes),
    WEB: 'off',
    HTTP_PORT: '0',
    LOG_LEVEL: 'info',
  };
  const procs = Array.from({ length: processes }, (_, id) =>
    startBotProcess(processes === 1 ? env : { ...env, SHARD_IDS: String(id) }),
  );
  track.procs.push(...procs);
  const label = processes === 1 ? '1 shard process' : `${processes} shard processes`;
  await withTimeout(Promise.all(procs.map((proc) => proc.ready)), READY_TIMEOUT_MS, `${label}: ready`);
  const sessions = discord.connectedShards().length;
  if (sessions !== processes)
    throw new Error(`${label}: ${sessions} gateway sessions, expected ${processes}`);
  return { label, discord, procs, guilds, userId };
}

/** Sends `count` /help over every guild, `IN_FLIGHT` at a time, and waits for each first callback. */
async function drive(s: Setup, count: number): Promise<Round> {
  let sent = 0;
  let failed = 0;
  const ackMs: number[] = [];
  const botCpu = () => s.procs.reduce((sum, proc) => sum + cpuSeconds(proc.child.pid), 0);
  const botBefore = botCpu();
  const ownBefore = process.cpuUsage();
  const started = performance.now();
  const worker = async () => {
    while (sent < count) {
      const guild = s.guilds[sent++ % s.guilds.length]!;
      try {
        const handle = s.discord.slash({
          guildId: guild.id,
          channelId: guild.channelId,
          userId: s.userId,
          name: 'help',
        });
        ackMs.push((await handle.waitForCallback(10_000)).afterMs);
      } catch (error) {
        if (++failed <= 3) console.error(`shards bench, ${s.label}: ${(error as Error).message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const wallS = (performance.now() - started) / 1_000;
  const own = process.cpuUsage(ownBefore);
  return {
    perSecond: ackMs.length / wallS,
    ackMs,
    failed,
    emulatorCores: (own.user + own.system) / 1e6 / wallS,
    botCores: (botCpu() - botBefore) / wallS,
  };
}

function median(values: readonly number[]): number {
  return percentile(values, 50);
}

export async function main(): Promise<BenchRow[]> {
  if (!(await haveRedis())) return [];
  const load = loadavg()[0]!;
  const track = { emulators: [] as DiscordEmulator[], procs: [] as BotProcess[] };
  const prefixes = [uniquePrefix('bench-shards-1'), uniquePrefix('bench-shards-2')];
  let cleaned: Promise<void> | undefined;
  const cleanup = () =>
    (cleaned ??= (async () => {
      await Promise.allSettled(track.procs.map((proc) => proc.kill('SIGKILL')));
      await Promise.allSettled(track.emulators.map((discord) => discord.close()));
      for (const prefix of prefixes) {
        await cleanRedisPrefix(prefix).catch((error: unknown) =>
          console.error(`shards bench: cleaning ${prefix}: ${(error as Error).message}`),
        );
      }
    })());
  // Interrupted: stop the bot processes and clean Redis before exiting; on any other exit, at least
  // leave no bot process behind.
  const onSignal = () => void cleanup().finally(() => process.exit(130));
  const onExit = () => track.procs.forEach((proc) => proc.child.kill('SIGKILL'));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.once('exit', onExit);

  const rows: BenchRow[] = [];
  try {
    const one = await startSetup(1, prefixes[0]!, track);
    const two = await startSetup(2, prefixes[1]!, track);
    const setups = [one, two];
    for (const s of setups) await drive(s, WARM_UP);
    const rounds = new Map<Setup, Round[]>(setups.map((s) => [s, []]));
    for (let r = 0; r < ROUNDS; r++) {
      for (const s of setups) rounds.get(s)!.push(await drive(s, INTERACTIONS));
    }

    const summary = setups.map((s) => {
      const all = rounds.get(s)!;
      return {
        s,
        perSecond: median(all.map((round) => round.perSecond)),
        ackMs: all.flatMap((round) => round.ackMs),
        failed: all.reduce((sum, round) => sum + round.failed, 0),
        emulatorCores: median(all.map((round) => round.emulatorCores)),
        botCores: median(all.map((round) => round.botCores)),
      };
    });
    const [a, b] = [summary[0]!, summary[1]!];
    const workload = `${INTERACTIONS} × /help, ${IN_FLIGHT} in flight, ${GUILDS} guilds`;
    rows.push({
      name: `1 shard process: interactions/s (median of ${ROUNDS} rounds of ${workload})`,
      value: a.perSecond,
      unit: '/s',
    });
    rows.push({
      name: '2 shard processes: interactions/s',
      value: b.perSecond,
      unit: '/s',
      floor: a.perSecond,
    });
    rows.push({
      name: '2 / 1 shard processes: throughput ratio',
      value: b.perSecond / a.perSecond,
      unit: 'x',
    });
    for (const { s, ackMs, failed, emulatorCores, botCores } of summary) {
      rows.push({ name: `${s.label}: ack p50`, value: percentile(ackMs, 50), unit: 'ms' });
      rows.push({ name: `${s.label}: ack p99`, value: percentile(ackMs, 99), unit: 'ms' });
      rows.push({ name: `${s.label}: unanswered`, value: failed, unit: `of ${ROUNDS * INTERACTIONS}` });
      rows.push({ name: `${s.label}: CPU of the bot processes`, value: botCores, unit: 'cores' });
      rows.push({ name: `${s.label}: CPU of this process (emulator)`, value: emulatorCores, unit: 'cores' });
    }
  } finally {
    await cleanup();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('exit', onExit);
  }
  rows.push({
    name: `load average (1 min) before the run, on ${availableParallelism()} cores`,
    value: load,
    unit: '',
  });
  printTable('Interaction throughput: 1 vs 2 shard processes on Redis, same machine, same run', rows);
  await saveResults('shards', rows);
  return rows;
}

if (invokedDirectly(import.meta.url)) {
  await main();
  process.exit(0);
}
