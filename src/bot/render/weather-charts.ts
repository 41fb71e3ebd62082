/**
 * The charts of the weather replies: specs from reports, in the member's units and language, drawn
 * to PNG by {@link renderChart}. Pure: the same report gives the same bytes.
 */
import type { DailyReport, HistoryReport, HourlyReport } from '../../domain/weather/reports.js';
import { fromKelvin, precipitationSymbol, temperatureSymbol } from '../../domain/weather/units.js';
import { offsetAt } from '../../domain/weather/zones.js';
import { weatherMessages } from '../i18n/weather.js';
import {
  dailyChartSpec,
  historyChartSpec,
  hourlyChartSpec,
  renderChart,
  type ChartAxis,
  type ChartSpec,
} from './charts.js';
import type { WeatherFormat } from './weather-format.js';

/** A PNG to attach, shown in the embed as `attachment://<name>`. */
export interface ChartFile {
  name: string;
  attachment: Buffer;
  /** Alt text. */
  description: string;
}

export const CHART_FILE_NAMES = { hourly: 'hourly.png', daily: 'daily.png', history: 'history.png' } as const;

const ENGLISH = weatherMessages('en').chart;

/** Replaces the English words the chart builders draw with the member's, and the decimal mark. */
export function localizeChartSpec(spec: ChartSpec, f: Pick<WeatherFormat, 't' | 'lang'>): ChartSpec {
  const { t } = f;
  const words = new Map<string, string>(
    (Object.keys(ENGLISH) as (keyof typeof ENGLISH)[]).map((key) => [ENGLISH[key], t.chart[key]]),
  );
  const word = (name: string) => words.get(name) ?? name;
  const axis = (a: ChartAxis): ChartAxis => ({ ...a, name: word(a.name) });
  return {
    ...spec,
    x: { ...spec.x, ...(spec.x.name === undefined ? {} : { name: word(spec.x.name) }) },
    series: spec.series.map((series) => ({ ...series, name: word(series.name) })),
    ...(spec.band ? { band: { ...spec.band, name: word(spec.band.name) } } : {}),
    yAxes: { left: axis(spec.yAxes.left), ...(spec.yAxes.right ? { right: axis(spec.yAxes.right) } : {}) },
    decimalMark: f.lang === 'de' ? ',' : '.',
  };
}

/** Hour labels: `14:00` within a day, `Tue 14:00` beyond, each with the place's offset at that hour. */
function hourLabels(times: readonly number[], tzAt: (unix: number) => number, f: WeatherFormat): string[] {
  // The weekday too once the hours span more than a day (24 hourly entries, 9 steps of 3 hours).
  const spansDays = times.length > 0 && times.at(-1)! - times[0]! >= 24 * 3_600;
  return times.map((dt) => (spansDays ? f.weekdayTime(dt, tzAt(dt)) : f.time(dt, tzAt(dt))));
}

type Amounts = { '1h'?: number | undefined; '3h'?: number | undefined } | undefined;

/**
 * Rain and snow of an hour that gives its own `1h` (the hourly forecast does), in mm; with `3h`, of
 * a step of the 5-day forecast, which gives its three hours' amount.
 */
export function precipitationOf(entry: { rain?: Amounts; snow?: Amounts }, span: '1h' | '3h' = '1h'): number {
  return (entry.rain?.[span] ?? 0) + (entry.snow?.[span] ?? 0);
}

const HOUR = 3_600;
/** Three amounts, each rounded to hundredths, can disagree by this much about the same rain. */
const ROUNDING_MM = 0.015;

/**
 * Each hour's share of one kind of precipitation, for an hourly list in time order. A record with
 * `3h` but no `1h` is either a dry hour after wet ones (`1h` is left out when zero while `3h` still
 * holds the hours before) or a station that reports three-hour sums only. 0 is false for the
 * second, the whole `3h` counts the hours before twice in the first. So the hour gets what of its
 * `3h` the two hours before it do not account for, shared with those of them the list lacks.
 */
function hourShares(amounts: ReadonlyArray<{ dt: number; amounts: Amounts }>): number[] {
  const byTime = new Map<number, number>();
  return amounts.map(({ dt, amounts: a }) => {
    let share = a?.['1h'];
    if (share === undefined) {
      const threeHours = a?.['3h'] ?? 0;
      const before = [byTime.get(dt - HOUR), byTime.get(dt - 2 * HOUR)];
      const known = before.filter((value) => value !== undefined);
      const rest = threeHours - known.reduce((total, value) => total + value, 0);
      share = rest <= ROUNDING_MM ? 0 : rest / (1 + before.length - known.length);
    }
    byTime.set(dt, share);
    return share;
  });
}

/** Rain and snow of each hour of an hourly list in time order (the history), in mm. */
export function hourlyPrecipitation(
  list: ReadonlyArray<{ dt: number; rain?: Amounts; snow?: Amounts }>,
): number[] {
  const rain = hourShares(list.map((entry) => ({ dt: entry.dt, amounts: entry.rain })));
  const snow = hourShares(list.map((entry) => ({ dt: entry.dt, amounts: entry.snow })));
  return rain.map((amount, i) => amount + (snow[i] ?? 0));
}

export function hourlyChart(report: HourlyReport, title: string, f: WeatherFormat): ChartSpec {
  const { list } = report.forecast;
  const labels = hourLabels(
    list.map((entry) => entry.dt),
    (dt) => offsetAt(report, dt),
    f,
  );
  const spec = hourlyChartSpec({
    place: report.place.label,
    title,
    tempUnit: temperatureSymbol(f.units),
    hours: list.map((entry, i) => ({
      label: labels[i] ?? '',
      temp: fromKelvin(entry.main.temp, f.units),
      pop: entry.pop ?? null,
    })),
  });
  return localizeChartSpec(spec, f);
}

export function dailyChart(report: DailyReport, title: string, f: WeatherFormat): ChartSpec {
  const spec = dailyChartSpec({
    place: report.place.label,
    title,
    tempUnit: temperatureSymbol(f.units),
    precipUnit: precipitationSymbol(f.units),
    days: report.forecast.list.map((day) => ({
      label: f.dayLabel(day.dt, offsetAt(report, day.dt)),
      min: fromKelvin(day.temp.min, f.units),
      max: fromKelvin(day.temp.max, f.units),
      precipMm: (day.rain ?? 0) + (day.snow ?? 0),
    })),
  });
  return localizeChartSpec(spec, f);
}

export function historyChart(report: HistoryReport, title: string, f: WeatherFormat): ChartSpec {
  const { list } = report.history;
  const labels = hourLabels(
    list.map((entry) => entry.dt),
    (dt) => offsetAt(report, dt),
    f,
  );
  const precipitation = hourlyPrecipitation(list);
  const spec = historyChartSpec({
    place: report.place.label,
    title,
    tempUnit: temperatureSymbol(f.units),
    precipUnit: precipitationSymbol(f.units),
    hours: list.map((entry, i) => ({
      label: labels[i] ?? '',
      temp: fromKelvin(entry.main.temp, f.units),
      precipMm: precipitation[i] ?? 0,
    })),
  });
  return localizeChartSpec(spec, f);
}

export function chartFile(name: string, spec: ChartSpec, description: string): ChartFile {
  return { name, attachment: renderChart(spec), description };
}
