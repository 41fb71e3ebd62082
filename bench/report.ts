/**
 * The benchmark figures as Markdown, from bench/results.json: `npx tsx bench/report.ts` prints
 * them; `--readme` puts them into README.md between the `bench:start` and `bench:end` markers, so
 * the README shows the latest run and never a hand-copied figure (`npm run bench:readme`).
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { format, resolveConfig } from 'prettier';
import type { BenchRow } from './lib.js';

interface Section {
  measuredAt: string;
  node: string;
  rows: BenchRow[];
}

const ORDER = ['interactions', 'music', 'schedule-slot', 'memory', 'shards', 'weather-bulk', 'charts'];

function figure(value: number, unit: string): string {
  if (Number.isNaN(value)) return '';
  const digits = Math.abs(value) >= 100 || Number.isInteger(value) ? 0 : 1;
  return `${value.toFixed(digits)}${unit ? ` ${unit}` : ''}`;
}

function renderMarkdown(all: Record<string, Section>): string {
  const names = [...ORDER.filter((n) => n in all), ...Object.keys(all).filter((n) => !ORDER.includes(n))];
  const out: string[] = [];
  for (const name of names) {
    const section = all[name]!;
    out.push(`**${name}** (${section.measuredAt.slice(0, 10)}, Node ${section.node})`, '');
    out.push('| Measure | Value | Floor | Target | |', '| --- | --- | --- | --- | --- |');
    for (const row of section.rows) {
      const floor = row.floor === undefined ? '' : figure(row.floor, row.unit);
      const ratio = row.floor ? ` (${(row.value / row.floor).toFixed(2)}x)` : '';
      const verdict = row.ok === undefined ? '' : row.ok ? 'met' : '**missed**';
      out.push(
        `| ${row.name} | ${figure(row.value, row.unit)}${ratio} | ${floor} | ${row.target ?? ''} | ${verdict} |`,
      );
    }
    out.push('');
  }
  return out.join('\n');
}

async function main(): Promise<void> {
  const root = path.join(import.meta.dirname, '..');
  const all = JSON.parse(await readFile(path.join(root, 'bench', 'results.json'), 'utf8')) as Record<
    string,
    Section
  >;
  const markdown = renderMarkdown(all);
  if (!process.argv.includes('--readme')) {
    console.log(markdown);
    return;
  }
  const file = path.join(root, 'README.md');
  const readme = await readFile(file, 'utf8');
  const start = '<!-- bench:start -->';
  const end = '<!-- bench:end -->';
  const from = readme.indexOf(start);
  const to = readme.indexOf(end);
  if (from < 0 || to < from) throw new Error(`README.md has no ${start} … ${end} section`);
  const text = `${readme.slice(0, from + start.length)}\n\n${markdown}\n${readme.slice(to)}`;
  // Formatted as `npm run lint` expects (Prettier aligns Markdown tables).
  const options = (await resolveConfig(file)) ?? {};
  await writeFile(file, await format(text, { ...options, filepath: file }));
}

await main();
