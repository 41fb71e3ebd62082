/**
 * `npm run demo`: the bot, offline. Starts the emulators and the bot, registers the commands,
 * plays a short tour through the Discord emulator, prints what the bot answered, and keeps running
 * until Ctrl-C. `--tour-only` exits after the tour: 0 when every step passed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { registerCommands } from '../src/bot/register.js';
import { commands } from '../src/commands/index.js';
import { startApp } from '../src/index.js';
import { createLogger } from '../src/logger.js';
import { startOffline } from './lib/offline.js';
import { runTour } from './lib/tour.js';

const tourOnly = process.argv.includes('--tour-only');
const offline = await startOffline({ fixedPorts: !tourOnly });
const dataDir = await mkdtemp(path.join(tmpdir(), 'bot-demo-'));
const guild = offline.discord.createGuild({ name: 'Demo Server' });
const channel = offline.discord.createChannel(guild.id, { name: 'general' });
const member = offline.discord.createUser({ username: 'demo-member', locale: 'en-US' });

const config = loadConfig({
  ...offline.env,
  DISCORD_GUILD_ID: guild.id,
  DATA_DIR: dataDir,
  LOG_LEVEL: 'warn',
});
const logger = createLogger({
  level: process.env['LOG_LEVEL'] ?? 'warn',
  secrets: () => [config.discord.token],
});
await registerCommands({
  token: config.discord.token,
  applicationId: config.discord.applicationId,
  guildId: guild.id,
  apiUrl: config.discord.apiUrl,
  commands,
});
const app = await startApp(config, { logger });

console.log('Offline demo: the bot is connected to local emulators.');
for (const line of offline.describe()) console.log(`  ${line}`);
const failed = await runTour({
  discord: offline.discord,
  music: offline.music,
  guildId: guild.id,
  channelId: channel.id,
  userId: member.id,
});
console.log(
  failed === 0 ? '\nTour finished: every step answered.' : `\nTour finished: ${failed} step(s) failed.`,
);

async function shutdown(code: number): Promise<never> {
  await app.stop();
  await offline.close();
  await rm(dataDir, { recursive: true, force: true });
  process.exit(code);
}

if (tourOnly) {
  await shutdown(failed === 0 ? 0 : 1);
} else {
  console.log('\nThe bot keeps running against the emulators. Press Ctrl-C to stop.');
  process.once('SIGINT', () => void shutdown(0));
  process.once('SIGTERM', () => void shutdown(0));
}
