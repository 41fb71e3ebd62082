import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { CHART_THEME, dejaVuTextWidth } from '../../src/bot/render/charts-theme.js';
import {
  chartFontOptions,
  dailyChartSpec,
  historyChartSpec,
  hourlyChartSpec,
  labelInterval,
  renderChart,
  renderChartSvg,
  type ChartSpec,
  type TemperatureUnit,
} from '../../src/bot/render/charts.js';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

interface Png {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
  /** RGBA of the top-left pixel. */
  firstPixel: number[];
}

/** Walks the chunks, checking each CRC, and reads the header and the first pixel. */
function readPng(png: Buffer): Png {
  expect(png.subarray(0, 8)).toEqual(PNG_SIGNATURE);
  const chunks: Array<{ type: string; data: Buffer }> = [];
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const data = png.subarray(at + 8, at + 8 + length);
    expect(png.readUInt32BE(at + 8 + length), `CRC of ${type}`).toBe(
      crc32(png.subarray(at + 4, at + 8 + length)),
    );
    chunks.push({ type, data });
    at += 12 + length;
  }
  const [ihdr] = chunks;
  expect(ihdr?.type).toBe('IHDR');
  expect(ihdr?.data.length).toBe(13);
  expect(chunks.at(-1)?.type).toBe('IEND');
  const header = ihdr?.data ?? Buffer.alloc(13);
  const pixels = inflateSync(Buffer.concat(chunks.filter((c) => c.type === 'IDAT').map((c) => c.data)));
  // Every PNG filter leaves the first pixel of the first row unchanged (its neighbours count as zero).
  return {
    width: header.readUInt32BE(0),
    height: header.readUInt32BE(4),
    bitDepth: header[8] ?? 0,
    colorType: header[9] ?? 0,
    firstPixel: [...pixels.subarray(1, 5)],
  };
}

const hexToRgba = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).concat(255);

function hourlyInput(
  count: number,
  { unit = '°C', base = 8 }: { unit?: TemperatureUnit; base?: number } = {},
) {
  return {
    place: 'Berlin, DE',
    tempUnit: unit,
    hours: Array.from({ length: count }, (_, i) => ({
      label: `${String(i % 24).padStart(2, '0')}:00`,
      temp: base + 6 * Math.sin((i / 24) * 2 * Math.PI),
      pop: (i % 10) / 10,
      precipMm: i % 7 === 0 ? 1.2 : 0,
    })),
  };
}

function dailyInput(count: number) {
  return {
    place: 'Oslo, NO',
    tempUnit: '°C' as const,
    days: Array.from({ length: count }, (_, i) => ({
      label: `Day ${i + 1}`,
      min: -9 + (i % 4),
      max: 1 + (i % 6),
      precipMm: (i * 1.3) % 7,
    })),
  };
}

function lineOnly(values: Array<number | null>): ChartSpec {
  return {
    title: 'Line only',
    x: { labels: values.map((_, i) => `${i}:00`) },
    series: [{ name: 'Temperature', kind: 'line', values, axis: 'left', unit: '°C' }],
    yAxes: { left: { name: 'Temperature', unit: '°C' } },
  };
}

/** Tick and axis texts of the SVG, in document order. */
const svgTexts = (svg: string) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);

