/**
 * `npm run bench`: every benchmark, one after the other; each prints its table and writes its
 * figures to bench/results.json. Figures, not a test: the run never fails on a missed target.
 */
import { main as charts } from './charts.js';
import { main as interactions } from './interactions.js';
import { main as memory } from './memory.js';
import { main as music } from './music.js';
import { main as scheduleSlot } from './schedule-slot.js';
import { main as shards } from './shards.js';
import { main as weatherBulk } from './weather-bulk.js';

const only = process.argv.slice(2);
const benches: Record<string, () => Promise<unknown>> = {
  interactions,
  charts,
  'weather-bulk': weatherBulk,
  music,
  'schedule-slot': scheduleSlot,
  memory,
  shards,
};
for (const [name, run] of Object.entries(benches)) {
  if (only.length > 0 && !only.includes(name)) continue;
  console.log(`\n=== ${name} ===`);
  await run();
}
