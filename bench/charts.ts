/**
 * Times each weather chart from spec to PNG, and the SVG layout step on its own, at the default
 * 800x400 with the largest inputs the commands send (96 hours, 16 days).
 *
 *   npx tsx bench/charts.ts [runs]     (default 50, after 5 warm-up renders)
 */
import {
  dailyChartSpec,
  historyChartSpec,
  hourlyChartSpec,
  renderChart,
  renderChartSvg,
  type ChartSpec,
} from '../src/bot/render/charts.js';
import { invokedDirectly, percentile, printTable, saveResults, type BenchRow } from './lib.js';

const DEFAULT_RUNS = 50;
const WARM_UP = 5;

const hourLabel = (i: number) => `${String(i % 24).padStart(2, '0')}:00`;

function specs(): Record<string, ChartSpec> {
  const hours = Array.from({ length: 96 }, (_, i) => ({
    label: hourLabel(i),
    temp: -3 + 8 * Math.sin((i / 24) * 2 * Math.PI),
    pop: (i % 24) / 24,
    precipMm: i % 9 === 0 ? 1.4 : 0,
  }));
  const days = Array.from({ length: 16 }, (_, i) => ({
    label: `Day ${i + 1}`,
    min: -8 + (i % 5),
    max: 2 + (i % 7),
    precipMm: (i * 1.7) % 9,
  }));
  return {
    'hourly (96 h)': hourlyChartSpec({ place: 'Berlin, DE', hours, tempUnit: '°C' }),
    'daily (16 d)': dailyChartSpec({ place: 'Berlin, DE', days, tempUnit: '°C' }),
    'history (96 h)': historyChartSpec({ place: 'Berlin, DE', hours, tempUnit: '°C' }),
  };
}

function time(render: () => unknown, runs: number): number[] {
  for (let i = 0; i < WARM_UP; i++) render();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    render();
    samples.push(performance.now() - start);
  }
  return samples;
}

export async function main(runs = DEFAULT_RUNS): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const [chart, spec] of Object.entries(specs())) {
    for (const [step, render] of [
      ['spec → PNG', () => renderChart(spec)],
      ['spec → SVG', () => renderChartSvg(spec)],
    ] as const) {
      const samples = time(render, runs);
      const mean = samples.reduce((sum, ms) => sum + ms, 0) / samples.length;
      rows.push({ name: `${chart}, ${step}: mean`, value: mean, unit: 'ms' });
      rows.push({ name: `${chart}, ${step}: p95`, value: percentile(samples, 95), unit: 'ms' });
    }
  }
  printTable(`Charts: ${runs} renders each after ${WARM_UP} warm-up, 800x400`, rows);
  await saveResults('charts', rows);
  return rows;
}

if (invokedDirectly(import.meta.url)) {
  const runs = Number(process.argv[2] ?? DEFAULT_RUNS);
  await main(Number.isInteger(runs) && runs > 0 ? runs : DEFAULT_RUNS);
}
