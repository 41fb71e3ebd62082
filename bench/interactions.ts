/**
 * Interaction latency: our bot's client and router against a bare discord.js bot, each against its
 * own Discord emulator, in the same run. Measures acknowledgement latency (INTERACTION_CREATE sent
 * → first callback) for an immediate reply, a deferred command, a button update and an autocomplete
 * answer, and deferred completion (sent → the edit of the original message). Both bots answer with
 * trivial handlers, so what differs is the client set-up and the router.
 *
 *   npx tsx bench/interactions.ts
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SlashCommandBuilder } from '@discordjs/builders';
import { Client, Events, GatewayIntentBits, Routes, type APIMessage, type Interaction } from 'discord.js';
import { pino } from 'pino';
import { startDiscordEmulator, type DiscordEmulator } from '../emulators/discord/index.js';
import { createDiscordClient } from '../src/bot/client.js';
import { createInteractionRouter } from '../src/bot/router.js';
import type { Command } from '../src/bot/types.js';
import type { Storage } from '../src/storage/index.js';
import { percentile, printTable, saveResults, type BenchRow } from './lib.js';

const TOKEN = 'bench-token';
const definitions = [
  new SlashCommandBuilder().setName('ping').setDescription('pong'),
  new SlashCommandBuilder().setName('slow').setDescription('defer, then edit'),
  new SlashCommandBuilder()
    .setName('find')
    .setDescription('autocomplete')
    .addStringOption((option) => option.setName('q').setDescription('query').setAutocomplete(true)),
];
const CHOICES = [{ name: 'Springfield', value: 'springfield' }];
const PANEL = {
  content: 'panel',
  components: [{ type: 1, components: [{ type: 2, style: 1, label: 'Press', custom_id: 'bench:1' }] }],
};

type Kind = 'immediate reply' | 'deferred command' | 'button update' | 'autocomplete';
const KINDS: readonly Kind[] = ['immediate reply', 'deferred command', 'button update', 'autocomplete'];

interface Setup {
  emu: DiscordEmulator;
  client: Client;
  guildId: string;
  channelId: string;
  userId: string;
  /** A message with one button, posted by the bot. */
  panel: APIMessage;
}

async function setup(kind: 'ours' | 'bare'): Promise<Setup> {
  const emu = await startDiscordEmulator({ botToken: TOKEN });
  const guild = emu.createGuild({ name: kind });
  const channel = emu.createChannel(guild.id);
  const user = emu.createUser({ username: 'bench' });
  let client: Client;
  if (kind === 'ours') {
    client = createDiscordClient({ apiUrl: emu.restUrl });
    const commands: Command[] = [
      { data: definitions[0]!, execute: async (i) => void (await i.reply({ content: 'pong' })) },
      {
        data: definitions[1]!,
        execute: async (i) => {
          await i.deferReply();
          await i.editReply({ content: 'done' });
        },
      },
      {
        data: definitions[2]!,
        execute: async (i) => void (await i.reply({ content: 'found' })),
        autocomplete: (i) => i.respond(CHOICES),
      },
    ];
    const route = createInteractionRouter({
      commands,
      buttons: [{ prefix: 'bench', handle: (i) => i.update({ content: 'pressed' }).then(() => undefined) }],
      ctx: {
        logger: pino({ level: 'silent' }),
        storage: undefined as unknown as Storage,
        features: { music: false, weather: false },
        commands,
        now: Date.now,
      },
    });
    client.on(Events.InteractionCreate, (interaction) => void route(interaction));
  } else {
    client = new Client({ intents: [GatewayIntentBits.Guilds], rest: { api: emu.restUrl } });
    client.on(Events.InteractionCreate, (interaction: Interaction) => {
      let answer: Promise<unknown>;
      if (interaction.isAutocomplete()) answer = interaction.respond(CHOICES);
      else if (interaction.isButton()) answer = interaction.update({ content: 'pressed' });
      else if (!interaction.isChatInputCommand()) return;
      else if (interaction.commandName === 'slow')
        answer = interaction.deferReply().then(() => interaction.editReply({ content: 'done' }));
      else answer = interaction.reply({ content: interaction.commandName === 'ping' ? 'pong' : 'found' });
      answer.catch((error: unknown) => console.error(`bare bot: ${(error as Error).message}`));
    });
  }
  const ready = new Promise((resolve) => client.once(Events.ClientReady, resolve));
  await client.login(TOKEN);
  await ready;
  await client.application!.commands.set(
    definitions.map((d) => d.toJSON()),
    guild.id,
  );
  const panel = (await client.rest.post(Routes.channelMessages(channel.id), { body: PANEL })) as APIMessage;
  return { emu, client, guildId: guild.id, channelId: channel.id, userId: user.id, panel };
}

