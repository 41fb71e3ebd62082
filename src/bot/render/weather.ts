/**
 * The weather replies, from reports to embeds (and chart attachments). Pure and exported: slash
 * commands use them, and so will scheduled posts ("current conditions", "today's forecast", "the
 * week"). Every text is cut to Discord's limits and the amounts are bounded (16 days, 96 hours), so a
 * reply fits by construction, whatever the service sends.
 */
import { EmbedBuilder } from '@discordjs/builders';
import type { APIEmbedField } from 'discord-api-types/v10';
import { HISTORY_MAX_RECORDS, type UnixRange } from '../../domain/weather/dates.js';
import type { MemberWeatherPrefs, ServerWeatherPrefs } from '../../domain/weather/prefs.js';
import type {
  AccumulatedReport,
  CurrentReport,
  DailyReport,
  HistoryReport,
  HourlyReport,
  StatisticsReport,
} from '../../domain/weather/reports.js';
import type { WeatherUnits } from '../../domain/weather/units.js';
import { amountsByLocalDay, typicalCondition } from '../../domain/weather/five-day.js';
import {
  answeredOffset,
  byLocalDay,
  localDayNumber,
  localHour,
  offsetAt,
  placeClock,
  type PlaceClock,
} from '../../domain/weather/zones.js';
import type { Condition } from '../../services/weather/index.js';
import { WEATHER_COMMAND_TEXT } from '../i18n/weather.js';
import { md } from './music-text.js';
import { EMBED_LIMITS } from './text.js';
import {
  CHART_FILE_NAMES,
  chartFile,
  dailyChart,
  historyChart,
  hourlyChart,
  hourlyPrecipitation,
  precipitationOf,
  type ChartFile,
} from './weather-charts.js';
import {
  conditionEmoji,
  fit,
  UNIT_SPACE,
  weatherFormat,
  type WeatherFormat,
  type WeatherRenderOptions,
} from './weather-format.js';

export {
  conditionEmoji,
  fit,
  weatherFormat,
  type WeatherFormat,
  type WeatherRenderOptions,
} from './weather-format.js';
export type { ChartFile } from './weather-charts.js';

export const WEATHER_COLOUR = 0x4ea8ff;

export { EMBED_LIMITS };

/** The most a reply shows: the service's own maxima. */
export const RENDER_LIMITS = { hours: 96, days: 16, summaryDays: 5, comingHours: 5 } as const;

/** Chart titles longer than this would run off the picture. */
const CHART_TITLE_MAX = 70;

/** An embed and the charts it shows: what `editReply`, `reply` or a channel post takes. */
export interface WeatherMessage {
  embeds: EmbedBuilder[];
  files: ChartFile[];
}

function field(name: string, value: string, inline = true): APIEmbedField {
  return {
    name: fit(name, EMBED_LIMITS.fieldName),
    value: fit(value === '' ? '—' : value, EMBED_LIMITS.fieldValue),
    inline,
  };
}

/** Characters Discord counts towards the 6,000 of a message. */
export function embedLength(embed: EmbedBuilder): number {
  const { data } = embed;
  return (
    (data.title?.length ?? 0) +
    (data.description?.length ?? 0) +
    (data.footer?.text.length ?? 0) +
    (data.author?.name.length ?? 0) +
    (data.fields ?? []).reduce((sum, f) => sum + f.name.length + f.value.length, 0)
  );
}

interface EmbedParts {
  title: string;
  description?: string | undefined;
  fields?: readonly APIEmbedField[];
  footer?: string | undefined;
  thumbnail?: string | undefined;
  image?: string | undefined;
  timestamp?: number | undefined;
}

/** Fields cut evenly so that together they leave the rest of the embed `room` characters. */
function fitFields(fields: readonly APIEmbedField[], room: number): APIEmbedField[] {
  const total = fields.reduce((sum, f) => sum + f.name.length + f.value.length, 0);
  if (total <= room || fields.length === 0) return [...fields];
  const share = Math.max(2, Math.floor(room / fields.length));
  return fields.map((f) => {
    const name = fit(f.name, Math.max(1, Math.min(EMBED_LIMITS.fieldName, Math.floor(share / 4))));
    return { ...f, name, value: fit(f.value, Math.max(1, share - name.length)) };
  });
}

