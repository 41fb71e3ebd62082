/**
 * `npm run demo`: the bot, offline. Starts the emulators, the bot and the playground (a local page
 * that acts as a Discord client), plays a scripted tour through the Discord emulator, prints what
 * the bot answered, and keeps running until Ctrl-C. `--tour-only` skips the page and exits after
 * the tour: 0 when every step passed. `--help` says so.
 */
import { createServer } from 'node:net';
import { startDemoWorld, tourWorldOf, type DemoWorld, type MusicSuggestions } from './lib/demo-world.js';
import { DEFAULT_PORTS } from './lib/offline.js';
import { runTour } from './lib/tour.js';

const USAGE = `Usage: npm run demo [-- --tour-only]

Runs the bot offline, against local emulators of Discord and the music and weather services:
plays a tour of every command, prints what the bot answered, then keeps running with the
playground (a Discord client in your browser) until Ctrl-C, which removes the demo's data.

Options:
  --tour-only   play the tour on free ports, without the playground, and exit:
                0 when every step answered, 1 otherwise
  --help, -h    show this help

Ports on 127.0.0.1 (without --tour-only): Discord ${DEFAULT_PORTS.discord}, music ${DEFAULT_PORTS.music}, weather ${DEFAULT_PORTS.weather},
playground ${DEFAULT_PORTS.playground}, the bot's callback server ${DEFAULT_PORTS.callback}.

Environment:
  LOG_LEVEL     the bot's log level (default warn): LOG_LEVEL=debug npm run demo
`;

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const unknown = args.filter((arg) => arg !== '--tour-only');
if (unknown.length > 0) {
  process.stderr.write(`Unknown option ${unknown.join(' ')}\n\n${USAGE}`);
  process.exit(1);
}
const tourOnly = args.includes('--tour-only');

// A terminal (or a parent process) that went away must not stop the demo from cleaning up: the
// write that finds its output closed would otherwise crash it before the data directory is gone.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

let world: DemoWorld | undefined;
let stopping = false;
async function shutdown(code: number): Promise<never> {
  stopping = true;
  // Closing takes well under a second; never let a stuck socket keep the demo from ending.
  setTimeout(() => process.exit(code), 5_000).unref();
  await world?.close();
  process.exit(code);
}
// Ctrl-C closes the bot and the emulators and removes the demo's data directory: from the start,
// so one pressed while the demo starts (the directory is made early) leaves nothing behind either;
// start-up then finishes and closes at once (below). Repeats are ignored while that runs, so a
// second Ctrl-C cannot cut the closing short.
const onSignal = () => {
  if (stopping) return;
  stopping = true;
  console.log('\nStopping the demo…');
  if (world !== undefined) {
    void shutdown(0);
    return;
  }
  // Start-up takes a second or two; one stuck for long is left rather than waited on for good.
  setTimeout(() => process.exit(0), 20_000).unref();
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);
// The terminal closed: its output is gone (see above), the cleanup is not.
process.on('SIGHUP', onSignal);

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
// Nothing started yet: a Ctrl-C meanwhile has nothing to close.
if (stopping) process.exit(0);

try {
  world = await startDemoWorld({
    fixedPorts: !tourOnly,
    playground: !tourOnly,
    ...(process.env['LOG_LEVEL'] === undefined ? {} : { logLevel: process.env['LOG_LEVEL'] }),
  });
} catch (error) {
  // startDemoWorld has closed what it started and removed its data directory.
  const { code, port } = error as { code?: unknown; port?: unknown };
  if (code === 'EADDRINUSE') cannotStart([port]);
  console.error(`The demo could not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
if (stopping) await shutdown(0);

console.log('Offline demo: the bot is connected to local emulators.');
for (const line of world.offline.describe()) console.log(`  ${line}`);
if (world.playground) console.log(`\nPlayground (a Discord client in your browser): ${world.playground.url}`);
// Once stopping, the steps still under way fail as the emulators close: nothing more to show.
const failed = await runTour(tourWorldOf(world), (line) => {
  if (!stopping) console.log(line);
});
// The music service has no search: the album and artist options suggest what a member viewed.
// The tour's unlink emptied Alice's lists, so both members get a few of the catalog's to start.
let suggested: MusicSuggestions | undefined;
if (!stopping) {
  suggested = await world.suggestMusic().catch((error: unknown) => {
    console.error(
      `Could not suggest albums and artists: ${error instanceof Error ? error.message : String(error)}`,
    );
    return undefined;
  });
}
if (!stopping) {
  console.log(
    failed === 0 ? '\nTour finished: every step answered.' : `\nTour finished: ${failed} step(s) failed.`,
  );
  if (tourOnly) {
    await shutdown(failed === 0 ? 0 : 1);
  } else {
    if (suggested !== undefined) {
      console.log(
        `\nMusic to try, once linked (/music link): /music album album:${suggested.album.id} ` +
          `(${suggested.album.name}) or /music artist artist:${suggested.artist.id} ` +
          `(${suggested.artist.name}); typing in those options suggests more of the catalog.`,
      );
    }
    console.log(
      `\nThe bot keeps running. Open ${world.playground?.url ?? ''} to use it. Press Ctrl-C to stop.`,
    );
  }
}
