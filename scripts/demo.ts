/**
 * `npm run demo`: the bot, offline. Starts the emulators, the bot and the playground (a local page
 * that acts as a Discord client), plays a scripted tour through the Discord emulator, prints what
 * the bot answered, and keeps running until Ctrl-C. `--tour-only` skips the page and exits after
 * the tour: 0 when every step passed.
 */
import { createServer } from 'node:net';
import { startDemoWorld, type DemoWorld } from './lib/demo-world.js';
import { DEFAULT_PORTS } from './lib/offline.js';
import { runTour } from './lib/tour.js';

const tourOnly = process.argv.includes('--tour-only');

function portTaken(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(true));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(false)));
  });
}

function cannotStart(ports: readonly unknown[]): never {
  console.error(
    `The demo could not start: ${ports.length === 1 ? 'port' : 'ports'} ${ports.join(', ')} on ` +
      `127.0.0.1 ${ports.length === 1 ? 'is' : 'are'} already in use. Is another ` +
      '`npm run demo` or `npm run emulators` still running? Stop it and try again, or run ' +
      '`npm run demo -- --tour-only`, which uses free ports.',
  );
  process.exit(1);
}

// The fixed ports are checked first: an emulator that finds its port taken cannot say so clearly.
if (!tourOnly) {
  const ports = Object.values(DEFAULT_PORTS);
  const taken = await Promise.all(ports.map(portTaken));
  const busy = ports.filter((_, index) => taken[index]);
  if (busy.length > 0) cannotStart(busy);
}

let world: DemoWorld;
try {
  world = await startDemoWorld({
    fixedPorts: !tourOnly,
    playground: !tourOnly,
    ...(process.env['LOG_LEVEL'] === undefined ? {} : { logLevel: process.env['LOG_LEVEL'] }),
  });
} catch (error) {
  const { code, port } = error as { code?: unknown; port?: unknown };
  if (code === 'EADDRINUSE') cannotStart([port]);
  console.error(`The demo could not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

let stopping = false;
async function shutdown(code: number): Promise<never> {
  stopping = true;
  // Closing takes well under a second; never let a stuck socket keep the demo from ending.
  setTimeout(() => process.exit(code), 5_000).unref();
  await world.close();
  process.exit(code);
}
// From here on, Ctrl-C (also during the tour) closes the bot and the emulators and removes the
// demo's data directory. Repeats are ignored while that runs: the tsx wrapper passes a Ctrl-C on a
// second time when this process is slow to acknowledge it, and must not cut the closing short.
const onSignal = () => {
  if (stopping) return;
  console.log('\nStopping the demo…');
  void shutdown(0);
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

console.log('Offline demo: the bot is connected to local emulators.');
for (const line of world.offline.describe()) console.log(`  ${line}`);
if (world.playground) console.log(`\nPlayground (a Discord client in your browser): ${world.playground.url}`);
// Once stopping, the steps still under way fail as the emulators close: nothing more to show.
const failed = await runTour(
  {
    discord: world.offline.discord,
    music: world.offline.music,
    weather: world.offline.weather,
    guildId: world.guildId,
    channelId: world.channelId,
    userId: world.alice.id,
    otherUserId: world.bob.id,
  },
  (line) => {
    if (!stopping) console.log(line);
  },
);
if (!stopping) {
  console.log(
    failed === 0 ? '\nTour finished: every step answered.' : `\nTour finished: ${failed} step(s) failed.`,
  );
  if (tourOnly) {
    await shutdown(failed === 0 ? 0 : 1);
  } else {
    console.log(
      `\nThe bot keeps running. Open ${world.playground?.url ?? ''} to use it. Press Ctrl-C to stop.`,
    );
  }
}