/**
 * Builds an embed within every limit, the 6,000 characters in all included: the description gives
 * way first, then the fields, evenly.
 */
export function weatherEmbed(parts: EmbedParts): EmbedBuilder {
  const title = fit(parts.title, EMBED_LIMITS.title);
  const footer = parts.footer === undefined ? undefined : fit(parts.footer, EMBED_LIMITS.footer);
  const fields = fitFields(
    (parts.fields ?? []).slice(0, EMBED_LIMITS.fields),
    EMBED_LIMITS.total - title.length - (footer?.length ?? 0),
  );
  const fixed =
    title.length + (footer?.length ?? 0) + fields.reduce((sum, f) => sum + f.name.length + f.value.length, 0);
  const room = Math.min(EMBED_LIMITS.description, EMBED_LIMITS.total - fixed);
  const embed = new EmbedBuilder().setColor(WEATHER_COLOUR).setTitle(title);
  if (parts.description !== undefined && parts.description !== '' && room > 1) {
    embed.setDescription(fit(parts.description, room));
  }
  if (fields.length > 0) embed.addFields(fields);
  if (footer !== undefined) embed.setFooter({ text: footer });
  if (parts.thumbnail !== undefined) embed.setThumbnail(parts.thumbnail);
  if (parts.image !== undefined) embed.setImage(parts.image);
  if (parts.timestamp !== undefined) embed.setTimestamp(parts.timestamp);
  return embed;
}

function windText(
  f: WeatherFormat,
  wind: { speed: number; deg?: number | undefined; gust?: number | undefined },
) {
  if (wind.speed < 0.3 && (wind.gust ?? 0) < 0.3) return f.t.calm;
  const direction = wind.deg === undefined ? '' : ` ${f.compass(wind.deg)}`;
  const gust = wind.gust === undefined ? '' : `, ${f.t.gusts(f.speed(wind.gust))}`;
  return `${f.speed(wind.speed)}${direction}${gust}`;
}

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

function iconUrl(siteUrl: string | undefined, condition: Condition | undefined): string | undefined {
  if (siteUrl === undefined || condition?.icon === undefined || !/^[0-9a-z]{2,4}$/.test(condition.icon)) {
    return undefined;
  }
  return `${siteUrl.replace(/\/+$/, '')}/img/wn/${condition.icon}@2x.png`;
}

