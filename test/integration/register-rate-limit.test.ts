/**
 * `npm run register` against a Discord that rate-limits it: a short wait given in the body alone is
 * waited out; a long one (the daily limit on creating global commands) fails at once, saying when
 * to try again rather than printing an empty reason.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SlashCommandBuilder } from '@discordjs/builders';
import { describeRegisterFailure, registerCommands } from '../../src/bot/register.js';
import type { Command } from '../../src/bot/types.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A Discord whose command registration answers each request with the next of `answers`. */
async function discordAnswering(
  answers: { status: number; headers?: Record<string, string>; body: unknown }[],
) {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    req.resume();
    const answer = answers[Math.min(seen.length - 1, answers.length - 1)]!;
    res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
    res.end(JSON.stringify(answer.body));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { apiUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const commands: Command[] = [
  {
    data: new SlashCommandBuilder().setName('ping').setDescription('pong'),
    execute: () => Promise.resolve(),
  },
];
const where = { applicationId: '111', guildId: undefined };

describe('registering commands while Discord rate-limits it', () => {
  it('waits out a short limit given only in the body’s retry_after, then registers', async () => {
    const discord = await discordAnswering([
      { status: 429, body: { message: 'You are being rate limited.', retry_after: 0.3, global: false } },
      { status: 200, body: [] },
    ]);
    await expect(
      registerCommands({ token: 'token', applicationId: '111', apiUrl: discord.apiUrl, commands }),
    ).resolves.toEqual([]);
    expect(discord.seen).toHaveLength(2);
  });

  it('fails at once on the daily limit, saying when to try again and why', async () => {
    const discord = await discordAnswering([
      {
        status: 429,
        headers: { 'retry-after': '7200' },
        body: {
          message: 'Max number of daily application command creates has been reached (200)',
          retry_after: 7200,
          global: false,
          code: 30034,
        },
      },
    ]);
    const error = await registerCommands({
      token: 'token',
      applicationId: '111',
      apiUrl: discord.apiUrl,
      commands,
    }).catch((caught: unknown) => caught);
    expect(discord.seen).toHaveLength(1);
    expect(describeRegisterFailure(error, { ...where, apiUrl: discord.apiUrl })).toBe(
      'Discord is rate-limiting command registration: try again in about 2 hours. Discord allows 200 ' +
        'creations of global commands a day; while setting up, register in one server (DISCORD_GUILD_ID) instead.',
    );
    expect(describeRegisterFailure(error, { ...where, guildId: '222', apiUrl: discord.apiUrl })).toBe(
      'Discord is rate-limiting command registration: try again in about 2 hours.',
    );
    // An hour reads as an hour (the library adds a margin of its own to the wait).
    const hour = await discordAnswering([
      { status: 429, headers: { 'retry-after': '3600' }, body: { message: 'Slow down', retry_after: 3600 } },
    ]);
    const inAnHour = await registerCommands({
      token: 't',
      applicationId: '111',
      apiUrl: hour.apiUrl,
      commands,
    }).catch((caught: unknown) => caught);
    expect(describeRegisterFailure(inAnHour, { ...where, guildId: '222', apiUrl: hour.apiUrl })).toBe(
      'Discord is rate-limiting command registration: try again in 60 minutes.',
    );
  });
});
