import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { DiscordAPIError, GatewayIntentBits } from 'discord.js';
import type { Interaction } from 'discord.js';
import {
  ApplicationFlags,
  ButtonStyle,
  ComponentType,
  GatewayDispatchEvents,
  GatewayOpcodes,
  InteractionResponseType,
  MessageFlags,
  MessageReferenceType,
  PermissionFlagsBits,
} from 'discord-api-types/v10';
import type {
  APIChatInputApplicationCommandInteraction,
  APIGuild,
  APIUser,
  GatewayReceivePayload,
} from 'discord-api-types/v10';
import { startDiscordEmulator } from '../../emulators/discord/index.js';
import type { DiscordEmulator, EmulatorChannel } from '../../emulators/discord/index.js';
import { loginToEmulator } from '../helpers/discord-client.js';
import type { EmulatedClient } from '../helpers/discord-client.js';

const TOKEN = 'emulator-bot-token';

/** A raw gateway connection that queues what Discord sends, for tests at the opcode level. */
class RawGateway {
  readonly #socket: WebSocket;
  readonly #received: GatewayReceivePayload[] = [];
  readonly #waiting: (() => void)[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;

  constructor(url: string, query = 'v=10&encoding=json') {
    this.#socket = new WebSocket(`${url}/?${query}`);
    this.#socket.on('message', (data) => {
      const bytes = Array.isArray(data)
        ? Buffer.concat(data)
        : data instanceof ArrayBuffer
          ? Buffer.from(data)
          : data;
      const text = bytes.toString('utf8');
      this.#received.push(JSON.parse(text) as GatewayReceivePayload);
      for (const wake of this.#waiting.splice(0)) wake();
    });
    this.closed = new Promise((resolve) => {
      this.#socket.on('close', (code, reason) => resolve({ code, reason: reason.toString('utf8') }));
    });
  }

  /** How Discord closed the connection, or rejects when it stays open. */
  closedWithin(timeoutMs = 5_000): Promise<{ code: number; reason: string }> {
    return Promise.race([
      this.closed,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`Still open after ${timeoutMs} ms`)), timeoutMs).unref(),
      ),
    ]);
  }

  send(op: GatewayOpcodes, d: unknown): void {
    this.#socket.send(JSON.stringify({ op, d }));
  }

  identify(intents: number): void {
    this.send(GatewayOpcodes.Identify, {
      token: TOKEN,
      intents,
      properties: { os: 'linux', browser: 'test', device: 'test' },
    });
  }

  /** The next payload Discord sent, or rejects when none arrives in time. */
  async next(timeoutMs = 5_000): Promise<GatewayReceivePayload> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const payload = this.#received.shift();
      if (payload) return payload;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('No gateway payload in time');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiting.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Takes payloads until one matches, returning it and everything before it. */
  async until(
    predicate: (payload: GatewayReceivePayload) => boolean,
  ): Promise<{ match: GatewayReceivePayload; before: GatewayReceivePayload[] }> {
    const before: GatewayReceivePayload[] = [];
    for (;;) {
      const payload = await this.next();
      if (predicate(payload)) return { match: payload, before };
      before.push(payload);
    }
  }

  async close(code = 1000): Promise<void> {
    if (this.#socket.readyState === WebSocket.CLOSED) return;
    this.#socket.close(code);
    await this.closed;
  }
}

async function connect(emu: DiscordEmulator): Promise<RawGateway> {
  const gateway = new RawGateway(emu.gatewayUrl);
  expect((await gateway.next()).op).toBe(GatewayOpcodes.Hello);
  return gateway;
}

/** Identifies with the Guilds intent and reads up to the last GUILD_CREATE; returns the session. */
async function identified(emu: DiscordEmulator, guildCount: number) {
  const gateway = await connect(emu);
  gateway.identify(GatewayIntentBits.Guilds);
  const ready = await gateway.next();
  if (ready.op !== GatewayOpcodes.Dispatch || ready.t !== GatewayDispatchEvents.Ready)
    throw new Error('Expected READY');
  let seq = ready.s;
  for (let index = 0; index < guildCount; index += 1) seq = (await gateway.next()).s ?? seq;
  return { gateway, sessionId: ready.d.session_id, seq };
}

function post(emu: DiscordEmulator, path: string, body: unknown, auth = true): Promise<Response> {
  return fetch(`${emu.restUrl}/v10${path}`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      ...(auth ? { Authorization: `Bot ${TOKEN}` } : {}),
    },
    body: JSON.stringify(body),
  });
}

function invalidFormBody(errors: unknown) {
  return { code: 50035, message: 'Invalid Form Body', errors };
}

function fieldError(code: string, message: string) {
  return { _errors: [{ code, message }] };
}

/** `/weather schedule add channel: who:`, a command with a subcommand group and resolved options. */
const SCHEDULE_COMMAND = {
  name: 'weather',
  description: 'Weather',
  options: [
    {
      type: 2,
      name: 'schedule',
      description: 'Scheduled posts',
      options: [
        {
          type: 1,
          name: 'add',
          description: 'Add a post',
          options: [
            { type: 7, name: 'channel', description: 'Where', required: true },
            { type: 6, name: 'who', description: 'For whom' },
          ],
        },
      ],
    },
  ],
};

