/**
 * Scale-out with real processes: two shard processes (`SHARD_COUNT=2`, `SHARD_IDS=0` / `1`, `WEB=off`)
 * and one web process (`src/web.ts`) on one Redis, against a two-shard Discord emulator with four
 * guilds, two on each shard. Schedules run on BullMQ (`SCHEDULER=queue`).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  shardIdForGuild,
  startDiscordEmulator,
  type DiscordEmulator,
} from '../../emulators/discord/index.js';
import { startMusicEmulator, type MusicEmulator } from '../../emulators/music/index.js';
import { completeLink } from '../../emulators/music/walk.js';
import { freePort } from '../../emulators/net.js';
import { startWeatherEmulator, type WeatherEmulator } from '../../emulators/weather/index.js';
import { registerCommands } from '../../src/bot/register.js';
import { commands } from '../../src/commands/index.js';
import { ScheduleStore } from '../../src/services/schedules/store.js';
import { latestRun, nonceFor, slotKey } from '../../src/services/schedules/timing.js';
import type { Schedule } from '../../src/services/schedules/types.js';
import { createStorage } from '../../src/storage/index.js';
import { linkButtonUrl } from '../helpers/bot.js';
import { startBotProcess, type BotProcess } from '../helpers/bot-process.js';
import { cleanRedisPrefix, haveRedis, REDIS_URL, uniquePrefix } from '../helpers/services.js';
import { dailyPost, weatherEnv } from '../helpers/fixtures-env.js';

const redisReady = await haveRedis();
const TOKEN = 'shard-test-bot-token';
const KEY = 'shard-test-weather-key';

/** `HH:MM` in UTC of the first whole minute at least 25 s away, so every process is up before it. */
function soonUtc(): string {
  const at = new Date(Date.now() + 25_000 + 60_000);
  return `${String(at.getUTCHours()).padStart(2, '0')}:${String(at.getUTCMinutes()).padStart(2, '0')}`;
}

/** The guilds a process answered slash commands in, from its debug log. */
function answeredGuilds(bot: BotProcess): Set<string> {
  const guilds = new Set<string>();
  for (const line of bot.logs().split('\n')) {
    if (!line.includes('"slash command"')) continue;
    const entry = JSON.parse(line) as { guildId?: string };
    if (entry.guildId) guilds.add(entry.guildId);
  }
  return guilds;
}

