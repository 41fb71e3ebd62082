/**
 * Crash safety with real bot processes: SIGKILL at random moments during a scheduled slot and
 * during a music token refresh, a restart after each. No schedule lost, no post doubled, no link
 * broken. 50 trials of each (CRASH_POSTING_TRIALS, CRASH_REFRESH_TRIALS change the counts).
 * The processes run with canary secrets (the token encryption keys, and on Redis a password in
 * REDIS_URL, included); every process's output and every message are searched for them afterwards
 * (a process killed mid-refresh must not have printed a token on its way out).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { startDiscordEmulator } from '../../emulators/discord/index.js';
import { completeLink } from '../../emulators/music/walk.js';
import { startWeatherEmulator } from '../../emulators/weather/index.js';
import { registerCommands } from '../../src/bot/register.js';
import { commands } from '../../src/commands/index.js';
import { ScheduleStore } from '../../src/services/schedules/store.js';
import { latestRun, nonceFor, slotKey } from '../../src/services/schedules/timing.js';
import type { Schedule } from '../../src/services/schedules/types.js';
import { createStorage, type StorageOptions } from '../../src/storage/index.js';
import { linkButtonUrl } from '../helpers/bot.js';
import { startBotProcess, type BotProcess } from '../helpers/bot-process.js';
import { dailyPost, weatherEnv } from '../helpers/fixtures-env.js';
import { startFaultProxy } from '../helpers/reliability-proxy.js';
import {
  CANARY,
  canarySecrets,
  kindsNotSeen,
  leaks,
  recordMessages,
  withCanaryPassword,
  startCanaryMusic,
} from '../helpers/reliability-world.js';
import { cleanRedisPrefix, haveRedis, REDIS_URL, uniquePrefix } from '../helpers/services.js';

const redisReady = await haveRedis();

const POSTING_TRIALS = Number(process.env['CRASH_POSTING_TRIALS'] ?? 50);
const REFRESH_TRIALS = Number(process.env['CRASH_REFRESH_TRIALS'] ?? 50);
/** Queue mode: each kill leaves jobs locked for BullMQ's stall interval, so fewer, slower trials. */
const QUEUE_TRIALS = Number(process.env['CRASH_QUEUE_TRIALS'] ?? 10);
/**
 * Each trial starts a bot process (a few seconds under tsx) and kills it up to 2.5 s later; a
 * refresh trial also waits for the restarted process's answer, and sometimes relinks: about 9 s a
 * trial on an idle two-core machine. 15 s a trial leaves room for a busy CI runner.
 */
const timeoutFor = (trials: number) => 90_000 + trials * 15_000;
const TOKEN = CANARY.botToken;
const KEY = CANARY.weatherKey;

const running: BotProcess[] = [];
/** Every bot process of the current test, killed ones included, for the search for secrets. */
const started: BotProcess[] = [];
const launch = (env: Record<string, string>) => {
  const bot = startBotProcess(env);
  running.push(bot);
  started.push(bot);
  return bot;
};
/** Secrets found in any process's output or in any message the bot created or edited. */
function leaked(secrets: Map<string, string>, messages: readonly string[]): string[] {
  expect(started.length, 'bot processes whose output is searched').toBeGreaterThan(1);
  return leaks(secrets, { 'process output': started.map((bot) => bot.logs()), 'Discord messages': messages });
}
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  started.length = 0;
  await Promise.all(running.splice(0).map((bot) => bot.kill('SIGKILL')));
  await Promise.all(
    cleanups
      .splice(0)
      .reverse()
      .map((c) => c()),
  );
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const PLACES = [
  { lat: 52.52, lon: 13.405, label: 'Berlin, DE' },
  { lat: 48.137, lon: 11.575, label: 'München, DE' },
  { lat: 51.507, lon: -0.128, label: 'London, GB' },
  { lat: 35.68, lon: 139.69, label: 'Tokyo, JP' },
];

interface SlotTrials {
  trials: number;
  /** Settings that differ from the default deployment (one process, SQLite, local scheduler). */
  env?: Record<string, string>;
  storage?: (dataDir: string) => StorageOptions;
  /** How long a killed process's unfinished work may stay held before another takes it over. */
  recoveryMs?: number;
}

