/**
 * The service's other formats (`mode=xml`, `mode=html`), drawn from the JSON answers of
 * `responses.ts` so that every format tells the same story. Layouts follow the public documentation's
 * samples and answers recorded in public projects; details no such source shows are marked
 * "unconfirmed". Every value is escaped.
 */
import { conditionObject } from './conditions.js';
import type { Units } from './model.js';
import type {
  currentWeather,
  dailyForecast,
  hourlyForecast,
  Location,
  threeHourForecast,
  View,
} from './responses.js';
import { localDay } from './timezones.js';

type CurrentWeather = ReturnType<typeof currentWeather>;
type Forecast = ReturnType<typeof hourlyForecast> | ReturnType<typeof threeHourForecast>;
type DailyForecast = ReturnType<typeof dailyForecast>;

const HOUR = 3600;
const DAY = 86_400;
const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';

/** Text safe in XML and HTML content and in double- or single-quoted attributes. */
export function escapeMarkup(value: string | number): string {
  return String(value)
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;');
}

type Attributes = Readonly<Record<string, string | number | undefined>>;

/** An element; attributes left undefined are omitted, and no children makes it self-closing. */
function el(name: string, attributes: Attributes = {}, ...children: string[]): string {
  const attrs = Object.entries(attributes)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
    .map(([key, value]) => ` ${key}="${escapeMarkup(value)}"`)
    .join('');
  return children.length === 0 ? `<${name}${attrs}/>` : `<${name}${attrs}>${children.join('')}</${name}>`;
}

/** An element holding text (self-closing when the text is empty, as upstream's `<type/>`). */
function textEl(name: string, text: string | number): string {
  const value = String(text);
  return value === '' ? `<${name}/>` : `<${name}>${escapeMarkup(value)}</${name}>`;
}

/** `2017-01-30T07:40:34`: upstream's XML times, UTC without a zone designator. */
function isoTime(t: number): string {
  return new Date(t * 1000).toISOString().slice(0, 19);
}

const TEMPERATURE_UNIT: Readonly<Record<Units, string>> = {
  standard: 'kelvin',
  metric: 'celsius',
  imperial: 'fahrenheit',
};
const speedUnit = (units: Units) => (units === 'imperial' ? 'mph' : 'm/s');

/**
 * Beaufort names by speed (m/s). Casing as in upstream samples ("Light breeze", "Gentle Breeze",
 * "Moderate breeze"); the one sample below 1.6 m/s (0.62) says "Calm", so "Light air" is not used.
 * The names above "Moderate breeze" are unconfirmed.
 */
const BEAUFORT: ReadonlyArray<readonly [number, string]> = [
  [1.6, 'Calm'],
  [3.4, 'Light breeze'],
  [5.5, 'Gentle Breeze'],
  [8, 'Moderate breeze'],
  [10.8, 'Fresh Breeze'],
  [13.9, 'Strong breeze'],
  [17.2, 'High wind, near gale'],
  [20.8, 'Gale'],
  [24.5, 'Severe Gale'],
  [28.5, 'Storm'],
  [32.7, 'Violent Storm'],
];

function windName(speed: number, units: Units): string {
  const metresPerSecond = units === 'imperial' ? speed * 0.447_04 : speed;
  return BEAUFORT.find(([below]) => metresPerSecond < below)?.[1] ?? 'Hurricane';
}

const COMPASS = [
  ['N', 'North'],
  ['NNE', 'North-northeast'],
  ['NE', 'Northeast'],
  ['ENE', 'East-northeast'],
  ['E', 'East'],
  ['ESE', 'East-southeast'],
  ['SE', 'Southeast'],
  ['SSE', 'South-southeast'],
  ['S', 'South'],
  ['SSW', 'South-southwest'],
  ['SW', 'Southwest'],
  ['WSW', 'West-southwest'],
  ['W', 'West'],
  ['WNW', 'West-northwest'],
  ['NW', 'Northwest'],
  ['NNW', 'North-northwest'],
] as const;

function compass(deg: number): { code: string; name: string } {
  const [code, name] = COMPASS[Math.round(deg / 22.5) % 16] ?? COMPASS[0];
  return { code, name };
}

/** The cloud-cover wording upstream puts in `clouds` (`name`/`value`), by the 800-804 bands. */
function cloudName(all: number, lang: string): string {
  const id = all <= 10 ? 800 : all <= 25 ? 801 : all <= 50 ? 802 : all <= 84 ? 803 : 804;
  return conditionObject(id, true, lang).description;
}

/**
 * Rain and snow of one entry as upstream's single `precipitation` element: the total, named after the
 * larger part (mixed rain and snow has no sample: unconfirmed).
 */
function precipitationOf(rain: number, snow: number): { value: number; type: string } | undefined {
  const value = Math.round((rain + snow) * 100) / 100;
  return value > 0 ? { value, type: snow > rain ? 'snow' : 'rain' } : undefined;
}

