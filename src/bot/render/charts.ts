/**
 * Weather charts as PNG attachments: a data-only {@link ChartSpec}, laid out by echarts' server-side SVG
 * renderer and rasterised by resvg. Pure and synchronous: no canvas, no DOM, no state between renders.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type * as ResvgModule from '@resvg/resvg-js';
import type { ResvgRenderOptions } from '@resvg/resvg-js';
import type * as ECharts from 'echarts';
import type { BarSeriesOption, LineSeriesOption } from 'echarts/charts';
import type { GridComponentOption, LegendComponentOption, TitleComponentOption } from 'echarts/components';
import type { ComposeOption } from 'echarts/core';
import { millimetresIn, type PrecipitationSymbol } from '../../domain/weather/units.js';
import { CHART_THEME, dejaVuTextWidth } from './charts-theme.js';

interface ChartEngines {
  echarts: typeof ECharts;
  Resvg: typeof ResvgModule.Resvg;
}

let engines: ChartEngines | undefined;

/**
 * echarts and resvg cost tens of megabytes once loaded and only chart replies use them, so they load
 * on the first render, synchronously through `require` to keep rendering synchronous: resvg is
 * CommonJS, and echarts' CommonJS build is a single file that takes half the memory of its ES
 * modules. echarts keeps its extensions (that build has them all) and its text measurement in
 * process-wide registries; this module is echarts' only user.
 */
function chartEngines(): ChartEngines {
  if (!engines) {
    const require = createRequire(import.meta.url);
    const echarts = require('echarts') as typeof ECharts;
    echarts.setPlatformAPI({ measureText: (text, font) => ({ width: dejaVuTextWidth(text, font) }) });
    const { Resvg } = require('@resvg/resvg-js') as typeof ResvgModule;
    engines = { echarts, Resvg };
  }
  return engines;
}

type EChartsOption = ComposeOption<
  LineSeriesOption | BarSeriesOption | GridComponentOption | LegendComponentOption | TitleComponentOption
>;

export type ChartUnit = '°C' | '°F' | 'K' | '%' | 'mm' | 'in' | 'm/s' | 'mph';
export type TemperatureUnit = '°C' | '°F' | 'K';

export interface ChartAxis {
  name: string;
  unit: ChartUnit;
  min?: number;
  max?: number;
}

export interface ChartSeries {
  /** Legend entry, e.g. `Temperature`. */
  name: string;
  kind: 'line' | 'bar';
  /** One value per x label; `null` leaves a gap. */
  values: ReadonlyArray<number | null>;
  axis: 'left' | 'right';
  /** Must match the unit of the axis the series is drawn against. */
  unit: ChartUnit;
  color?: string;
  /** Shades the area under a line. */
  area?: boolean;
}

/** A shaded range between two lines, e.g. the daily low to high temperature. */
export interface ChartBand {
  name: string;
  lower: ReadonlyArray<number | null>;
  upper: ReadonlyArray<number | null>;
  axis: 'left';
  unit: ChartUnit;
  color?: string;
}

/** What to draw, free of any echarts vocabulary. */
export interface ChartSpec {
  /** E.g. `Berlin, DE: next 48 hours`. */
  title: string;
  width?: number;
  height?: number;
  /** The category axis: local times such as `14:00` or dates such as `Mon 24`. */
  x: { labels: readonly string[]; name?: string };
  series: readonly ChartSeries[];
  band?: ChartBand;
  yAxes: { left: ChartAxis; right?: ChartAxis };
  /** The decimal mark of the axis values: `,` in German. Default `.`. */
  decimalMark?: '.' | ',';
}

export const CHART_DEFAULTS = {
  width: 800,
  height: 400,
  /** Horizontal room one x label needs before labels are thinned out. */
  pxPerLabel: 72,
} as const satisfies Required<Pick<ChartSpec, 'width' | 'height'>> & { pxPerLabel: number };

