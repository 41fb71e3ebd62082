/**
 * Starts the whole bot, with the real discord.js client, against a Discord emulator on port 0,
 * in a world of one guild, one channel and two members. Extra environment (for instance the
 * music or weather emulators' URLs) goes in `env`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { startDiscordEmulator, type DiscordEmulator } from '../../emulators/discord/index.js';
import { loadConfig } from '../../src/config.js';
import { registerCommands } from '../../src/bot/register.js';
import { commands } from '../../src/commands/index.js';
import { startApp, type App } from '../../src/index.js';
import { createLogger } from '../../src/logger.js';

export const TEST_BOT_TOKEN = 'test-bot-token-not-a-real-one';

export interface BotWorld {
  discord: DiscordEmulator;
  app: App;
  guildId: string;
  channelId: string;
  alice: { id: string };
  bob: { id: string };
  /** Every log line the bot wrote, as text. */
  logs: string[];
  dataDir: string;
  /** Runs `/name` as `userId` (Alice by default). */
  slash(
    name: string,
    options?: Omit<Parameters<DiscordEmulator['slash']>[0], 'guildId' | 'channelId' | 'userId' | 'name'> & {
      userId?: string;
    },
  ): ReturnType<DiscordEmulator['slash']>;
  /** Stops the bot and starts it again on the same storage (a restart). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export async function startBotWorld(env: Record<string, string> = {}): Promise<BotWorld> {
  const discord = await startDiscordEmulator({ botToken: TEST_BOT_TOKEN });
  const guild = discord.createGuild({ name: 'Test Server' });
  const channel = discord.createChannel(guild.id, { name: 'general' });
  const alice = discord.createUser({ username: 'alice', locale: 'en-US' });
  const bob = discord.createUser({ username: 'bob', locale: 'de' });
  const dataDir = await mkdtemp(path.join(tmpdir(), 'bot-e2e-'));
  const logs: string[] = [];
  const config = loadConfig({
    DISCORD_TOKEN: TEST_BOT_TOKEN,
    DISCORD_APPLICATION_ID: discord.applicationId,
    DISCORD_GUILD_ID: guild.id,
    DISCORD_API_URL: discord.restUrl,
    DATA_DIR: dataDir,
    HTTP_PORT: '0',
    LOG_LEVEL: 'debug',
    ...env,
  });
  const logger = createLogger({
    level: 'debug',
    secrets: () => [TEST_BOT_TOKEN],
    destination: new Writable({
      write(chunk: Buffer, _encoding, done) {
        logs.push(chunk.toString('utf8'));
        done();
      },
    }),
  });
  await registerCommands({
    token: TEST_BOT_TOKEN,
    applicationId: discord.applicationId,
    guildId: guild.id,
    apiUrl: discord.restUrl,
    commands,
  });
  let app = await startApp(config, { logger });
  const world: BotWorld = {
    discord,
    get app() {
      return app;
    },
    guildId: guild.id,
    channelId: channel.id,
    alice,
    bob,
    logs,
    dataDir,
    slash(name, options = {}) {
      const { userId = alice.id, ...rest } = options;
      return discord.slash({ guildId: guild.id, channelId: channel.id, userId, name, ...rest });
    },
    async restart() {
      await app.stop();
      app = await startApp(config, { logger });
    },
    async close() {
      await app.stop();
      await discord.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return world;
}
