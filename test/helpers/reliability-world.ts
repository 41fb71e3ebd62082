/**
 * The bot in-process against the three emulators, like `startBotWorld`, but with a fault proxy in
 * front of each upstream (Discord REST, the music API and token endpoint, the weather hosts) and
 * canary values for every secret, the token encryption keys (current and old, base64 and hex)
 * included. The logger is built the way `src/compose.ts` builds it, with its `secretsOf`, so what
 * it strips is what production strips; every error handed to it is also kept as it was thrown, so
 * that error messages are searched before the logger's scrubbing, not only after.
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
import { secretsOf } from '../../src/compose.js';
import { startApp, type App } from '../../src/index.js';
import { createLogger, type Logger } from '../../src/logger.js';
import { ANSWERED_PRIVATELY_TEXTS } from '../../src/bot/private-answer.js';
import { linkButtonUrl } from './bot.js';
import { startFaultProxy, type FaultProxy } from './reliability-proxy.js';

/**
 * `url` with a canary password, for a Redis whose default user has none (it then takes any, as
 * CI's does), or `url` itself when it carries a password of its own (a secret all the same).
 */
export function withCanaryPassword(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) return url;
  parsed.username ||= 'default';
  parsed.password = 'CANARYredispassw0rd-0005';
  return parsed.toString();
}

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
  /** The messages of every error the bot logged (with their causes), as thrown, before scrubbing. */
  errors: string[];
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
    /** The bot's clock (link states, token expiry, schedules) runs this far ahead of the real one. */
    clock?: { offsetMs: number };
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
  const { httpPort, publicUrl, music } = await startCanaryMusic();
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
  const errors: string[] = [];
  // The current key as base64 (openssl rand -base64 32), the old ones as hex and base64.
  const oldKeys = [randomBytes(32).toString('hex'), randomBytes(32).toString('base64')];
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
    TOKEN_ENCRYPTION_KEYS_OLD: oldKeys.join(','),
    WEATHER_API_KEY: CANARY.weatherKey,
    WEATHER_API_URL: viaProxy(proxies.weather, weather.apiUrl),
    WEATHER_PRO_URL: viaProxy(proxies.weather, weather.proUrl),
    WEATHER_HISTORY_URL: viaProxy(proxies.weather, weather.historyUrl),
    WEATHER_BULK_URL: viaProxy(proxies.weather, weather.bulkUrl),
    ...options.env,
  });
  const logger = keepingErrors(
    createLogger({
      level: 'trace',
      secrets: () => secretsOf(config),
      destination: new Writable({
        write(chunk: Buffer, _encoding, done) {
          logs.push(chunk.toString('utf8'));
          done();
        },
      }),
    }),
    errors,
  );
  const clock = options.clock;
  const appOptions = { logger, ...(clock ? { now: () => Date.now() + clock.offsetMs } : {}) };
  await registerCommands({
    token: CANARY.botToken,
    applicationId: discord.applicationId,
    guildId: guild.id,
    apiUrl: discord.restUrl,
    commands,
  });
  let app = await startApp(config, appOptions);
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
    errors,
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
      app = await startApp(config, appOptions);
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