const FONT_DIR = '/usr/share/fonts/truetype/dejavu';
const FONT_FILES = [join(FONT_DIR, 'DejaVuSans.ttf'), join(FONT_DIR, 'DejaVuSans-Bold.ttf')] as const;

type FontOptions = NonNullable<ResvgRenderOptions['font']>;

/**
 * Font options for resvg: exactly the given files when they all exist (fast and identical on every
 * machine), otherwise the system fonts, so a host without DejaVu still gets a chart.
 */
export function chartFontOptions(files: readonly string[]): FontOptions {
  if (files.length > 0 && files.every((file) => existsSync(file))) {
    return {
      loadSystemFonts: false,
      fontFiles: [...files],
      defaultFontFamily: CHART_THEME.fontFamily,
      sansSerifFamily: CHART_THEME.fontFamily,
    };
  }
  return { loadSystemFonts: true };
}

/** Falls through to the generic family when DejaVu is missing and system fonts are loaded instead. */
const FONT_STACK = `${CHART_THEME.fontFamily}, sans-serif`;
const FONTS: Readonly<FontOptions> = Object.freeze(chartFontOptions(FONT_FILES));
const MAX_SIDE_PX = 4096;

/** Renders `spec` to a PNG of exactly `width` x `height` pixels. */
export function renderChart(spec: ChartSpec): Buffer {
  const svg = renderChartSvg(spec);
  return new (chartEngines().Resvg)(svg, { font: FONTS, fitTo: { mode: 'original' } }).render().asPng();
}

