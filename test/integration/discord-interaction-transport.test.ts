/**
 * Interaction responses sent by the bot's own transport (src/bot/interaction-transport.ts) rather
 * than @discordjs/rest: what reaches Discord, what a caller gets back, and which answers it hands to
 * the library instead. Real HTTP, against a server that answers as told, and against the Discord
 * emulator through a proxy that can lose an answer.
 */
import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  DiscordAPIError,
  Events,
  RateLimitError,
  REST,
  RESTJSONErrorCodes,
  Routes,
  type ChatInputCommandInteraction,
  type Client,
  type InternalRequest,
  RequestMethod,
} from 'discord.js';
import type { APIGuild, APIUser } from 'discord-api-types/v10';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  startDiscordEmulator,
  type DiscordEmulator,
  type EmulatorChannel,
} from '../../emulators/discord/index.js';
import { createDiscordClient, rejectOnRateLimit } from '../../src/bot/client.js';
import { InteractionTransport } from '../../src/bot/interaction-transport.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}
type Answer = (res: ServerResponse, seen: Seen) => void | Promise<void>;

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Answer =>
  (res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
const noContent: Answer = (res) => {
  res.writeHead(204);
  res.end();
};
const later =
  (ms: number, answer: Answer): Answer =>
  async (res, seen) => {
    await new Promise((wake) => setTimeout(wake, ms));
    await answer(res, seen);
  };

/** A server answering each request with the next answer (the last one from then on). */
async function fakeDiscord(answers: Answer[], options: { timeout?: number } = {}) {
  const seen: Seen[] = [];
  const answered: number[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: performance.now(),
      };
      seen.push(request);
      res.on('finish', () => answered.push(performance.now()));
      void answers[Math.min(seen.length, answers.length) - 1]!(res, request);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
  const rest = new REST({ api: apiUrl, rejectOnRateLimit, ...options });
  const transport = new InteractionTransport(rest.options);
  closers.push(async () => {
    await transport.close();
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  });
  /** What the library would have sent instead, counted. */
  const handedOver: string[] = [];
  const fallback = (request: InternalRequest) => {
    handedOver.push(`${request.method} ${request.fullRoute}`);
    return rest.queueRequest(request);
  };
  return { apiUrl, seen, answered, transport, fallback, handedOver, rest };
}

/** A transport whose own sendings are refused a connection (nothing listens on its port). */
async function refusedTransport(rest: REST) {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  const transport = new InteractionTransport({ ...rest.options, api: `http://127.0.0.1:${port}/api` });
  closers.push(() => transport.close());
  return transport;
}

/** Takes the request in whole, then closes the connection without a word: the answer is lost. */
const lost: Answer = (res) => {
  res.socket?.destroy();
};
const alreadyAcknowledged = json(400, {
  message: 'Interaction has already been acknowledged.',
  code: RESTJSONErrorCodes.InteractionHasAlreadyBeenAcknowledged,
});

const APP = '111111111111111111';
const TOKEN = 'aW50ZXJhY3Rpb246dG9rZW4';
const edit = (content: string): InternalRequest => ({
  fullRoute: Routes.webhookMessage(APP, TOKEN, '@original'),
  method: RequestMethod.Patch,
  body: { content },
  auth: false,
});
const callback = (token = TOKEN): InternalRequest => ({
  fullRoute: Routes.interactionCallback('222222222222222222', token),
  method: RequestMethod.Post,
  body: { type: 5, data: { flags: 0 } },
  auth: false,
  query: new URLSearchParams({ with_response: 'false' }),
});
const followUp = (content: string): InternalRequest => ({
  fullRoute: Routes.webhook(APP, TOKEN),
  method: RequestMethod.Post,
  body: { content },
  auth: false,
  query: new URLSearchParams({ wait: 'true' }),
});
const read = async (response: Promise<{ json(): Promise<unknown> }>) => (await response).json();

describe('interaction responses on the bot’s own transport', () => {
  it('sends an edit of the original reply once, as the library would, and hands back Discord’s message', async () => {
    const message = { id: '333333333333333333', channel_id: '1', content: 'done', embeds: [] };
    const discord = await fakeDiscord([json(200, message)]);
    await expect(read(discord.transport.send(edit('done'), discord.fallback))).resolves.toEqual(message);
    expect(discord.handedOver).toEqual([]);
    expect(discord.seen).toHaveLength(1);
    const [request] = discord.seen;
    expect(request).toMatchObject({
      method: 'PATCH',
      url: `/api/v10${Routes.webhookMessage(APP, TOKEN, '@original')}`,
      body: JSON.stringify({ content: 'done' }),
    });
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['user-agent']).toMatch(/^DiscordBot \(/);
    expect(request!.headers.authorization).toBeUndefined();
  });

  it('acknowledges with its query string and takes a 204 with no body', async () => {
    const discord = await fakeDiscord([noContent]);
    const response = await discord.transport.send(callback(), discord.fallback);
    expect(response.status).toBe(204);
    expect(await response.arrayBuffer()).toHaveProperty('byteLength', 0);
    expect(discord.seen.map((seen) => seen.url)).toEqual([
      `/api/v10/interactions/222222222222222222/${TOKEN}/callback?with_response=false`,
    ]);
    expect(discord.handedOver).toEqual([]);
  });

  it('throws Discord’s refusal as the library does, without sending it again', async () => {
    const discord = await fakeDiscord([json(404, { message: 'Unknown interaction', code: 10062 })]);
    const error = await discord.transport.send(callback(), discord.fallback).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DiscordAPIError);
    expect(error).toMatchObject({ code: 10062, status: 404, method: 'POST', message: 'Unknown interaction' });
    expect(discord.seen).toHaveLength(1);
    expect(discord.handedOver).toEqual([]);
  });

  it('throws a refusal whose body is not Discord’s JSON as a refusal with its status, not a parse error', async () => {
    const cutShort: Answer = (res) => {
      res.writeHead(403, { 'content-type': 'application/json' });
      res.end('{"message": "Missing Acc');
    };
    const page: Answer = (res) => {
      res.writeHead(403, { 'content-type': 'text/html' });
      res.end('<html><body>Access denied</body></html>');
    };
    const discord = await fakeDiscord([cutShort, json(400, null), page]);
    for (let i = 0; i < 3; i++) {
      const error = await discord.transport.send(callback(), discord.fallback).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DiscordAPIError);
      expect(error).toMatchObject({ status: i === 1 ? 400 : 403, method: 'POST' });
    }
    expect(discord.seen).toHaveLength(3);
    expect(discord.handedOver).toEqual([]);
  });

  it('fails at once on a 429 that gives no wait anywhere', async () => {
    const discord = await fakeDiscord([json(429, { message: 'You are being rate limited.', global: false })]);
    await expect(discord.transport.send(edit('done'), discord.fallback)).rejects.toBeInstanceOf(
      RateLimitError,
    );
    expect(discord.seen).toHaveLength(1);
    expect(discord.handedOver).toEqual([]);
  });

  it.each([
    [
      'in its Retry-After header',
      json(429, { message: 'You are being rate limited.', retry_after: 0.2 }, { 'retry-after': '0.2' }),
    ],
    [
      'only in its body’s retry_after',
      json(429, { message: 'You are being rate limited.', retry_after: 0.2, global: false }),
    ],
  ])(
    'waits out a short 429 whose wait is %s, then sends the request again through the library',
    async (_, limited) => {
      const discord = await fakeDiscord([limited, json(200, { id: '3', content: 'done' })]);
      await expect(read(discord.transport.send(edit('done'), discord.fallback))).resolves.toMatchObject({
        content: 'done',
      });
      expect(discord.seen).toHaveLength(2);
      expect(discord.seen[1]!.at - discord.seen[0]!.at).toBeGreaterThanOrEqual(200);
      expect(discord.handedOver).toEqual([`PATCH ${Routes.webhookMessage(APP, TOKEN, '@original')}`]);
    },
  );

  it('hands a 5xx to the library, which tries it again', async () => {
    const discord = await fakeDiscord([json(502, { message: 'Bad Gateway' }), json(200, { id: '3' })]);
    await expect(read(discord.transport.send(edit('done'), discord.fallback))).resolves.toEqual({ id: '3' });
    expect(discord.seen).toHaveLength(2);
    expect(discord.handedOver).toHaveLength(1);
  });

  it('sends the requests of one interaction in order, each after the one before is answered', async () => {
    const discord = await fakeDiscord([later(150, json(200, { id: '3' })), json(200, { id: '4' })]);
    const [first, second] = await Promise.all([
      read(discord.transport.send(edit('done'), discord.fallback)),
      read(discord.transport.send(followUp('and one more'), discord.fallback)),
    ]);
    expect([first, second]).toEqual([{ id: '3' }, { id: '4' }]);
    expect(discord.seen.map((seen) => seen.method)).toEqual(['PATCH', 'POST']);
    expect(discord.seen[1]!.at).toBeGreaterThanOrEqual(discord.answered[0]!);
  });

  it('waits for a token’s bucket to refill when an answer says it is used up, rather than earn a 429', async () => {
    const usedUp = { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset-after': '0.4' };
    // Refuses anything on the token before the bucket the first answer described has refilled.
    const refills: Answer = (res, seen) => {
      const early = seen.at < discord.answered[0]! + 400;
      return (
        early
          ? json(429, { message: 'You are being rate limited.', retry_after: 0.4 })
          : json(200, { id: '4' })
      )(res, seen);
    };
    const discord = await fakeDiscord([json(200, { id: '3' }, usedUp), refills]);
    await read(discord.transport.send(edit('done'), discord.fallback));
    await expect(read(discord.transport.send(edit('done again'), discord.fallback))).resolves.toEqual({
      id: '4',
    });
    expect(discord.seen).toHaveLength(2);
    expect(discord.handedOver).toEqual([]);
  });

  it('gives up on an answer that does not come within the REST timeout, as the library would', async () => {
    const never: Answer = () => undefined;
    const discord = await fakeDiscord([never], { timeout: 300 });
    // A follow-up is not sent again once it may have reached Discord: it fails after one wait.
    await expect(discord.transport.send(followUp('hello?'), discord.fallback)).rejects.toThrow();
    expect(discord.seen).toHaveLength(1);
    // Held to a few seconds: the transport's own 15 s would run past it.
  }, 5_000);

  it('does not hold one interaction’s response behind another’s', async () => {
    const discord = await fakeDiscord([later(300, noContent), noContent]);
    const slow = discord.transport.send(callback('first-token'), discord.fallback);
    const quick = await discord.transport.send(callback('second-token'), discord.fallback);
    expect(quick.status).toBe(204);
    expect(discord.answered).toHaveLength(1);
    await slow;
  });

  it('leaves uploads to the library', async () => {
    const discord = await fakeDiscord([json(200, { id: '3' })]);
    const upload: InternalRequest = {
      ...edit('chart'),
      files: [{ name: 'chart.png', data: Buffer.from('png'), contentType: 'image/png' }],
    };
    await expect(read(discord.transport.send(upload, discord.fallback))).resolves.toEqual({ id: '3' });
    expect(discord.handedOver).toHaveLength(1);
    expect(discord.seen[0]!.headers['content-type']).toMatch(/^multipart\/form-data/);
  });
});