/**
 * The text a member sees for an interaction once it is settled: the reply, its embeds (title,
 * description, fields), follow-ups.
 */
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
          // The neutral line a private answer passes through (see `answerPrivately`) is not it.
          !Object.values(ANSWERED_PRIVATELY_TEXTS).includes(original.content) &&
          first.type === InteractionResponseType.DeferredChannelMessageWithSource));
    if (done) {
      const messages = [original, ...followUps].filter((m) => m !== undefined);
      const text = messages
        .map((m) =>
          [
            m.content ?? '',
            ...(m.embeds ?? []).map((e) =>
              [e.title, e.description, ...(e.fields ?? []).flatMap((f) => [f.name, f.value])].join(' '),
            ),
          ].join(' '),
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
 * Every secret value the world has seen: the canaries and encryption keys from the configuration,
 * and, from the proxies' transcripts, every access token, refresh token, authorization code, state,
 * PKCE verifier and interaction token that went over the wire (Discord's traffic holds interaction
 * tokens, in the paths of responses, and states, in the link prompts' buttons).
 */
export function secretsSeen(world: ReliabilityWorld): Map<string, string> {
  const encryption = world.config.music?.encryption;
  return canarySecrets({
    encryptionKeys: encryption ? [encryption.current, ...encryption.previous] : [],
    redisUrl: world.config.storage.redisUrl,
    transcripts: [
      ...world.proxies.auth.transcript,
      ...world.proxies.music.transcript,
      ...world.proxies.discord.transcript,
    ],
  });
}

/**
 * The canaries, the token encryption keys (current and old) in every form they could be printed in
 * (base64, hex, and the byte list JSON makes of a Buffer), the password of a Redis URL, and every
 * OAuth value and interaction token found in the given transcripts (the music service's token and
 * API traffic, Discord's).
 */
export function canarySecrets(sources: {
  encryptionKeys?: readonly Buffer[];
  redisUrl?: string | undefined;
  transcripts: readonly string[];
}): Map<string, string> {
  const found = new Map<string, string>();
  const add = (kind: string, value: string | undefined) => {
    if (value && value.length >= 8) found.set(value, kind);
  };
  add('bot token', CANARY.botToken);
  add('client secret', CANARY.clientSecret);
  add('weather key', CANARY.weatherKey);
  for (const key of sources.encryptionKeys ?? []) {
    add('token encryption key', key.toString('base64'));
    add('token encryption key', key.toString('hex'));
    add('token encryption key', JSON.stringify([...key]).slice(1, -1));
  }
  if (sources.redisUrl) {
    const password = new URL(sources.redisUrl).password;
    add('Redis password', password);
    add('Redis password', decodeURIComponent(password));
  }
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
 * A message as text for the search for secrets: content, embeds and components (buttons' labels,
 * custom ids and URLs), all of it (the link prompt's start link carries a ticket, not the state).
 */
export function messageText(message: unknown): string {
  return JSON.stringify(message);
}

/**
 * Starts recording every message the bot creates or edits on `discord`, ephemeral ones included,
 * as members see them (see {@link messageText}), for the search for secrets.
 */
export function recordMessages(discord: Pick<DiscordEmulator, 'events'>): string[] {
  const messages: string[] = [];
  for (const event of ['message', 'messageUpdate'] as const) {
    discord.events.on(event, (message) => messages.push(messageText(message)));
  }
  return messages;
}

const LOG_METHODS: ReadonlySet<PropertyKey> = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace']);

/** The message of an error and of every error it wraps (`cause`, an AggregateError's `errors`). */
function errorMessages(error: unknown, depth = 0): string[] {
  if (!(error instanceof Error) || depth > 8) return [];
  const inner = [
    ...errorMessages(error.cause, depth + 1),
    ...(error instanceof AggregateError ? error.errors.flatMap((e) => errorMessages(e, depth + 1)) : []),
  ];
  return [`${error.name}: ${error.message}`, ...inner];
}

/**
 * The logger, keeping the message of every error logged through it (or its children), as it was
 * thrown: an error's message must hold no secret even where no logger scrubs it (Node printing an
 * unhandled one, a caller's own output). Errors are found as arguments and as fields of the object
 * logged (`{ err }`, `{ error }`).
 */
export function keepingErrors(logger: Logger, errors: string[]): Logger {
  const keep = (args: unknown[]) => {
    for (const arg of args) {
      errors.push(...errorMessages(arg));
      if (typeof arg === 'object' && arg !== null && !(arg instanceof Error)) {
        for (const value of Object.values(arg)) errors.push(...errorMessages(value));
      }
    }
  };
  return new Proxy(logger, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (property === 'child')
        return (...args: unknown[]) =>
          keepingErrors((value as (...a: unknown[]) => Logger).apply(target, args), errors);
      if (LOG_METHODS.has(property))
        return (...args: unknown[]) => {
          keep(args);
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
    set: (target, property, value) => Reflect.set(target, property, value),
  });
}

/**
 * The music emulator with the canary client credentials, and the free port and public URL of the
 * callback server it redirects to (the bot's HTTP_PORT and PUBLIC_URL).
 */
export async function startCanaryMusic(): Promise<{
  httpPort: number;
  publicUrl: string;
  music: MusicEmulator;
}> {
  const httpPort = await freePort();
  const publicUrl = `http://127.0.0.1:${httpPort}`;
  const music = await startMusicEmulator({
    clientId: CANARY.clientId,
    clientSecret: CANARY.clientSecret,
    redirectUris: [`${publicUrl}/callback`],
  });
  return { httpPort, publicUrl, music };
}

/** The kinds of secret every run of the test world holds values of, once a member has linked. */
export const WORLD_SECRET_KINDS = [
  'bot token',
  'client secret',
  'weather key',
  'token encryption key',
  'access token',
  'refresh token',
] as const;

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
  const hit = (place: string, text: string, kind: string, at: number) =>
    hits.push(`${kind} in ${place}: …${text.slice(Math.max(0, at - 80), at + 20)}…`);
  // Indexed by their first characters: a fuzz run sees thousands of interaction tokens, and each
  // text is then read once instead of once per secret.
  const PREFIX = 8;
  const byPrefix = new Map<string, [string, string][]>();
  const short: [string, string][] = [];
  for (const [secret, kind] of secrets) {
    if (secret.length < PREFIX) short.push([secret, kind]);
    else
      byPrefix.set(secret.slice(0, PREFIX), [
        ...(byPrefix.get(secret.slice(0, PREFIX)) ?? []),
        [secret, kind],
      ]);
  }
  for (const [place, texts] of Object.entries(places)) {
    for (const text of texts) {
      const found = new Set<string>();
      for (let at = 0; at + PREFIX <= text.length; at++) {
        for (const [secret, kind] of byPrefix.get(text.slice(at, at + PREFIX)) ?? []) {
          if (!found.has(secret) && text.startsWith(secret, at)) {
            found.add(secret);
            hit(place, text, kind, at);
          }
        }
      }
      for (const [secret, kind] of short)
        if (text.includes(secret)) hit(place, text, kind, text.indexOf(secret));
    }
  }
  return hits;
}