/** Milliseconds from the emulator sending the interaction to the bot's first answer to it. */
async function ackOnce(s: Setup, kind: Kind): Promise<number> {
  const where = { guildId: s.guildId, channelId: s.channelId, userId: s.userId };
  switch (kind) {
    case 'immediate reply':
      return (await s.emu.slash({ ...where, name: 'ping' }).waitForCallback(30_000)).afterMs;
    case 'deferred command':
      return (await s.emu.slash({ ...where, name: 'slow' }).waitForCallback(30_000)).afterMs;
    case 'button update':
      return (
        await s.emu.clickButton({ ...where, message: s.panel, customId: 'bench:1' }).waitForCallback(30_000)
      ).afterMs;
    case 'autocomplete': {
      // The driver hands back the choices only: timed around the call, the same way for both bots.
      const started = performance.now();
      await s.emu.autocomplete({
        ...where,
        name: 'find',
        options: { q: 'spr' },
        focused: 'q',
        timeoutMs: 30_000,
      });
      return performance.now() - started;
    }
  }
}

async function ackLatencies(s: Setup, inFlight: number, rounds: number, kind: Kind = 'immediate reply') {
  const out: number[] = [];
  for (let r = 0; r < rounds; r++) {
    out.push(...(await Promise.all(Array.from({ length: inFlight }, () => ackOnce(s, kind)))));
  }
  return out;
}

async function completionLatencies(
  s: Setup,
  inFlight: number,
  rounds: number,
): Promise<{ all: number[]; wallMs: number; failed: number }> {
  const all: number[] = [];
  let failed = 0;
  const started = performance.now();
  for (let r = 0; r < rounds; r++) {
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
  }
  return { all, wallMs: performance.now() - started, failed };
}

export async function main(): Promise<BenchRow[]> {
  const ours = await setup('ours');
  const bare = await setup('bare');
  const rows: BenchRow[] = [];
  try {
    // warm-up
    await ackLatencies(ours, 20, 1);
    await ackLatencies(bare, 20, 1);
    for (const kind of KINDS) {
      for (const inFlight of [1, 100]) {
        // A p99 needs many samples: 1,000 one at a time, 5 rounds of 100.
        const rounds = inFlight === 1 ? 1_000 : 5;
        // Alternating, so a change in the machine's load falls on both bots alike.
        const a: number[] = [];
        const b: number[] = [];
        for (let r = 0; r < rounds; r++) {
          a.push(...(await ackLatencies(ours, inFlight, 1, kind)));
          b.push(...(await ackLatencies(bare, inFlight, 1, kind)));
        }
        for (const p of [50, 90, 99]) {
          const value = percentile(a, p);
          const floor = percentile(b, p);
          rows.push({
            name: `ack p${p}, ${kind}, ${inFlight} in flight`,
            value,
            unit: 'ms',
            floor,
            ...(p === 99 ? { target: '≤ 1.2x bare bot', ok: value <= 1.2 * floor + 1 } : {}),
          });
        }
      }
    }
    const bareImmediate = await ackLatencies(bare, 100, 3);
    for (const inFlight of [1, 100]) {
      const rounds = inFlight === 1 ? 100 : 3;
      const a = await completionLatencies(ours, inFlight, rounds);
      const b = await completionLatencies(bare, inFlight, rounds);
      rows.push({
        name: `deferred completion p99, ${inFlight} in flight (floor: bare bot deferred)`,
        value: percentile(a.all, 99),
        unit: 'ms',
        floor: percentile(b.all, 99),
      });
      if (inFlight === 100) {
        const floor = percentile(bareImmediate, 99);
        rows.push({
          name: 'deferred completion p99, 100 in flight (floor: bare bot immediate reply)',
          value: percentile(a.all, 99),
          unit: 'ms',
          floor,
          target: '≤ 2x floor',
          ok: percentile(a.all, 99) <= 2 * floor + 2,
        });
      }
    }
    const burstOurs = await completionLatencies(ours, 500, 1);
    const burstBare = await completionLatencies(bare, 500, 1);
    rows.push({
      name: 'burst of 500: interactions that failed (ours / bare)',
      value: burstOurs.failed,
      unit: '',
      floor: burstBare.failed,
    });
    rows.push({
      name: 'burst of 500 deferred commands, all completed',
      value: burstOurs.wallMs,
      unit: 'ms',
      floor: burstBare.wallMs,
      target: '< 1500 ms',
      ok: burstOurs.wallMs < 1500,
    });
  } finally {
    for (const s of [ours, bare]) {
      await s.client.destroy();
      await s.emu.close();
    }
  }
  printTable('Interactions: our bot vs a bare discord.js bot (floor), same machine, same run', rows);
  await saveResults('interactions', rows);
  return rows;
}

if (process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))) {
  await main();
}
