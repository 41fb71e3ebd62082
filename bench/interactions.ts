/**
 * Interaction latency: our bot's client and router against a bare discord.js bot, measured
 * alternately in the same run. Each bot runs in a process of its own, as it does for a server
 * owner, and their Discord emulators (one each) run in the harness: Discord's own work is not done on the
 * bot's CPU, and no bot's garbage collections fall on another's figures. Measures
 * acknowledgement latency (INTERACTION_CREATE sent → first callback received) for an immediate
 * reply, a deferred command, a button update and an autocomplete answer, and deferred completion
 * (sent → the edit of the original message received). The bots answer with trivial handlers, so
 * what differs is the client set-up and the router (`bench/interaction-bots.ts`). All run compiled,
 * with plain Node (this builds them first), and our bot's process gets the Node flags of
 * `npm start`, as a server owner runs it. Times are read with `performance.now()` here, where the
 * emulators run; each percentile is the median of its value in blocks of alternating rounds (see
 * `BLOCKS`). The emulators and the clock run in a harness process of their own, so what ran before
 * in `npm run bench` does not shape its heap; each comparison starts emulators and bots of its own
 * (see `withBots`), so neither do the comparisons before it; and before each round the harness
 * settles (see `settle`): what is measured is the bot's time, not the harness's collections or the
 * other bots' leftovers. Beside the completion figures it reports the CPU that each side (the bot, the emulators)
 * spent on a round of 100 in flight: on this machine the two share two cores, so a round takes
 * about as long as the busier of them. For deferred completion at 100 in flight a third bot runs
 * beside them: the bare bot with its global limit lifted (`uncapped`, see `Bot`), what stock
 * discord.js does on the same deferred commands when its limiter does not hold the edits back.
 *
 *   npx tsx bench/interactions.ts
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { getHeapSpaceStatistics } from 'node:v8';
import type { APIMessage } from 'discord.js';
import { startDiscordEmulator, type DiscordEmulator } from '../emulators/discord/index.js';
import { startScriptFlags } from '../test/helpers/bot-process.js';
import { BENCH_TOKEN, PANEL_BUTTON_ID, type Bot } from './interaction-bots.js';
import {
  forkForMessage,
  invokedDirectly,
  percentile,
  printTable,
  saveResults,
  type BenchRow,
} from './lib.js';

const HARNESS_FLAG = '--bench-harness';
/** The harness collects its own young generation between rounds (`settle`), which needs `gc`. */
const HARNESS_NODE_FLAGS = ['--expose-gc'];
/** The bots, compiled to dist/ by `tsconfig.bench.json` (see `bench/interaction-bots.ts`). */
const BOTS_URL = new URL('../dist/bench/interaction-bots.js', import.meta.url).href;

type Kind = 'immediate reply' | 'deferred command' | 'button update' | 'autocomplete';
const KINDS: readonly Kind[] = ['immediate reply', 'deferred command', 'button update', 'autocomplete'];

interface Setup {
  emu: DiscordEmulator;
  child: ChildProcess;
  guildId: string;
  channelId: string;
  userId: string;
  /** A message with one button, posted by the bot. */
  panel: APIMessage;
}

async function setup(bot: Bot): Promise<Setup> {
  const emu = await startDiscordEmulator({ botToken: BENCH_TOKEN });
  const guild = emu.createGuild({ name: bot });
  const channel = emu.createChannel(guild.id);
  const user = emu.createUser({ username: 'bench' });
  const { child, message: panel } = await forkForMessage<APIMessage>(
    BOTS_URL,
    [bot, emu.restUrl, guild.id, channel.id],
    `the ${bot} bot`,
    bot === 'ours' ? startScriptFlags() : [],
  );
  const setup = { emu, child, guildId: guild.id, channelId: channel.id, userId: user.id, panel };
  running.add(setup);
  return setup;
}

/** The bots of the comparison under way (see `withBots`): `settle` waits for each. */
const running = new Set<Setup>();

