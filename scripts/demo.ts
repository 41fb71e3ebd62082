/**
 * `npm run demo`: the bot, offline. Starts the emulators, the bot and the playground (a local page
 * that acts as a Discord client), plays a scripted tour through the Discord emulator, prints what
 * the bot answered, and keeps running until Ctrl-C. `--tour-only` skips the page and exits after
 * the tour: 0 when every step passed.
 */
import { startDemoWorld } from './lib/demo-world.js';
import { runTour } from './lib/tour.js';

const tourOnly = process.argv.includes('--tour-only');
const world = await startDemoWorld({
  fixedPorts: !tourOnly,
  playground: !tourOnly,
  ...(process.env['LOG_LEVEL'] === undefined ? {} : { logLevel: process.env['LOG_LEVEL'] }),
});

console.log('Offline demo: the bot is connected to local emulators.');
for (const line of world.offline.describe()) console.log(`  ${line}`);
if (world.playground) console.log(`\nPlayground (a Discord client in your browser): ${world.playground.url}`);
const failed = await runTour({
  discord: world.offline.discord,
  music: world.offline.music,
  weather: world.offline.weather,
  guildId: world.guildId,
  channelId: world.channelId,
  userId: world.alice.id,
  otherUserId: world.bob.id,
});
console.log(
  failed === 0 ? '\nTour finished: every step answered.' : `\nTour finished: ${failed} step(s) failed.`,
);

async function shutdown(code: number): Promise<never> {
  await world.close();
  process.exit(code);
}

if (tourOnly) {
  await shutdown(failed === 0 ? 0 : 1);
} else {
  console.log(
    `\nThe bot keeps running. Open ${world.playground?.url ?? ''} to use it. Press Ctrl-C to stop.`,
  );
  process.once('SIGINT', () => void shutdown(0));
  process.once('SIGTERM', () => void shutdown(0));
}