/** Renders `spec` to the SVG that {@link renderChart} rasterises. */
export function renderChartSvg(spec: ChartSpec): string {
  const width = spec.width ?? CHART_DEFAULTS.width;
  const height = spec.height ?? CHART_DEFAULTS.height;
  validate(spec, width, height);
  const chart = chartEngines().echarts.init(null, null, { renderer: 'svg', ssr: true, width, height });
  try {
    chart.setOption(chartOption(spec, width));
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}

/** An axis name with its unit, as drawn: `Temperature (°C)`. */
export function axisTitle(axis: Pick<ChartAxis, 'name' | 'unit'>): string {
  return `${axis.name} (${axis.unit})`;
}

/**
 * How many labels to skip between shown ones: the smallest step of 1, 2, 3, 4, 6, 12 or 24 (so hourly
 * charts label round hours) that fits the width, or a plain ratio beyond that.
 */
export function labelInterval(count: number, plotWidth: number): number {
  const fits = Math.max(2, Math.floor(plotWidth / CHART_DEFAULTS.pxPerLabel));
  const step = [1, 2, 3, 4, 6, 12, 24].find((s) => Math.ceil(count / s) <= fits) ?? Math.ceil(count / fits);
  return step - 1;
}

function validate(spec: ChartSpec, width: number, height: number): void {
  for (const [side, px] of [
    ['width', width],
    ['height', height],
  ] as const) {
    if (!Number.isInteger(px) || px < 1 || px > MAX_SIDE_PX) {
      throw new RangeError(
        `Chart ${side} must be a whole number of pixels from 1 to ${MAX_SIDE_PX}, not ${px}`,
      );
    }
  }
  const n = spec.x.labels.length;
  const sized = [
    ...spec.series.map((s) => ({ name: s.name, values: s.values })),
    ...(spec.band
      ? [
          { name: `${spec.band.name} (lower)`, values: spec.band.lower },
          { name: `${spec.band.name} (upper)`, values: spec.band.upper },
        ]
      : []),
  ];
  for (const { name, values } of sized) {
    if (values.length !== n) {
      throw new RangeError(`Chart series '${name}' has ${values.length} values for ${n} x labels`);
    }
  }
  for (const s of [...spec.series, ...(spec.band ? [spec.band] : [])]) {
    const axis = s.axis === 'left' ? spec.yAxes.left : spec.yAxes.right;
    if (!axis) throw new RangeError(`Chart series '${s.name}' uses the right axis, which the spec lacks`);
    if (axis.unit !== s.unit) {
      throw new RangeError(
        `Chart series '${s.name}' is in ${s.unit} but its ${s.axis} axis is in ${axis.unit}`,
      );
    }
  }
}

/** Non-finite numbers would bend the axis range; they are gaps like `null`. */
function gaps(values: ReadonlyArray<number | null>): Array<number | null> {
  return values.map((v) => (v !== null && Number.isFinite(v) ? v : null));
}

const BAND_OPACITY = 0.18;
/** Lines stay readable where they cross a bar. */
const BAR_OPACITY = 0.85;

function chartOption(spec: ChartSpec, width: number): EChartsOption {
  const t = CHART_THEME;
  const hasRight = spec.yAxes.right !== undefined;
  const hasBars = spec.series.some((s) => s.kind === 'bar');
  const grid = { left: 76, right: hasRight ? 76 : 28, top: 84, bottom: spec.x.name ? 56 : 36 };
  const interval = labelInterval(spec.x.labels.length, width - grid.left - grid.right);
  const dense = spec.x.labels.length > 30;

  const yAxis = (side: 'left' | 'right', axis: ChartAxis) => {
    const barsHere = spec.series.some((s) => s.kind === 'bar' && s.axis === side);
    return {
      type: 'value' as const,
      position: side,
      name: axisTitle(axis),
      nameLocation: 'middle' as const,
      nameGap: 50,
      nameRotate: side === 'left' ? 90 : -90,
      nameTextStyle: { color: t.mutedText, fontSize: t.textSize },
      // Lines float to their data; bars must grow from zero or their heights lie.
      scale: !barsHere,
      ...(axis.min !== undefined ? { min: axis.min } : barsHere ? { min: 0 } : {}),
      ...(axis.max !== undefined ? { max: axis.max } : {}),
      axisLine: { show: true, lineStyle: { color: t.axisLine } },
      axisTick: { show: true, lineStyle: { color: t.axisLine } },
      axisLabel: {
        color: t.text,
        fontSize: t.textSize,
        // ECharts writes 0.2 whatever the language; the member's own mark, as in the text beside.
        ...(spec.decimalMark === ','
          ? { formatter: (value: number) => String(value).replace('.', ',') }
          : {}),
      },
      // One set of grid lines: two unaligned sets read as noise.
      splitLine: { show: side === 'left', lineStyle: { color: t.gridLine } },
    };
  };

  let paletteIndex = 0;
  const nextColor = (explicit: string | undefined) =>
    explicit ?? t.palette[paletteIndex++ % t.palette.length] ?? t.temperature;
  const yAxisIndex = (side: 'left' | 'right') => (side === 'left' ? 0 : 1);

  const series: Array<LineSeriesOption | BarSeriesOption> = [];
  const legend: NonNullable<LegendComponentOption['data']> = [];
  if (spec.band) {
    const { band } = spec;
    const color = band.color ?? CHART_THEME.band;
    const lower = gaps(band.lower);
    const upper = gaps(band.upper);
    const stack = { stack: '__band', stackStrategy: 'all' as const };
    const invisible = { symbol: 'none', lineStyle: { opacity: 0 }, silent: true, z: 1 } as const;
    // The band is the upper-minus-lower line stacked on the lower one; its area is the range.
    series.push(
      { type: 'line', name: `\u200b${band.name}`, yAxisIndex: 0, data: lower, ...stack, ...invisible },
      {
        type: 'line',
        name: band.name,
        yAxisIndex: 0,
        data: upper.map((u, i) => {
          const l = lower[i];
          return u === null || l === null || l === undefined ? null : u - l;
        }),
        ...stack,
        ...invisible,
        color,
        areaStyle: { color, opacity: BAND_OPACITY },
      },
    );
    // The band's own line is invisible, so its legend entry is a swatch of the fill.
    legend.push({ name: band.name, icon: 'roundRect', itemStyle: { color, opacity: BAND_OPACITY * 2 } });
  }
  for (const s of spec.series) {
    const color = nextColor(s.color);
    legend.push(s.name);
    if (s.kind === 'bar') {
      series.push({
        type: 'bar',
        name: s.name,
        yAxisIndex: yAxisIndex(s.axis),
        data: gaps(s.values),
        color,
        itemStyle: { color, opacity: BAR_OPACITY, borderRadius: [2, 2, 0, 0] },
        barMaxWidth: 28,
        barCategoryGap: dense ? '20%' : '35%',
        z: 2,
      });
    } else {
      series.push({
        type: 'line',
        name: s.name,
        yAxisIndex: yAxisIndex(s.axis),
        data: gaps(s.values),
        color,
        connectNulls: false,
        smooth: dense ? 0.2 : false,
        showSymbol: !dense,
        symbol: 'circle',
        symbolSize: 6,
        lineStyle: { color, width: 2.5 },
        ...(s.area ? { areaStyle: { color, opacity: 0.15, origin: 'start' } } : {}),
        z: 3,
      });
    }
  }

  return {
    animation: false,
    backgroundColor: t.background,
    textStyle: { fontFamily: FONT_STACK, color: t.text, fontSize: t.textSize },
    title: {
      text: spec.title,
      left: 20,
      top: 14,
      textStyle: { color: t.title, fontSize: t.titleSize, fontWeight: 'bold', fontFamily: FONT_STACK },
    },
    legend: {
      data: legend,
      left: 16,
      top: 44,
      itemWidth: 18,
      itemHeight: 10,
      itemGap: 18,
      textStyle: { color: t.text, fontSize: t.textSize, fontFamily: FONT_STACK },
    },
    grid,
    xAxis: {
      type: 'category',
      data: [...spec.x.labels],
      boundaryGap: hasBars,
      ...(spec.x.name ? { name: spec.x.name, nameLocation: 'middle', nameGap: 32 } : {}),
      nameTextStyle: { color: t.mutedText, fontSize: t.textSize },
      axisLine: { lineStyle: { color: t.axisLine } },
      axisTick: { interval, alignWithLabel: true, lineStyle: { color: t.axisLine } },
      axisLabel: { interval, color: t.text, fontSize: t.textSize, hideOverlap: true },
    },
    yAxis: [yAxis('left', spec.yAxes.left), ...(spec.yAxes.right ? [yAxis('right', spec.yAxes.right)] : [])],
    series,
  };
}

interface TemperaturePoint {
  label: string;
  temp: number | null;
}

export interface HourlyChartInput {
  /** E.g. `Berlin, DE`. */
  place: string;
  /** `pop` is the probability of precipitation from 0 to 1. */
  hours: ReadonlyArray<TemperaturePoint & { pop: number | null }>;
  tempUnit: TemperatureUnit;
  title?: string;
}

export interface DailyChartInput {
  place: string;
  days: ReadonlyArray<{ label: string; min: number | null; max: number | null; precipMm: number | null }>;
  tempUnit: TemperatureUnit;
  /** The unit the precipitation is drawn in (given in mm either way); mm when left out. */
  precipUnit?: PrecipitationSymbol;
  title?: string;
}

export interface HistoryChartInput {
  place: string;
  hours: ReadonlyArray<TemperaturePoint & { precipMm: number | null }>;
  tempUnit: TemperatureUnit;
  /** As {@link DailyChartInput.precipUnit}. */
  precipUnit?: PrecipitationSymbol;
  title?: string;
}

const temperatureAxis = (unit: TemperatureUnit): ChartAxis => ({ name: 'Temperature', unit });
/**
 * The least top of a precipitation axis (about 1 mm either way): bars start at zero, and without it
 * a trace of drizzle would fill the chart's height like a downpour.
 */
const PRECIPITATION_AXIS_TOP: Record<PrecipitationSymbol, number> = { mm: 1, in: 0.04 };
const precipitationAxis = (unit: PrecipitationSymbol, values: ReadonlyArray<number | null>): ChartAxis => {
  const top = PRECIPITATION_AXIS_TOP[unit];
  const wettest = Math.max(
    0,
    ...values.filter((value): value is number => value !== null && Number.isFinite(value)),
  );
  return { name: 'Precipitation', unit, ...(wettest < top ? { max: top } : {}) };
};
/** Amounts come in mm, and are drawn in the chart's precipitation unit. */
const precipitationIn = (unit: PrecipitationSymbol, millimetres: number | null) =>
  millimetres === null ? null : millimetresIn(millimetres, unit);

/** Temperature line and probability-of-precipitation bars (0–100 %) for an hourly forecast. */
export function hourlyChartSpec(input: HourlyChartInput): ChartSpec {
  const { hours, tempUnit } = input;
  return {
    title: input.title ?? `${input.place}: next ${hours.length} hours`,
    x: { labels: hours.map((h) => h.label), name: 'Local time' },
    series: [
      {
        name: 'Chance of precipitation',
        kind: 'bar',
        values: hours.map((h) => (h.pop === null ? null : Math.round(h.pop * 100))),
        axis: 'right',
        unit: '%',
        color: CHART_THEME.precipitationProbability,
      },
      {
        name: 'Temperature',
        kind: 'line',
        values: hours.map((h) => h.temp),
        axis: 'left',
        unit: tempUnit,
        color: CHART_THEME.temperature,
      },
    ],
    yAxes: {
      left: temperatureAxis(tempUnit),
      right: { name: 'Chance of precipitation', unit: '%', min: 0, max: 100 },
    },
  };
}

/** Low-to-high temperature band with both lines, and precipitation bars, for a daily forecast. */
export function dailyChartSpec(input: DailyChartInput): ChartSpec {
  const { days, tempUnit, precipUnit = 'mm' } = input;
  const precipitation = days.map((d) => precipitationIn(precipUnit, d.precipMm));
  return {
    title: input.title ?? `${input.place}: next ${days.length} days`,
    x: { labels: days.map((d) => d.label) },
    series: [
      {
        name: 'Precipitation',
        kind: 'bar',
        values: precipitation,
        axis: 'right',
        unit: precipUnit,
        color: CHART_THEME.precipitation,
      },
      {
        name: 'High',
        kind: 'line',
        values: days.map((d) => d.max),
        axis: 'left',
        unit: tempUnit,
        color: CHART_THEME.temperature,
      },
      {
        name: 'Low',
        kind: 'line',
        values: days.map((d) => d.min),
        axis: 'left',
        unit: tempUnit,
        color: CHART_THEME.temperatureLow,
      },
    ],
    band: {
      name: 'Range',
      lower: days.map((d) => d.min),
      upper: days.map((d) => d.max),
      axis: 'left',
      unit: tempUnit,
    },
    yAxes: { left: temperatureAxis(tempUnit), right: precipitationAxis(precipUnit, precipitation) },
  };
}

/** Temperature line and precipitation bars for past hours. */
export function historyChartSpec(input: HistoryChartInput): ChartSpec {
  const { hours, tempUnit, precipUnit = 'mm' } = input;
  const precipitation = hours.map((h) => precipitationIn(precipUnit, h.precipMm));
  return {
    title: input.title ?? `${input.place}: past ${hours.length} hours`,
    x: { labels: hours.map((h) => h.label), name: 'Local time' },
    series: [
      {
        name: 'Precipitation',
        kind: 'bar',
        values: precipitation,
        axis: 'right',
        unit: precipUnit,
        color: CHART_THEME.precipitation,
      },
      {
        name: 'Temperature',
        kind: 'line',
        values: hours.map((h) => h.temp),
        axis: 'left',
        unit: tempUnit,
        color: CHART_THEME.temperature,
      },
    ],
    yAxes: { left: temperatureAxis(tempUnit), right: precipitationAxis(precipUnit, precipitation) },
  };
}
