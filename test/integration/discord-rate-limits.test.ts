/**
 * Rate limits from Discord's side that the bot does not wait out: a 429 that says nothing about how
 * long to wait (which @discordjs/rest alone sends again at once, for ever) and one that asks for an
 * hour. Both fail the request after one try; a short wait is still waited out and the request sent
 * again. Real HTTP, against a server that answers as told.
 */
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RateLimitError, Routes } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createDiscordClient, createDiscordRest } from '../../src/bot/client.js';

type Answer = (res: ServerResponse) => void;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

const tooMany =
  (headers: Record<string, string> = {}): Answer =>
  (res) => {
    res.writeHead(429, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify({ message: 'You are being rate limited.', retry_after: 0.1, global: false }));
  };
const created: Answer = (res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ id: '10', channel_id: '1', content: 'hi', embeds: [] }));
};

/** A server answering each request with the next answer (the last one from then on). */
async function fakeDiscord(answers: Answer[]) {
  const paths: string[] = [];
  const server = createServer((req, res) => {
    paths.push(`${req.method} ${req.url}`);
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
  return { apiUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`, paths };
}

describe('a rate limit the bot does not wait out', () => {
  it('fails a channel message at once when the 429 says nothing about how long to wait', async () => {
    const discord = await fakeDiscord([tooMany()]);
    const client = createDiscordClient({ apiUrl: discord.apiUrl });
    client.rest.setToken('test-token');
    await expect(
      client.rest.post(Routes.channelMessages('1'), { body: { content: 'hi' } }),
    ).rejects.toBeInstanceOf(RateLimitError);
    expect(discord.paths).toEqual(['POST /api/v10/channels/1/messages']);
  });

  it('fails an interaction’s edit at once when the 429 says nothing about how long to wait', async () => {
    const discord = await fakeDiscord([tooMany()]);
    const client = createDiscordClient({ apiUrl: discord.apiUrl });
    await expect(
      client.rest.patch(Routes.webhookMessage('5', 'interaction-token', '@original'), {
        body: { content: 'done' },
        auth: false,
      }),
    ).rejects.toBeInstanceOf(RateLimitError);
    expect(discord.paths).toHaveLength(1);
  });

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