/**
 * `GET /data/2.5/weather?mode=xml`: `<current>` as in upstream answers (2021-2026 samples).
 * `gusts` is empty in every sample seen (their JSON had no `wind.gust`); the emulator always has a
 * gust, so it gives `<gusts value="…"/>` (unconfirmed). `precipitation`'s `value`/`unit` when it
 * rains or snows are unconfirmed too.
 */
export function currentWeatherXml(body: CurrentWeather, view: View): string {
  const { units, lang } = view;
  const condition = body.weather[0];
  const wind = compass(body.wind.deg);
  const fallen = precipitationOf(body.rain?.['1h'] ?? 0, body.snow?.['1h'] ?? 0);
  const { sunrise, sunset } = body.sys;
  // Polar day or night: the JSON's times are 0, the XML gives none (upstream's XML then: unconfirmed).
  const sun = sunrise === 0 ? {} : { rise: isoTime(sunrise), set: isoTime(sunset) };
  return (
    XML_DECLARATION +
    el(
      'current',
      {},
      el(
        'city',
        { id: body.id, name: body.name },
        el('coord', { lon: body.coord.lon, lat: body.coord.lat }),
        textEl('country', body.sys.country ?? ''),
        textEl('timezone', body.timezone),
        el('sun', sun),
      ),
      el('temperature', {
        value: body.main.temp,
        min: body.main.temp_min,
        max: body.main.temp_max,
        unit: TEMPERATURE_UNIT[units],
      }),
      el('feels_like', { value: body.main.feels_like, unit: TEMPERATURE_UNIT[units] }),
      el('humidity', { value: body.main.humidity, unit: '%' }),
      el('pressure', { value: body.main.pressure, unit: 'hPa' }),
      el(
        'wind',
        {},
        el('speed', {
          value: body.wind.speed,
          unit: speedUnit(units),
          name: windName(body.wind.speed, units),
        }),
        el('gusts', { value: body.wind.gust }),
        el('direction', { value: body.wind.deg, code: wind.code, name: wind.name }),
      ),
      el('clouds', { value: body.clouds.all, name: cloudName(body.clouds.all, lang) }),
      el('visibility', { value: body.visibility }),
      el('precipitation', fallen ? { value: fallen.value, mode: fallen.type, unit: '1h' } : { mode: 'no' }),
      el('weather', { number: condition?.id, value: condition?.description, icon: condition?.icon }),
      el('lastupdate', { value: isoTime(body.dt) }),
    )
  );
}

/**
 * `GET /data/2.5/weather?mode=html`: a small page with the place, the condition and its icon, the
 * temperature, clouds, humidity, wind and pressure. Upstream answers a small widget-like page; its
 * exact markup is unconfirmed, so only its content is followed.
 */
export function currentWeatherHtml(body: CurrentWeather, view: View, siteUrl: string): string {
  const condition = body.weather[0];
  const degrees = { standard: ' K', metric: ' °C', imperial: ' °F' }[view.units];
  const name = body.name === '' ? `${body.coord.lat}, ${body.coord.lon}` : body.name;
  const line = (text: string) => `<div class="line">${escapeMarkup(text)}</div>`;
  return [
    '<!DOCTYPE html>',
    `<html lang="${escapeMarkup(view.lang.replace('_', '-'))}">`,
    `<head><meta charset="utf-8"><title>${escapeMarkup(name)}</title></head>`,
    '<body>',
    `<div class="name">${escapeMarkup(name)}</div>`,
    condition
      ? `<img width="50" height="50" alt="${escapeMarkup(condition.description)}" ` +
        `src="${escapeMarkup(`${siteUrl}/img/wn/${condition.icon}@2x.png`)}">`
      : '',
    `<div class="temperature" title="Current Temperature">${escapeMarkup(`${body.main.temp}${degrees}`)}</div>`,
    line(condition?.description ?? ''),
    line(`Clouds: ${body.clouds.all}%`),
    line(`Humidity: ${body.main.humidity}%`),
    line(`Wind: ${body.wind.speed} ${speedUnit(view.units)}`),
    line(`Pressure: ${body.main.pressure} hPa`),
    '</body>',
    '</html>',
  ].join('\n');
}

/** A forecast's `<weatherdata>`: `<location>`, `<credit/>`, `<meta>`, `<sun>`, then its `<time>`s. */
function weatherdata(
  city: { id: number; name: string; country: string; timezone: number },
  location: Location,
  sun: Record<string, string>,
  times: readonly string[],
): string {
  return (
    XML_DECLARATION +
    el('weatherdata', {}, ...weatherdataHead(city, location), el('sun', sun), el('forecast', {}, ...times))
  );
}

