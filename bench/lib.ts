/** Small helpers shared by the benchmarks: percentiles, a result table, the results file, child processes. */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { realpathSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export interface BenchRow {
  /** What was measured. */
  name: string;
  value: number;
  unit: string;
  /** The floor or baseline measured in the same run, when there is one. */
  floor?: number;
  /** The target, as text (e.g. "≤ 1.2x floor"). */
  target?: string;
  /** Whether the target holds (figures, not a test: printed, never fails the run). */
  ok?: boolean;
}

export function printTable(title: string, rows: readonly BenchRow[]): void {
  console.log(`\n${title}`);
  const fmt = (n: number | undefined) =>
    n === undefined || Number.isNaN(n) ? '' : n.toFixed(n < 10 ? 2 : 1);
  const lines = rows.map((row) => [
    row.name,
    `${fmt(row.value)} ${row.unit}`,
    row.floor === undefined ? '' : `${fmt(row.floor)} ${row.unit}`,
    row.floor ? `${(row.value / row.floor).toFixed(2)}x` : '',
    row.target ?? '',
    row.ok === undefined ? '' : row.ok ? 'ok' : 'MISSED',
  ]);
  const header = ['measure', 'value', 'floor', 'ratio', 'target', ''];
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const row = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  console.log(row(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const line of lines) console.log(row(line));
}

/** Merges one benchmark's rows into bench/results.json, keyed by benchmark name. */
export async function saveResults(bench: string, rows: readonly BenchRow[]): Promise<void> {
  const file = path.join(import.meta.dirname, 'results.json');
  let all: Record<string, unknown> = {};
  try {
    all = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  } catch {
    all = {};
  }
  all[bench] = { measuredAt: new Date().toISOString(), node: process.version, rows };
  await writeFile(file, `${JSON.stringify(all, null, 2)}\n`);
}

/** Whether the module at `moduleUrl` is the script Node was started with (`npx tsx bench/x.ts`). */
export function invokedDirectly(moduleUrl: string): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(moduleUrl));
  } catch {
    return false;
  }
}

/**
 * Forks the module at `moduleUrl` as a child process (with `args` and the Node flags `execArgv`, by
 * default this process's, tsx's loader included), and waits for the first message it sends; fails if
 * it exits first.
 */
export async function forkForMessage<T>(
  moduleUrl: string,
  args: string[],
  what: string,
  execArgv: string[] = process.execArgv,
): Promise<{ child: ChildProcess; message: T }> {
  const child = fork(fileURLToPath(moduleUrl), args, {
    execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const [message] = (await Promise.race([
    once(child, 'message'),
    once(child, 'exit').then(([code]) => {
      throw new Error(`${what} exited with ${String(code)} before it reported`);
    }),
  ])) as [T];
  return { child, message };
}
