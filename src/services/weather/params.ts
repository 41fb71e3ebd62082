/**
 * Request parameters: the values the service accepts (upstream-facts.md), checked before anything is
 * sent, and normalised so that equal requests share one cache entry.
 */
import { WeatherParameterError } from './errors.js';

/** Unit systems: `standard` K and m/s (the default), `metric` °C and m/s, `imperial` °F and mph. */
export const WEATHER_UNITS = ['standard', 'metric', 'imperial'] as const;
export type WeatherUnits = (typeof WEATHER_UNITS)[number];

/**
 * Language codes the service translates `description` into (upstream-facts.md; some are not ISO:
 * `al` Albanian, `cz` Czech, `kr` Korean, `la` Latvian, `sp` Spanish, `se` Swedish, `ua` Ukrainian).
 */
// prettier-ignore
export const WEATHER_LANGS = [
  'af', 'al', 'ar', 'az', 'bg', 'ca', 'cz', 'da', 'de', 'el', 'en', 'eu', 'fa', 'fi', 'fr', 'gl', 'he',
  'hi', 'hr', 'hu', 'id', 'it', 'ja', 'kr', 'la', 'lt', 'mk', 'no', 'nl', 'pl', 'pt', 'pt_br', 'ro',
  'ru', 'sv', 'se', 'sk', 'sl', 'sp', 'es', 'sr', 'th', 'tr', 'ua', 'uk', 'vi', 'zh_cn', 'zh_tw', 'zu',
] as const;
export type WeatherLang = (typeof WEATHER_LANGS)[number];

const LANGS: ReadonlySet<string> = new Set(WEATHER_LANGS);

export function isWeatherLang(value: string): value is WeatherLang {
  return LANGS.has(value.toLowerCase());
}

/** Upper bounds of `cnt` and `limit` (upstream-facts.md, "Limits"). */
export const WEATHER_LIMITS = {
  hourlyCnt: 96,
  dailyCnt: 16,
  threeHourCnt: 40,
  geocodingLimit: 5,
} as const;

/** Coordinates rounded to 2 decimals (about 1 km): what is sent, and what the cache is keyed by. */
export function coordinates(lat: number, lon: number): { lat: number; lon: number } {
  if (!Number.isFinite(lat) || lat < -90 || lat > 90) {
    throw new WeatherParameterError('lat', 'latitude must be a number from -90 to 90');
  }
  if (!Number.isFinite(lon) || lon < -180 || lon > 180) {
    throw new WeatherParameterError('lon', 'longitude must be a number from -180 to 180');
  }
  // `+ 0` turns -0 into 0, so both print as "0".
  return { lat: Math.round(lat * 100) / 100 + 0, lon: Math.round(lon * 100) / 100 + 0 };
}

export function units(value: WeatherUnits | undefined): WeatherUnits {
  if (value === undefined) return 'standard';
  if (!(WEATHER_UNITS as readonly string[]).includes(value)) {
    throw new WeatherParameterError('units', `units must be one of ${WEATHER_UNITS.join(', ')}`);
  }
  return value;
}

export function lang(value: WeatherLang | undefined): WeatherLang {
  if (value === undefined) return 'en';
  const lower = value.toLowerCase();
  if (!isWeatherLang(lower)) {
    throw new WeatherParameterError('lang', `"${value}" is not a language the weather service knows`);
  }
  return lower;
}

export function count(name: string, value: number | undefined, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new WeatherParameterError(name, `${name} must be a whole number from 1 to ${max}`);
  }
  return value;
}

/** A Unix time in seconds (not milliseconds: those are refused, being far in the future). */
export function unixSeconds(name: string, value: number): number {
  // 10^11 s is the year 5138: anything larger is almost surely milliseconds.
  if (!Number.isInteger(value) || value < 0 || value >= 1e11) {
    throw new WeatherParameterError(name, `${name} must be a Unix time in whole seconds`);
  }
  return value;
}

export function cityQuery(q: string): string {
  const trimmed = q
    .split(',')
    .map((part) => part.trim())
    .join(',');
  if (trimmed.replaceAll(',', '') === '') {
    throw new WeatherParameterError('q', 'a place name is required');
  }
  return trimmed;
}

/**
 * `zip={code},{country}` for zip-code geocoding: the code with its spaces kept (`SW1A 1AA`) and
 * trimmed, then the country in capitals. Without a country the service reads the code as a US ZIP
 * code, so none is added here.
 */
export function zipQuery(code: string, country: string | undefined): string {
  const trimmed = code.trim().replace(/\s+/g, ' ');
  if (trimmed === '' || trimmed.includes(',')) {
    throw new WeatherParameterError('zip', 'a postal code is required, without a comma');
  }
  if (country === undefined) return trimmed;
  if (!/^[A-Za-z]{2}$/.test(country.trim())) {
    throw new WeatherParameterError('country', 'the country must be a two-letter code, such as GB');
  }
  return `${trimmed},${country.trim().toUpperCase()}`;
}