/** Current conditions: temperature, feels-like, wind, humidity, pressure, visibility, rain or snow, local time. */
export function renderCurrentWeather(report: CurrentReport, options: WeatherRenderOptions): EmbedBuilder {
  const f = weatherFormat(options);
  const { t } = f;
  const { weather } = report;
  const condition = weather.weather[0];
  const tz = answeredOffset(weather.timezone, weather.dt, report.place);
  const fields: APIEmbedField[] = [
    field(t.temperature, f.temperature(weather.main.temp)),
    // The air temperature is not what it feels like: without the service's figure, say nothing.
    ...(weather.main.feels_like === undefined
      ? []
      : [field(t.feelsLike, f.temperature(weather.main.feels_like))]),
    field(t.wind, weather.wind ? windText(f, weather.wind) : '—'),
    field(t.humidity, f.percent(weather.main.humidity)),
    field(t.pressure, f.pressure(weather.main.pressure)),
    field(t.visibility, weather.visibility === undefined ? '—' : f.visibility(weather.visibility)),
  ];
  // Some stations report only the last three hours: that amount, labelled as such, is no hour's.
  const amounts = [
    { amount: weather.rain, lastHour: t.rainLastHour, last3Hours: t.rainLast3Hours },
    { amount: weather.snow, lastHour: t.snowLastHour, last3Hours: t.snowLast3Hours },
  ];
  for (const { amount, lastHour, last3Hours } of amounts) {
    if (amount?.['1h'] !== undefined) fields.push(field(lastHour, f.precipitation(amount['1h'])));
    else if (amount?.['3h'] !== undefined) fields.push(field(last3Hours, f.precipitation(amount['3h'])));
  }
  // The service leaves `rain` and `snow` out when nothing fell, and also where it has no amount
  // ("where available"): under a thunderstorm, drizzle, rain or snow, "0 mm" would contradict the
  // condition shown above it, so nothing is said.
  const group = Math.floor((weather.weather[0]?.id ?? 800) / 100);
  const falling = group === 2 || group === 3 || group === 5 || group === 6;
  if (weather.rain === undefined && weather.snow === undefined && !falling) {
    fields.push(field(t.precipitationLastHour, f.precipitation(0)));
  }
  if (weather.clouds) fields.push(field(t.clouds, f.percent(weather.clouds.all)));
  // `dt` is when the service worked the values out, up to an hour or so before the member asked.
  fields.push(field(t.asOf, `${f.weekdayTime(weather.dt, tz)} (${f.utcOffset(tz)})`));
  const sunrise = weather.sys?.sunrise;
  const sunset = weather.sys?.sunset;
  // In polar day or night the service has sent one time for both (or nonsense spans): no sun times
  // is true there, a sunrise and sunset at the same minute is not.
  if (
    sunrise !== undefined &&
    sunset !== undefined &&
    sunrise > 0 &&
    sunset > sunrise &&
    sunset - sunrise < 86_400
  ) {
    // `timezone` is the offset when the report was made: on the night of a clock change the sun
    // rises on the other side of it, so each time is read with the place's offset at that instant.
    const clock = placeClock(tz, weather.dt, weather.sys?.country, report.place);
    fields.push(
      field(
        t.sunriseSunset,
        `${f.time(sunrise, offsetAt(clock, sunrise))} / ${f.time(sunset, offsetAt(clock, sunset))}`,
      ),
    );
  }
  return weatherEmbed({
    title: report.place.label,
    description: `${conditionEmoji(condition)} **${f.describe(condition)}**`,
    fields,
    footer: f.footer,
    thumbnail: iconUrl(options.siteUrl, condition),
    timestamp: weather.dt * 1000,
  });
}

/** The next 24 to 96 hours: an overview, day by day, the coming hours, and a chart. */
export function renderHourlyForecast(report: HourlyReport, options: WeatherRenderOptions): WeatherMessage {
  const f = weatherFormat(options);
  const { t } = f;
  const tzAt = (unix: number) => offsetAt(report, unix);
  // A plan without the hourly forecast gets the 5-day forecast's 3-hour steps (see the report).
  const stepHours = report.fromThreeHourly ? 3 : 1;
  const span = report.fromThreeHourly ? '3h' : '1h';
  const list = report.forecast.list.slice(0, Math.ceil(RENDER_LIMITS.hours / stepHours));
  const title = t.hourlyTitle(report.place.label, list.length * stepHours);
  if (list.length === 0) {
    return { embeds: [weatherEmbed({ title, description: '—', footer: f.footer })], files: [] };
  }

  // A 3-hour step's amount fell in the three hours before it: the step at midnight is the evening's.
  const fell = report.fromThreeHourly
    ? amountsByLocalDay(list, report, 3, (entry) => precipitationOf(entry, '3h'))
    : undefined;
  const listedDays = byLocalDay(list, report);
  // What fell on each listed day; the total is their sum, so the headline and the rows agree.
  const dayAmounts = listedDays.map((hours) =>
    fell === undefined
      ? sum(hours.map((entry) => precipitationOf(entry, span)))
      : (fell.get(localDayNumber(report, hours[0]!.dt)) ?? 0),
  );
  const temps = list.map((entry) => entry.main.temp);
  const overview = t.hourlyOverview(
    f.temperature(Math.min(...temps), 0),
    f.temperature(Math.max(...temps), 0),
    f.probability(Math.max(...list.map((entry) => entry.pop ?? 0))),
    f.precipitation(sum(dayAmounts)),
  );
  const days = listedDays.slice(0, RENDER_LIMITS.summaryDays).map((hours, index) => {
    const first = hours[0]!;
    const dayAmount = dayAmounts[index] ?? 0;
    const dayTemps = hours.map((entry) => entry.main.temp);
    const typical = typicalCondition(hours, (entry) => localHour(report, entry.dt));
    return (
      `**${f.dayHeading(first.dt, tzAt(first.dt))}** ${conditionEmoji(typical)} ` +
      `${f.temperature(Math.min(...dayTemps), 0)} – ${f.temperature(Math.max(...dayTemps), 0)} · ` +
      `${f.probability(Math.max(...hours.map((entry) => entry.pop ?? 0)))} · ` +
      `${f.precipitation(dayAmount)} · ${f.describe(typical)}`
    );
  });
  const step = stepHours === 3 ? 1 : list.length > 24 ? 3 : 2;
  const coming = list
    .filter((_, i) => i % step === 0)
    .slice(0, RENDER_LIMITS.comingHours)
    .map(
      (entry) =>
        `\`${f.time(entry.dt, tzAt(entry.dt))}\` ${conditionEmoji(entry.weather[0])} ${f.temperature(entry.main.temp, 0)} · ` +
        `${f.probability(entry.pop ?? 0)} · ${f.describe(entry.weather[0])}`,
    );
  const chartTitle = fit(title, CHART_TITLE_MAX);
  const chart = chartFile(
    CHART_FILE_NAMES.hourly,
    hourlyChart({ ...report, forecast: { ...report.forecast, list } }, chartTitle, f),
    report.fromThreeHourly ? t.threeHourlyChartAlt : t.hourlyChartAlt,
  );
  return {
    embeds: [
      weatherEmbed({
        title,
        description: report.fromThreeHourly ? `${overview}\n*${t.hourlyFromThreeHourly}*` : overview,
        fields: [field(t.byDay, days.join('\n'), false), field(t.nextHours, coming.join('\n'), false)],
        footer: f.footer,
        image: `attachment://${chart.name}`,
      }),
    ],
    files: [chart],
  };
}