/**
 * A slot of schedules, `trials` bot processes each killed at a random moment after it is ready,
 * then one left running: every schedule must be posted exactly once (same nonce, one message).
 */
async function killDuringSlot({
  trials,
  env: extraEnv = {},
  storage: storageFor,
  recoveryMs = 0,
}: SlotTrials) {
  const discord = await startDiscordEmulator({ botToken: TOKEN });
  const messages = recordMessages(discord);
  const weather = await startWeatherEmulator({ apiKeys: [KEY] });
  const dataDir = await mkdtemp(path.join(tmpdir(), 'bot-crash-'));
  cleanups.push(
    () => discord.close(),
    () => weather.close(),
    () => rm(dataDir, { recursive: true, force: true }),
  );
  // 50 channels over 5 servers, so that 3,000 schedules stay within the per-server limit of 1,000.
  const channels = Array.from({ length: 5 }, (_, g) => {
    const guild = discord.createGuild({ name: `Crash ${g}` });
    return Array.from({ length: 10 }, (_, i) => ({
      guildId: guild.id,
      id: discord.createChannel(guild.id, { name: `c${i}` }).id,
    }));
  }).flat();
  const now = new Date();
  const time = `${String(now.getUTCHours()).padStart(2, '0')}:${String(now.getUTCMinutes()).padStart(2, '0')}`;
  const storage = await createStorage(storageFor?.(dataDir) ?? { dataDir });
  const store = new ScheduleStore(storage, 1_000);
  const schedules: Schedule[] = [];
  // Enough posts that the slot is still being posted when the last kill falls (the bot posts
  // about 47 a second, and is killed on average 1.25 s after it is ready or has begun posting).
  const count = Math.max(150, trials * 60);
  for (let i = 0; i < count; i++) {
    schedules.push(
      await store.add(
        dailyPost({
          guildId: channels[i % channels.length]!.guildId,
          channelId: channels[i % channels.length]!.id,
          place: PLACES[i % PLACES.length]!,
          time,
        }),
      ),
    );
  }
  await storage.close();
  const env: Record<string, string> = {
    DISCORD_TOKEN: TOKEN,
    DISCORD_APPLICATION_ID: discord.applicationId,
    DISCORD_API_URL: discord.restUrl,
    ...weatherEnv(weather, KEY),
    HTTP_PORT: '0',
    SCHEDULES_PER_GUILD: '1000',
    DATA_DIR: dataDir,
    ...extraEnv,
  };
  const posts = () =>
    channels.flatMap((channel) =>
      discord.messages(channel.id).map((m) => `${channel.id}|${String(m.nonce)}`),
    );
  // Random kill moments, from fast-check so a failure replays: every other trial counts from the
  // process being ready (a kill while it reads the schedules, takes leases or posts), the others
  // from its first post (a kill in the middle of posting).
  const moments = fc.sample(fc.integer({ min: 0, max: 2_500 }), { numRuns: trials, seed: 11 });
  const progress: number[] = [];
  for (const [trial, moment] of moments.entries()) {
    const before = posts().length;
    const bot = launch(env);
    await bot.ready;
    if (trial % 2 === 1) {
      const waitUntil = Date.now() + 15_000;
      while (posts().length === before && Date.now() < waitUntil) await sleep(20);
    }
    await sleep(moment);
    await bot.kill('SIGKILL');
    running.splice(running.indexOf(bot), 1);
    progress.push(posts().length);
  }
  const last = launch(env);
  await last.ready;
  await expect
    .poll(() => posts().length, { timeout: 90_000 + recoveryMs, interval: 200 })
    .toBeGreaterThanOrEqual(count);
  await sleep(1_500);
  const expected = schedules
    .map((s) => `${s.channelId}|${nonceFor(s.id, slotKey(s, latestRun(s, now)!))}`)
    .sort();
  expect(posts().sort()).toEqual(expected);
  const secrets = canarySecrets({ redisUrl: env.REDIS_URL, transcripts: [] });
  if (env.REDIS_URL) expect(kindsNotSeen(secrets, ['Redis password'])).toEqual([]);
  expect(leaked(secrets, messages)).toEqual([]);
  return { progress, count };
}