describe('a response whose first sending may have reached Discord', () => {
  it('takes “already acknowledged” as done when an acknowledgement whose answer was lost is sent again', async () => {
    const discord = await fakeDiscord([lost, alreadyAcknowledged]);
    const response = await discord.transport.send(callback(), discord.fallback);
    expect(response.status).toBe(204);
    expect(await response.arrayBuffer()).toHaveProperty('byteLength', 0);
    expect(discord.seen).toHaveLength(2);
    expect(discord.handedOver).toHaveLength(1);
  });

  it('takes it as done after a 5xx too', async () => {
    const discord = await fakeDiscord([json(502, { message: 'Bad Gateway' }), alreadyAcknowledged]);
    await expect(discord.transport.send(callback(), discord.fallback)).resolves.toHaveProperty('status', 204);
    expect(discord.seen).toHaveLength(2);
  });

  it('throws “already acknowledged” when it answers the first sending', async () => {
    const discord = await fakeDiscord([alreadyAcknowledged, noContent]);
    await expect(discord.transport.send(callback(), discord.fallback)).rejects.toMatchObject({
      code: RESTJSONErrorCodes.InteractionHasAlreadyBeenAcknowledged,
    });
    expect(discord.seen).toHaveLength(1);
  });

  it('throws it when the first sending never left (connection refused)', async () => {
    const discord = await fakeDiscord([alreadyAcknowledged]);
    const transport = await refusedTransport(discord.rest);
    await expect(transport.send(callback(), discord.fallback)).rejects.toBeInstanceOf(DiscordAPIError);
    expect(discord.seen).toHaveLength(1);
    expect(discord.handedOver).toHaveLength(1);
  });

  it('throws it when the acknowledgement asked for its response, which only Discord can give', async () => {
    const discord = await fakeDiscord([lost, alreadyAcknowledged]);
    const withResponse = { ...callback(), query: new URLSearchParams({ with_response: 'true' }) };
    await expect(discord.transport.send(withResponse, discord.fallback)).rejects.toMatchObject({
      code: RESTJSONErrorCodes.InteractionHasAlreadyBeenAcknowledged,
    });
    expect(discord.seen).toHaveLength(2);
  });

  it('does not post a follow-up again when its answer was lost, so it cannot show twice', async () => {
    const discord = await fakeDiscord([lost, json(200, { id: '4', content: 'and one more' })]);
    await expect(discord.transport.send(followUp('and one more'), discord.fallback)).rejects.toThrow();
    expect(discord.seen.map((seen) => `${seen.method} ${seen.url}`)).toEqual([
      `POST /api/v10${Routes.webhook(APP, TOKEN)}?wait=true`,
    ]);
    expect(discord.handedOver).toEqual([]);
  });

  it('posts a follow-up through the library when its own connection was refused', async () => {
    const discord = await fakeDiscord([json(200, { id: '4', content: 'and one more' })]);
    const transport = await refusedTransport(discord.rest);
    await expect(read(transport.send(followUp('and one more'), discord.fallback))).resolves.toMatchObject({
      id: '4',
    });
    expect(discord.seen).toHaveLength(1);
    expect(discord.handedOver).toEqual([`POST ${Routes.webhook(APP, TOKEN)}`]);
  });

  it('sends an edit again when its answer was lost (the same edit twice does no harm)', async () => {
    const discord = await fakeDiscord([lost, json(200, { id: '3', content: 'done' })]);
    await expect(read(discord.transport.send(edit('done'), discord.fallback))).resolves.toMatchObject({
      content: 'done',
    });
    expect(discord.seen).toHaveLength(2);
  });
});

