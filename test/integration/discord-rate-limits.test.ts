/**
 * Rate limits from Discord's side. A 429 gives its wait in the `Retry-After` header, else in the
 * body's `retry_after`, else in `X-RateLimit-Reset-After` (Discord's docs: "rely on the Retry-After
 * header or retry_after field"): any of them is waited out and the request sent again. A 429 that
 * gives no wait anywhere (which @discordjs/rest alone sends again at once, for ever) and one that
 * asks for an hour fail the request after one try. Real HTTP, against a server that answers as
 * told and against the Discord emulator.
 */
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RateLimitError, Routes } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startDiscordEmulator } from '../../emulators/discord/index.js';
import { createDiscordClient, createDiscordRest } from '../../src/bot/client.js';

type Answer = (res: ServerResponse) => void;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

const rateLimited = { message: 'You are being rate limited.', retry_after: 0.3, global: false };
const tooMany =
  (headers: Record<string, string> = {}, body: object = rateLimited): Answer =>
  (res) => {
    res.writeHead(429, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
/** A 429 that gives no wait: no `Retry-After`, no `retry_after`, no `X-RateLimit-Reset-After`. */
const noWait = tooMany({}, { message: 'You are being rate limited.', global: false });
const created: Answer = (res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ id: '10', channel_id: '1', content: 'hi', embeds: [] }));
};

/** A server answering each request with the next answer (the last one from then on). */
async function fakeDiscord(answers: Answer[]) {
  const paths: string[] = [];
  const at: number[] = [];
  const server = createServer((req, res) => {
    paths.push(`${req.method} ${req.url}`);
    at.push(performance.now());
    req.resume();
    answers[Math.min(paths.length, answers.length) - 1]!(res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  });
  return { apiUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`, paths, at };
}

/** A channel message as the bot posts one (through its own REST manager), or an interaction's edit. */
const requests = {
  'channel message': (apiUrl: string) => {
    const client = createDiscordClient({ apiUrl });
    client.rest.setToken('test-token');
    closers.push(() => client.destroy());
    return client.rest.post(Routes.channelMessages('1'), { body: { content: 'hi' } });
  },
  'interaction edit': (apiUrl: string) => {
    const client = createDiscordClient({ apiUrl });
    closers.push(() => client.destroy());
    return client.rest.patch(Routes.webhookMessage('5', 'interaction-token', '@original'), {
      body: { content: 'done' },
      auth: false,
    });
  },
};

describe.each(Object.entries(requests))('a rate-limited %s', (_, send) => {
  it('waits out a wait given only in the body’s retry_after, then sends the request again', async () => {
    const discord = await fakeDiscord([tooMany(), created]);
    await expect(send(discord.apiUrl)).resolves.toMatchObject({ id: '10' });
    expect(discord.paths).toHaveLength(2);
    expect(discord.at[1]! - discord.at[0]!).toBeGreaterThanOrEqual(300);
  });

  it('waits out a wait given only in X-RateLimit-Reset-After', async () => {
    const discord = await fakeDiscord([tooMany({ 'x-ratelimit-reset-after': '0.3' }, {}), created]);
    await expect(send(discord.apiUrl)).resolves.toMatchObject({ id: '10' });
    expect(discord.paths).toHaveLength(2);
    expect(discord.at[1]! - discord.at[0]!).toBeGreaterThanOrEqual(300);
  });

  it('takes the Retry-After header before the body’s retry_after', async () => {
    const discord = await fakeDiscord([tooMany({ 'retry-after': '3600' }), created]);
    const error = await send(discord.apiUrl).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBeGreaterThanOrEqual(3_600_000);
    expect(discord.paths).toHaveLength(1);
  });

  it('fails at once when the 429 gives no wait anywhere', async () => {
    const discord = await fakeDiscord([noWait, created]);
    await expect(send(discord.apiUrl)).rejects.toBeInstanceOf(RateLimitError);
    expect(discord.paths).toHaveLength(1);
  });

  it.each([
    ['X-RateLimit-Global: false', { 'retry-after': '3600', 'x-ratelimit-global': 'false' }, {}, false],
    ['global: true in the body', { 'retry-after': '3600' }, { ...rateLimited, global: true }, true],
    ['X-RateLimit-Global: true', { 'retry-after': '3600', 'x-ratelimit-global': 'true' }, {}, true],
  ])('reads whether the limit is global from %s', async (_, headers, body, global) => {
    const discord = await fakeDiscord([tooMany(headers, body)]);
    const error = await send(discord.apiUrl).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toHaveProperty('global', global);
  });
});

describe('a rate limit the bot does not wait out', () => {
  it('fails a request that is asked to wait an hour, instead of holding it', async () => {
    const discord = await fakeDiscord([tooMany({ 'retry-after': '3600' })]);
    const rest = createDiscordRest({ apiUrl: discord.apiUrl, token: 'test-token' });
    await expect(rest.post(Routes.channelMessages('1'), { body: { content: 'hi' } })).rejects.toBeInstanceOf(
      RateLimitError,
    );
    expect(discord.paths).toHaveLength(1);
  });

  it('still waits out a short limit and sends the request again', async () => {
    const discord = await fakeDiscord([tooMany({ 'retry-after': '0.2' }), created]);
    const rest = createDiscordRest({ apiUrl: discord.apiUrl, token: 'test-token' });
    await expect(rest.post(Routes.channelMessages('1'), { body: { content: 'hi' } })).resolves.toMatchObject({
      id: '10',
    });
    expect(discord.paths).toHaveLength(2);
  });
});

describe('a 429 from the Discord emulator without Retry-After (a fault it injects on request)', () => {
  it('is waited out from its body’s retry_after, and the message then posted once', async () => {
    const emu = await startDiscordEmulator();
    closers.push(() => emu.close());
    const guild = emu.createGuild({ name: 'HQ' });
    const channel = emu.createChannel(guild.id, { name: 'general' });
    const rest = createDiscordRest({ apiUrl: emu.restUrl, token: 'emulator-bot-token' });
    emu.setRateLimit({
      route: /^\/channels\/\d+\/messages$/,
      remaining: 0,
      resetAfterMs: 400,
      omitRetryAfterHeader: true,
    });
    const started = performance.now();
    await expect(
      rest.post(Routes.channelMessages(channel.id), { body: { content: 'hi' } }),
    ).resolves.toMatchObject({ content: 'hi' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(350);
    const refused = emu.requests.filter((request) => request.status === 429);
    expect(refused).toHaveLength(1);
    expect(emu.messages(channel.id).map((message) => message.content)).toEqual(['hi']);
  });
});
