/**
 * The playground: a small local web server beside the Discord emulator that serves a Discord-like
 * page (`client/`) and a JSON API over the emulator's driver. The page runs slash commands, types
 * into the bot's autocomplete, clicks buttons and picks from select menus as the chosen user, and
 * long-polls for messages, so edits and follow-ups show up in place. Nothing here talks to the bot
 * directly: every action goes through Discord's side, as a real client's would.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventEmitter } from 'node:events';
import { ApplicationCommandOptionType, InteractionType } from 'discord-api-types/v10';
import type { APIApplicationCommandInteraction, Snowflake } from 'discord-api-types/v10';
import type { DiscordEmulator } from '../emulator.js';
import type { EmulatedMessage } from '../world.js';

export interface PlaygroundUser {
  id: Snowflake;
  name: string;
  /** Shown next to the name, e.g. "premium on the music service". */
  note?: string;
}

export interface PlaygroundGuild {
  id: Snowflake;
  name: string;
  channels: { id: Snowflake; name: string }[];
}

/** The emulators' shared clock, moved by the page's time control. */
export interface PlaygroundClock {
  now(): number;
  advance(ms: number): void;
  reset(): void;
}

export interface PlaygroundOptions {
  discord: DiscordEmulator;
  guilds: PlaygroundGuild[];
  users: PlaygroundUser[];
  clock?: PlaygroundClock;
  /** Sentences shown beside the member picker: what the world behind the page knows, say. */
  hints?: string[];
  port?: number;
  host?: string;
}

export interface Playground {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Something that went wrong on Discord's side of an action, shown to the acting user only. */
interface Notice {
  id: string;
  userId: Snowflake;
  channelId: Snowflake;
  text: string;
  at: number;
}

const CLIENT_FILES: Record<string, string> = {
  '/': 'index.html',
  '/index.html': 'index.html',
  '/app.js': 'app.js',
  '/style.css': 'style.css',
};

const CONTENT_TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

const LONG_POLL_MS = 20_000;

class HttpProblem extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function startPlayground(options: PlaygroundOptions): Promise<Playground> {
  const { discord } = options;
  const order: Snowflake[] = [];
  const notices: Notice[] = [];
  const changes = new EventEmitter();
  changes.setMaxListeners(0);
  let version = 0;
  const bump = () => {
    version++;
    changes.emit('change');
  };
  discord.events.on('message', (message) => {
    order.push(message.id);
    bump();
  });
  discord.events.on('messageUpdate', bump);
  const commandLabels = new Map<Snowflake, string>();
  discord.events.on('interaction', (interaction) => {
    if (interaction.type === InteractionType.ApplicationCommand)
      commandLabels.set(interaction.id, commandLabel(interaction.data));
  });
  discord.events.on('messageDelete', bump);
  discord.events.on('commands', bump);

  const notify = (userId: Snowflake, channelId: Snowflake, error: unknown) => {
    const text = error instanceof Error ? error.message : String(error);
    notices.push({ id: `n${notices.length + 1}`, userId, channelId, text, at: Date.now() });
    bump();
  };

  const guildOf = (channelId: Snowflake) => {
    const guild = options.guilds.find((g) => g.channels.some((c) => c.id === channelId));
    if (!guild) throw new HttpProblem(404, `No channel ${channelId} in the playground`);
    return guild.id;
  };

  const visible = (message: EmulatedMessage, userId: string) =>
    ((message.flags ?? 0) & 64) === 0 || message.interaction_metadata?.user.id === userId;

  function messagesFor(channelId: Snowflake, userId: Snowflake) {
    const known = new Set(order);
    const ids = [
      ...discord
        .messages(channelId)
        .map((m) => m.id)
        .filter((id) => !known.has(id)),
      ...order,
    ];
    const messages = ids
      .map((id) => discord.message(id))
      .filter(
        (m): m is EmulatedMessage => m !== undefined && m.channel_id === channelId && visible(m, userId),
      );
    messages.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
    return {
      version,
      messages: messages.map((message) => {
        const label = commandLabels.get(message.interaction_metadata?.id ?? '');
        return label === undefined ? message : { ...message, command_label: label };
      }),
      notices: notices.filter((n) => n.userId === userId && n.channelId === channelId),
    };
  }

  /** Runs a handle's wait in the background, turning a refusal or a silent bot into a notice. */
  function watch(
    handle: { waitForCallback(timeoutMs?: number): Promise<unknown> },
    userId: string,
    channelId: string,
  ) {
    handle.waitForCallback(4_000).catch((error: unknown) => {
      notify(userId, channelId, error);
    });
  }

