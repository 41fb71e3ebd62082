/**
 * Starts the whole bot, with the real discord.js client, against a Discord emulator on port 0,
 * in a world of one guild, one channel and two members. Extra environment (for instance the
 * music or weather emulators' URLs) goes in `env`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import {
  startDiscordEmulator,
  type DiscordEmulator,
  type DiscordEmulatorOptions,
} from '../../emulators/discord/index.js';
import {
  startMusicEmulator,
  type MusicEmulator,
  type MusicEmulatorOptions,
} from '../../emulators/music/index.js';
import {
  startWeatherEmulator,
  type WeatherEmulator,
  type WeatherEmulatorOptions,
} from '../../emulators/weather/index.js';
import { loadConfig } from '../../src/config.js';
import { registerCommands } from '../../src/bot/register.js';
import { commands } from '../../src/commands/index.js';
import { startApp, type App } from '../../src/index.js';
import { createLogger } from '../../src/logger.js';
import { completeLink } from '../../emulators/music/walk.js';
import { freePort } from '../../emulators/net.js';

export const TEST_BOT_TOKEN = 'test-bot-token-not-a-real-one';

export const TEST_WEATHER_KEY = 'test-weather-key-canary-0123456789';

export interface BotWorldOptions {
  /** Start the music emulator and configure the bot for it. */
  music?: boolean | Omit<MusicEmulatorOptions, 'redirectUris'>;
  /** Start the weather emulator and configure the bot for it. */
  weather?: boolean | Omit<WeatherEmulatorOptions, 'apiKeys'>;
  env?: Record<string, string>;
  /** Options for the Discord emulator (its clock, deadlines). */
  discord?: Omit<DiscordEmulatorOptions, 'botToken'>;
  /**
   * The bot's clock (`Date.now` by default), for what depends on today's date; give the weather
   * emulator the same one.
   */
  now?: () => number;
}

export interface BotWorld {
  discord: DiscordEmulator;
  music: MusicEmulator | undefined;
  weather: WeatherEmulator | undefined;
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
  /**
   * Links `discordUserId` to the music account `musicUserId` the way a member does: /music link,
   * the button's URL, consent, callback. Returns the callback page's HTML.
   */
  linkMusic(discordUserId: string, musicUserId: string): Promise<string>;
  /** Stops the bot and starts it again on the same storage (a restart). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export async function startBotWorld(options: BotWorldOptions = {}): Promise<BotWorld> {
  const discord = await startDiscordEmulator({ ...options.discord, botToken: TEST_BOT_TOKEN });
  const httpPort = await freePort();
  const publicUrl = `http://127.0.0.1:${httpPort}`;
  const env: Record<string, string> = { HTTP_PORT: String(httpPort), PUBLIC_URL: publicUrl };
  let music: MusicEmulator | undefined;
  if (options.music) {
    music = await startMusicEmulator({
      ...(options.music === true ? {} : options.music),
      redirectUris: [`${publicUrl}/callback`],
    });
    Object.assign(env, {
      MUSIC_CLIENT_ID: music.clientId,
      MUSIC_CLIENT_SECRET: music.clientSecret,
      MUSIC_API_URL: music.apiUrl,
      MUSIC_AUTH_URL: music.authUrl,
      MUSIC_API_VARIANT: music.variant,
      TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    });
  }
  let weather: WeatherEmulator | undefined;
  if (options.weather) {
    weather = await startWeatherEmulator({
      ...(options.weather === true ? {} : options.weather),
      apiKeys: [TEST_WEATHER_KEY],
    });
    Object.assign(env, {
      WEATHER_API_KEY: TEST_WEATHER_KEY,
      WEATHER_API_URL: weather.apiUrl,
      WEATHER_PRO_URL: weather.proUrl,
      WEATHER_HISTORY_URL: weather.historyUrl,
      WEATHER_BULK_URL: weather.bulkUrl,
    });
  }
  // Alice owns the server (so she has Manage Server); Bob is a plain member.
  const alice = discord.createUser({ username: 'alice', locale: 'en-US' });
  const bob = discord.createUser({ username: 'bob', locale: 'de' });
  const guild = discord.createGuild({ name: 'Test Server', ownerId: alice.id });
  const channel = discord.createChannel(guild.id, { name: 'general' });
  const dataDir = await mkdtemp(path.join(tmpdir(), 'bot-e2e-'));
  const logs: string[] = [];
  const config = loadConfig({
    DISCORD_TOKEN: TEST_BOT_TOKEN,
    DISCORD_APPLICATION_ID: discord.applicationId,
    DISCORD_GUILD_ID: guild.id,
    DISCORD_API_URL: discord.restUrl,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'debug',
    ...env,
    ...options.env,
  });
  const logger = createLogger({
    level: 'debug',
    secrets: () => [TEST_BOT_TOKEN, TEST_WEATHER_KEY, ...(music ? [music.clientSecret] : [])],
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
  let app = await startApp(config, { logger, ...(options.now ? { now: options.now } : {}) });
  const world: BotWorld = {
    discord,
    music,
    weather,
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
    async linkMusic(discordUserId, musicUserId) {
      if (!music) throw new Error('start the world with { music: true } to link accounts');
      const reply = await world.slash('music', { subcommand: 'link', userId: discordUserId }).reply();
      const url = linkButtonUrl(reply);
      const page = await completeLink(music, url, musicUserId);
      if (page.status !== 200) throw new Error(`linking ended on ${page.status}: ${page.body}`);
      return page.body;
    },
    async restart() {
      await app.stop();
      app = await startApp(config, { logger, ...(options.now ? { now: options.now } : {}) });
    },
    async close() {
      await app.stop();
      await discord.close();
      await music?.close();
      await weather?.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return world;
}

/** The URL of the first link button on a message. */
export function linkButtonUrl(message: { components?: unknown[] | undefined }): string {
  for (const row of message.components ?? []) {
    for (const component of (row as { components?: { url?: unknown }[] }).components ?? []) {
      if (typeof component.url === 'string') return component.url;
    }
  }
  throw new Error('the message has no link button');
}

/** The custom id of the button whose label is or contains `label`. */
export function buttonId(message: { components?: unknown[] | undefined }, label: string): string {
  for (const row of message.components ?? []) {
    for (const component of (row as { components?: { label?: string; custom_id?: string }[] }).components ??
      []) {
      if (component.custom_id !== undefined && component.label?.includes(label)) return component.custom_id;
    }
  }
  throw new Error(`no button "${label}" on the message`);
}
