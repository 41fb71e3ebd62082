/**
 * Streams large bulk files through the weather client and prints throughput and memory. The
 * client runs in a fresh child process of its own, with the Node flags of `npm start`, and the
 * emulator in this one, so the figures are
 * the client's alone, and nothing another benchmark loaded into this process (charts, say) counts
 * against them: if streaming works, heap and RSS stay flat however many records pass.
 *
 *   npx tsx bench/weather-bulk.ts [records]     (default 200,000)
 */
import { startWeatherEmulator } from '../emulators/weather/index.js';
import { createWeatherClient } from '../src/services/weather/index.js';
import { startScriptFlags } from '../test/helpers/bot-process.js';
import { forkForMessage, invokedDirectly, printTable, saveResults, type BenchRow } from './lib.js';

const DEFAULT_RECORDS = 200_000;
const FILES = ['weather_16.json.gz', 'weather_16.csv.gz'] as const;
const MB = 1_048_576;
/** Growth from the first to the last quarter of a file below which memory counts as flat. */
const FLAT_MARGIN = 16 * MB;
const CLIENT_FLAG = '--stream-weather-bulk';

interface Urls {
  apiUrl: string;
  proUrl: string;
  historyUrl: string;
  bulkUrl: string;
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

interface Report {
  baseline: { rss: number; heapUsed: number };
  results: Result[];
}

const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;

/** Child mode: stream every file through the client, sampling this process's memory. */
async function stream(urls: Urls, records: number): Promise<Report> {
  const client = createWeatherClient({ ...urls, apiKey: 'test-key', transport: { timeoutMs: 30_000 } });
  (globalThis as { gc?: () => void }).gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  const results: Result[] = [];
  for (const file of FILES) {
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
  }
  await client.close();
  return { baseline: { rss, heapUsed }, results };
}

export async function main(records = DEFAULT_RECORDS): Promise<Result[]> {
  const emulator = await startWeatherEmulator({ bulkRecords: records });
  const urls: Urls = {
    apiUrl: emulator.apiUrl,
    proUrl: emulator.proUrl,
    historyUrl: emulator.historyUrl,
    bulkUrl: emulator.bulkUrl,
  };
  // With `npm start`'s Node flags, as in the bot's process (the young generation's size among them).
  const {
    child,
    message: { baseline, results },
  } = await forkForMessage<Report>(
    import.meta.url,
    [CLIENT_FLAG, JSON.stringify(urls), String(records)],
    'the streaming client',
    [...process.execArgv, '--expose-gc', ...startScriptFlags()],
  );
  try {
    console.log(`weather bulk: ${records.toLocaleString('en')} records per file, client in pid ${child.pid}`);
    console.log(
      `client baseline after a collection: rss ${mb(baseline.rss)}, heap used ${mb(baseline.heapUsed)}`,
    );
    console.log(
      '(records/s include the emulator generating and gzipping in this process, on the same machine)',
    );
    for (const r of results) {
      console.log(
        `${r.file.padEnd(20)} ${r.records.toLocaleString('en')} records in ${r.seconds.toFixed(2)} s; ` +
          `at 25/50/75/100 %: heap ${r.heapByQuarter.map(mb).join(', ')}; rss ${r.rssByQuarter.map(mb).join(', ')}`,
      );
    }
    console.log(`requests the emulator received: ${JSON.stringify(emulator.countsByEndpoint())}`);
    // Flat: what the heap holds at the end of a file is no more than at its first quarter, give or
    // take the garbage not yet collected; a leak of even 100 bytes a record would show as +5 MB per
    // 50,000 records. RSS is shown, not judged: it takes one step of some 30 MB early in the first
    // file (gunzip's and the socket's native buffers, the young generation growing to its size)
    // and then stays level through the rest of it and all of the second file.
    const rows: BenchRow[] = results.flatMap((r) => {
      const rssGrowth = Math.max(...r.rssByQuarter) - (r.rssByQuarter[0] ?? 0);
      const heapGrowth = Math.max(...r.heapByQuarter) - (r.heapByQuarter[0] ?? 0);
      return [
        { name: `${r.file}: records per second`, value: r.records / r.seconds, unit: '/s' },
        { name: `${r.file}: peak RSS`, value: r.peakRss / MB, unit: 'MB', floor: baseline.rss / MB },
        {
          name: `${r.file}: peak heap used`,
          value: r.peakHeap / MB,
          unit: 'MB',
          floor: baseline.heapUsed / MB,
        },
        {
          name: `${r.file}: heap growth from the first quarter to the end`,
          value: Math.max(0, heapGrowth) / MB,
          unit: 'MB',
          target: `< ${FLAT_MARGIN / MB} MB (flat)`,
          ok: heapGrowth < FLAT_MARGIN,
        },
        {
          name: `${r.file}: RSS growth from the first quarter to the end`,
          value: Math.max(0, rssGrowth) / MB,
          unit: 'MB',
        },
      ];
    });
    printTable(
      `Weather bulk files, ${records.toLocaleString('en')} records each (floor: the client process before the first file)`,
      rows,
    );
    await saveResults('weather-bulk', rows);
    return results;
  } finally {
    child.kill();
    await emulator.close();
  }
}

if (process.argv[2] === CLIENT_FLAG) {
  const report = await stream(JSON.parse(process.argv[3]!) as Urls, Number(process.argv[4]));
  process.send?.(report, () => process.exit(0));
} else if (invokedDirectly(import.meta.url)) {
  const records = Number(process.argv[2] ?? DEFAULT_RECORDS);
  await main(Number.isInteger(records) && records > 0 ? records : DEFAULT_RECORDS);
}
