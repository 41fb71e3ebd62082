/**
 * The demo's world: the emulators, a guild with two channels, two members (Alice, premium on the
 * music service, and Bob, free), the bot itself, and the playground page beside the Discord
 * emulator. Shared by `npm run demo` and the playground's browser test.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { APIUser } from 'discord-api-types/v10';
import { startPlayground, type Playground } from '../../emulators/discord/playground/server.js';
import { loadConfig } from '../../src/config.js';
import { registerCommands } from '../../src/bot/register.js';
import { commands } from '../../src/commands/index.js';
import { startApp, type App } from '../../src/index.js';
import { createLogger } from '../../src/logger.js';
import { DEFAULT_PORTS, startOffline, type OfflineWorld } from './offline.js';

export interface DemoWorld {
  offline: OfflineWorld;
  guildId: string;
  channelId: string;
  alice: APIUser;
  bob: APIUser;
  playground: Playground | undefined;
  close(): Promise<void>;
}

export async function startDemoWorld(options: {
  fixedPorts: boolean;
  playground: boolean;
  logLevel?: string;
}): Promise<DemoWorld> {
  const offline = await startOffline({ fixedPorts: options.fixedPorts });
  const dataDir = await mkdtemp(path.join(tmpdir(), 'bot-demo-'));
  // A demo that fails to start (a port in use) leaves nothing behind: no server, no data directory.
  let app: App | undefined;
  try {
    const alice = offline.discord.createUser({ username: 'alice', globalName: 'Alice', locale: 'en-US' });
    const bob = offline.discord.createUser({ username: 'bob', globalName: 'Bob', locale: 'en-GB' });
    const guild = offline.discord.createGuild({ name: 'Demo Server', ownerId: alice.id });
    const channel = offline.discord.createChannel(guild.id, { name: 'general' });
    const lounge = offline.discord.createChannel(guild.id, { name: 'lounge' });

    const config = loadConfig({
      ...offline.env,
      DISCORD_GUILD_ID: guild.id,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
    });
    const logger = createLogger({
      level: options.logLevel ?? 'warn',
      secrets: () => [config.discord.token],
    });
    await registerCommands({
      token: config.discord.token,
      applicationId: config.discord.applicationId,
      guildId: guild.id,
      apiUrl: config.discord.apiUrl,
      commands,
    });
    // The bot runs on the emulators' clock, so the playground's time control moves it too.
    const bot = await startApp(config, { logger, now: () => offline.clock.now() });
    app = bot;
    const fixtures = offline.music.fixtures?.users;
    const playground = options.playground
      ? await startPlayground({
          discord: offline.discord,
          guilds: [
            {
              id: guild.id,
              name: guild.name,
              channels: [
                { id: channel.id, name: 'general' },
                { id: lounge.id, name: 'lounge' },
              ],
            },
          ],
          users: [
            {
              id: alice.id,
              name: 'Alice',
              note: `owns the server; premium on the music service: link as ${fixtures?.premium ?? 'alice'}`,
            },
            {
              id: bob.id,
              name: 'Bob',
              note: `free on the music service: link as ${fixtures?.free ?? 'bob'}`,
            },
          ],
          clock: {
            now: () => offline.clock.now(),
            advance(ms: number) {
              offline.clock.advance(ms);
              bot.clockMoved();
            },
            reset() {
              offline.clock.reset();
              bot.clockMoved();
            },
          },
          port: options.fixedPorts ? DEFAULT_PORTS.playground : 0,
        })
      : undefined;

    return {
      offline,
      guildId: guild.id,
      channelId: channel.id,
      alice,
      bob,
      playground,
      async close() {
        await playground?.close();
        await bot.stop();
        await offline.close();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await app?.stop().catch(() => undefined);
    await offline.close().catch(() => undefined);
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}
