/**
 * Times each weather chart from spec to PNG, and the SVG layout step on its own, at the default
 * 800x400 with the largest inputs the commands send (96 hours, 16 days).
 *
 *   npx tsx bench/charts.ts [runs]     (default 50, after 5 warm-up renders)
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  dailyChartSpec,
  historyChartSpec,
  hourlyChartSpec,
  renderChart,
  renderChartSvg,
  type ChartSpec,
} from '../src/bot/render/charts.js';

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

interface Figures {
  chart: string;
  step: 'png' | 'svg';
  meanMs: number;
  p95Ms: number;
}

function time(render: () => unknown, runs: number): { meanMs: number; p95Ms: number } {
  for (let i = 0; i < WARM_UP; i++) render();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    render();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  const p95 = samples[Math.min(samples.length - 1, Math.ceil(samples.length * 0.95) - 1)] ?? Number.NaN;
  return { meanMs: samples.reduce((sum, s) => sum + s, 0) / samples.length, p95Ms: p95 };
}

export function main(runs = DEFAULT_RUNS): Figures[] {
  const results: Figures[] = [];
  console.log(`charts: ${runs} renders each after ${WARM_UP} warm-up, 800x400`);
  for (const [chart, spec] of Object.entries(specs())) {
    for (const [step, render] of [
      ['png', () => renderChart(spec)],
      ['svg', () => renderChartSvg(spec)],
    ] as const) {
      const figures = { chart, step, ...time(render, runs) };
      results.push(figures);
      console.log(
        `${chart.padEnd(15)} ${step === 'png' ? 'spec → PNG' : 'spec → SVG'}  mean ${figures.meanMs.toFixed(1)} ms  p95 ${figures.p95Ms.toFixed(1)} ms`,
      );
    }
  }
  return results;
}

const invokedDirectly = (() => {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
})();

if (invokedDirectly) {
  const runs = Number(process.argv[2] ?? DEFAULT_RUNS);
  main(Number.isInteger(runs) && runs > 0 ? runs : DEFAULT_RUNS);
}