describe.runIf(redisReady)('two shard processes and a web process on one Redis', () => {
  let discord: DiscordEmulator;
  let music: MusicEmulator;
  let weather: WeatherEmulator;
  const prefix = uniquePrefix('shards');
  const procs: BotProcess[] = [];
  let shards: BotProcess[];
  let shardEnv: (id: number) => Record<string, string>;
  const guilds: { id: string; channelId: string; shard: number }[] = [];
  let aliceId: string;
  let schedules: Schedule[];

  beforeAll(async () => {
    discord = await startDiscordEmulator({ botToken: TOKEN, shardCount: 2 });
    const webPort = await freePort();
    const publicUrl = `http://127.0.0.1:${webPort}`;
    music = await startMusicEmulator({ redirectUris: [`${publicUrl}/callback`] });
    weather = await startWeatherEmulator({ apiKeys: [KEY] });
    aliceId = discord.createUser({ username: 'alice', locale: 'en-US' }).id;
    for (const shard of [0, 1, 0, 1]) {
      const guild = discord.createGuild({
        name: `Guild ${guilds.length}`,
        ownerId: aliceId,
        shard: [shard, 2],
      });
      guilds.push({
        id: guild.id,
        channelId: discord.createChannel(guild.id, { name: 'general' }).id,
        shard,
      });
    }
    await registerCommands({
      token: TOKEN,
      applicationId: discord.applicationId,
      apiUrl: discord.restUrl,
      commands,
    });

    // One schedule per guild, due at the next minute that leaves every process time to start.
    const storage = await createStorage({ dataDir: 'unused', redisUrl: REDIS_URL, redisPrefix: prefix });
    const store = new ScheduleStore(storage, 25);
    const time = soonUtc();
    schedules = [];
    for (const guild of guilds) {
      schedules.push(
        await store.add(
          dailyPost({
            guildId: guild.id,
            channelId: guild.channelId,
            place: { lat: 52.52, lon: 13.405, label: 'Berlin, DE' },
            time: time,
            createdBy: aliceId,
          }),
        ),
      );
    }
    await storage.close();

    const common = {
      DISCORD_TOKEN: TOKEN,
      DISCORD_APPLICATION_ID: discord.applicationId,
      DISCORD_API_URL: discord.restUrl,
      MUSIC_CLIENT_ID: music.clientId,
      MUSIC_CLIENT_SECRET: music.clientSecret,
      MUSIC_API_URL: music.apiUrl,
      MUSIC_AUTH_URL: music.authUrl,
      MUSIC_API_VARIANT: music.variant,
      TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      ...weatherEnv(weather, KEY),
      PUBLIC_URL: publicUrl,
      REDIS_URL,
      REDIS_PREFIX: prefix,
      SCHEDULER: 'queue',
    };
    shardEnv = (id) => ({
      ...common,
      SHARD_COUNT: '2',
      SHARD_IDS: String(id),
      WEB: 'off',
      HTTP_PORT: '0',
      LOG_LEVEL: 'debug',
    });
    const web = startBotProcess({ ...common, HTTP_PORT: String(webPort) }, { entry: 'src/web.ts' });
    shards = [startBotProcess(shardEnv(0)), startBotProcess(shardEnv(1))];
    procs.push(web, ...shards);
    await Promise.all(procs.map((proc) => proc.ready));
  }, 60_000);

  afterAll(async () => {
    await Promise.all(procs.map((proc) => proc.kill('SIGKILL')));
    await Promise.all([discord?.close(), music?.close(), weather?.close()]);
    await cleanRedisPrefix(prefix);
  });

  const help = (guild: { id: string; channelId: string }, timeoutMs?: number) =>
    discord
      .slash({ guildId: guild.id, channelId: guild.channelId, userId: aliceId, name: 'help' })
      .reply(timeoutMs);

  it('connects one session per shard and answers a command in every guild from the shard that holds it', async () => {
    expect(
      discord
        .connectedShards()
        .map((s) => `${s.shardId}/${s.shardCount}`)
        .sort(),
    ).toEqual(['0/2', '1/2']);
    for (const guild of guilds) {
      expect(shardIdForGuild(guild.id, 2)).toBe(guild.shard);
      const reply = await help(guild);
      expect(reply.embeds.length + (reply.content?.length ?? 0)).toBeGreaterThan(0);
    }
    // A process logs the command after its reply is out, and the line reaches this process's pipe
    // later still: wait for the lines.
    for (const [shard, proc] of shards.entries()) {
      await expect
        .poll(() => [...answeredGuilds(proc)].sort(), { timeout: 10_000 })
        .toEqual(
          guilds
            .filter((g) => g.shard === shard)
            .map((g) => g.id)
            .sort(),
        );
    }
  });

  it('uses a link completed through the web process in a command on the other shard', async () => {
    const [onShard0, onShard1] = [guilds[0]!, guilds[1]!];
    const handle = discord.slash({
      guildId: onShard0.id,
      channelId: onShard0.channelId,
      userId: aliceId,
      name: 'music',
      subcommand: 'link',
    });
    const prompt = await handle.reply();
    const musicUser = music.fixtures!.users.premium;
    const page = await completeLink(music, linkButtonUrl(prompt), musicUser);
    expect(page.status).toBe(200);
    // The web process has no gateway: it edited the ephemeral reply through Discord REST.
    expect((await handle.waitForEdit()).embeds[0]?.title).toBe('Music account linked');

    const status = await discord
      .slash({
        guildId: onShard1.id,
        channelId: onShard1.channelId,
        userId: aliceId,
        name: 'music',
        subcommand: 'status',
      })
      .reply();
    const fields = Object.fromEntries((status.embeds[0]?.fields ?? []).map((f) => [f.name, f.value]));
    expect(fields['Linked as']).toContain(musicUser);
    await expect.poll(() => answeredGuilds(shards[1]!).has(onShard1.id), { timeout: 10_000 }).toBe(true);
  });

  it('serves a killed shard process’s guilds again once it is restarted', async () => {
    await shards[1]!.kill('SIGKILL');
    const shard1Guilds = guilds.filter((g) => g.shard === 1);
    // Shard 0 keeps answering; shard 1's guilds go unanswered while it is down.
    await help(guilds[0]!);
    await expect(help(shard1Guilds[0]!, 2_000)).rejects.toThrow();

    const restarted = startBotProcess(shardEnv(1));
    procs.push(restarted);
    shards[1] = restarted;
    await restarted.ready;
    for (const guild of shard1Guilds) await help(guild);
    await expect
      .poll(() => [...answeredGuilds(restarted)].sort(), { timeout: 10_000 })
      .toEqual(shard1Guilds.map((g) => g.id).sort());
  }, 40_000);

  it('posts every guild’s schedule exactly once, the kill and restart included', async () => {
    const posts = () =>
      guilds.flatMap((g) =>
        discord
          .messages(g.channelId)
          .filter((m) => m.nonce !== undefined && m.nonce !== null)
          .map((m) => `${g.channelId}|${String(m.nonce)}`),
      );
    await expect.poll(() => posts().length, { timeout: 100_000, interval: 250 }).toBeGreaterThanOrEqual(4);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const now = new Date();
    expect(posts().sort()).toEqual(
      schedules.map((s) => `${s.channelId}|${nonceFor(s.id, slotKey(s, latestRun(s, now)!))}`).sort(),
    );
  }, 110_000);
});