/** Up to 16 days: one field per day (low and high, day and night, precipitation), and a chart. */
export function renderDailyForecast(report: DailyReport, options: WeatherRenderOptions): WeatherMessage {
  const f = weatherFormat(options);
  const { t } = f;
  const list = report.forecast.list.slice(0, RENDER_LIMITS.days);
  const title = t.dailyTitle(report.place.label, list.length, report.startsTomorrow === true);
  const fields = list.map((day) => {
    const condition = day.weather[0];
    const precipitation = (day.rain ?? 0) + (day.snow ?? 0);
    return field(
      f.dayHeading(day.dt, offsetAt(report, day.dt)),
      [
        `${conditionEmoji(condition)} ${f.describe(condition)}`,
        `↑ ${f.temperature(day.temp.max, 0)} · ↓ ${f.temperature(day.temp.min, 0)}`,
        `${t.dayPart} ${f.temperature(day.temp.day, 0)} · ${t.nightPart} ${f.temperature(day.temp.night, 0)}`,
        `💧 ${f.precipitation(precipitation)} · ${f.probability(day.pop ?? 0)}`,
      ].join('\n'),
    );
  });
  if (list.length === 0) {
    return { embeds: [weatherEmbed({ title, description: '—', footer: f.footer })], files: [] };
  }
  const chart = chartFile(
    CHART_FILE_NAMES.daily,
    dailyChart({ ...report, forecast: { ...report.forecast, list } }, fit(title, CHART_TITLE_MAX), f),
    t.dailyChartAlt,
  );
  const description = report.fromThreeHourly ? `*${t.dailyFromThreeHourly}*` : undefined;
  return {
    embeds: [
      weatherEmbed({
        title,
        description,
        fields,
        footer: f.footer,
        image: `attachment://${chart.name}`,
      }),
    ],
    files: [chart],
  };
}

/**
 * `Fri, Nov 28, 2026 00:00`, `11:00 (UTC+1)`: the start with its date (a range may lie years back,
 * and a weekday alone would not say which week), the end with its own unless it is the same day.
 * Each end in the place's time of its own date, with the offset applied, which may be only the
 * place's present one (see `domain/weather/zones.ts`); shown once when both ends share it, at each
 * end when the range crosses a change.
 */