/**
 * Resolves once the bot's process has run everything already queued on its event loop, with the
 * milliseconds of CPU it has used so far (all its threads: the collector's too).
 */
async function idle(s: Setup): Promise<number> {
  const settled = once(s.child, 'message') as Promise<[{ cpu: NodeJS.CpuUsage }]>;
  s.child.send('settle');
  const [{ cpu }] = await settled;
  return cpuMs(cpu);
}

const cpuMs = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;

/**
 * CPU per round, of the bot and of this process (the emulators and the clock; the other bots'
 * emulators are idle meanwhile). Each round's share runs from just before it is sent until the bot
 * has nothing left to do from it.
 */
interface CpuLog {
  bot: number[];
  emulators: number[];
}
const emptyCpuLog = (): CpuLog => ({ bot: [], emulators: [] });

async function withCpu<T>(s: Setup, log: CpuLog | undefined, round: () => Promise<T>): Promise<T> {
  if (!log) return round();
  const bot = await idle(s);
  const emulators = cpuMs(process.cpuUsage());
  const out = await round();
  log.bot.push((await idle(s)) - bot);
  log.emulators.push(cpuMs(process.cpuUsage()) - emulators);
  return out;
}

/**
 * Before each round: waits until every bot's event loop has run what the last round left them (a
 * deferred command's edit is answered before the bot has read the answer, and that would run on
 * the machine's two cores beside the next round), then collects this process's young generation if
 * it is more than half full. A collection of the harness's own inside a round is a pause of 3 to 6
 * ms in the emulator, which the figures would charge to whichever bot was being measured; at 1 in
 * flight this keeps nearly all of them out of the rounds. The bots' collections are not steered:
 * they are part of what is measured.
 */
async function settle(): Promise<void> {
  await Promise.all([...running].map(idle));
  const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
  if (young && young.space_used_size > (young.space_used_size + young.space_available_size) / 2)
    globalThis.gc?.({ type: 'minor' });
}

async function teardown(s: Setup): Promise<void> {
  running.delete(s);
  const exited = once(s.child, 'exit');
  s.child.disconnect();
  await exited;
  await s.emu.close();
}

/**
 * Runs one comparison with emulators and bots of its own, started for it and stopped after it,
 * each bot warmed up first on the kinds it is measured on. An emulator keeps what it knows of
 * every interaction it sent (the interaction, its responses, its messages: about 7 KB each, 64 MB
 * for 9,000), and with one set of emulators for the whole run, the deferred rounds at 100 in flight
 * came after some 175,000 interactions, over a gigabyte of the harness's heap, whose collections
 * fell on the rounds. In short runs of those rounds with and without 1.8 GB of other objects in the
 * harness, that alone took deferred completion at 100 in flight from 1.9x-2.8x the bare bot's
 * immediate reply to 2.4x-3.1x, and the emulator's CPU on a round from 2.0x-2.3x to 2.4x-2.7x: the
 * heavier round pays more. Between comparisons the harness collects its whole heap.
 */
async function withBots<B extends Bot, T>(
  bots: readonly B[],
  warmUp: readonly Kind[],
  run: (started: Record<B, Setup>) => Promise<T>,
): Promise<T> {
  const started = {} as Record<B, Setup>;
  try {
    for (const bot of bots) started[bot] = await setup(bot);
    // Every kind measured, at 100 in flight, for each bot, until the JIT has compiled the paths
    // (the first rounds of a path not yet run take two to three times as long).
    for (const kind of warmUp) {
      for (const bot of bots) await ackLatencies(started[bot], 100, WARM_UP_ROUNDS, kind);
    }
    return await run(started);
  } finally {
    await Promise.all(Object.values<Setup>(started).map(teardown));
    globalThis.gc?.();
  }
}

interface Ack {
  /** Milliseconds from the emulator sending the interaction to the bot's first answer to it. */
  ms: number;
  /** Settles once the bot is done with the interaction (a deferred command: its edit). */
  done: Promise<unknown>;
}