/** `<location>`, `<credit/>` and `<meta>` of a `<weatherdata>` answer. */
function weatherdataHead(
  city: { id: number; name: string; country: string; timezone: number },
  location: Location,
) {
  return [
    el(
      'location',
      {},
      textEl('name', city.name),
      '<type/>',
      textEl('country', city.country),
      textEl('timezone', city.timezone),
      el('location', {
        altitude: 0,
        latitude: location.lat,
        longitude: location.lon,
        geobase: 'geonames',
        geobaseid: city.id,
      }),
    ),
    '<credit/>',
    el('meta', {}, '<lastupdate/>', textEl('calctime', 0), '<nextupdate/>'),
  ];
}

/**
 * `GET {pro}/data/2.5/forecast/hourly?mode=xml` and `GET /data/2.5/forecast?mode=xml`: `<weatherdata>`
 * with one `<time from to>` per entry, as in the 5-day forecast's documented sample, where the entry
 * the JSON dates `dt` spans from one step before `dt` to `dt` (the span its `rain.3h` covers); the
 * hourly forecast's one-hour spans follow the same rule (unconfirmed: no hourly XML sample seen).
 */
export function forecastXml(body: Forecast, location: Location, view: View, step: '1h' | '3h'): string {
  const { units } = view;
  const span = step === '1h' ? HOUR : 3 * HOUR;
  const sun =
    body.city.sunrise === 0 ? {} : { rise: isoTime(body.city.sunrise), set: isoTime(body.city.sunset) };
  const times = body.list.map((entry) => {
    const condition = entry.weather[0];
    const rain = entry.rain?.[step] ?? 0;
    const snow = entry.snow?.[step] ?? 0;
    const fallen = precipitationOf(rain, snow);
    const wind = compass(entry.wind.deg);
    return el(
      'time',
      { from: isoTime(entry.dt - span), to: isoTime(entry.dt) },
      el('symbol', { number: condition?.id, name: condition?.description, var: condition?.icon }),
      el('precipitation', {
        probability: entry.pop,
        ...(fallen ? { unit: step, value: fallen.value, type: fallen.type } : {}),
      }),
      el('windDirection', { deg: entry.wind.deg, code: wind.code, name: wind.name }),
      el('windSpeed', {
        mps: entry.wind.speed,
        unit: speedUnit(units),
        name: windName(entry.wind.speed, units),
      }),
      el('windGust', { gust: entry.wind.gust, unit: speedUnit(units) }),
      el('temperature', {
        unit: TEMPERATURE_UNIT[units],
        value: entry.main.temp,
        min: entry.main.temp_min,
        max: entry.main.temp_max,
      }),
      el('feels_like', { value: entry.main.feels_like, unit: TEMPERATURE_UNIT[units] }),
      el('pressure', { unit: 'hPa', value: entry.main.pressure }),
      el('humidity', { value: entry.main.humidity, unit: '%' }),
      el('clouds', { value: cloudName(entry.clouds.all, view.lang), all: entry.clouds.all, unit: '%' }),
      el('visibility', { value: entry.visibility }),
    );
  });
  return weatherdata(body.city, location, sun, times);
}

/**
 * `GET /data/2.5/forecast/daily?mode=xml`: `<weatherdata>` with one `<time day="YYYY-MM-DD">` (the
 * local date) per day, the element set of the public documentation's daily sample (newer answers
 * may carry more, e.g. `feels_like`, `windGust`, `unit` attributes: unconfirmed).
 */
export function dailyForecastXml(body: DailyForecast, location: Location, view: View): string {
  const first = body.list[0];
  const sun =
    first && first.sunrise !== 0 ? { rise: isoTime(first.sunrise), set: isoTime(first.sunset) } : {};
  const days = body.list.map((day) => {
    const condition = day.weather[0];
    const fallen = precipitationOf(day.rain ?? 0, day.snow ?? 0);
    const wind = compass(day.deg);
    const date = new Date(localDay(location, day.dt) * DAY * 1000).toISOString().slice(0, 10);
    return el(
      'time',
      { day: date },
      el('symbol', { number: condition?.id, name: condition?.description, var: condition?.icon }),
      el('precipitation', fallen ? { value: fallen.value, type: fallen.type } : {}),
      el('windDirection', { deg: day.deg, code: wind.code, name: wind.name }),
      el('windSpeed', { mps: day.speed, name: windName(day.speed, view.units) }),
      el('temperature', {
        day: day.temp.day,
        min: day.temp.min,
        max: day.temp.max,
        night: day.temp.night,
        eve: day.temp.eve,
        morn: day.temp.morn,
      }),
      el('pressure', { unit: 'hPa', value: day.pressure }),
      el('humidity', { value: day.humidity, unit: '%' }),
      el('clouds', { value: cloudName(day.clouds, view.lang), all: day.clouds, unit: '%' }),
    );
  });
  return weatherdata(body.city, location, sun, days);
}