function rangeEnds(f: WeatherFormat, clock: PlaceClock, range: UnixRange): [string, string] {
  const from = offsetAt(clock, range.start);
  const to = offsetAt(clock, range.end);
  const start = f.dateTime(range.start, from);
  const sameDay = localDayNumber(clock, range.start) === localDayNumber(clock, range.end);
  const end = `${sameDay ? f.time(range.end, to) : f.dateTime(range.end, to)} (${f.utcOffset(to)})`;
  return [from === to ? start : `${start} (${f.utcOffset(from)})`, end];
}

/** Past hours: temperatures, precipitation, wind, humidity, conditions, and a chart. */
export function renderWeatherHistory(report: HistoryReport, options: WeatherRenderOptions): WeatherMessage {
  const f = weatherFormat(options);
  const { t } = f;
  const list = report.history.list.slice(0, HISTORY_MAX_RECORDS);
  const title = t.historyTitle(report.place.label, list.length);
  const range = t.historyRange(...rangeEnds(f, report, report.range));
  if (list.length === 0) {
    // Not "0 hours of history": the range asked for is in the description.
    const none = t.historyNoneTitle(report.place.label);
    return {
      embeds: [weatherEmbed({ title: none, description: `${range}\n${t.historyEmpty}`, footer: f.footer })],
      files: [],
    };
  }
  const temps = list.map((entry) => entry.main.temp);
  const windiest = list.reduce((a, b) => ((b.wind?.speed ?? 0) > (a.wind?.speed ?? 0) ? b : a));
  const groups = new Map<string, number>();
  for (const entry of list) {
    const main = entry.weather[0]?.main;
    if (main !== undefined) groups.set(main, (groups.get(main) ?? 0) + 1);
  }
  const conditions = [...groups]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([main, hours]) => t.hoursOf(f.group(main), hours));
  const chart = chartFile(
    CHART_FILE_NAMES.history,
    historyChart({ ...report, history: { ...report.history, list } }, fit(title, CHART_TITLE_MAX), f),
    t.historyChartAlt,
  );
  return {
    embeds: [
      weatherEmbed({
        title,
        description: range,
        fields: [
          field(
            t.temperature,
            t.minMeanMax(
              f.temperature(Math.min(...temps)),
              f.temperature(sum(temps) / temps.length),
              f.temperature(Math.max(...temps)),
            ),
          ),
          field(t.precipitationTotal, f.precipitation(sum(hourlyPrecipitation(list)))),
          field(t.strongestWind, windiest.wind ? windText(f, windiest.wind) : '—'),
          field(t.meanHumidity, f.percent(sum(list.map((entry) => entry.main.humidity)) / list.length)),
          field(t.conditions, conditions.join('\n')),
        ],
        footer: f.footer,
        image: `attachment://${chart.name}`,
      }),
    ],
    files: [chart],
  };
}

