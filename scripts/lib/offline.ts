/**
 * Starts the local emulators and the environment that points the bot at them: shared by
 * `npm run demo` and `npm run emulators`.
 */
import { randomBytes } from 'node:crypto';
import { startDiscordEmulator, type DiscordEmulator } from '../../emulators/discord/index.js';
import { startMusicEmulator, type MusicEmulator } from '../../emulators/music/index.js';
import { freePort } from '../../emulators/net.js';
import { startWeatherEmulator, type WeatherEmulator } from '../../emulators/weather/index.js';

export const DEFAULT_PORTS = {
  discord: 8790,
  music: 8791,
  weather: 8792,
  playground: 8793,
  callback: 8787,
} as const;

export const DEMO_BOT_TOKEN = 'demo-bot-token';
export const DEMO_WEATHER_KEY = 'demo-weather-key';

/**
 * The emulators' shared clock: real time plus an offset the playground's time control moves. The
 * demo's bot runs on it too (its scheduler, token expiry and link states).
 */
export interface OfflineClock {
  now(): number;
  advance(ms: number): void;
  reset(): void;
}

function offsetClock(): OfflineClock {
  let offsetMs = 0;
  return {
    now: () => Date.now() + offsetMs,
    advance(ms) {
      offsetMs += ms;
    },
    reset() {
      offsetMs = 0;
    },
  };
}

export interface OfflineWorld {
  clock: OfflineClock;
  discord: DiscordEmulator;
  music: MusicEmulator;
  weather: WeatherEmulator;
  /** Environment for the bot, pointing every upstream at an emulator. */
  env: Record<string, string>;
  /** One line per emulator: what it is and where. */
  describe(): string[];
  close(): Promise<void>;
}

/** Starts every emulator; `fixedPorts` uses the documented default ports, else free ones. */
export async function startOffline(options: { fixedPorts: boolean }): Promise<OfflineWorld> {
  const port = (name: keyof typeof DEFAULT_PORTS) => (options.fixedPorts ? DEFAULT_PORTS[name] : 0);
  const callbackPort = options.fixedPorts ? DEFAULT_PORTS.callback : await freePort();
  const publicUrl = `http://127.0.0.1:${callbackPort}`;
  const clock = offsetClock();
  const now = () => clock.now();
  const discord = await startDiscordEmulator({ port: port('discord'), botToken: DEMO_BOT_TOKEN, now });
  const music = await startMusicEmulator({
    port: port('music'),
    redirectUris: [`${publicUrl}/callback`],
    now,
  });
  const weather = await startWeatherEmulator({ port: port('weather'), apiKeys: [DEMO_WEATHER_KEY], now });
  const env: Record<string, string> = {
    DISCORD_TOKEN: DEMO_BOT_TOKEN,
    DISCORD_APPLICATION_ID: discord.applicationId,
    DISCORD_API_URL: discord.restUrl,
    MUSIC_CLIENT_ID: music.clientId,
    MUSIC_CLIENT_SECRET: music.clientSecret,
    MUSIC_API_URL: music.apiUrl,
    MUSIC_AUTH_URL: music.authUrl,
    TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    WEATHER_API_KEY: DEMO_WEATHER_KEY,
    WEATHER_API_URL: weather.apiUrl,
    WEATHER_PRO_URL: weather.proUrl,
    WEATHER_HISTORY_URL: weather.historyUrl,
    WEATHER_BULK_URL: weather.bulkUrl,
    HTTP_PORT: String(callbackPort),
    PUBLIC_URL: publicUrl,
  };
  return {
    clock,
    discord,
    music,
    weather,
    env,
    describe: () => [
      `Discord  REST ${discord.restUrl}  gateway ${discord.gatewayUrl}`,
      `Music    API ${music.apiUrl}  accounts ${music.authUrl}  (redirect URI ${publicUrl}/callback)`,
      `Weather  ${weather.apiUrl}  pro ${weather.proUrl}  history ${weather.historyUrl}  bulk ${weather.bulkUrl}`,
    ],
    async close() {
      await Promise.all([discord.close(), music.close(), weather.close()]);
    },
  };
}
