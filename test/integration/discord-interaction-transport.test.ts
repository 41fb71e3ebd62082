/**
 * Interaction responses sent by the bot's own transport (src/bot/interaction-transport.ts) rather
 * than @discordjs/rest: what reaches Discord, what a caller gets back, and which answers it hands to
 * the library instead. Real HTTP, against a server that answers as told.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  DiscordAPIError,
  RateLimitError,
  REST,
  Routes,
  type InternalRequest,
  RequestMethod,
} from 'discord.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
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
async function fakeDiscord(answers: Answer[]) {
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
  const rest = new REST({ api: apiUrl, rejectOnRateLimit });
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
  return { apiUrl, seen, answered, transport, fallback, handedOver };
}

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

  it('fails at once on a 429 that says nothing about how long to wait', async () => {
    const discord = await fakeDiscord([json(429, { message: 'You are being rate limited.', global: false })]);
    await expect(discord.transport.send(edit('done'), discord.fallback)).rejects.toBeInstanceOf(
      RateLimitError,
    );
    expect(discord.seen).toHaveLength(1);
    expect(discord.handedOver).toEqual([]);
  });

  it('waits out a short 429, then sends the request again through the library', async () => {
    const discord = await fakeDiscord([
      json(429, { message: 'You are being rate limited.', retry_after: 0.2 }, { 'retry-after': '0.2' }),
      json(200, { id: '3', content: 'done' }),
    ]);
    await expect(read(discord.transport.send(edit('done'), discord.fallback))).resolves.toMatchObject({
      content: 'done',
    });
    expect(discord.seen).toHaveLength(2);
    expect(discord.seen[1]!.at - discord.seen[0]!.at).toBeGreaterThanOrEqual(200);
    expect(discord.handedOver).toEqual([`PATCH ${Routes.webhookMessage(APP, TOKEN, '@original')}`]);
  });

  it('hands a 5xx to the library, which tries it again', async () => {
    const discord = await fakeDiscord([json(502, { message: 'Bad Gateway' }), json(200, { id: '3' })]);
    await expect(read(discord.transport.send(edit('done'), discord.fallback))).resolves.toEqual({ id: '3' });
    expect(discord.seen).toHaveLength(2);
    expect(discord.handedOver).toHaveLength(1);
  });

  it('sends the requests of one interaction in order, each after the one before is answered', async () => {
    const discord = await fakeDiscord([later(150, json(200, { id: '3' })), json(200, { id: '4' })]);
    const followUp: InternalRequest = {
      fullRoute: Routes.webhook(APP, TOKEN),
      method: RequestMethod.Post,
      body: { content: 'and one more' },
      auth: false,
    };
    const [first, second] = await Promise.all([
      read(discord.transport.send(edit('done'), discord.fallback)),
      read(discord.transport.send(followUp, discord.fallback)),
    ]);
    expect([first, second]).toEqual([{ id: '3' }, { id: '4' }]);
    expect(discord.seen.map((seen) => seen.method)).toEqual(['PATCH', 'POST']);
    expect(discord.seen[1]!.at).toBeGreaterThanOrEqual(discord.answered[0]!);
  });

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