/** The climate of a calendar day: records, averages, quartiles, and the other quantities. */
export function renderDayStatistics(report: StatisticsReport, options: WeatherRenderOptions): EmbedBuilder {
  const f = weatherFormat(options);
  const { t } = f;
  const title = t.statsTitle(report.place.label, f.calendarDay(report.month, report.day));
  const stats = report.statistics;
  if (!stats) {
    // The service's year has 365 days ("all 365 days of the entire year"): no 29 February.
    const leapDay = report.month === 2 && report.day === 29;
    return weatherEmbed({ title, description: leapDay ? t.statsNoLeapDay : t.statsEmpty, footer: f.footer });
  }
  const { temp } = stats;
  const range = (low: string, high: string) => `${low} – ${high}`;
  return weatherEmbed({
    title,
    description: t.statsIntro(temp.num, f.number(temp.num, 0)),
    fields: [
      field(t.records, t.recordLowHigh(f.temperature(temp.record_min), f.temperature(temp.record_max))),
      field(t.averageLowHigh, range(f.temperature(temp.average_min), f.temperature(temp.average_max))),
      field(t.meanMedian, `${f.temperature(temp.mean)} / ${f.temperature(temp.median)}`),
      field(t.middleHalf, range(f.temperature(temp.p25), f.temperature(temp.p75))),
      field(t.spread, `±${UNIT_SPACE}${f.temperatureDifference(temp.st_dev)}`),
      // A quantity the service left out for this day is left out here too.
      stats.precipitation &&
        field(
          `${t.precipitation} (${t.perMeasurement})`,
          t.meanAndMax(f.precipitation(stats.precipitation.mean), f.precipitation(stats.precipitation.max)),
        ),
      stats.wind && field(t.wind, t.meanAndMax(f.speed(stats.wind.mean), f.speed(stats.wind.max))),
      stats.humidity &&
        field(
          t.humidity,
          `${f.percent(stats.humidity.mean)} (${range(f.percent(stats.humidity.p25), f.percent(stats.humidity.p75))})`,
        ),
      stats.pressure &&
        field(
          t.pressure,
          `${f.pressure(stats.pressure.mean)} (${range(f.pressure(stats.pressure.min), f.pressure(stats.pressure.max))})`,
        ),
      stats.clouds && field(t.clouds, f.percent(stats.clouds.mean)),
    ].filter((entry) => entry !== undefined),
    footer: f.footer,
  });
}

/** Growing warmth above a threshold and precipitation between two dates, with their meaning. */
export function renderAccumulated(report: AccumulatedReport, options: WeatherRenderOptions): EmbedBuilder {
  const f = weatherFormat(options);
  const { t } = f;
  const threshold = f.temperature(report.thresholdK, 1);
  const title = t.accumulatedTitle(report.place.label);
  const days = Math.floor((report.range.end - report.range.start) / 86_400) + 1;
  const temperature = report.temperature.at(-1);
  const precipitation = report.precipitation.at(-1);
  if (!temperature && !precipitation) {
    return weatherEmbed({ title, description: t.accumulatedEmpty, footer: f.footer });
  }
  // The service sums the Kelvin temperatures of the days it counts; above the threshold, that is
  // the sum less the threshold once per day counted.
  let warmth = t.warmthNone;
  if (temperature && temperature.count > 0) {
    const degreeDays = Math.max(0, temperature.temp - temperature.count * report.thresholdK);
    warmth = t.warmthValue(
      f.temperatureDifference(degreeDays, 0, '·d'),
      temperature.count,
      f.temperature(temperature.temp / temperature.count),
    );
  }
  return weatherEmbed({
    title,
    description: t.accumulatedMeaning(threshold),
    fields: [
      field(
        t.period,
        t.periodValue(
          f.date(report.range.start),
          f.date(report.range.end),
          days,
          // The service sums whole days only: today, or days it has no data for, are not in yet.
          precipitation && precipitation.count < days ? precipitation.count : undefined,
        ),
        false,
      ),
      field(t.warmthAbove(threshold), warmth),
      field(
        t.precipitation,
        precipitation ? t.precipitationValue(f.precipitation(precipitation.rain), precipitation.count) : '—',
      ),
    ],
    footer: f.footer,
  });
}

/** `/weather home show`: the member's home and units, the server's default place. */
export function renderWeatherSettings(
  settings: { member: MemberWeatherPrefs; server: ServerWeatherPrefs | undefined; units: WeatherUnits },
  options: Pick<WeatherRenderOptions, 'locale'>,
): EmbedBuilder {
  const f = weatherFormat({ ...options, units: settings.units });
  const { t } = f;
  // As `/weather units` names them, with every unit they show.
  const unitsName = WEATHER_COMMAND_TEXT.unitChoices[settings.units][f.lang];
  const fields = [
    // Field values render markdown; a label may come from a typed `geo:` value.
    field(t.yourHome, settings.member.home ? md(settings.member.home.label, 100) : t.notSet, false),
    ...(settings.server
      ? [field(t.serverHome, settings.server.home ? md(settings.server.home.label, 100) : t.notSet, false)]
      : []),
    field(t.yourUnits, settings.member.units ? unitsName : t.followsLanguage(unitsName), false),
  ];
  return weatherEmbed({ title: t.prefsTitle, fields });
}