/**
 * A proxy in front of the emulator that passes everything on, except that the first request
 * matching `loses` is passed on and its answer dropped (the connection closed once the emulator has
 * answered), as when a connection breaks between Discord and the bot.
 */
async function losingProxy(target: string, loses: RegExp) {
  const upstream = new URL(target);
  let armed = true;
  const server = createServer((req, res) => {
    const lose = armed && loses.test(`${req.method} ${req.url}`);
    if (lose) armed = false;
    const outgoing = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: upstream.host },
      },
      (answer) => {
        if (lose) {
          answer.resume();
          answer.on('end', () => res.socket?.destroy());
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    outgoing.on('error', () => res.destroy());
    req.pipe(outgoing);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    apiUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`,
    rearm: () => void (armed = true),
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

describe('the bot’s client against the Discord emulator', () => {
  let emu: DiscordEmulator;
  let proxy: Awaited<ReturnType<typeof losingProxy>>;
  let client: Client;
  let guild: APIGuild;
  let channel: EmulatorChannel;
  let user: APIUser;

  beforeAll(async () => {
    emu = await startDiscordEmulator();
    proxy = await losingProxy(new URL(emu.restUrl).origin, /^POST \/api\/v10\/interactions\/.+\/callback/);
    guild = emu.createGuild({ name: 'HQ' });
    channel = emu.createChannel(guild.id, { name: 'general' });
    user = emu.createUser({ username: 'ada' });
    client = createDiscordClient({ apiUrl: proxy.apiUrl });
    const ready = once(client, Events.ClientReady);
    await client.login('emulator-bot-token');
    await ready;
    await client.application!.commands.set([{ name: 'slow', description: 'defer, then edit' }], guild.id);
  });

  afterAll(async () => {
    await client.destroy();
    await proxy.close();
    await emu.close();
  });

  afterEach(() => emu.setRateLimit(null));

  async function runSlow() {
    const received = once(client, Events.InteractionCreate) as Promise<[ChatInputCommandInteraction]>;
    const handle = emu.slash({ guildId: guild.id, channelId: channel.id, userId: user.id, name: 'slow' });
    const [interaction] = await received;
    return { handle, interaction };
  }

  it('marks a command deferred when its acknowledgement landed but the answer was lost, and edits its “thinking…”', async () => {
    proxy.rearm();
    const { handle, interaction } = await runSlow();
    await interaction.deferReply();
    expect(interaction.deferred).toBe(true);
    await interaction.editReply({ content: 'done' });
    await expect(handle.reply()).resolves.toMatchObject({ content: 'done' });
    expect(handle.callbacks).toHaveLength(1);
    expect(handle.refusals.map((refusal) => refusal.code)).toEqual([
      RESTJSONErrorCodes.InteractionHasAlreadyBeenAcknowledged,
    ]);
  });

  it('waits out an acknowledgement’s 429 whose wait is only in its body’s retry_after', async () => {
    const { handle, interaction } = await runSlow();
    emu.setRateLimit({ route: /\/callback$/, remaining: 0, resetAfterMs: 400, omitRetryAfterHeader: true });
    const started = performance.now();
    await interaction.deferReply();
    expect(performance.now() - started).toBeGreaterThanOrEqual(350);
    await interaction.editReply({ content: 'done' });
    await expect(handle.reply()).resolves.toMatchObject({ content: 'done' });
    expect(emu.requestCount({ route: /\/callback$/, status: 429 })).toBe(1);
  });

  it('spaces an interaction’s edits by its webhook bucket (5 per 2 s), earning no 429', async () => {
    const { handle, interaction } = await runSlow();
    await interaction.deferReply();
    const started = performance.now();
    for (let index = 0; index < 7; index += 1) await interaction.editReply({ content: `step ${index}` });
    expect(performance.now() - started).toBeGreaterThan(1_000);
    await expect(handle.waitForEdit(7)).resolves.toMatchObject({ content: 'step 6' });
    expect(emu.requestCount({ route: /\/webhooks\//, status: 429 })).toBe(0);
  });
});

describe('the bot’s client', () => {
  it('answers an interaction through its own transport, not the library’s queues', async () => {
    const discord = await fakeDiscord([noContent, json(200, { id: '3', channel_id: '1', content: 'done' })]);
    const client = createDiscordClient({ apiUrl: discord.apiUrl });
    closers.push(() => client.destroy());
    const libraryQueues = vi.spyOn(REST.prototype, 'queueRequest');
    closers.push(() => Promise.resolve(libraryQueues.mockRestore()));
    await client.rest.post(Routes.interactionCallback('222222222222222222', TOKEN), {
      body: { type: 5 },
      auth: false,
    });
    await client.rest.patch(Routes.webhookMessage(APP, TOKEN, '@original'), {
      body: { content: 'done' },
      auth: false,
    });
    expect(discord.seen.map((seen) => seen.method)).toEqual(['POST', 'PATCH']);
    expect(libraryQueues).not.toHaveBeenCalled();
  });
});