const WAIT_MS = 30_000;
/** Rounds of 100 in flight of each kind before anything is measured. */
const WARM_UP_ROUNDS = 5;
/**
 * Each comparison alternates the bots in many short blocks: 60 of 250 samples at 1 in flight,
 * 15 of 4 rounds of 100 at 100 in flight. A tail here is mostly pauses (a collection of 3 to 6 ms
 * in a bot, slow stretches of the shared machine that fall on every bot): at 100 in flight one
 * holds back most of its round, at 1 in flight it costs a sample a few milliseconds against a p50
 * of 0.5. A block's p99 says whether the block caught more pauses than 1% of its samples; with 5
 * long blocks the median landed on either side by chance, and p99 ratios moved 0.8x-2.1x between
 * runs of the same code. The median of many short blocks is the tail of a typical stretch; at 1
 * in flight, 60 blocks rather than 20 halve how far it moves between runs (with the harness's own
 * collections kept out of the rounds, see `settle`, a block's p99 is about 1 ms, and one pause
 * more or less in a block shows).
 */
const BLOCKS = { 1: { blocks: 60, rounds: 250 }, 100: { blocks: 15, rounds: 4 } } as const;

async function ackOnce(s: Setup, kind: Kind): Promise<Ack> {
  const where = { guildId: s.guildId, channelId: s.channelId, userId: s.userId };
  const started = performance.now();
  const since = () => performance.now() - started;
  switch (kind) {
    case 'immediate reply':
      await s.emu.slash({ ...where, name: 'ping' }).waitForCallback(WAIT_MS);
      return { ms: since(), done: Promise.resolve() };
    case 'deferred command': {
      const handle = s.emu.slash({ ...where, name: 'slow' });
      await handle.waitForCallback(WAIT_MS);
      return { ms: since(), done: handle.waitForEdit(1, 60_000) };
    }
    case 'button update':
      await s.emu
        .clickButton({ ...where, message: s.panel, customId: PANEL_BUTTON_ID })
        .waitForCallback(WAIT_MS);
      return { ms: since(), done: Promise.resolve() };
    case 'autocomplete':
      // The driver hands back the choices only, once the bot's answer is in.
      await s.emu.autocomplete({
        ...where,
        name: 'find',
        options: { q: 'spr' },
        focused: 'q',
        timeoutMs: WAIT_MS,
      });
      return { ms: since(), done: Promise.resolve() };
  }
}

/**
 * Acknowledgement latencies of `rounds` rounds of `inFlight` interactions sent at once. Each round
 * ends when the bot is done with all of them, so what a round leaves behind (the bare bot's edits
 * queue behind its global limit for seconds) never falls on the next one, nor on another bot.
 */
async function ackLatencies(
  s: Setup,
  inFlight: number,
  rounds: number,
  kind: Kind = 'immediate reply',
  cpu?: CpuLog,
) {
  const out: number[] = [];
  for (let r = 0; r < rounds; r++) {
    await settle();
    await withCpu(s, cpu, async () => {
      const acks = await Promise.all(Array.from({ length: inFlight }, () => ackOnce(s, kind)));
      await Promise.all(acks.map((ack) => ack.done));
      out.push(...acks.map((ack) => ack.ms));
    });
  }
  return out;
}

/**
 * Runs the bots in alternating rounds, so a change in the machine's load falls on each alike, in
 * `blocks` blocks of `rounds` rounds each; gives each bot's samples by block. Within a block the
 * bots go round in a cycle, which every other block runs backwards (with three: ours, bare,
 * uncapped; then uncapped, bare, ours), so each bot follows each of the others in half the blocks.
 * What comes before a round shapes it: a heavy round leaves the harness's young generation fuller,
 * so `settle` collects it before the next round more often.
 */
