/**
 * The bot in-process against the three emulators, like `startBotWorld`, but with a fault proxy in
 * front of each upstream (Discord REST, the music API and token endpoint, the weather hosts) and
 * canary values for every secret. The logger is built the way `src/compose.ts` builds it, with
 * the configured secrets, so what it strips is what production strips.
 */
import { InteractionResponseType, MessageFlags } from 'discord-api-types/v10';
import { mkdtemp, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { startDiscordEmulator, type DiscordEmulator } from '../../emulators/discord/index.js';
import { startMusicEmulator, type MusicEmulator } from '../../emulators/music/index.js';
import { startWeatherEmulator, type WeatherEmulator } from '../../emulators/weather/index.js';
import { completeLink } from '../../emulators/music/walk.js';
import { freePort } from '../../emulators/net.js';
import { loadConfig } from '../../src/config.js';
import { registerCommands } from '../../src/bot/register.js';
import { commands } from '../../src/commands/index.js';
import { startApp, type App } from '../../src/index.js';
import { createLogger } from '../../src/logger.js';
import { linkButtonUrl } from './bot.js';
import { startFaultProxy, type FaultProxy } from './reliability-proxy.js';

/** Canary values: any of them found in an output is a leak. */
export const CANARY = {
  botToken: 'CANARYbottoken.Zx81kQ.canary-discord-0001',
  clientId: 'canaryclientid0000000000000000001',
  clientSecret: 'CANARYclientsecret0000000000000002',
  weatherKey: 'CANARYweatherkey000000000000000003',
} as const;

export interface ReliabilityWorld {
  discord: DiscordEmulator;
  music: MusicEmulator;
  weather: WeatherEmulator;
  proxies: { discord: FaultProxy; music: FaultProxy; auth: FaultProxy; weather: FaultProxy };
  app: App;
  config: ReturnType<typeof loadConfig>;
  guildId: string;
  channelId: string;
  alice: { id: string };
  bob: { id: string };
  publicUrl: string;
  logs: string[];
  dataDir: string;
  slash(
    name: string,
    options?: Omit<Parameters<DiscordEmulator['slash']>[0], 'guildId' | 'channelId' | 'userId' | 'name'> & {
      userId?: string;
    },
  ): ReturnType<DiscordEmulator['slash']>;
  /** /music link, consent, callback; returns the callback page. */
  linkMusic(discordUserId: string, musicUserId: string): Promise<string>;
  restart(): Promise<void>;
  close(): Promise<void>;
}

export async function startReliabilityWorld(
  options: {
    env?: Record<string, string>;
    /**
     * While `on`, access tokens the bot receives expire one second after they are issued in its
     * eyes (its skew is 60 s), so the next command refreshes.
     */
    shortTokens?: { on: boolean };
  } = {},
): Promise<ReliabilityWorld> {
  const proxies = {
    discord: await startFaultProxy(),
    music: await startFaultProxy(),
    auth: await startFaultProxy({
      rewrite: (body) =>
        options.shortTokens?.on ? body.replace(/"expires_in":\s*\d+/, '"expires_in":61') : body,
    }),
    weather: await startFaultProxy(),
  };
  const discord = await startDiscordEmulator({ botToken: CANARY.botToken });
  proxies.discord.setTarget(new URL(discord.restUrl).origin);
  const httpPort = await freePort();
  const publicUrl = `http://127.0.0.1:${httpPort}`;
  const music = await startMusicEmulator({
    clientId: CANARY.clientId,
    clientSecret: CANARY.clientSecret,
    redirectUris: [`${publicUrl}/callback`],
  });
  proxies.music.setTarget(new URL(music.apiUrl).origin);
  proxies.auth.setTarget(new URL(music.authUrl).origin);
  const weather = await startWeatherEmulator({ apiKeys: [CANARY.weatherKey] });
  proxies.weather.setTarget(new URL(weather.apiUrl).origin);
  const viaProxy = (proxy: FaultProxy, url: string) => {
    const parsed = new URL(url);
    return `${proxy.origin}${parsed.pathname.replace(/\/$/, '')}`;
  };

  const alice = discord.createUser({ username: 'alice', locale: 'en-US' });
  const bob = discord.createUser({ username: 'bob', locale: 'de' });
  const guild = discord.createGuild({ name: 'Reliability', ownerId: alice.id });
  const channel = discord.createChannel(guild.id, { name: 'general' });
  const dataDir = await mkdtemp(path.join(tmpdir(), 'bot-reliability-'));
  const logs: string[] = [];
  const config = loadConfig({
    DISCORD_TOKEN: CANARY.botToken,
    DISCORD_APPLICATION_ID: discord.applicationId,
    DISCORD_GUILD_ID: guild.id,
    DISCORD_API_URL: viaProxy(proxies.discord, discord.restUrl),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'trace',
    HTTP_PORT: String(httpPort),
    PUBLIC_URL: publicUrl,
    MUSIC_CLIENT_ID: music.clientId,
    MUSIC_CLIENT_SECRET: music.clientSecret,
    MUSIC_API_URL: viaProxy(proxies.music, music.apiUrl),
    MUSIC_AUTH_URL: viaProxy(proxies.auth, music.authUrl),
    MUSIC_API_VARIANT: music.variant,
    TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    WEATHER_API_KEY: CANARY.weatherKey,
    WEATHER_API_URL: viaProxy(proxies.weather, weather.apiUrl),
    WEATHER_PRO_URL: viaProxy(proxies.weather, weather.proUrl),
    WEATHER_HISTORY_URL: viaProxy(proxies.weather, weather.historyUrl),
    WEATHER_BULK_URL: viaProxy(proxies.weather, weather.bulkUrl),
    ...options.env,
  });
  const logger = createLogger({
    level: 'trace',
    secrets: () =>
      [config.discord.token, config.music?.clientSecret, config.weather?.apiKey].filter(
        (secret): secret is string => typeof secret === 'string',
      ),
    destination: new Writable({
      write(chunk: Buffer, _encoding, done) {
        logs.push(chunk.toString('utf8'));
        done();
      },
    }),
  });
  await registerCommands({
    token: CANARY.botToken,
    applicationId: discord.applicationId,
    guildId: guild.id,
    apiUrl: discord.restUrl,
    commands,
  });
  let app = await startApp(config, { logger });
  const world: ReliabilityWorld = {
    discord,
    music,
    weather,
    proxies,
    get app() {
      return app;
    },
    config,
    guildId: guild.id,
    channelId: channel.id,
    alice,
    bob,
    publicUrl,
    logs,
    dataDir,
    slash(name, slashOptions = {}) {
      const { userId = alice.id, ...rest } = slashOptions;
      return discord.slash({ guildId: guild.id, channelId: channel.id, userId, name, ...rest });
    },
    async linkMusic(discordUserId, musicUserId) {
      const reply = await world.slash('music', { subcommand: 'link', userId: discordUserId }).reply();
      const page = await completeLink(music, linkButtonUrl(reply), musicUserId);
      if (page.status !== 200) throw new Error(`linking ended on ${page.status}: ${page.body}`);
      return page.body;
    },
    async restart() {
      await app.stop();
      app = await startApp(config, { logger });
    },
    async close() {
      await app.stop();
      await discord.close();
      await music.close();
      await weather.close();
      await Promise.all(Object.values(proxies).map((proxy) => proxy.close()));
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return world;
}

/** The text a member sees for an interaction once it is settled: the reply, its embeds, follow-ups. */
export async function settledText(
  handle: ReturnType<DiscordEmulator['slash']>,
  timeoutMs: number,
): Promise<{ text: string; ephemeral: boolean; afterMs: number }> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    const first = handle.callbacks[0];
    const original = handle.original();
    const followUps = handle.followUps;
    const done =
      first !== undefined &&
      (first.type === InteractionResponseType.ChannelMessageWithSource ||
        first.type === InteractionResponseType.UpdateMessage ||
        followUps.length > 0 ||
        (original !== undefined &&
          ((original.flags ?? 0) & MessageFlags.Loading) === 0 &&
          first.type === InteractionResponseType.DeferredChannelMessageWithSource));
    if (done) {
      const messages = [original, ...followUps].filter((m) => m !== undefined);
      const text = messages
        .map((m) =>
          [m.content ?? '', ...(m.embeds ?? []).map((e) => `${e.title ?? ''} ${e.description ?? ''}`)].join(
            ' ',
          ),
        )
        .join('\n');
      const ephemeral = messages.some((m) => ((m.flags ?? 0) & 64) === 64);
      return { text, ephemeral, afterMs: Date.now() - started };
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`not settled within ${timeoutMs} ms (callbacks: ${JSON.stringify(handle.callbacks)})`);
}

/**
 * Every secret value the world has seen: the canaries and encryption key from the configuration,
 * and, from the proxies' transcripts, every access token, refresh token, authorization code, state,
 * PKCE verifier and interaction token that went over the wire (Discord's traffic holds interaction
 * tokens, in the paths of responses, and states, in the link prompts' buttons).
 */
export function secretsSeen(world: ReliabilityWorld): Map<string, string> {
  return canarySecrets({
    encryptionKey: world.config.music?.encryption?.current.toString('base64'),
    transcripts: [
      ...world.proxies.auth.transcript,
      ...world.proxies.music.transcript,
      ...world.proxies.discord.transcript,
    ],
  });
}

/**
 * The canaries, the token encryption key, and every OAuth value and interaction token found in the
 * given transcripts (the music service's token and API traffic, Discord's).
 */
export function canarySecrets(sources: {
  encryptionKey?: string | undefined;
  transcripts: readonly string[];
}): Map<string, string> {
  const found = new Map<string, string>();
  const add = (kind: string, value: string | undefined) => {
    if (value && value.length >= 8) found.set(value, kind);
  };
  add('bot token', CANARY.botToken);
  add('client secret', CANARY.clientSecret);
  add('weather key', CANARY.weatherKey);
  add('token encryption key', sources.encryptionKey);
  const patterns: [string, RegExp][] = [
    ['access token', /"access_token"\s*:\s*"([^"]+)"/g],
    ['refresh token', /"refresh_token"\s*:\s*"([^"]+)"/g],
    ['refresh token', /refresh_token=([^&\s"]+)/g],
    ['authorization code', /[?&]code=([^&\s"]+)/g],
    ['state', /[?&]state=([^&\s"]+)/g],
    ['PKCE verifier', /code_verifier=([^&\s"]+)/g],
    ['access token', /"authorization":"Bearer ([^"]+)"/gi],
    ['interaction token', /\/(?:webhooks|interactions)\/\d+\/([^/\s?]+)/g],
  ];
  for (const text of sources.transcripts) {
    for (const [kind, pattern] of patterns) {
      for (const match of text.matchAll(pattern)) add(kind, decodeURIComponent(match[1]!));
    }
  }
  return found;
}

/**
 * Starts recording every message the bot creates or edits on `discord`, ephemeral ones included,
 * as members see them, for the search for secrets. Buttons are left out: the link prompt carries
 * its own state in its button's URL by design (shown only to the member who asked); everything
 * else in a message must hold no secret.
 */
export function recordMessages(discord: Pick<DiscordEmulator, 'events'>): string[] {
  const messages: string[] = [];
  for (const event of ['message', 'messageUpdate'] as const) {
    discord.events.on(event, (message) =>
      messages.push(JSON.stringify({ ...message, components: undefined })),
    );
  }
  return messages;
}

/**
 * The kinds among `wanted` of which no value was seen. A search for secrets proves nothing about a
 * kind it had no value of, so each search first checks that this is empty.
 */
export function kindsNotSeen(secrets: Map<string, string>, wanted: readonly string[]): string[] {
  const seen = new Set(secrets.values());
  return wanted.filter((kind) => !seen.has(kind));
}

/** The places where a secret must never show up, with the secrets found in each. */
export function leaks(secrets: Map<string, string>, places: Record<string, readonly string[]>): string[] {
  const hits: string[] = [];
  for (const [place, texts] of Object.entries(places)) {
    for (const text of texts) {
      for (const [secret, kind] of secrets) {
        if (text.includes(secret))
          hits.push(
            `${kind} in ${place}: …${text.slice(Math.max(0, text.indexOf(secret) - 80), text.indexOf(secret) + 20)}…`,
          );
      }
    }
  }
  return hits;
}
