/**
 * The charts of the weather replies: specs from reports, in the member's units and language, drawn
 * to PNG by {@link renderChart}. Pure: the same report gives the same bytes.
 */
import type { DailyReport, HistoryReport, HourlyReport } from '../../domain/weather/reports.js';
import { fromKelvin, temperatureSymbol } from '../../domain/weather/units.js';
import { offsetAt } from '../../domain/weather/zones.js';
import { weatherMessages, type WeatherMessages } from '../i18n/weather.js';
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

/** Replaces the English words the chart builders draw with the member's. */
export function localizeChartSpec(spec: ChartSpec, t: WeatherMessages): ChartSpec {
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
  };
}

/** Hour labels: `14:00` within a day, `Tue 14:00` beyond, each with the place's offset at that hour. */
function hourLabels(times: readonly number[], tzAt: (unix: number) => number, f: WeatherFormat): string[] {
  return times.map((dt) => (times.length > 24 ? f.weekdayTime(dt, tzAt(dt)) : f.time(dt, tzAt(dt))));
}

/** Rain and snow of an hour, in mm. */
export function precipitationOf(entry: {
  rain?: { '1h'?: number | undefined } | undefined;
  snow?: { '1h'?: number | undefined } | undefined;
}): number {
  return (entry.rain?.['1h'] ?? 0) + (entry.snow?.['1h'] ?? 0);
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
  return localizeChartSpec(spec, f.t);
}

export function dailyChart(report: DailyReport, title: string, f: WeatherFormat): ChartSpec {
  const spec = dailyChartSpec({
    place: report.place.label,
    title,
    tempUnit: temperatureSymbol(f.units),
    days: report.forecast.list.map((day) => ({
      label: f.dayLabel(day.dt, offsetAt(report, day.dt)),
      min: fromKelvin(day.temp.min, f.units),
      max: fromKelvin(day.temp.max, f.units),
      precipMm: (day.rain ?? 0) + (day.snow ?? 0),
    })),
  });
  return localizeChartSpec(spec, f.t);
}

export function historyChart(report: HistoryReport, title: string, f: WeatherFormat): ChartSpec {
  const { list } = report.history;
  const labels = hourLabels(
    list.map((entry) => entry.dt),
    (dt) => offsetAt(report, dt),
    f,
  );
  const spec = historyChartSpec({
    place: report.place.label,
    title,
    tempUnit: temperatureSymbol(f.units),
    hours: list.map((entry, i) => ({
      label: labels[i] ?? '',
      temp: fromKelvin(entry.main.temp, f.units),
      precipMm: precipitationOf(entry),
    })),
  });
  return localizeChartSpec(spec, f.t);
}

export function chartFile(name: string, spec: ChartSpec, description: string): ChartFile {
  return { name, attachment: renderChart(spec), description };
}