async function alternate<Name extends string>(
  { blocks, rounds }: { blocks: number; rounds: number },
  bots: Record<Name, () => Promise<number[]>>,
): Promise<Record<Name, number[][]>> {
  const names = Object.keys(bots) as Name[];
  const out = Object.fromEntries(names.map((name) => [name, [] as number[][]])) as Record<Name, number[][]>;
  for (let block = 0; block < blocks; block++) {
    const order = block % 2 === 0 ? names : [...names].reverse();
    const samples = new Map(names.map((name) => [name, [] as number[]]));
    for (let r = 0; r < rounds; r++) {
      for (const name of order) samples.get(name)!.push(...(await bots[name]()));
    }
    for (const name of names) out[name].push(samples.get(name)!);
  }
  return out;
}

/** A percentile as the median of its value in each block (why blocks: see `BLOCKS`). */
function blockPercentile(blocks: readonly number[][], p: number): number {
  return percentile(
    blocks.map((samples) => percentile(samples, p)),
    50,
  );
}

async function completionLatencies(
  s: Setup,
  inFlight: number,
  rounds: number,
  cpu?: CpuLog,
): Promise<{ all: number[]; wallMs: number; failed: number }> {
  const all: number[] = [];
  let failed = 0;
  let wallMs = 0;
  for (let r = 0; r < rounds; r++) {
    await settle();
    await withCpu(s, cpu, async () => {
      const started = performance.now();
      const batch = Array.from({ length: inFlight }, async () => {
        const t0 = performance.now();
        const handle = s.emu.slash({
          guildId: s.guildId,
          channelId: s.channelId,
          userId: s.userId,
          name: 'slow',
        });
        try {
          await handle.waitForEdit(1, 60_000);
        } catch {
          failed++;
          return Number.NaN;
        }
        return performance.now() - t0;
      });
      all.push(...(await Promise.all(batch)).filter((ms) => !Number.isNaN(ms)));
      wallMs += performance.now() - started;
    });
  }
  return { all, wallMs, failed };
}

export async function main(): Promise<BenchRow[]> {
  execFileSync('npx', ['tsc', '-p', 'tsconfig.bench.json'], { stdio: 'inherit' });
  const { child, message: rows } = await forkForMessage<BenchRow[]>(
    import.meta.url,
    [HARNESS_FLAG],
    'the interaction harness',
    [...process.execArgv, ...HARNESS_NODE_FLAGS],
  );
  await once(child, 'exit');
  printTable(
    'Interactions: our bot vs a bare discord.js bot (floor), same machine, same run; percentiles: median over blocks',
    rows,
  );
  await saveResults('interactions', rows);
  return rows;
}