  const api: Record<string, (body: Record<string, unknown>, url: URL) => unknown> = {
    'GET /api/state': () => ({
      guilds: options.guilds,
      users: options.users,
      hints: options.hints ?? [],
      botUser: discord.botUser,
      now: options.clock?.now() ?? Date.now(),
      realNow: Date.now(),
    }),
    'GET /api/commands': (_body, url) => discord.commands(str(url.searchParams.get('guildId'), 'guildId')),
    'GET /api/messages': async (_body, url) => {
      const channelId = str(url.searchParams.get('channelId'), 'channelId');
      const userId = str(url.searchParams.get('userId'), 'userId');
      const since = Number(url.searchParams.get('since') ?? '-1');
      if (since === version) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, LONG_POLL_MS);
          function done() {
            clearTimeout(timer);
            changes.off('change', done);
            resolve();
          }
          changes.on('change', done);
        });
      }
      return messagesFor(channelId, userId);
    },
    'POST /api/slash': (body) => {
      const channelId = str(body['channelId'], 'channelId');
      const userId = str(body['userId'], 'userId');
      const handle = discord.slash({
        guildId: guildOf(channelId),
        channelId,
        userId,
        name: str(body['name'], 'name'),
        ...optionalStr('subcommandGroup', body['subcommandGroup']),
        ...optionalStr('subcommand', body['subcommand']),
        options: (body['options'] ?? {}) as Record<string, string | number | boolean>,
      });
      watch(handle, userId, channelId);
      return { id: handle.id };
    },
    'POST /api/autocomplete': (body) => {
      const channelId = str(body['channelId'], 'channelId');
      return discord.autocomplete({
        guildId: guildOf(channelId),
        channelId,
        userId: str(body['userId'], 'userId'),
        name: str(body['name'], 'name'),
        ...optionalStr('subcommandGroup', body['subcommandGroup']),
        ...optionalStr('subcommand', body['subcommand']),
        options: (body['options'] ?? {}) as Record<string, string | number | boolean>,
        focused: str(body['focused'], 'focused'),
      });
    },
    'POST /api/component': (body) => {
      const userId = str(body['userId'], 'userId');
      const message = discord.message(str(body['messageId'], 'messageId'));
      if (!message) throw new HttpProblem(404, 'That message is gone');
      const common = {
        userId,
        message,
        customId: str(body['customId'], 'customId'),
        guildId: guildOf(message.channel_id),
        channelId: message.channel_id,
      };
      const handle = Array.isArray(body['values'])
        ? discord.selectMenu({ ...common, values: body['values'].map(String) })
        : discord.clickButton(common);
      watch(handle, userId, message.channel_id);
      return { id: handle.id };
    },
    'POST /api/time': (body) => {
      const clock = options.clock;
      if (!clock) throw new HttpProblem(501, 'This playground has no clock to move');
      if (body['reset'] === true) clock.reset();
      else clock.advance(Number(body['advanceMs'] ?? 0));
      bump();
      return { now: clock.now(), realNow: Date.now() };
    },
  };

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://playground');
    const file = CLIENT_FILES[url.pathname];
    if (request.method === 'GET' && file !== undefined) {
      const data = await readFile(new URL(`./client/${file}`, import.meta.url));
      response.writeHead(200, {
        'content-type': CONTENT_TYPES[file.split('.').pop() ?? ''] ?? 'application/octet-stream',
        'cache-control': 'no-store',
      });
      response.end(data);
      return;
    }
    const route = api[`${request.method ?? 'GET'} ${url.pathname}`];
    if (!route) return send(response, 404, { error: `No ${request.method} ${url.pathname}` });
    try {
      const body = request.method === 'POST' ? await readJson(request) : {};
      send(response, 200, await route(body, url));
    } catch (error) {
      const status = error instanceof HttpProblem ? error.status : 400;
      send(response, status, { error: error instanceof Error ? error.message : String(error) });
    }
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) send(response, 500, { error: String(error) });
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}/`,
    port,
    async close() {
      changes.emit('change');
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** `weather schedule add`: the command and its subcommand group and subcommand, as Discord shows it. */
function commandLabel(data: APIApplicationCommandInteraction['data']): string {
  const parts = [data.name];
  let options = 'options' in data ? data.options : undefined;
  for (;;) {
    const nested = options?.find(
      (option) =>
        option.type === ApplicationCommandOptionType.SubcommandGroup ||
        option.type === ApplicationCommandOptionType.Subcommand,
    );
    if (!nested) return parts.join(' ');
    parts.push(nested.name);
    options = 'options' in nested ? nested.options : undefined;
  }
}

function str(value: unknown, name: string): string {
  if (typeof value !== 'string' || value === '') throw new HttpProblem(400, `${name} is required`);
  return value;
}

function optionalStr<K extends string>(key: K, value: unknown): Partial<Record<K, string>> {
  return typeof value === 'string' && value !== '' ? ({ [key]: value } as Record<K, string>) : {};
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
  });
  response.end(JSON.stringify(body));
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return {};
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new HttpProblem(400, 'Expected a JSON object');
  return parsed as Record<string, unknown>;
}