describe('the sharding manager on one host (src/shards.ts)', () => {
  /** The manager of three shard processes (started one after the other), without a callback server. */
  async function threeShards() {
    const discord = await startDiscordEmulator({ botToken: TOKEN, shardCount: 3 });
    const dataDir = await mkdtemp(path.join(tmpdir(), 'bot-shards-'));
    const manager = startBotProcess(
      {
        DISCORD_TOKEN: TOKEN,
        DISCORD_APPLICATION_ID: discord.applicationId,
        DISCORD_API_URL: discord.restUrl,
        DATA_DIR: dataDir,
        SHARD_COUNT: '3',
        WEB: 'off',
      },
      { entry: 'src/shards.ts' },
    );
    return { discord, dataDir, manager };
  }

  it('forks one process per shard, each answering its guilds, and serves the callback server itself', async () => {
    const discord = await startDiscordEmulator({ botToken: TOKEN, shardCount: 2 });
    const dataDir = await mkdtemp(path.join(tmpdir(), 'bot-shards-'));
    const port = await freePort();
    const manager = startBotProcess(
      {
        DISCORD_TOKEN: TOKEN,
        DISCORD_APPLICATION_ID: discord.applicationId,
        DISCORD_API_URL: discord.restUrl,
        DATA_DIR: dataDir,
        SHARD_COUNT: '2',
        HTTP_PORT: String(port),
        LOG_LEVEL: 'debug',
      },
      { entry: 'src/shards.ts' },
    );
    try {
      const userId = discord.createUser({ username: 'carol' }).id;
      const guilds = [0, 1].map((shard) => {
        const guild = discord.createGuild({ name: `Shard ${shard}`, ownerId: userId, shard: [shard, 2] });
        return { id: guild.id, channelId: discord.createChannel(guild.id, { name: 'general' }).id };
      });
      await registerCommands({
        token: TOKEN,
        applicationId: discord.applicationId,
        apiUrl: discord.restUrl,
        commands,
      });
      await manager.ready;
      expect(
        discord
          .connectedShards()
          .map((s) => `${s.shardId}/${s.shardCount}`)
          .sort(),
      ).toEqual(['0/2', '1/2']);
      for (const guild of guilds) {
        await discord.slash({ guildId: guild.id, channelId: guild.channelId, userId, name: 'help' }).reply();
      }
      // Two forks with their own pids answered, one guild each. A fork logs the command after its
      // reply is out, and its output reaches the manager's pipe later still: wait for both lines.
      const pids = () =>
        manager
          .logs()
          .split('\n')
          .filter((line) => line.includes('"slash command"'))
          .map((line) => (JSON.parse(line) as { pid: number }).pid);
      await expect.poll(() => new Set(pids()).size, { timeout: 10_000 }).toBe(2);
      expect(pids()).toHaveLength(2);
      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(health.status).toBe(200);
    } finally {
      await manager.kill('SIGTERM');
      await discord.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('starts again a shard that dies after it was ready while later shards are still starting', async () => {
    const { discord, dataDir, manager } = await threeShards();
    try {
      // discord.js starts the second shard once the first is ready: then the first is killed, as
      // the kernel's out-of-memory killer would.
      await expect
        .poll(() => manager.logs().includes('"shardId":1,"shardCount":3,"msg":"shard process started"'), {
          timeout: 30_000,
        })
        .toBe(true);
      const first = manager
        .logs()
        .split('\n')
        .find((line) => line.includes('"msg":"connected to Discord"'));
      const pid = (JSON.parse(first ?? '{}') as { pid?: number }).pid;
      expect(pid).toBeTypeOf('number');
      process.kill(pid!, 'SIGKILL');
      await manager.ready;
      expect(manager.logs()).toMatch(/"shardId":0[^\n]*"msg":"shard process died; respawning"/);
      expect(manager.logs()).not.toContain('ever ready');
      await expect
        .poll(
          () =>
            discord
              .connectedShards()
              .map((s) => s.shardId)
              .sort(),
          { timeout: 20_000 },
        )
        .toEqual([0, 1, 2]);
      expect(manager.child.exitCode).toBeNull();
    } finally {
      await manager.kill('SIGTERM');
      await discord.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 90_000);

  it('stops cleanly when asked to while its shards are still starting', async () => {
    const { discord, dataDir, manager } = await threeShards();
    // It is stopped before it is ready: that it never got there is asserted below.
    manager.ready.catch(() => undefined);
    try {
      // discord.js starts the shards one after the other: the second one is starting.
      await expect
        .poll(() => manager.logs().includes('"shardId":1,"shardCount":3,"msg":"shard process started"'), {
          timeout: 30_000,
        })
        .toBe(true);
      manager.child.kill('SIGTERM');
      expect(await manager.exited).toBe(0);
      expect(manager.logs()).not.toMatch(/could not start|unhandled|respawning/);
      expect(manager.logs()).not.toContain('every shard process is ready');
    } finally {
      await manager.kill('SIGKILL');
      await discord.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