describe('renderChart', () => {
  it('returns an 800x400 PNG on an opaque card by default', () => {
    const png = readPng(renderChart(hourlyChartSpec(hourlyInput(48))));
    expect(png).toMatchObject({ width: 800, height: 400, bitDepth: 8, colorType: 6 });
    expect(png.firstPixel).toEqual(hexToRgba(CHART_THEME.background));
  });

  it('draws at exactly the requested size', () => {
    const spec = { ...dailyChartSpec(dailyInput(7)), width: 640, height: 360 };
    expect(readPng(renderChart(spec))).toMatchObject({ width: 640, height: 360 });
  });

  it('renders the largest inputs: 96 hourly points and 16 days', () => {
    expect(readPng(renderChart(hourlyChartSpec(hourlyInput(96)))).width).toBe(800);
    expect(readPng(renderChart(historyChartSpec(hourlyInput(96)))).width).toBe(800);
    expect(readPng(renderChart(dailyChartSpec(dailyInput(16)))).width).toBe(800);
  });

  it('leaves gaps for null and non-finite values, even a series with no values at all', () => {
    const input = hourlyInput(24);
    const hours = input.hours.map((h, i) => ({
      ...h,
      temp: i < 2 || i === 10 ? null : i === 11 ? Number.NaN : h.temp,
      pop: null,
    }));
    expect(readPng(renderChart(hourlyChartSpec({ ...input, hours }))).height).toBe(400);
    const days = dailyInput(16).days.map((d, i) => ({ ...d, min: i === 3 ? null : d.min, precipMm: null }));
    expect(readPng(renderChart(dailyChartSpec({ ...dailyInput(16), days }))).height).toBe(400);
    expect(readPng(renderChart(lineOnly([null, null, null]))).height).toBe(400);
  });

  it('lets temperatures below zero set their own axis range rather than starting at zero', () => {
    const svg = renderChartSvg(lineOnly([-21.5, -18, -14.2, -16, -19.8]));
    const ticks = svgTexts(svg)
      .filter((t) => t !== undefined && /^-?\d+(\.\d+)?$/.test(t))
      .map(Number);
    expect(ticks.length).toBeGreaterThan(2);
    expect(Math.max(...ticks)).toBeLessThan(0);
    expect(Math.min(...ticks)).toBeLessThanOrEqual(-21.5);
    expect(readPng(renderChart(lineOnly([-21.5, -18, -14.2, -16, -19.8]))).width).toBe(800);
  });

  it('starts bar axes at zero and keeps the precipitation probability axis at 0–100 %', () => {
    const spec = hourlyChartSpec(hourlyInput(24, { base: -12 }));
    expect(spec.yAxes.right).toMatchObject({ unit: '%', min: 0, max: 100 });
    const texts = svgTexts(renderChartSvg(spec));
    expect(texts).toContain('0');
    expect(texts).toContain('100');
  });

  it('draws without animation styles, in DejaVu Sans', () => {
    const svg = renderChartSvg(hourlyChartSpec(hourlyInput(48)));
    expect(svg).not.toMatch(/@keyframes|<animate/);
    expect(svg).toContain('font-family:DejaVu Sans');
  });

  it('rejects a series whose length differs from the x labels', () => {
    const spec = lineOnly([1, 2, 3]);
    expect(() => renderChart({ ...spec, x: { labels: ['a', 'b'] } })).toThrow(
      /'Temperature' has 3 values for 2 x labels/,
    );
  });

  it('rejects a series drawn against an axis in another unit, or a right axis that is missing', () => {
    const spec = lineOnly([1, 2, 3]);
    const [line] = spec.series;
    if (!line) throw new Error('fixture has a series');
    expect(() => renderChartSvg({ ...spec, series: [{ ...line, unit: '°F' }] })).toThrow(
      /in °F but its left axis is in °C/,
    );
    expect(() => renderChartSvg({ ...spec, series: [{ ...line, axis: 'right' }] })).toThrow(/right axis/);
  });
});

