/**
 * `npm run emulators`: the local stand-ins for Discord and the services, on fixed ports, until
 * Ctrl-C. Point a bot at them with the environment printed below.
 */
import { startOffline } from './lib/offline.js';

const world = await startOffline({ fixedPorts: true });
console.log('Emulators running (Ctrl-C to stop):');
for (const line of world.describe()) console.log(`  ${line}`);
console.log('\nEnvironment for a bot using them:');
for (const [key, value] of Object.entries(world.env)) console.log(`  ${key}=${value}`);

const stop = () => {
  world.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