/** Harness mode: the bots in child processes, their emulators here; sends the rows to the parent. */
async function measure(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const kind of KINDS) {
    for (const inFlight of [1, 100] as const) {
      const { ours: a, bare: b } = await withBots(['ours', 'bare'], [kind], ({ ours, bare }) =>
        alternate(BLOCKS[inFlight], {
          ours: () => ackLatencies(ours, inFlight, 1, kind),
          bare: () => ackLatencies(bare, inFlight, 1, kind),
        }),
      );
      for (const p of [50, 90, 99]) {
        const value = blockPercentile(a, p);
        const floor = blockPercentile(b, p);
        rows.push({
          name: `ack p${p}, ${kind}, ${inFlight} in flight`,
          value,
          unit: 'ms',
          floor,
          ...(p === 99 ? { target: '≤ 1.2x bare bot', ok: value <= 1.2 * floor } : {}),
        });
      }
    }
  }
  // Deferred completion at 1 in flight.
  const one = await withBots(['ours', 'bare'], ['deferred command'], async ({ ours, bare }) => ({
    ours: await completionLatencies(ours, 1, 200),
    bare: await completionLatencies(bare, 1, 200),
  }));
  rows.push({
    name: 'deferred completion p99, 1 in flight (floor: bare bot deferred)',
    value: percentile(one.ours.all, 99),
    unit: 'ms',
    floor: percentile(one.bare.all, 99),
  });
  // At 100 in flight, alternating with the bare bot's immediate reply at 100 (the target's floor)
  // and the uncapped bare bot's deferred commands; then the bare bot's deferred commands at 100.
  const cpu = { ours: emptyCpuLog(), bare: emptyCpuLog(), uncapped: emptyCpuLog() };
  const { at100, bareDeferred } = await withBots(
    ['ours', 'bare', 'uncapped'],
    ['immediate reply', 'deferred command'],
    async ({ ours, bare, uncapped }) => ({
      at100: await alternate(BLOCKS[100], {
        ours: async () => (await completionLatencies(ours, 100, 1, cpu.ours)).all,
        bare: () => ackLatencies(bare, 100, 1, 'immediate reply', cpu.bare),
        uncapped: async () => (await completionLatencies(uncapped, 100, 1, cpu.uncapped)).all,
      }),
      bareDeferred: await completionLatencies(bare, 100, 3),
    }),
  );
  const value = blockPercentile(at100.ours, 99);
  rows.push({
    name: 'deferred completion p99, 100 in flight (floor: bare bot deferred)',
    value,
    unit: 'ms',
    floor: percentile(bareDeferred.all, 99),
  });
  const floor = blockPercentile(at100.bare, 99);
  rows.push({
    name: 'deferred completion p99, 100 in flight (floor: bare bot immediate reply)',
    value,
    unit: 'ms',
    floor,
    target: '≤ 2x floor',
    ok: value <= 2 * floor,
  });
  // What stock discord.js does on the same deferred commands once its global limit is lifted:
  // against the same floor, and as the floor of ours.
  const uncappedValue = blockPercentile(at100.uncapped, 99);
  rows.push({
    name: 'deferred completion p99, 100 in flight: bare bot, global limit lifted (floor: bare bot immediate reply)',
    value: uncappedValue,
    unit: 'ms',
    floor,
  });
  rows.push({
    name: 'deferred completion p99, 100 in flight (floor: bare bot deferred, global limit lifted)',
    value,
    unit: 'ms',
    floor: uncappedValue,
  });
  // Where the time of those rounds goes: the CPU each side spent on a round, median over rounds.
  rows.push({
    name: 'CPU of a round of 100 in flight: our bot, deferred (floor: bare bot, immediate reply)',
    value: percentile(cpu.ours.bot, 50),
    unit: 'ms',
    floor: percentile(cpu.bare.bot, 50),
  });
  rows.push({
    name: 'CPU of a round of 100 in flight: our bot, deferred (floor: bare bot deferred, global limit lifted)',
    value: percentile(cpu.ours.bot, 50),
    unit: 'ms',
    floor: percentile(cpu.uncapped.bot, 50),
  });
  rows.push({
    name: 'CPU of a round of 100 in flight: emulator and clock, our deferred (floor: bare immediate reply)',
    value: percentile(cpu.ours.emulators, 50),
    unit: 'ms',
    floor: percentile(cpu.bare.emulators, 50),
  });
  rows.push({
    name: 'CPU of a round of 100 in flight: emulator and clock, our deferred (floor: bare deferred, global limit lifted)',
    value: percentile(cpu.ours.emulators, 50),
    unit: 'ms',
    floor: percentile(cpu.uncapped.emulators, 50),
  });
  const burst = await withBots(['ours', 'bare'], ['deferred command'], async ({ ours, bare }) => ({
    ours: await completionLatencies(ours, 500, 1),
    bare: await completionLatencies(bare, 500, 1),
  }));
  rows.push({
    name: 'burst of 500: interactions that failed (ours / bare)',
    value: burst.ours.failed,
    unit: '',
    floor: burst.bare.failed,
  });
  rows.push({
    name: 'burst of 500 deferred commands, all completed',
    value: burst.ours.wallMs,
    unit: 'ms',
    floor: burst.bare.wallMs,
    target: '< 1500 ms',
    ok: burst.ours.wallMs < 1500,
  });
  return rows;
}

if (process.argv[2] === HARNESS_FLAG) {
  const rows = await measure();
  process.send!(rows, () => process.disconnect());
} else if (invokedDirectly(import.meta.url)) {
  await main();
}