describe('chart specs for the weather commands', () => {
  it('hourly: temperature line on the left, chance of precipitation bars in % on the right', () => {
    const spec = hourlyChartSpec(hourlyInput(48));
    expect(spec.title).toBe('Berlin, DE: next 48 hours');
    expect(spec.yAxes.left).toEqual({ name: 'Temperature', unit: '°C' });
    expect(spec.series.map((s) => [s.name, s.kind, s.axis, s.unit])).toEqual([
      ['Chance of precipitation', 'bar', 'right', '%'],
      ['Temperature', 'line', 'left', '°C'],
    ]);
    expect(spec.series[0]?.values.slice(0, 3)).toEqual([0, 10, 20]);
    const texts = svgTexts(renderChartSvg(spec));
    expect(texts).toEqual(
      expect.arrayContaining([
        'Berlin, DE: next 48 hours',
        'Temperature (°C)',
        'Chance of precipitation (%)',
      ]),
    );
  });

  it('daily: a low-to-high band with both lines, precipitation bars in mm', () => {
    const spec = dailyChartSpec(dailyInput(16));
    expect(spec.title).toBe('Oslo, NO: next 16 days');
    expect(spec.band).toMatchObject({ axis: 'left', unit: '°C', lower: spec.series[2]?.values });
    expect(spec.band?.upper).toEqual(spec.series[1]?.values);
    expect(spec.series.map((s) => [s.name, s.kind, s.unit])).toEqual([
      ['Precipitation', 'bar', 'mm'],
      ['High', 'line', '°C'],
      ['Low', 'line', '°C'],
    ]);
    const texts = svgTexts(renderChartSvg(spec));
    expect(texts).toEqual(
      expect.arrayContaining(['Temperature (°C)', 'Precipitation (mm)', 'Range', 'High', 'Low']),
    );
  });

  it('history: temperature and precipitation in mm, in the unit asked for', () => {
    const spec = historyChartSpec(hourlyInput(72, { unit: '°F', base: 40 }));
    expect(spec.title).toBe('Berlin, DE: past 72 hours');
    expect(spec.yAxes).toEqual({
      left: { name: 'Temperature', unit: '°F' },
      right: { name: 'Precipitation', unit: 'mm' },
    });
    const texts = svgTexts(renderChartSvg(spec));
    expect(texts).toEqual(expect.arrayContaining(['Temperature (°F)', 'Precipitation (mm)', 'Local time']));
  });

  it('draws a trace of rain low on an axis that reaches at least 1 mm or 0.04 in', () => {
    const trace = dailyInput(3).days.map((d, i) => ({ ...d, precipMm: i === 1 ? 0.1 : 0 }));
    const mm = dailyChartSpec({ ...dailyInput(3), days: trace });
    expect(mm.yAxes.right).toEqual({ name: 'Precipitation', unit: 'mm', max: 1 });
    expect(svgTexts(renderChartSvg(mm))).toContain('1');
    const inches = historyChartSpec({
      ...hourlyInput(3),
      hours: hourlyInput(3).hours.map((h) => ({ ...h, precipMm: 0.2 })),
      precipUnit: 'in',
    });
    expect(inches.yAxes.right).toEqual({ name: 'Precipitation', unit: 'in', max: 0.04 });
    // A real downpour sets the top itself.
    expect(dailyChartSpec(dailyInput(16)).yAxes.right).toEqual({ name: 'Precipitation', unit: 'mm' });
  });

  it('takes a title when the command has a better one', () => {
    expect(hourlyChartSpec({ ...hourlyInput(12), title: 'Tomorrow in Berlin' }).title).toBe(
      'Tomorrow in Berlin',
    );
  });
});

describe('chart layout helpers', () => {
  it('thins x labels to round steps that fit the width', () => {
    expect(labelInterval(7, 650)).toBe(0);
    expect(labelInterval(16, 650)).toBe(1);
    expect(labelInterval(48, 650)).toBe(5);
    expect(labelInterval(96, 650)).toBe(11);
    expect(labelInterval(96, 300)).toBe(23);
    expect(labelInterval(400, 300)).toBe(99);
  });

  it('measures DejaVu Sans text, wider when bold', () => {
    expect(dejaVuTextWidth('Chance of precipitation', '12px DejaVu Sans')).toBeCloseTo(140, 0);
    expect(dejaVuTextWidth('Berlin', 'bold 16px DejaVu Sans')).toBeGreaterThan(
      dejaVuTextWidth('Berlin', '16px DejaVu Sans'),
    );
  });

  it('loads only the given font files, or falls back to system fonts when one is missing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'chart-fonts-'));
    try {
      const font = join(dir, 'DejaVuSans.ttf');
      writeFileSync(font, '');
      expect(chartFontOptions([font])).toEqual({
        loadSystemFonts: false,
        fontFiles: [font],
        defaultFontFamily: 'DejaVu Sans',
        sansSerifFamily: 'DejaVu Sans',
      });
      expect(chartFontOptions([font, join(dir, 'DejaVuSans-Bold.ttf')])).toEqual({ loadSystemFonts: true });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
