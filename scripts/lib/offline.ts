/**
 * Starts the local emulators and the environment that points the bot at them: shared by
 * `npm run demo` and `npm run emulators`.
 */
import { startDiscordEmulator, type DiscordEmulator } from '../../emulators/discord/index.js';

export const DEFAULT_PORTS = { discord: 8790, music: 8791, weather: 8792, callback: 8787 } as const;

export const DEMO_BOT_TOKEN = 'demo-bot-token';

export interface OfflineWorld {
  discord: DiscordEmulator;
  /** Environment for the bot, pointing every upstream at an emulator. */
  env: Record<string, string>;
  /** One line per emulator: what it is and where. */
  describe(): string[];
  close(): Promise<void>;
}

/** Starts every emulator; `fixedPorts` uses the documented default ports, else free ones. */
export async function startOffline(options: { fixedPorts: boolean }): Promise<OfflineWorld> {
  const port = (name: keyof typeof DEFAULT_PORTS) => (options.fixedPorts ? DEFAULT_PORTS[name] : 0);
  const discord = await startDiscordEmulator({ port: port('discord'), botToken: DEMO_BOT_TOKEN });
  const env: Record<string, string> = {
    DISCORD_TOKEN: DEMO_BOT_TOKEN,
    DISCORD_APPLICATION_ID: discord.applicationId,
    DISCORD_API_URL: discord.restUrl,
    HTTP_PORT: String(port('callback')),
  };
  return {
    discord,
    env,
    describe: () => [`Discord  REST ${discord.restUrl}  gateway ${discord.gatewayUrl}`],
    async close() {
      await discord.close();
    },
  };
}
