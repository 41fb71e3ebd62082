/**
 * Streams large bulk files through the weather client and prints throughput and memory.
 * The emulator runs in a child process, so the figures are the client's alone: if streaming works,
 * heap and RSS stay flat however many records pass.
 *
 *   npx tsx bench/weather-bulk.ts [records]     (default 200,000)
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { startWeatherEmulator } from '../emulators/weather/index.js';
import { createWeatherClient } from '../src/services/weather/index.js';
import { invokedDirectly, printTable, saveResults, type BenchRow } from './lib.js';

const DEFAULT_RECORDS = 200_000;
/** Growth from the first to the last quarter of a file below which memory counts as flat. */
const FLAT_MARGIN = 16 * 1_048_576;
const SERVE_FLAG = '--serve-weather-emulator';

interface Urls {
  apiUrl: string;
  proUrl: string;
  historyUrl: string;
  bulkUrl: string;
}

const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;

/** Child mode: run the emulator until the parent goes away. */
async function serve(records: number): Promise<void> {
  const emulator = await startWeatherEmulator({ bulkRecords: records });
  const urls: Urls = {
    apiUrl: emulator.apiUrl,
    proUrl: emulator.proUrl,
    historyUrl: emulator.historyUrl,
    bulkUrl: emulator.bulkUrl,
  };
  process.send?.(urls);
  // Asked for its request counts, the emulator reports them: one request per file if nothing retried.
  process.on('message', (message) => {
    if (message === 'counts') process.send?.(emulator.countsByEndpoint());
  });
  process.once('disconnect', () => void emulator.close());
}

interface Result {
  file: string;
  records: number;
  seconds: number;
  peakRss: number;
  peakHeap: number;
  /** Heap used and RSS at each quarter of the file: flat if nothing accumulates. */
  heapByQuarter: number[];
  rssByQuarter: number[];
}

export async function main(records = DEFAULT_RECORDS): Promise<Result[]> {
  const child = fork(fileURLToPath(import.meta.url), [SERVE_FLAG, String(records)], {
    execArgv: process.execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const [urls] = (await once(child, 'message')) as [Urls];
    const client = createWeatherClient({ ...urls, apiKey: 'test-key', transport: { timeoutMs: 30_000 } });
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    const baseline = process.memoryUsage();
    console.log(
      `weather bulk: ${records.toLocaleString('en')} records per file, emulator in pid ${child.pid}`,
    );
    console.log(
      `baseline: rss ${mb(baseline.rss)}, heap used ${mb(baseline.heapUsed)}${gc ? '' : ' (run with --expose-gc for a steadier baseline)'}`,
    );

    console.log('(records/s include the emulator generating and gzipping in the child, on the same machine)');
    const results: Result[] = [];
    for (const file of ['weather_16.json.gz', 'weather_16.csv.gz'] as const) {
      let count = 0;
      let peakRss = 0;
      let peakHeap = 0;
      const heapByQuarter: number[] = [];
      const rssByQuarter: number[] = [];
      const sample = () => {
        const usage = process.memoryUsage();
        peakRss = Math.max(peakRss, usage.rss);
        peakHeap = Math.max(peakHeap, usage.heapUsed);
        return usage;
      };
      const timer = setInterval(sample, 25);
      const started = performance.now();
      for await (const _ of client.bulk.snapshot(file as `${string}.json.gz`)) {
        count++;
        if (count % 2_000 === 0) sample();
        if (count % Math.ceil(records / 4) === 0) {
          const usage = sample();
          heapByQuarter.push(usage.heapUsed);
          rssByQuarter.push(usage.rss);
        }
      }
      const seconds = (performance.now() - started) / 1000;
      clearInterval(timer);
      sample();
      results.push({ file, records: count, seconds, peakRss, peakHeap, heapByQuarter, rssByQuarter });
      console.log(
        `${file.padEnd(20)} ${count.toLocaleString('en')} records in ${seconds.toFixed(2)} s = ` +
          `${Math.round(count / seconds).toLocaleString('en')} records/s; ` +
          `peak rss ${mb(peakRss)} (+${mb(peakRss - baseline.rss)}), ` +
          `peak heap ${mb(peakHeap)} (+${mb(peakHeap - baseline.heapUsed)}); ` +
          `at 25/50/75/100 %: heap ${heapByQuarter.map(mb).join(', ')}; rss ${rssByQuarter.map(mb).join(', ')}`,
      );
    }
    await client.close();
    child.send('counts');
    const [counts] = (await once(child, 'message')) as [Record<string, number>];
    console.log(`requests the emulator received: ${JSON.stringify(counts)}`);
    // Flat: what the heap holds at the end of a file is no more than at its first quarter, give or
    // take the garbage not yet collected; a leak of even 100 bytes a record would show as +5 MB per
    // 50,000 records.
    for (const r of results) {
      const first = r.heapByQuarter[0] ?? 0;
      const growth = Math.max(...r.heapByQuarter) - first;
      const rssGrowth = Math.max(...r.rssByQuarter) - (r.rssByQuarter[0] ?? 0);
      console.log(
        `${r.file.padEnd(20)} heap from the first quarter on: +${mb(Math.max(0, growth))}, ` +
          `rss +${mb(Math.max(0, rssGrowth))} => memory ${growth < FLAT_MARGIN && rssGrowth < FLAT_MARGIN ? 'flat' : 'GROWING'}`,
      );
    }
    const MB = 1_048_576;
    const rows: BenchRow[] = results.flatMap((r) => {
      const rssGrowth = Math.max(...r.rssByQuarter) - (r.rssByQuarter[0] ?? 0);
      const heapGrowth = Math.max(...r.heapByQuarter) - (r.heapByQuarter[0] ?? 0);
      return [
        { name: `${r.file}: records streamed`, value: r.records, unit: 'records' },
        { name: `${r.file}: records per second`, value: r.records / r.seconds, unit: '/s' },
        { name: `${r.file}: peak RSS`, value: r.peakRss / MB, unit: 'MB', floor: baseline.rss / MB },
        {
          name: `${r.file}: peak heap used`,
          value: r.peakHeap / MB,
          unit: 'MB',
          floor: baseline.heapUsed / MB,
        },
        {
          name: `${r.file}: RSS growth from the first quarter to the end`,
          value: Math.max(0, rssGrowth) / MB,
          unit: 'MB',
          target: `< ${FLAT_MARGIN / MB} MB (flat)`,
          ok: rssGrowth < FLAT_MARGIN && heapGrowth < FLAT_MARGIN,
        },
      ];
    });
    printTable(
      `Weather bulk files: ${records.toLocaleString('en')} records each (floor: before the first file)`,
      rows,
    );
    await saveResults('weather-bulk', rows);
    return results;
  } finally {
    child.disconnect();
    child.kill();
  }
}

if (invokedDirectly(import.meta.url)) {
  const flagAt = process.argv.indexOf(SERVE_FLAG);
  if (flagAt >= 0) {
    await serve(Number(process.argv[flagAt + 1] ?? DEFAULT_RECORDS));
  } else {
    const records = Number(process.argv[2] ?? DEFAULT_RECORDS);
    await main(Number.isInteger(records) && records > 0 ? records : DEFAULT_RECORDS);
  }
}