describe('Discord emulator protocol details, against a real discord.js client', () => {
  let emu: DiscordEmulator;
  let bot: EmulatedClient;
  let guild: APIGuild;
  let channel: EmulatorChannel;
  let user: APIUser;

  const slash = async () => {
    const handle = emu.slash({ guildId: guild.id, channelId: channel.id, userId: user.id, name: 'ping' });
    const interaction: Interaction = await bot.nextInteraction();
    if (!interaction.isChatInputCommand()) throw new Error('Expected a slash command');
    return { handle, interaction };
  };

  beforeAll(async () => {
    emu = await startDiscordEmulator();
    guild = emu.createGuild({ name: 'Protocol HQ' });
    channel = emu.createChannel(guild.id, { name: 'general' });
    user = emu.createUser({ username: 'grace' });
    bot = await loginToEmulator(emu, { token: TOKEN });
    await bot.client.application.commands.set(
      [{ name: 'ping', description: 'Ping' }, SCHEDULE_COMMAND],
      guild.id,
    );
  });

  afterAll(async () => {
    await bot.client.destroy();
    await emu.close();
  });

  describe('rate-limit buckets', () => {
    it('gives each interaction token a webhook bucket of its own', async () => {
      const handles = [];
      for (let index = 0; index < 3; index += 1) {
        const { handle, interaction } = await slash();
        await interaction.reply(`reply ${index}`);
        handles.push(handle);
      }
      const remaining: string[][] = [];
      for (const handle of handles) {
        const seen: string[] = [];
        for (const content of ['first edit', 'second edit']) {
          const response = await fetch(
            `${emu.restUrl}/v10/webhooks/${emu.applicationId}/${handle.token}/messages/%40original`,
            {
              method: 'PATCH',
              headers: { 'Content-Type': 'application/json' },
              body: JSON.stringify({ content }),
            },
          );
          expect(response.status).toBe(200);
          seen.push(response.headers.get('x-ratelimit-remaining') ?? 'missing');
        }
        remaining.push(seen);
      }
      expect(remaining).toEqual([
        ['4', '3'],
        ['4', '3'],
        ['4', '3'],
      ]);
    });

    it('lets an interaction token make 5 webhook requests in 2 s and answers the sixth 429, which discord.js waits out', async () => {
      const { handle, interaction } = await slash();
      await interaction.deferReply();
      const edit = (content: string) =>
        fetch(`${emu.restUrl}/v10/webhooks/${emu.applicationId}/${handle.token}/messages/%40original`, {
          method: 'PATCH',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ content }),
        });
      const statuses: number[] = [];
      for (let index = 0; index < 5; index += 1) statuses.push((await edit(`edit ${index}`)).status);
      const refused = await edit('one too many');
      expect([...statuses, refused.status]).toEqual([200, 200, 200, 200, 200, 429]);
      expect(refused.headers.get('x-ratelimit-limit')).toBe('5');
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(refused.headers.get('x-ratelimit-scope')).toBe('user');
      const body = (await refused.json()) as { retry_after: number; global: boolean };
      expect(body.global).toBe(false);
      expect(body.retry_after).toBeGreaterThan(0);
      expect(body.retry_after).toBeLessThanOrEqual(2);

      // One bucket for the interaction's webhook routes together: a follow-up is refused too.
      const followUp = await fetch(`${emu.restUrl}/v10/webhooks/${emu.applicationId}/${handle.token}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ content: 'and a follow-up' }),
      });
      expect(followUp.status).toBe(429);
      expect(followUp.headers.get('x-ratelimit-bucket')).toBe(refused.headers.get('x-ratelimit-bucket'));

      // Another interaction's token has a bucket of its own; and discord.js, reading the headers,
      // spaces its own edits instead of earning 429s.
      const other = await slash();
      await other.interaction.deferReply();
      const rateLimited: unknown[] = [];
      const onLimited = (info: unknown) => rateLimited.push(info);
      emu.events.on('rateLimited', onLimited);
      try {
        const startedAt = Date.now();
        for (let index = 0; index < 7; index += 1) await other.interaction.editReply(`edit ${index}`);
        expect(Date.now() - startedAt).toBeGreaterThan(1_000);
      } finally {
        emu.events.off('rateLimited', onLimited);
      }
      expect(rateLimited).toEqual([]);
      expect(await other.handle.waitForEdit(7)).toMatchObject({ content: 'edit 6' });
    });

    it('gives each interaction a callback bucket of its own', async () => {
      const remaining: (string | null)[] = [];
      for (let index = 0; index < 2; index += 1) {
        const { handle } = await slash();
        const path = `/interactions/${handle.id}/${handle.token}/callback`;
        const body = { type: InteractionResponseType.ChannelMessageWithSource, data: { content: 'hi' } };
        const first = await post(emu, path, body, false);
        const second = await post(emu, path, body, false);
        expect([first.status, second.status]).toEqual([204, 400]);
        remaining.push(
          first.headers.get('x-ratelimit-remaining'),
          second.headers.get('x-ratelimit-remaining'),
        );
      }
      expect(remaining).toEqual(['49', '48', '49', '48']);
    });

    it('shows a global limit only in its 429: what it lets through reports the route’s own bucket', async () => {
      const room = emu.createChannel(guild.id, { name: 'global-limit' });
      emu.setRateLimit({ remaining: 2, resetAfterMs: 2_000, global: true });
      try {
        const first = await post(emu, `/channels/${room.id}/messages`, { content: 'one' });
        const second = await post(emu, `/channels/${room.id}/messages`, { content: 'two' });
        expect([first.status, second.status]).toEqual([200, 200]);
        for (const [response, remaining] of [
          [first, '49'],
          [second, '48'],
        ] as const) {
          expect(response.headers.get('x-ratelimit-limit')).toBe('50');
          expect(response.headers.get('x-ratelimit-remaining')).toBe(remaining);
          expect(response.headers.get('x-ratelimit-global')).toBeNull();
        }
        const third = await post(emu, `/channels/${room.id}/messages`, { content: 'three' });
        expect(third.status).toBe(429);
        expect(third.headers.get('x-ratelimit-global')).toBe('true');
        expect(third.headers.get('x-ratelimit-scope')).toBe('global');
      } finally {
        emu.setRateLimit(null);
      }
    });
  });

  describe('listing channel messages', () => {
    const list = (query: string) =>
      fetch(`${emu.restUrl}/v10/channels/${channel.id}/messages?${query}`, {
        headers: { Authorization: `Bot ${TOKEN}` },
      });

    it('refuses a limit outside 1–100 with 50035 on limit, as Discord does', async () => {
      const cases = [
        ['limit=0', 'NUMBER_TYPE_MIN', 'int value should be greater than or equal to 1.'],
        ['limit=101', 'NUMBER_TYPE_MAX', 'int value should be less than or equal to 100.'],
        ['limit=many', 'NUMBER_TYPE_COERCE', 'Value "many" is not int.'],
      ] as const;
      for (const [query, code, message] of cases) {
        const response = await list(query);
        expect(response.status, query).toBe(400);
        expect(await response.json()).toEqual(invalidFormBody({ limit: fieldError(code, message) }));
      }
      expect((await list('limit=100')).status).toBe(200);
      expect((await list('limit=1')).status).toBe(200);
    });

    it('refuses a before that is not a snowflake instead of failing', async () => {
      const response = await list('before=yesterday');
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual(
        invalidFormBody({ before: fieldError('NUMBER_TYPE_COERCE', 'Value "yesterday" is not snowflake.') }),
      );
    });

    it('reaches discord.js as a DiscordAPIError for messages.fetch with limit 101', async () => {
      const cached = bot.client.channels.cache.get(channel.id);
      if (!cached?.isTextBased()) throw new Error('No text channel in the cache');
      const error: unknown = await cached.messages.fetch({ limit: 101 }).then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(error).toBeInstanceOf(DiscordAPIError);
      expect((error as DiscordAPIError).code).toBe(50035);
    });

    it('gives the page around a message, the message itself included', async () => {
      const target = bot.client.channels.cache.get(channel.id);
      if (!target?.isTextBased() || !('send' in target)) throw new Error('No text channel in the cache');
      const sent = [];
      for (let index = 0; index < 7; index += 1) sent.push(await target.send(`around ${index}`));
      const middle = sent[3]!;

      const one = await target.messages.fetch({ around: middle.id, limit: 1 });
      expect([...one.values()].map((message) => message.content)).toEqual(['around 3']);

      const response = await list(`around=${middle.id}&limit=4`);
      expect(response.status).toBe(200);
      const page = (await response.json()) as { content: string }[];
      expect(page.map((message) => message.content)).toEqual([
        'around 4',
        'around 3',
        'around 2',
        'around 1',
      ]);
    });

    it('answers a send with its nonce, but reading the message back leaves the nonce out', async () => {
      const send = (nonce: string) =>
        fetch(`${emu.restUrl}/v10/channels/${channel.id}/messages`, {
          method: 'POST',
          headers: { Authorization: `Bot ${TOKEN}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ content: 'Morning forecast', nonce, enforce_nonce: true }),
        });
      const created = (await (await send('slot-7')).json()) as { id: string; nonce?: string };
      expect(created.nonce).toBe('slot-7');

      // A repeat inside the window is the first message again, not a second one.
      const repeated = (await (await send('slot-7')).json()) as { id: string; nonce?: string };
      expect(repeated.id).toBe(created.id);
      expect(emu.messages(channel.id).filter((message) => message.nonce === 'slot-7')).toHaveLength(1);

      const read = await fetch(`${emu.restUrl}/v10/channels/${channel.id}/messages/${created.id}`, {
        headers: { Authorization: `Bot ${TOKEN}` },
      });
      expect(read.status).toBe(200);
      expect(await read.json()).not.toHaveProperty('nonce');
      const listed = (await (await list('limit=5')).json()) as { id: string }[];
      const mine = listed.find((message) => message.id === created.id);
      expect(mine).toBeDefined();
      expect(mine).not.toHaveProperty('nonce');
    });

    it('reads a body by its Content-Type: JSON sent without the header is no message at all', async () => {
      const send = (contentType: string | undefined, body: string) =>
        fetch(`${emu.restUrl}/v10/channels/${channel.id}/messages`, {
          method: 'POST',
          headers: { Authorization: `Bot ${TOKEN}`, ...(contentType ? { 'Content-Type': contentType } : {}) },
          body,
        });
      const json = JSON.stringify({ content: 'Morning forecast' });
      for (const contentType of ['text/plain;charset=UTF-8', undefined]) {
        const refused = await send(contentType, json);
        expect(refused.status).toBe(400);
        expect(await refused.json()).toEqual({ code: 50006, message: 'Cannot send an empty message' });
      }
      // The header's parameters and case do not matter; a URL-encoded form is read as its fields.
      const typed = await send('Application/JSON; charset=utf-8', json);
      expect(typed.status).toBe(200);
      const form = await send('application/x-www-form-urlencoded', 'content=Evening+forecast');
      expect(form.status).toBe(200);
      expect(((await form.json()) as { content: string }).content).toBe('Evening forecast');
      expect(emu.messages(channel.id).map((message) => message.content)).toEqual(
        expect.arrayContaining(['Morning forecast', 'Evening forecast']),
      );
    });
  });

  describe('command localizations', () => {
    const register = async (commands: unknown[]) => {
      const other = emu.createGuild({ name: 'Localized HQ' });
      return fetch(`${emu.restUrl}/v10/applications/${emu.applicationId}/guilds/${other.id}/commands`, {
        method: 'PUT',
        headers: { Authorization: `Bot ${TOKEN}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(commands),
      });
    };
    const weather = (extra: Record<string, unknown>, option: Record<string, unknown> = {}) => ({
      name: 'weather',
      description: 'Weather now',
      ...extra,
      options: [{ type: 3, name: 'place', description: 'A city', ...option }],
    });

    it('accepts translations under Discord locales', async () => {
      const response = await register([
        weather(
          {
            name_localizations: { de: 'wetter', 'pt-BR': 'clima' },
            description_localizations: { de: 'Wetter jetzt' },
          },
          {
            name_localizations: { de: 'ort' },
            choices: [{ name: 'Berlin', name_localizations: { de: 'Berlin' }, value: 'b' }],
          },
        ),
      ]);
      expect(response.status).toBe(200);
      const [command] = (await response.json()) as { name_localizations: Record<string, string> }[];
      expect(command?.name_localizations).toEqual({ de: 'wetter', 'pt-BR': 'clima' });
    });

    it('refuses a locale Discord does not have, at its key', async () => {
      const response = await register([weather({ description_localizations: { pt_BR: 'Clima agora' } })]);
      expect(response.status).toBe(400);
      const body = (await response.json()) as { errors: Record<string, Record<string, unknown>> };
      const error = (body.errors['0']?.['description_localizations'] as Record<string, unknown>)['pt_BR'] as {
        _errors: { code: string; message: string }[];
      };
      expect(error._errors[0]?.code).toBe('BASE_TYPE_CHOICES');
      expect(error._errors[0]?.message).toContain("'pt-BR'");
    });

    it('refuses a translated command name that breaks the name rules on the whole map', async () => {
      const response = await register([weather({ name_localizations: { de: 'Wetter Jetzt' } })]);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual(
        invalidFormBody({
          0: {
            name_localizations: fieldError('APPLICATION_COMMAND_INVALID_NAME', 'Command name is invalid'),
          },
        }),
      );
    });

    it('refuses bad option translations at their locale', async () => {
      const response = await register([
        weather(
          {},
          {
            name_localizations: { de: 'Ort' },
            description_localizations: { fr: '' },
            choices: [{ name: 'Berlin', name_localizations: { de: 'x'.repeat(101) }, value: 'b' }],
          },
        ),
      ]);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual(
        invalidFormBody({
          0: {
            options: {
              0: {
                name_localizations: {
                  de: fieldError('APPLICATION_COMMAND_INVALID_NAME', 'Command name is invalid'),
                },
                description_localizations: {
                  fr: fieldError('BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.'),
                },
                choices: {
                  0: {
                    name_localizations: {
                      de: fieldError('BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.'),
                    },
                  },
                },
              },
            },
          },
        }),
      );
    });
  });

  describe('URLs in messages', () => {
    const send = (body: unknown) => post(emu, `/channels/${channel.id}/messages`, body);
    const linkButton = (url: string) => ({
      components: [
        {
          type: ComponentType.ActionRow,
          components: [{ type: ComponentType.Button, style: ButtonStyle.Link, label: 'Open', url }],
        },
      ],
    });
    const buttonUrlError = (error: object) =>
      invalidFormBody({ components: { 0: { components: { 0: { url: error } } } } });

    it('accepts link buttons to http, https and discord urls', async () => {
      for (const url of ['http://example.com/', 'https://example.com/a?b=c', 'discord://-/channels/1/2']) {
        expect((await send(linkButton(url))).status, url).toBe(200);
      }
    });

    it('refuses a link button with another scheme, a malformed url or more than 512 characters', async () => {
      const ftp = await send(linkButton('ftp://example.com/file'));
      expect(ftp.status).toBe(400);
      expect(await ftp.json()).toEqual(
        buttonUrlError(
          fieldError(
            'URL_TYPE_INVALID_SCHEME',
            `Scheme "ftp" is not supported. Scheme must be one of ('http', 'https', 'discord').`,
          ),
        ),
      );
      const bare = await send(linkButton('example.com'));
      expect(await bare.json()).toEqual(
        buttonUrlError(fieldError('URL_TYPE_INVALID_URL', 'Not a well formed URL.')),
      );
      const long = await send(linkButton(`https://example.com/${'a'.repeat(493)}`));
      expect(await long.json()).toEqual(
        buttonUrlError(fieldError('BASE_TYPE_MAX_LENGTH', 'Must be 512 or fewer in length.')),
      );
      expect((await send(linkButton(`https://example.com/${'a'.repeat(492)}`))).status).toBe(200);
    });

    it('accepts http(s) embed links and http(s) or attachment:// media', async () => {
      const response = await send({
        embeds: [
          {
            title: 'Forecast',
            url: 'https://example.com/forecast',
            thumbnail: { url: 'https://example.com/icon.png' },
            image: { url: 'attachment://chart.png' },
            author: { name: 'Weather', url: 'http://example.com/', icon_url: 'attachment://logo.png' },
            footer: { text: 'Updated', icon_url: 'https://example.com/footer.png' },
          },
        ],
      });
      expect(response.status).toBe(200);
    });

    it('refuses embed urls with the wrong scheme, each at its path', async () => {
      const web = `Scheme must be one of ('http', 'https').`;
      const media = `Scheme must be one of ('http', 'https', 'attachment').`;
      const response = await send({
        embeds: [
          { title: 'fine', url: 'https://example.com/' },
          {
            title: 'broken',
            url: 'attachment://chart.png',
            thumbnail: { url: 'ftp://example.com/a.png' },
            image: { url: 'not a url' },
            author: { name: 'A', url: 'javascript:alert(1)', icon_url: 'data:image/png;base64,AAAA' },
            footer: { text: 'F', icon_url: 'file:///etc/passwd' },
          },
        ],
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual(
        invalidFormBody({
          embeds: {
            1: {
              url: fieldError('URL_TYPE_INVALID_SCHEME', `Scheme "attachment" is not supported. ${web}`),
              thumbnail: {
                url: fieldError('URL_TYPE_INVALID_SCHEME', `Scheme "ftp" is not supported. ${media}`),
              },
              image: { url: fieldError('URL_TYPE_INVALID_URL', 'Not a well formed URL.') },
              author: {
                url: fieldError('URL_TYPE_INVALID_SCHEME', `Scheme "javascript" is not supported. ${web}`),
                icon_url: fieldError('URL_TYPE_INVALID_SCHEME', `Scheme "data" is not supported. ${media}`),
              },
              footer: {
                icon_url: fieldError('URL_TYPE_INVALID_SCHEME', `Scheme "file" is not supported. ${media}`),
              },
            },
          },
        }),
      );
    });

    it('places the error under data for an interaction reply with a bad link button', async () => {
      const { handle, interaction } = await slash();
      const error: unknown = await interaction
        .reply({
          content: 'open',
          components: [
            {
              type: ComponentType.ActionRow,
              components: [
                { type: ComponentType.Button, style: ButtonStyle.Link, label: 'Open', url: 'steam://run/1' },
              ],
            },
          ],
        })
        .then(
          () => undefined,
          (reason: unknown) => reason,
        );
      expect(error).toBeInstanceOf(DiscordAPIError);
      expect((error as DiscordAPIError).rawError).toEqual(
        invalidFormBody({
          data: {
            components: {
              0: {
                components: {
                  0: {
                    url: fieldError(
                      'URL_TYPE_INVALID_SCHEME',
                      `Scheme "steam" is not supported. Scheme must be one of ('http', 'https', 'discord').`,
                    ),
                  },
                },
              },
            },
          },
        }),
      );
      expect(handle.callbacks).toEqual([]);
    });
  });

  describe('lengths, counted in code points as Discord does', () => {
    const send = (body: unknown) => post(emu, `/channels/${channel.id}/messages`, body);
    const button = (label: string, customId = 'go') => ({
      content: 'x',
      components: [
        {
          type: ComponentType.ActionRow,
          components: [
            { type: ComponentType.Button, style: ButtonStyle.Primary, label, custom_id: customId },
          ],
        },
      ],
    });

    it('takes an emoji as one character in embeds, labels and custom ids', async () => {
      // 3100 code points, 6200 UTF-16 units: over 4096 and 6000 only when counted in units.
      expect((await send({ embeds: [{ description: '😀'.repeat(3100) }] })).status).toBe(200);
      expect((await send(button('😀'.repeat(41)))).status).toBe(200);
      expect((await send(button('ok', '😀'.repeat(100)))).status).toBe(200);
      const long = await send(button('😀'.repeat(81)));
      expect(await long.json()).toEqual(
        invalidFormBody({
          components: {
            0: {
              components: {
                0: { label: fieldError('BASE_TYPE_MAX_LENGTH', 'Must be 80 or fewer in length.') },
              },
            },
          },
        }),
      );
    });

    it('measures embed text without its leading and trailing whitespace, and keeps it trimmed', async () => {
      const embedOf = async (embed: Record<string, unknown>) => {
        const posted = await send({ embeds: [embed] });
        expect(posted.status).toBe(200);
        return ((await posted.json()) as { embeds: Record<string, unknown>[] }).embeds[0];
      };
      expect(
        await embedOf({
          title: ` ${'t'.repeat(256)}   `,
          fields: [{ name: ' name ', value: `${'v'.repeat(1024)}\t` }],
          footer: { text: `${'f'.repeat(2048)}  ` },
          author: { name: `  ${'a'.repeat(256)}` },
        }),
      ).toMatchObject({
        title: 't'.repeat(256),
        fields: [{ name: 'name', value: 'v'.repeat(1024) }],
        footer: { text: 'f'.repeat(2048) },
        author: { name: 'a'.repeat(256) },
      });
      expect(await embedOf({ description: `\n${'d'.repeat(4096)}\u00a0\n` })).toMatchObject({
        description: 'd'.repeat(4096),
      });
      // 6000 characters once trimmed, 6040 as sent.
      const padded = (text: string) => ({ description: `${' '.repeat(10)}${text}${' '.repeat(10)}` });
      const total = await send({ embeds: [padded('x'.repeat(3000)), padded('y'.repeat(3000))] });
      expect(total.status).toBe(200);
    });

    it('refuses a field name or value that is only whitespace, as it is empty once trimmed', async () => {
      const posted = await send({ embeds: [{ fields: [{ name: '\u00a0', value: '  \n ' }] }] });
      expect(posted.status).toBe(400);
      expect(await posted.json()).toEqual(
        invalidFormBody({
          embeds: {
            0: {
              fields: {
                0: {
                  name: fieldError('BASE_TYPE_REQUIRED', 'This field is required'),
                  value: fieldError('BASE_TYPE_REQUIRED', 'This field is required'),
                },
              },
            },
          },
        }),
      );
    });

    it('refuses 6001 code points across the embeds of a message, and takes 6000', async () => {
      const embeds = (last: number) => [
        { description: '😀'.repeat(3000) },
        { description: 'x'.repeat(last) },
      ];
      expect((await send({ embeds: embeds(3000) })).status).toBe(200);
      const over = await send({ embeds: embeds(3001) });
      expect(over.status).toBe(400);
      expect(await over.json()).toEqual(
        invalidFormBody({
          embeds: fieldError('MAX_EMBED_SIZE_EXCEEDED', 'Embed size exceeds maximum size of 6000'),
        }),
      );
    });
  });

  describe('embed timestamps, button emoji and select ranges', () => {
    const send = (body: unknown) => post(emu, `/channels/${channel.id}/messages`, body);
    const inRow = (component: Record<string, unknown>) => ({
      content: 'x',
      components: [{ type: ComponentType.ActionRow, components: [component] }],
    });
    const atComponent = (errors: object) =>
      invalidFormBody({ components: { 0: { components: { 0: errors } } } });

    it('takes ISO 8601 embed timestamps and refuses anything else, naming the value', async () => {
      for (const timestamp of [
        '2026-12-01T06:00:00.000Z',
        '2026-12-01T07:00:00+01:00',
        '2026-12-01',
        // What toISOString gives for the first year, which Date.UTC would read as 1901.
        '0001-01-01T00:00:00.000Z',
      ]) {
        expect((await send({ embeds: [{ title: 't', timestamp }] })).status, timestamp).toBe(200);
      }
      for (const timestamp of [
        'yesterday',
        '2026-02-30T00:00:00Z',
        '+6351130-11-22T20:12:29.056',
        1764568800000,
      ]) {
        const response = await send({ embeds: [{ title: 't', timestamp }] });
        expect(response.status, String(timestamp)).toBe(400);
        expect(await response.json()).toEqual(
          invalidFormBody({
            embeds: {
              0: {
                timestamp: fieldError(
                  'DATE_TIME_TYPE_PARSE',
                  `Could not parse ${String(timestamp)}. Should be ISO8601.`,
                ),
              },
            },
          }),
        );
      }
    });

    it('takes a button with a label, an emoji or both, and refuses one with neither', async () => {
      const base = { type: ComponentType.Button, style: ButtonStyle.Secondary, custom_id: 'b' };
      expect((await send(inRow({ ...base, emoji: { name: '⏸️' } }))).status).toBe(200);
      expect(
        (await send(inRow({ ...base, emoji: { id: '123456789012345678', name: 'custom' } }))).status,
      ).toBe(200);
      expect((await send(inRow({ ...base, label: 'Pause', emoji: { name: '👍🏽' } }))).status).toBe(200);
      // As keyboards and libraries send them too: without, or with a stray, variation selector.
      for (const name of ['▶', '❤', '⚽\uFE0F']) {
        expect((await send(inRow({ ...base, emoji: { name } }))).status, name).toBe(200);
      }
      expect((await send(inRow({ ...base, emoji: { id: 1234567890123 } }))).status).toBe(200);
      const bare = await send(inRow(base));
      expect(bare.status).toBe(400);
      expect(await bare.json()).toEqual(
        atComponent({ label: fieldError('BASE_TYPE_REQUIRED', 'This field is required') }),
      );
    });

    it('refuses an emoji that names none, or more than one, at emoji.name', async () => {
      const base = { type: ComponentType.Button, style: ButtonStyle.Primary, custom_id: 'b', label: 'Go' };
      for (const emoji of [{}, { name: 'pause' }, { name: '😀😀' }]) {
        const response = await send(inRow({ ...base, emoji }));
        expect(response.status, JSON.stringify(emoji)).toBe(400);
        expect(await response.json()).toEqual(
          atComponent({ emoji: { name: fieldError('BUTTON_COMPONENT_INVALID_EMOJI', 'Invalid emoji') } }),
        );
      }
    });

    it('takes min_values 0-25 and max_values 1-25 on a select menu, and refuses values outside', async () => {
      const select = (range: object) =>
        inRow({
          type: ComponentType.StringSelect,
          custom_id: 's',
          options: [{ label: 'One', value: '1' }],
          ...range,
        });
      expect((await send(select({ min_values: 0, max_values: 1 }))).status).toBe(200);
      const low = await send(select({ min_values: -1, max_values: 0 }));
      expect(await low.json()).toEqual(
        atComponent({
          min_values: fieldError('NUMBER_TYPE_MIN', 'int value should be greater than or equal to 0.'),
          max_values: fieldError('NUMBER_TYPE_MIN', 'int value should be greater than or equal to 1.'),
        }),
      );
      const badOptionEmoji = await send(
        inRow({
          type: ComponentType.StringSelect,
          custom_id: 's',
          options: [{ label: 'One', value: '1', emoji: { name: 'one' } }],
        }),
      );
      expect(await badOptionEmoji.json()).toEqual(
        atComponent({
          options: { 0: { emoji: { name: fieldError('BUTTON_COMPONENT_INVALID_EMOJI', 'Invalid emoji') } } },
        }),
      );
      const high = await send(select({ max_values: 26 }));
      expect(await high.json()).toEqual(
        atComponent({
          max_values: fieldError('NUMBER_TYPE_MAX', 'int value should be less than or equal to 25.'),
        }),
      );
    });
  });

  describe('interaction endpoints', () => {
    const callback = (handle: { id: string; token: string }, body: unknown, query = '') =>
      post(emu, `/interactions/${handle.id}/${handle.token}/callback${query}`, body, false);

    it('lets interaction callbacks and webhooks through a global rate limit that stops channel posts', async () => {
      const { handle } = await slash();
      emu.setRateLimit({ remaining: 0, resetAfterMs: 2_000, global: true });
      try {
        const answered = await callback(handle, {
          type: InteractionResponseType.ChannelMessageWithSource,
          data: { content: 'still answering' },
        });
        expect(answered.status).toBe(204);
        const followUp = await post(
          emu,
          `/webhooks/${emu.applicationId}/${handle.token}?wait=true`,
          { content: 'more' },
          false,
        );
        expect(followUp.status).toBe(200);
        const posted = await post(emu, `/channels/${channel.id}/messages`, { content: 'blocked' });
        expect(posted.status).toBe(429);
        expect(await posted.json()).toMatchObject({ global: true });
      } finally {
        emu.setRateLimit(null);
      }
    });

    it('answers a follow-up with the message even without ?wait=true', async () => {
      const { handle } = await slash();
      await callback(handle, {
        type: InteractionResponseType.ChannelMessageWithSource,
        data: { content: 'hi' },
      });
      const response = await post(
        emu,
        `/webhooks/${emu.applicationId}/${handle.token}`,
        { content: 'later' },
        false,
      );
      expect(response.status).toBe(200);
      const message = (await response.json()) as { id: string; content: string };
      expect(message.content).toBe('later');
      expect(handle.followUps.map((followUp) => followUp.id)).toEqual([message.id]);
    });

    it('names the response message of a deferred with_response callback, without the message itself', async () => {
      const { handle } = await slash();
      const response = await callback(
        handle,
        { type: InteractionResponseType.DeferredChannelMessageWithSource },
        '?with_response=true',
      );
      expect(response.status).toBe(200);
      const body = (await response.json()) as {
        interaction: Record<string, unknown>;
        resource: Record<string, unknown>;
      };
      expect(body.resource).toEqual({ type: InteractionResponseType.DeferredChannelMessageWithSource });
      expect(body.interaction).toMatchObject({
        response_message_id: handle.original()?.id,
        response_message_loading: true,
        response_message_ephemeral: false,
      });
    });

    it('reads with_response as Discord reads boolean query strings: True, true and 1, nothing else', async () => {
      const cases = [
        ['True', 200],
        ['true', 200],
        ['1', 200],
        ['TRUE', 204],
        ['yes', 204],
        ['0', 204],
        ['false', 204],
      ] as const;
      for (const [value, status] of cases) {
        const { handle } = await slash();
        const response = await callback(
          handle,
          { type: InteractionResponseType.ChannelMessageWithSource, data: { content: value } },
          `?with_response=${value}`,
        );
        expect(response.status, value).toBe(status);
        if (status === 200) {
          expect(await response.json(), value).toMatchObject({ resource: { message: { content: value } } });
        }
      }
    });

    it('refuses a callback type the interaction does not take, listing those it takes in braces', async () => {
      const { handle } = await slash();
      const response = await callback(handle, { type: InteractionResponseType.DeferredMessageUpdate });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual(
        invalidFormBody({ type: fieldError('BASE_TYPE_CHOICES', 'Value must be one of {4, 5, 9}.') }),
      );
      expect(handle.callbacks).toEqual([]);
    });
  });

  describe('mentions', () => {
    const PINGS = (roleId: string) => `<@${user.id}> <@&${roleId}> @everyone`;
    const botRole = () => {
      const role = guild.roles.find((candidate) => candidate.id !== guild.id);
      if (role === undefined) throw new Error('the guild has no role but @everyone');
      return role.id;
    };

    it('parses every kind in a channel message, and only users in an interaction reply or follow-up, when allowed_mentions is left out', async () => {
      const roleId = botRole();
      const posted = await post(emu, `/channels/${channel.id}/messages`, { content: PINGS(roleId) });
      expect(posted.status).toBe(200);
      expect(await posted.json()).toMatchObject({
        mentions: [expect.objectContaining({ id: user.id })],
        mention_roles: [roleId],
        mention_everyone: true,
      });
      const { handle } = await slash();
      await post(
        emu,
        `/interactions/${handle.id}/${handle.token}/callback`,
        { type: InteractionResponseType.ChannelMessageWithSource, data: { content: PINGS(roleId) } },
        false,
      );
      const followUp = await post(
        emu,
        `/webhooks/${emu.applicationId}/${handle.token}?wait=true`,
        { content: PINGS(roleId) },
        false,
      );
      for (const message of [handle.original(), await followUp.json()]) {
        expect(message).toMatchObject({
          mentions: [expect.objectContaining({ id: user.id })],
          mention_roles: [],
          mention_everyone: false,
        });
      }
    });

    it('refuses a kind both parsed and listed by id', async () => {
      const posted = await post(emu, `/channels/${channel.id}/messages`, {
        content: `<@${user.id}>`,
        allowed_mentions: { parse: ['users'], users: [user.id] },
      });
      expect(posted.status).toBe(400);
      expect(await posted.json()).toEqual(
        invalidFormBody({
          allowed_mentions: fieldError(
            'MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE',
            'parse:["users"] and users: [ids...] are mutually exclusive.',
          ),
        }),
      );
    });
  });

  describe('allowed_mentions lists that are empty or null', () => {
    it('takes users: [] beside parse: ["users"] as no list, and still parses users', async () => {
      const posted = await post(emu, `/channels/${channel.id}/messages`, {
        content: `<@${user.id}>`,
        allowed_mentions: { parse: ['users', 'roles'], users: [], roles: [] },
      });
      expect(posted.status).toBe(200);
      expect(await posted.json()).toMatchObject({ mentions: [expect.objectContaining({ id: user.id })] });
    });

    it('takes users: null and roles: null, which list no one', async () => {
      const posted = await post(emu, `/channels/${channel.id}/messages`, {
        content: `<@${user.id}>`,
        allowed_mentions: { parse: [], users: null, roles: null },
      });
      expect(posted.status).toBe(200);
      expect(await posted.json()).toMatchObject({ mentions: [], mention_roles: [] });
      const parsed = await post(emu, `/channels/${channel.id}/messages`, {
        content: `<@${user.id}>`,
        allowed_mentions: { parse: ['users'], users: null },
      });
      expect(parsed.status).toBe(200);
      expect(await parsed.json()).toMatchObject({ mentions: [expect.objectContaining({ id: user.id })] });
    });
  });

  describe('the components v2 flag', () => {
    const V2 = MessageFlags.IsComponentsV2;
    const textDisplay = [{ type: ComponentType.TextDisplay, content: 'shown as a component' }];
    const legacyField = (field: 'content' | 'embeds') =>
      fieldError(
        'MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2',
        `The '${field}' field cannot be used when using MessageFlags.IS_COMPONENTS_V2`,
      );

    it('refuses content and embeds beside the flag with 50035 at each field', async () => {
      const posted = await post(emu, `/channels/${channel.id}/messages`, {
        flags: V2,
        content: 'legacy',
        embeds: [{ title: 'legacy' }],
        components: textDisplay,
      });
      expect(posted.status).toBe(400);
      expect(await posted.json()).toEqual(
        invalidFormBody({ content: legacyField('content'), embeds: legacyField('embeds') }),
      );
      const components = await post(emu, `/channels/${channel.id}/messages`, {
        flags: V2,
        content: null,
        components: textDisplay,
      });
      expect(components.status).toBe(200);
    });

    it('places the refusal under data in an interaction reply', async () => {
      const { handle } = await slash();
      const response = await post(
        emu,
        `/interactions/${handle.id}/${handle.token}/callback`,
        {
          type: InteractionResponseType.ChannelMessageWithSource,
          data: { flags: V2, content: 'legacy', components: textDisplay },
        },
        false,
      );
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual(invalidFormBody({ data: { content: legacyField('content') } }));
      expect(handle.callbacks).toEqual([]);
    });
  });

  describe('interaction response metadata', () => {
    it('names the whole command, group and subcommand, on a slash command reply', async () => {
      const handle = emu.slash({
        guildId: guild.id,
        channelId: channel.id,
        userId: user.id,
        name: 'weather',
        subcommandGroup: 'schedule',
        subcommand: 'add',
        options: { channel: channel.id },
      });
      const interaction = await bot.nextInteraction();
      if (!interaction.isChatInputCommand()) throw new Error('Expected a slash command');
      expect((handle.payload as APIChatInputApplicationCommandInteraction).data.options).toMatchObject([
        { name: 'schedule', options: [{ name: 'add' }] },
      ]);
      await interaction.reply('Scheduled');
      expect((await handle.reply()).interaction).toMatchObject({
        name: 'weather schedule add',
        user: { id: user.id },
      });
    });

    it('leaves options out of a command run with none, as Discord sends it', async () => {
      const { handle, interaction } = await slash();
      expect((handle.payload as APIChatInputApplicationCommandInteraction).data).not.toHaveProperty(
        'options',
      );
      expect(interaction.options.data).toEqual([]);
      await interaction.reply('pong');
      await handle.reply();
    });

    it('references the clicked message on a new reply to a button, instead of naming an interaction', async () => {
      const { handle, interaction } = await slash();
      await interaction.reply({
        content: 'Pick',
        components: [
          {
            type: ComponentType.ActionRow,
            components: [
              { type: ComponentType.Button, style: ButtonStyle.Primary, label: 'More', custom_id: 'more' },
            ],
          },
        ],
      });
      const clicked = await handle.reply();
      const click = emu.clickButton({ userId: user.id, message: clicked, customId: 'more' });
      const button = await bot.nextInteraction();
      if (!button.isButton()) throw new Error('Expected a button');
      await button.reply('Here is more');
      const reply = await click.reply();
      expect(reply.message_reference).toEqual({
        type: MessageReferenceType.Default,
        message_id: clicked.id,
        channel_id: channel.id,
        guild_id: guild.id,
      });
      expect(reply).not.toHaveProperty('interaction');
      expect(reply.interaction_metadata).toMatchObject({ interacted_message_id: clicked.id });
    });
  });

  describe('resolved options', () => {
    /** Runs `/weather schedule add` in `channelId`; resolves with its payload once the bot has it. */
    const scheduleAddIn = async (channelId: string, options: Record<string, string>) => {
      const handle = emu.slash({
        guildId: guild.id,
        channelId,
        userId: user.id,
        name: 'weather',
        subcommandGroup: 'schedule',
        subcommand: 'add',
        options,
      });
      await bot.nextInteraction();
      return handle.payload as APIChatInputApplicationCommandInteraction;
    };

    it('gives a resolved channel the invoking user’s permissions there, and a resolved member theirs in the command’s channel', async () => {
      const hidden = emu.createChannel(guild.id, { name: 'staff-only' });
      emu.setChannelOverwrite(hidden.id, guild.id, 'role', { deny: PermissionFlagsBits.ViewChannel });
      emu.setBotPermissions(hidden.id, { allow: PermissionFlagsBits.ViewChannel });
      const moderator = emu.createUser({ username: 'mod' });
      const room = emu.createChannel(guild.id, { name: 'ops' });
      emu.setChannelOverwrite(room.id, moderator.id, 'member', { allow: PermissionFlagsBits.ManageMessages });

      const { resolved } = (await scheduleAddIn(room.id, { channel: hidden.id, who: moderator.id })).data;
      // The bot sees the channel, the user who ran the command does not.
      expect(resolved?.channels?.[hidden.id]?.permissions).toBe('0');
      // A partial channel with the fields Discord's resolved data keeps, and no overwrites.
      expect(resolved?.channels?.[hidden.id]).toMatchObject({
        id: hidden.id,
        name: 'staff-only',
        guild_id: guild.id,
        parent_id: null,
        position: hidden.position,
        nsfw: false,
        topic: null,
        rate_limit_per_user: 0,
        last_message_id: null,
      });
      expect(resolved?.channels?.[hidden.id]).not.toHaveProperty('permission_overwrites');
      const memberPermissions = BigInt(resolved?.members?.[moderator.id]?.permissions ?? '0');
      expect(memberPermissions & PermissionFlagsBits.ManageMessages).toBe(PermissionFlagsBits.ManageMessages);
      expect(memberPermissions & PermissionFlagsBits.SendMessages).toBe(PermissionFlagsBits.SendMessages);
    });

    it('takes Embed Links and Attach Files away where Send Messages is denied (implicit permissions)', async () => {
      const readOnly = emu.createChannel(guild.id, { name: 'announcements' });
      const { EmbedLinks, AttachFiles, SendMessages, ViewChannel } = PermissionFlagsBits;
      emu.setBotPermissions(readOnly.id, { allow: EmbedLinks | AttachFiles, deny: SendMessages });
      const payload = await scheduleAddIn(readOnly.id, { channel: readOnly.id });
      const granted = BigInt(payload.app_permissions);
      expect(granted & ViewChannel).toBe(ViewChannel);
      expect(granted & (EmbedLinks | AttachFiles | SendMessages)).toBe(0n);
    });

    it('sends the channel of the interaction as a partial channel: the member’s permissions, no overwrites', async () => {
      const room = emu.createChannel(guild.id, { name: 'quiet' });
      emu.setChannelOverwrite(room.id, guild.id, 'role', { deny: PermissionFlagsBits.AddReactions });
      const payload = await scheduleAddIn(room.id, { channel: room.id });
      expect(payload.channel).toMatchObject({ id: room.id, name: 'quiet', guild_id: guild.id });
      expect(payload.channel).not.toHaveProperty('permission_overwrites');
      const { permissions } = payload.channel as { permissions?: string };
      expect(permissions).toBe(payload.member?.permissions);
      expect(BigInt(permissions ?? '0') & PermissionFlagsBits.AddReactions).toBe(0n);
    });
  });

  describe('ids in the path', () => {
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${emu.restUrl}/v10${path}`, {
        method,
        headers: { Authorization: `Bot ${TOKEN}`, 'Content-Type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const notSnowflake = (param: string, value: string) =>
      invalidFormBody({
        [param]: fieldError('NUMBER_TYPE_COERCE', `Value "${value}" is not snowflake.`),
      });

    it('refuses an id that is not a snowflake with 400 / 50035 at the parameter, not 404', async () => {
      const { handle } = await slash();
      const app = emu.applicationId;
      const cases = [
        ['GET', '/channels/undefined/messages', 'channel_id', 'undefined'],
        ['POST', '/channels/undefined/messages', 'channel_id', 'undefined'],
        ['GET', '/guilds/abc', 'guild_id', 'abc'],
        ['GET', `/channels/${channel.id}/messages/undefined`, 'message_id', 'undefined'],
        ['PATCH', `/webhooks/undefined/${handle.token}/messages/@original`, 'webhook_id', 'undefined'],
        ['GET', `/guilds/${guild.id}/members/undefined`, 'user_id', 'undefined'],
        ['GET', '/users/nobody', 'user_id', 'nobody'],
        ['POST', `/interactions/undefined/${handle.token}/callback`, 'interaction_id', 'undefined'],
        ['PUT', `/applications/${app}/guilds/undefined/commands`, 'guild_id', 'undefined'],
        ['GET', `/applications/${app}/commands/undefined`, 'command_id', 'undefined'],
        ['GET', `/channels/${channel.id}/messages/@original`, 'message_id', '@original'],
        ['GET', `/channels/${'1'.repeat(21)}`, 'channel_id', '1'.repeat(21)],
      ] as const;
      for (const [method, path, param, value] of cases) {
        const body = method === 'PUT' ? [] : method === 'GET' ? undefined : { content: 'x' };
        const response = await call(method, path, body);
        expect(response.status, `${method} ${path}`).toBe(400);
        expect(await response.json(), `${method} ${path}`).toEqual(notSnowflake(param, value));
      }
      // The interaction was not touched by the refused callback.
      expect(handle.callbacks).toEqual([]);
    });

    it('names every bad id of a path, and reaches discord.js as a DiscordAPIError 50035', async () => {
      const response = await call('GET', '/channels/abc/messages/def');
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual(
        invalidFormBody({
          channel_id: fieldError('NUMBER_TYPE_COERCE', 'Value "abc" is not snowflake.'),
          message_id: fieldError('NUMBER_TYPE_COERCE', 'Value "def" is not snowflake.'),
        }),
      );
      const error: unknown = await bot.client.channels.fetch('undefined', { force: true }).then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(error).toBeInstanceOf(DiscordAPIError);
      expect((error as DiscordAPIError).status).toBe(400);
      expect((error as DiscordAPIError).code).toBe(50035);
    });

    it('still answers 404 for a snowflake it does not know, and takes @me and @original', async () => {
      const unknown = await call('GET', '/guilds/1');
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toEqual({ message: 'Unknown Guild', code: 10004 });
      // The commands of a server the application is not in are Missing Access, as Discord answers
      // a bot registering guild commands without the applications.commands scope there.
      const commandsThere = await call('GET', `/applications/${emu.applicationId}/guilds/1/commands`);
      expect(commandsThere.status).toBe(403);
      expect(await commandsThere.json()).toEqual({ message: 'Missing Access', code: 50001 });
      const me = await call('GET', `/guilds/${guild.id}/members/@me`);
      expect(me.status).toBe(200);
      const { handle, interaction } = await slash();
      await interaction.reply('hello');
      const original = await fetch(
        `${emu.restUrl}/v10/webhooks/${emu.applicationId}/${handle.token}/messages/%40original`,
      );
      expect(original.status).toBe(200);
    });
  });

  describe('command size', () => {
    /**
     * A command of exactly 8000 characters by Discord's count when `lastChoiceName` is 47:
     * 3 + 100 (command) + 1 + 99 + 25 × 200 (option a) + 1 + 99 + 13 × 200 + 47 + 50 (option b).
     */
    const bigCommand = (lastChoiceName = 47, extra: Record<string, unknown> = {}) => ({
      name: 'big',
      description: 'd'.repeat(100),
      ...extra,
      options: [
        {
          type: 3,
          name: 'a',
          description: 'x'.repeat(99),
          choices: Array.from({ length: 25 }, () => ({ name: 'n'.repeat(100), value: 'v'.repeat(100) })),
        },
        {
          type: 3,
          name: 'b',
          description: 'x'.repeat(99),
          choices: [
            ...Array.from({ length: 13 }, () => ({ name: 'n'.repeat(100), value: 'v'.repeat(100) })),
            { name: 'n'.repeat(lastChoiceName), value: 'v'.repeat(50) },
          ],
        },
      ],
    });
    const tooLarge = fieldError('APPLICATION_COMMAND_TOO_LARGE', 'Command exceeds maximum size (8000)');
    const commandsUrl = (guildId: string) =>
      `${emu.restUrl}/v10/applications/${emu.applicationId}/guilds/${guildId}/commands`;
    const send = (method: string, url: string, body: unknown) =>
      fetch(url, {
        method,
        headers: { Authorization: `Bot ${TOKEN}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });

    it('takes a command of 8000 characters and refuses one of 8001 at its index in a bulk overwrite', async () => {
      const other = emu.createGuild({ name: 'Size HQ' });
      const small = { name: 'small', description: 'Small' };
      expect((await send('PUT', commandsUrl(other.id), [small, bigCommand()])).status).toBe(200);
      const refused = await send('PUT', commandsUrl(other.id), [small, bigCommand(48)]);
      expect(refused.status).toBe(400);
      expect(await refused.json()).toEqual(invalidFormBody({ 1: tooLarge }));
      expect(emu.commands(other.id).map((command) => command.description)).toEqual([
        'Small',
        'd'.repeat(100),
      ]);
    });

    it('counts only the longest translation of a field', async () => {
      const other = emu.createGuild({ name: 'Size HQ' });
      const sameLength = await send('PUT', commandsUrl(other.id), [
        bigCommand(47, { name_localizations: { de: 'gro', fr: 'grd' } }),
      ]);
      expect(sameLength.status).toBe(200);
      const longer = await send('PUT', commandsUrl(other.id), [
        bigCommand(47, { name_localizations: { de: 'gross', fr: 'grd' } }),
      ]);
      expect(longer.status).toBe(400);
      expect(await longer.json()).toEqual(invalidFormBody({ 0: tooLarge }));
    });

    it('refuses a POST or PATCH that makes a command larger than 8000', async () => {
      const other = emu.createGuild({ name: 'Size HQ' });
      const posted = await send('POST', commandsUrl(other.id), bigCommand(48));
      expect(posted.status).toBe(400);
      expect(await posted.json()).toEqual(invalidFormBody(tooLarge));
      const created = await send('POST', commandsUrl(other.id), bigCommand());
      expect(created.status).toBe(201);
      const { id, options } = (await created.json()) as { id: string; options: unknown[] };
      const patched = await send('PATCH', `${commandsUrl(other.id)}/${id}`, {
        options: bigCommand(48).options,
      });
      expect(patched.status).toBe(400);
      expect(await patched.json()).toEqual(invalidFormBody(tooLarge));
      expect(emu.commands(other.id)[0]?.options).toEqual(options);
    });
  });

  describe('command counts', () => {
    it('answers 30032 to a 101st chat input command, by POST or in a PUT, and 50035 to a PUT of over 130', async () => {
      const other = emu.createGuild({ name: 'Count HQ' });
      const url = `/applications/${emu.applicationId}/guilds/${other.id}/commands`;
      const hundred = Array.from({ length: 100 }, (_, index) => ({ name: `c${index}`, description: 'x' }));
      const put = (body: unknown) =>
        fetch(`${emu.restUrl}/v10${url}`, {
          method: 'PUT',
          headers: { Authorization: `Bot ${TOKEN}`, 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        });
      expect((await put(hundred)).status).toBe(200);

      const extra = await post(emu, url, { name: 'extra', description: 'x' });
      expect(extra.status).toBe(400);
      const reached = { code: 30032, message: 'Maximum number of application commands reached (100)' };
      expect(await extra.json()).toEqual(reached);
      // Overwriting one of the hundred by name is no new command.
      expect((await post(emu, url, { name: 'c0', description: 'y' })).status).toBe(200);
      // A user command counts towards its own limit.
      expect((await post(emu, url, { name: 'Profile', type: 2 })).status).toBe(201);
      expect(emu.commands(other.id)).toHaveLength(101);

      // What Discord answered when measured (chenhg5/cc-connect#504): a list of 101 to 130 is
      // within the length a bulk overwrite takes, and over the type's limit; longer is too long.
      const oneTooMany = await put([...hundred, { name: 'extra', description: 'x' }]);
      expect([oneTooMany.status, await oneTooMany.json()]).toEqual([400, reached]);
      const users = Array.from({ length: 15 }, (_, index) => ({ name: `U${index}`, type: 2 }));
      const messages = Array.from({ length: 15 }, (_, index) => ({ name: `M${index}`, type: 3 }));
      expect((await put([...hundred, ...users, ...messages])).status).toBe(200);
      const tooLong = await put([...hundred, ...users, ...messages, { name: 'extra', description: 'x' }]);
      expect([tooLong.status, await tooLong.json()]).toEqual([
        400,
        invalidFormBody(fieldError('BASE_TYPE_MAX_LENGTH', 'Must be 130 or fewer in length.')),
      ]);
      expect(emu.commands(other.id)).toHaveLength(130);
    });
  });

  describe('guild channels the bot cannot view', () => {
    it('leaves them out of GET /guilds/{id}/channels', async () => {
      const hidden = emu.createChannel(guild.id, { name: 'staff-only' });
      emu.setBotPermissions(hidden.id, { deny: PermissionFlagsBits.ViewChannel });
      const response = await fetch(`${emu.restUrl}/v10/guilds/${guild.id}/channels`, {
        headers: { Authorization: `Bot ${TOKEN}` },
      });
      expect(response.status).toBe(200);
      const ids = ((await response.json()) as { id: string }[]).map((listed) => listed.id);
      expect(ids).toContain(channel.id);
      expect(ids).not.toContain(hidden.id);
    });
  });

  describe('application ids on the command routes', () => {
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${emu.restUrl}/v10${path}`, {
        method,
        headers: { Authorization: `Bot ${TOKEN}`, 'Content-Type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });

    it('answers 403 / 20012 for another application’s id, and 404 / 10002 for an id of no application', async () => {
      const otherBot = emu.createUser({ username: 'other-app', bot: true });
      const notAuthorized = {
        message: 'You are not authorized to perform this action on this application',
        code: 20012,
      };
      for (const [method, path] of [
        ['PUT', `/applications/${otherBot.id}/commands`],
        ['PUT', `/applications/${otherBot.id}/guilds/${guild.id}/commands`],
        ['GET', `/applications/${otherBot.id}/commands`],
      ] as const) {
        const response = await call(method, path, method === 'PUT' ? [] : undefined);
        expect(response.status, `${method} ${path}`).toBe(403);
        expect(await response.json(), `${method} ${path}`).toEqual(notAuthorized);
      }
      for (const id of [guild.id, user.id]) {
        const response = await call('PUT', `/applications/${id}/guilds/${guild.id}/commands`, []);
        expect(response.status, id).toBe(404);
        expect(await response.json(), id).toEqual({ message: 'Unknown Application', code: 10002 });
      }
    });
  });

  describe('deferred replies', () => {
    it('keeps only the Ephemeral flag a deferred reply (type 5) was sent with', async () => {
      const { handle } = await slash();
      const { Ephemeral, Loading, SuppressEmbeds, SuppressNotifications } = MessageFlags;
      const response = await post(
        emu,
        `/interactions/${handle.id}/${handle.token}/callback`,
        {
          type: InteractionResponseType.DeferredChannelMessageWithSource,
          data: { flags: SuppressEmbeds | SuppressNotifications | Ephemeral },
        },
        false,
      );
      expect(response.status).toBe(204);
      const original = `${emu.restUrl}/v10/webhooks/${emu.applicationId}/${handle.token}/messages/%40original`;
      const thinking = (await (await fetch(original)).json()) as { flags: number };
      expect(thinking.flags).toBe(Ephemeral | Loading);
      const edited = await fetch(original, {
        method: 'PATCH',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ content: 'done' }),
      });
      expect(((await edited.json()) as { flags: number }).flags).toBe(Ephemeral);
    });
  });

  describe('the bot’s DMs', () => {
    it('gives app_permissions there with Attach Files, Embed Links, Mention Everyone and Use External Emojis', async () => {
      await bot.client.application.commands.set([{ name: 'anywhere', description: 'Offered in DMs' }]);
      const handle = emu.slash({ dm: true, userId: user.id, name: 'anywhere' });
      const interaction = await bot.nextInteraction();
      const { AttachFiles, EmbedLinks, MentionEveryone, UseExternalEmojis } = PermissionFlagsBits;
      const wanted = AttachFiles | EmbedLinks | MentionEveryone | UseExternalEmojis;
      const payload = handle.payload as APIChatInputApplicationCommandInteraction;
      expect(BigInt(payload.app_permissions) & wanted).toBe(wanted);
      expect(interaction.appPermissions.has(MentionEveryone)).toBe(true);
    });
  });
});

describe('Discord emulator gateway: intents', () => {
  it('closes with 4013 for bits that are not intents', async () => {
    const emu = await startDiscordEmulator();
    try {
      const gateway = await connect(emu);
      gateway.identify(GatewayIntentBits.Guilds | (1 << 17));
      expect(await gateway.closedWithin()).toEqual({ code: 4013, reason: 'Invalid intent(s).' });
    } finally {
      await emu.close();
    }
  });

  it('closes with 4014 for privileged intents the application has not enabled', async () => {
    const emu = await startDiscordEmulator();
    try {
      for (const privileged of [
        GatewayIntentBits.GuildMembers,
        GatewayIntentBits.GuildPresences,
        GatewayIntentBits.MessageContent,
      ]) {
        const gateway = await connect(emu);
        gateway.identify(GatewayIntentBits.Guilds | privileged);
        expect(await gateway.closedWithin(), `intent ${privileged}`).toEqual({
          code: 4014,
          reason: 'Disallowed intent(s).',
        });
      }
      const gateway = await connect(emu);
      gateway.identify(GatewayIntentBits.Guilds | GatewayIntentBits.GuildMessages);
      expect(await gateway.next()).toMatchObject({ op: GatewayOpcodes.Dispatch, t: 'READY' });
      await gateway.close();
    } finally {
      await emu.close();
    }
  });

  it('accepts the privileged intents the application enabled, and reports them in its flags', async () => {
    const emu = await startDiscordEmulator({ privilegedIntents: [GatewayIntentBits.MessageContent] });
    try {
      const gateway = await connect(emu);
      gateway.identify(GatewayIntentBits.Guilds | GatewayIntentBits.MessageContent);
      const ready = await gateway.next();
      expect(ready).toMatchObject({ op: GatewayOpcodes.Dispatch, t: 'READY' });
      if (ready.op !== GatewayOpcodes.Dispatch || ready.t !== GatewayDispatchEvents.Ready)
        throw new Error('Expected READY');
      expect(ready.d.application.flags).toBe(ApplicationFlags.GatewayMessageContentLimited);
      await gateway.close();

      const refused = await connect(emu);
      refused.identify(GatewayIntentBits.Guilds | GatewayIntentBits.GuildMembers);
      expect((await refused.closedWithin()).code).toBe(4014);

      const bot = await loginToEmulator(emu, {
        token: TOKEN,
        intents: [GatewayIntentBits.Guilds, GatewayIntentBits.MessageContent],
      });
      try {
        expect(bot.client.application.flags.has('GatewayMessageContentLimited')).toBe(true);
      } finally {
        await bot.client.destroy();
      }
    } finally {
      await emu.close();
    }
  });
});

describe('Discord emulator gateway: the daily limit on session starts', () => {
  it('counts each IDENTIFY, and resets the token on one with none left: every session closes with 4004', async () => {
    const emu = await startDiscordEmulator({ botToken: TOKEN, sessionStartsRemaining: 2 });
    const gatewayBot = async () => {
      const response = await fetch(`${emu.restUrl}/v10/gateway/bot`, {
        headers: { Authorization: `Bot ${TOKEN}` },
      });
      return {
        status: response.status,
        body: (await response.json()) as { session_start_limit?: { total: number; remaining: number } },
      };
    };
    try {
      expect((await gatewayBot()).body.session_start_limit).toMatchObject({ total: 1000, remaining: 2 });
      const first = await connect(emu);
      first.identify(GatewayIntentBits.Guilds);
      expect(await first.next()).toMatchObject({ op: GatewayOpcodes.Dispatch, t: 'READY' });
      expect((await gatewayBot()).body.session_start_limit).toMatchObject({ remaining: 1 });
      await first.close();
      const second = await connect(emu);
      second.identify(GatewayIntentBits.Guilds);
      expect(await second.next()).toMatchObject({ op: GatewayOpcodes.Dispatch, t: 'READY' });
      expect((await gatewayBot()).body.session_start_limit).toMatchObject({ remaining: 0 });

      const third = await connect(emu);
      third.identify(GatewayIntentBits.Guilds);
      expect((await third.closedWithin()).code).toBe(4004);
      expect((await second.closedWithin()).code).toBe(4004);
      // The old token is refused from then on, on REST and on the gateway.
      expect(await gatewayBot()).toEqual({ status: 401, body: { message: '401: Unauthorized', code: 0 } });
      const again = await connect(emu);
      again.identify(GatewayIntentBits.Guilds);
      expect((await again.closedWithin()).code).toBe(4004);
    } finally {
      await emu.close();
    }
  });
});

describe('Discord emulator gateway: heartbeats and versions', () => {
  let emu: DiscordEmulator;
  beforeAll(async () => {
    emu = await startDiscordEmulator();
  });
  afterAll(async () => {
    await emu.close();
  });

  it('acknowledges a heartbeat with d: null, as Discord sends it', async () => {
    const gateway = await connect(emu);
    gateway.send(GatewayOpcodes.Heartbeat, null);
    expect(await gateway.next()).toStrictEqual({
      op: GatewayOpcodes.HeartbeatAck,
      d: null,
      s: null,
      t: null,
    });
    await gateway.close();
  });

  it('asks a connected client for a heartbeat (op 1), which discord.js sends at once, long before its interval', async () => {
    // Ten minutes between heartbeats: discord.js's first one comes at a random point of it, so one
    // landing within half a second of each request by chance is about one in a million.
    const slow = await startDiscordEmulator({ heartbeatIntervalMs: 600_000 });
    const bot = await loginToEmulator(slow);
    try {
      for (let round = 0; round < 2; round += 1) {
        const before = slow.connectedShards()[0]?.heartbeats ?? 0;
        const askedAt = Date.now();
        expect(slow.requestHeartbeat()).toBe(1);
        await vi.waitFor(() => expect(slow.connectedShards()[0]?.heartbeats).toBe(before + 1), {
          timeout: 2_000,
          interval: 10,
        });
        expect(Date.now() - askedAt).toBeLessThan(500);
      }
    } finally {
      await bot.client.destroy();
      await slow.close();
    }
  });

  it('closes with 4008 a connection that sends over 120 events in a minute, and with 4002 one over 4096 bytes', async () => {
    const chatty = await connect(emu);
    for (let sent = 0; sent < 121; sent += 1) chatty.send(GatewayOpcodes.Heartbeat, null);
    expect(await chatty.closedWithin()).toEqual({ code: 4008, reason: 'You are being rate limited.' });
    // The first 120 were answered, each with its acknowledgement; the 121st was not.
    for (let acked = 0; acked < 120; acked += 1)
      expect((await chatty.next()).op).toBe(GatewayOpcodes.HeartbeatAck);
    await expect(chatty.next(50)).rejects.toThrow('No gateway payload in time');

    const large = await connect(emu);
    large.send(GatewayOpcodes.Heartbeat, null);
    expect((await large.next()).op).toBe(GatewayOpcodes.HeartbeatAck);
    large.send(GatewayOpcodes.PresenceUpdate, { padding: 'x'.repeat(4_100) });
    expect(await large.closedWithin()).toEqual({ code: 4002, reason: 'Error while decoding payload.' });
  });

  it('closes with 4001 an IDENTIFY whose payload is not one (no intents)', async () => {
    const gateway = await connect(emu);
    gateway.send(GatewayOpcodes.Identify, { token: TOKEN, properties: {} });
    expect(await gateway.closedWithin()).toEqual({ code: 4001, reason: 'Unknown opcode.' });
  });

  it('closes with 4012 a connection asking for a gateway version Discord does not serve', async () => {
    for (const query of ['v=5&encoding=json', 'v=11', 'v=abc']) {
      const gateway = new RawGateway(emu.gatewayUrl, query);
      expect(await gateway.closedWithin(), query).toEqual({ code: 4012, reason: 'Invalid API version.' });
      await expect(gateway.next(50), query).rejects.toThrow('No gateway payload in time');
    }
    for (const query of ['v=6', 'v=9&encoding=json', 'encoding=json']) {
      const gateway = new RawGateway(emu.gatewayUrl, query);
      expect((await gateway.next()).op, query).toBe(GatewayOpcodes.Hello);
      await gateway.close();
    }
  });
});

describe('Discord emulator gateway: requesting guild members', () => {
  let emu: DiscordEmulator;
  let guild: APIGuild;
  let users: APIUser[];

  beforeAll(async () => {
    emu = await startDiscordEmulator({ privilegedIntents: [GatewayIntentBits.GuildMembers] });
    guild = emu.createGuild({ name: 'Crowded HQ' });
    users = Array.from({ length: 150 }, (_, index) =>
      emu.createUser({ username: `member${String(index).padStart(3, '0')}` }),
    );
  });
  afterAll(async () => {
    await emu.close();
  });

  async function session(intents: number): Promise<RawGateway> {
    const gateway = await connect(emu);
    gateway.identify(intents);
    await gateway.until(
      (payload) => payload.op === GatewayOpcodes.Dispatch && payload.t === GatewayDispatchEvents.GuildCreate,
    );
    return gateway;
  }

  /** The members of the chunk answering `request`. */
  async function chunk(gateway: RawGateway, request: Record<string, unknown>) {
    gateway.send(GatewayOpcodes.RequestGuildMembers, { guild_id: guild.id, ...request });
    const { match } = await gateway.until(
      (payload) =>
        payload.op === GatewayOpcodes.Dispatch && payload.t === GatewayDispatchEvents.GuildMembersChunk,
    );
    if (match.op !== GatewayOpcodes.Dispatch || match.t !== GatewayDispatchEvents.GuildMembersChunk)
      throw new Error('Expected GUILD_MEMBERS_CHUNK');
    return match.d;
  }

  it('sends the guild’s channels in GUILD_CREATE without a guild_id, as Discord does', async () => {
    const general = emu.createChannel(guild.id, { name: 'general' });
    const gateway = await connect(emu);
    gateway.identify(GatewayIntentBits.Guilds);
    const { match } = await gateway.until(
      (payload) => payload.op === GatewayOpcodes.Dispatch && payload.t === GatewayDispatchEvents.GuildCreate,
    );
    if (match.op !== GatewayOpcodes.Dispatch || match.t !== GatewayDispatchEvents.GuildCreate)
      throw new Error('Expected GUILD_CREATE');
    const channel = match.d.channels.find((candidate) => candidate.id === general.id);
    expect(channel).toMatchObject({ id: general.id, name: 'general' });
    expect(channel).not.toHaveProperty('guild_id');
    // Read over REST, the same channel names its guild.
    const read = await fetch(`${emu.restUrl}/v10/channels/${general.id}`, {
      headers: { Authorization: `Bot ${TOKEN}` },
    });
    expect(await read.json()).toMatchObject({ id: general.id, guild_id: guild.id });
    await gateway.close();
  });

  it('sends no chunk for the whole member list without the Guild Members intent, and stays open', async () => {
    const gateway = await session(GatewayIntentBits.Guilds);
    gateway.send(GatewayOpcodes.RequestGuildMembers, {
      guild_id: guild.id,
      query: '',
      limit: 0,
      nonce: 'all',
    });
    gateway.send(GatewayOpcodes.Heartbeat, null);
    // The ACK is the next thing Discord sends: no chunk came before it.
    expect(await gateway.next()).toMatchObject({ op: GatewayOpcodes.HeartbeatAck });
    // A prefix query needs no intent.
    const found = await chunk(gateway, { query: 'member01', limit: 0 });
    expect(found.members).toHaveLength(10);
    await gateway.close();
  });

  it('sends the whole list with the intent, and at most 100 members for a prefix query or user_ids', async () => {
    const gateway = await session(GatewayIntentBits.Guilds | GatewayIntentBits.GuildMembers);
    // Everyone: the 150, the guild's owner and the bot.
    expect((await chunk(gateway, { query: '', limit: 0 })).members).toHaveLength(152);
    expect((await chunk(gateway, { query: 'member', limit: 0 })).members).toHaveLength(100);
    expect((await chunk(gateway, { query: 'member', limit: 500 })).members).toHaveLength(100);
    expect((await chunk(gateway, { query: 'member', limit: 7 })).members).toHaveLength(7);
    const byId = await chunk(gateway, { user_ids: users.map((member) => member.id), limit: 0 });
    expect(byId.members).toHaveLength(100);
    expect(byId.members.map((member) => member.user.id)).toEqual(
      users.slice(0, 100).map((member) => member.id),
    );
    await gateway.close();
  });
});

describe('Discord emulator gateway: resuming', () => {
  let emu: DiscordEmulator;
  let guild: APIGuild;

  beforeAll(async () => {
    emu = await startDiscordEmulator();
    guild = emu.createGuild({ name: 'Resume HQ' });
  });
  afterAll(async () => {
    await emu.close();
  });

  /** Connects, drops the connection with 4000, and lets `missed` dispatches happen meanwhile. */
  async function dropAndMiss(missed: number) {
    const { gateway, sessionId, seq } = await identified(emu, 1);
    await gateway.close(4000);
    for (let index = 0; index < missed; index += 1) emu.createChannel(guild.id, { name: `c${index}` });
    const next = await connect(emu);
    next.send(GatewayOpcodes.Resume, { token: TOKEN, session_id: sessionId, seq });
    return { gateway: next, seq };
  }

  it('replays everything missed when the backlog still holds it all', async () => {
    const { gateway, seq } = await dropAndMiss(1_000);
    const { match, before } = await gateway.until(
      (payload) => payload.op !== GatewayOpcodes.Dispatch || payload.t === GatewayDispatchEvents.Resumed,
    );
    expect(match).toMatchObject({ op: GatewayOpcodes.Dispatch, t: 'RESUMED' });
    expect(before).toHaveLength(1_000);
    expect(before[0]).toMatchObject({ t: 'CHANNEL_CREATE', s: (seq ?? 0) + 1 });
    await gateway.close();
  });

  it('answers INVALID_SESSION (not resumable) once a missed dispatch is no longer kept', async () => {
    const { gateway } = await dropAndMiss(1_001);
    expect(await gateway.next()).toEqual({ op: GatewayOpcodes.InvalidSession, d: false, s: null, t: null });
    gateway.identify(GatewayIntentBits.Guilds);
    expect(await gateway.next()).toMatchObject({ op: GatewayOpcodes.Dispatch, t: 'READY', s: 1 });
    await gateway.close();
  });

  it('closes with 4007 a resume whose seq it never sent, and the session is over', async () => {
    const { gateway, sessionId, seq } = await identified(emu, 1);
    await gateway.close(4000);
    const next = await connect(emu);
    next.send(GatewayOpcodes.Resume, { token: TOKEN, session_id: sessionId, seq: (seq ?? 0) + 5 });
    expect(await next.closedWithin()).toEqual({ code: 4007, reason: 'Invalid seq.' });
    const again = await connect(emu);
    again.send(GatewayOpcodes.Resume, { token: TOKEN, session_id: sessionId, seq });
    expect(await again.next()).toEqual({ op: GatewayOpcodes.InvalidSession, d: false, s: null, t: null });
    await again.close();
  });

  it('answers INVALID_SESSION, not a close, to a resume with another token, and keeps the session', async () => {
    const own = await startDiscordEmulator({ botToken: TOKEN });
    try {
      own.createGuild({ name: 'Token HQ' });
      const { gateway, sessionId, seq } = await identified(own, 1);
      await gateway.close(4000);
      const wrong = await connect(own);
      wrong.send(GatewayOpcodes.Resume, { token: 'someone-else', session_id: sessionId, seq });
      expect(await wrong.next()).toEqual({ op: GatewayOpcodes.InvalidSession, d: false, s: null, t: null });
      await wrong.close();
      // The session was not the wrong token's to end: its own token still resumes it.
      const right = await connect(own);
      right.send(GatewayOpcodes.Resume, { token: TOKEN, session_id: sessionId, seq });
      expect(await right.next()).toMatchObject({ op: GatewayOpcodes.Dispatch, t: 'RESUMED' });
      await right.close();
    } finally {
      await own.close();
    }
  });

  it('makes discord.js identify again, with every channel in its cache', async () => {
    const bot = await loginToEmulator(emu, { token: TOKEN });
    try {
      const identifiedAgain = once(emu.events, 'identify', { signal: AbortSignal.timeout(10_000) });
      emu.disconnectAll();
      const channels = Array.from({ length: 1_001 }, (_, index) =>
        emu.createChannel(guild.id, { name: `late-${index}` }),
      );
      await identifiedAgain;
      await expect
        .poll(() => channels.every((created) => bot.client.channels.cache.has(created.id)), {
          timeout: 10_000,
        })
        .toBe(true);
    } finally {
      await bot.client.destroy();
    }
  }, 20_000);
});
