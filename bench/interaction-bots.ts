/**
 * The bots of the interaction benchmark (`bench/interactions.ts`), each run as a process of its
 * own: our client and router, a bare discord.js bot, and the bare bot with its global limit lifted.
 * Built to `dist/` by `tsconfig.bench.json` (apart from the bot's own build) and run with plain
 * Node, as a server owner runs `npm start`: under tsx, every `require` that discord.js makes inside
 * a hot path (it loads some modules lazily, per message payload) goes through tsx's resolver, about
 * 30 µs each, which the compiled bot never pays.
 *
 *   node dist/bench/interaction-bots.js <ours|bare|uncapped> <api url> <guild id> <channel id>
 */
import { once } from 'node:events';
import { SlashCommandBuilder } from '@discordjs/builders';
import { Client, Events, GatewayIntentBits, Routes, type APIMessage, type Interaction } from 'discord.js';
import { pino } from 'pino';
import { createDiscordClient } from '../src/bot/client.js';
import { createInteractionRouter } from '../src/bot/router.js';
import type { Command } from '../src/bot/types.js';
import type { Storage } from '../src/storage/index.js';

/**
 * `uncapped` is the bare bot with one change: its REST manager's global limit lifted, for every
 * request. Stock discord.js queues `editReply` behind the global limit of 50 requests per second,
 * so the bare bot's deferred commands measure that queue; the uncapped one measures what stock
 * discord.js costs on a deferred command when nothing holds it back. (Our bot sends interaction
 * responses through a transport of its own, with no global limit and no per-token queue, and holds
 * an edit behind the acknowledgements before it only when they back up: `src/bot/client.ts`,
 * `src/bot/interaction-transport.ts`. Here only `editReply` is globally limited, so as far as the
 * limit goes the two come to the same.)
 * Like the bare bot, it runs without our bot's Node flags.
 */
export type Bot = 'ours' | 'bare' | 'uncapped';
const BOTS: readonly Bot[] = ['ours', 'bare', 'uncapped'];

export const BENCH_TOKEN = 'bench-token';
/** The `custom_id` of the button on the panel each bot posts; the harness clicks it. */
export const PANEL_BUTTON_ID = 'bench:1';
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
  components: [{ type: 1, components: [{ type: 2, style: 1, label: 'Press', custom_id: PANEL_BUTTON_ID }] }],
};

/** Our client and router, with handlers as trivial as the bare bot's. */
function ourBot(apiUrl: string): Client {
  const client = createDiscordClient({ apiUrl });
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
  return client;
}

/** discord.js as it comes, answering "pong"; `uncapped`: with no global limit (see {@link Bot}). */
function bareBot(apiUrl: string, uncapped: boolean): Client {
  const rest = uncapped ? { api: apiUrl, globalRequestsPerSecond: Number.MAX_SAFE_INTEGER } : { api: apiUrl };
  const client = new Client({ intents: [GatewayIntentBits.Guilds], rest });
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
  return client;
}

/** Logs in, registers the commands, posts the panel, hands it to the parent, then serves. */
async function serveBot(bot: Bot, apiUrl: string, guildId: string, channelId: string): Promise<void> {
  const client = bot === 'ours' ? ourBot(apiUrl) : bareBot(apiUrl, bot === 'uncapped');
  const ready = once(client, Events.ClientReady);
  await client.login(BENCH_TOKEN);
  await ready;
  await client.application!.commands.set(
    definitions.map((d) => d.toJSON()),
    guildId,
  );
  const panel = (await client.rest.post(Routes.channelMessages(channelId), { body: PANEL })) as APIMessage;
  process.send?.(panel);
  // Answers "settle" once everything already queued on its event loop has run, with the CPU time
  // this process has used so far.
  process.on('message', (message) => {
    if (message === 'settle') setImmediate(() => process.send?.({ cpu: process.cpuUsage() }));
  });
  process.once('disconnect', () => void client.destroy().finally(() => process.exit(0)));
}

if (process.send && BOTS.includes(process.argv[2] as Bot)) {
  const [bot, apiUrl, guildId, channelId] = process.argv.slice(2) as [Bot, string, string, string];
  await serveBot(bot, apiUrl, guildId, channelId);
}