describe('crash safety with SIGKILL and restart', () => {
  it(
    `posts every schedule exactly once through ${POSTING_TRIALS} kills at random moments of a slot`,
    async () => {
      const { progress, count } = await killDuringSlot({ trials: POSTING_TRIALS });
      console.log(`crash/posting: ${POSTING_TRIALS} kills, posts after each kill: ${progress.join(', ')}`);
      // The kills really fell inside the slot, not all before or after it.
      const inside = progress.filter((n, i) => n > (progress[i - 1] ?? 0) && n < count).length;
      expect(inside).toBeGreaterThanOrEqual(Math.ceil(POSTING_TRIALS / 2));
    },
    timeoutFor(POSTING_TRIALS),
  );

  it.runIf(redisReady)(
    `posts every schedule exactly once through ${QUEUE_TRIALS} kills mid-slot with SCHEDULER=queue on Redis`,
    async () => {
      const prefix = uniquePrefix('crash-queue');
      cleanups.push(() => cleanRedisPrefix(prefix));
      const { progress, count } = await killDuringSlot({
        trials: QUEUE_TRIALS,
        env: { REDIS_URL: withCanaryPassword(REDIS_URL), REDIS_PREFIX: prefix, SCHEDULER: 'queue' },
        storage: () => ({ dataDir: 'unused', redisUrl: REDIS_URL, redisPrefix: prefix }),
        // A killed worker's jobs stay locked until BullMQ's stall check hands them on (30 s).
        recoveryMs: 60_000,
      });
      console.log(`crash/queue: ${QUEUE_TRIALS} kills, posts after each kill: ${progress.join(', ')}`);
      expect(progress.some((n) => n > 0 && n < count)).toBe(true);
    },
    timeoutFor(QUEUE_TRIALS) + 120_000,
  );

  it(
    `keeps a member's link working through ${REFRESH_TRIALS} kills at random moments of a token refresh`,
    async () => {
      const discord = await startDiscordEmulator({ botToken: TOKEN });
      const messages = recordMessages(discord);
      const { httpPort, publicUrl, music } = await startCanaryMusic();
      const dataDir = await mkdtemp(path.join(tmpdir(), 'bot-crash-refresh-'));
      // Access tokens that the bot sees expire a second after they are issued (its skew is 60 s),
      // so every command past the first second refreshes.
      const auth = await startFaultProxy({
        rewrite: (body) => body.replace(/"expires_in":\s*\d+/, '"expires_in":61'),
      });
      auth.setTarget(new URL(music.authUrl).origin);
      cleanups.push(
        () => auth.close(),
        () => discord.close(),
        () => music.close(),
        () => rm(dataDir, { recursive: true, force: true }),
      );
      const alice = discord.createUser({ username: 'alice' });
      const guild = discord.createGuild({ name: 'Refresh', ownerId: alice.id });
      const channel = discord.createChannel(guild.id, { name: 'general' });
      await registerCommands({
        token: TOKEN,
        applicationId: discord.applicationId,
        guildId: guild.id,
        apiUrl: discord.restUrl,
        commands,
      });
      const keys = { current: randomBytes(32), old: randomBytes(32) };
      const env = {
        DISCORD_TOKEN: TOKEN,
        DISCORD_APPLICATION_ID: discord.applicationId,
        DISCORD_GUILD_ID: guild.id,
        DISCORD_API_URL: discord.restUrl,
        HTTP_PORT: String(httpPort),
        PUBLIC_URL: publicUrl,
        MUSIC_CLIENT_ID: music.clientId,
        MUSIC_CLIENT_SECRET: music.clientSecret,
        MUSIC_API_URL: music.apiUrl,
        MUSIC_AUTH_URL: `${auth.origin}${new URL(music.authUrl).pathname}`,
        MUSIC_API_VARIANT: music.variant,
        TOKEN_ENCRYPTION_KEY: keys.current.toString('base64'),
        TOKEN_ENCRYPTION_KEYS_OLD: keys.old.toString('hex'),
        DATA_DIR: dataDir,
      };
      const slash = (subcommand: string) =>
        discord.slash({
          guildId: guild.id,
          channelId: channel.id,
          userId: alice.id,
          name: 'music',
          subcommand,
        });
      const start = async () => {
        const bot = launch(env);
        await bot.ready;
        return bot;
      };
      let bot = await start();
      const prompt = await slash('link').reply();
      const page = await completeLink(music, linkButtonUrl(prompt), music.fixtures!.users.premium);
      expect(page.status).toBe(200);

      const textOf = (message: {
        content?: string | null;
        embeds?: { title?: string; description?: string }[];
      }) =>
        `${message.content ?? ''} ${(message.embeds ?? []).map((e) => `${e.title ?? ''} ${e.description ?? ''}`).join(' ')}`;
      // The premium member's devices, as the emulator was seeded with them: what a working link shows.
      const works = /Alice’s MacBook/;
      const devicesCalls = () => music.requestCount({ method: 'GET', path: '/v1/me/player/devices' });

      // Control: an expired access token is refreshed and the command works.
      await sleep(1_100);
      const control = await slash('devices').reply(15_000);
      expect(textOf(control)).toMatch(works);

      const moments = fc.sample(fc.integer({ min: 0, max: 500 }), { numRuns: REFRESH_TRIALS, seed: 7 });
      const outcomes: string[] = [];
      let broke = 0;
      let insideRefresh = 0;
      for (const moment of moments) {
        // The access token expires; the next command must refresh, and the kill falls before, during
        // or after that exchange.
        await sleep(1_100);
        // The token endpoint answers 250 ms late, so kills often fall inside the exchange.
        music.stallNext('/api/token', 250);
        const refreshesBefore = auth.received;
        const callsBefore = devicesCalls();
        slash('devices');
        await sleep(moment);
        await bot.kill('SIGKILL');
        running.splice(running.indexOf(bot), 1);
        // What the killed process had sent is still on its way for a moment.
        await sleep(200);
        // Did its refresh leave it (the service then rotates the refresh token, whether or not the
        // answer finds anyone), and did it call the API with the new access token afterwards? It
        // stores the new tokens before it uses them (src/auth/tokens.ts), so such a call means
        // they were stored.
        const refreshSent = auth.received - refreshesBefore;
        const usedNewToken = devicesCalls() - callsBefore;
        const inside = refreshSent > 0 && usedNewToken === 0;
        if (inside) insideRefresh++;
        bot = await start();
        const text = textOf(await slash('devices').reply(15_000));
        const broken = /link it again|Link your music account/i.test(text);
        outcomes.push(
          `kill at ${moment} ms: refresh sent ${refreshSent}x, API called with the new token ${usedNewToken}x; ${broken ? 'LINK BROKEN' : 'ok'}: ${text.trim().slice(0, 50)}`,
        );
        if (broken) {
          broke++;
          // Only a kill between the refresh leaving the bot and the bot storing the new refresh
          // token can lose the link (the service rotated it; the new one died with the process).
          // A kill before the refresh was sent, or after the new token was used, must not.
          expect(inside, outcomes.join('\n')).toBe(true);
          const again = await slash('link').reply();
          expect(
            (await completeLink(music, linkButtonUrl(again), music.fixtures!.users.premium)).status,
          ).toBe(200);
        } else {
          expect(text, outcomes.join('\n')).toMatch(works);
        }
      }
      console.log(
        `crash/refresh: ${insideRefresh} of ${REFRESH_TRIALS} kills fell inside a refresh round trip, ${broke} of them broke the link`,
      );
      console.log(`crash/refresh:\n${outcomes.join('\n')}`);
      // The kills fell where they were meant to: some inside a refresh, some outside it.
      expect(insideRefresh, outcomes.join('\n')).toBeGreaterThanOrEqual(Math.ceil(REFRESH_TRIALS / 5));
      expect(insideRefresh, outcomes.join('\n')).toBeLessThan(REFRESH_TRIALS);
      const secrets = canarySecrets({
        encryptionKeys: [keys.current, keys.old],
        transcripts: auth.transcript,
      });
      expect(
        kindsNotSeen(secrets, [
          'bot token',
          'client secret',
          'token encryption key',
          'access token',
          'refresh token',
          'authorization code',
        ]),
      ).toEqual([]);
      expect(leaked(secrets, messages)).toEqual([]);
    },
    timeoutFor(REFRESH_TRIALS),
  );
});
