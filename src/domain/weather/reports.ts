/**
 * One verb per product: fetch what a reply needs, in standard units (K, m/s; the renderers convert),
 * and give a refused key its meaning for that product.
 */
import {
  WEATHER_LIMITS,
  WeatherForbiddenError,
  WeatherInvalidKeyError,
  type AccumulatedPrecipitationRecord,
  type AccumulatedTemperatureRecord,
  type CurrentWeather,
  type DailyForecast,
  type PaidForecast,
  type DayStatistics,
  type HourlyForecast,
  type HourlyHistory,
  type WeatherClient,
  type WeatherLang,
} from '../../services/weather/index.js';
import { ProductNotInPlanError, WeatherKeyRejectedError, type WeatherProduct } from './errors.js';
import type { Place } from './places.js';
import { historyCalls, type UnixRange } from './dates.js';
import { dailyFromThreeHourly } from './five-day.js';
import {
  answeredOffset,
  countryOfLabel,
  HOUR,
  localDayNumber,
  placeClock,
  type PlaceClock,
} from './zones.js';

export interface CurrentReport {
  place: Place;
  weather: CurrentWeather;
}

export interface HourlyReport extends PlaceClock {
  place: Place;
  forecast: HourlyForecast;
  /** The place's shift from UTC when the service answered; `zones` (when known) give it later on. */
  timezone: number;
  /** Set when the entries are 3-hour steps of the 5-day forecast (a plan without the hourly one). */
  fromThreeHourly?: true;
}

export interface DailyReport extends PlaceClock {
  place: Place;
  forecast: DailyForecast;
  /** The place's shift from UTC when the service answered; `zones` (when known) give it later on. */
  timezone: number;
  /** Set when the days were made from the 5-day/3-hour forecast (a plan without the daily one). */
  fromThreeHourly?: true;
  /**
   * Set when the first day is tomorrow: days made from 3-hour steps leave today out once too little
   * of it is left for its day and night (from about 13:30 local).
   */
  startsTomorrow?: true;
}

export interface HistoryReport extends PlaceClock {
  place: Place;
  range: UnixRange;
  history: HourlyHistory;
  /** The place's shift from UTC now, in seconds; `zones` (when known) give it at other times. */
  timezone: number;
}

export interface StatisticsReport {
  place: Place;
  /** The calendar day the statistics are about. */
  month: number;
  day: number;
  /** `undefined` when the service has no statistics for that day. */
  statistics: DayStatistics | undefined;
}

export interface AccumulatedReport {
  place: Place;
  range: UnixRange;
  /** Days whose mean temperature is below this (K) are left out of the temperature sum. */
  thresholdK: number;
  temperature: readonly AccumulatedTemperatureRecord[];
  precipitation: readonly AccumulatedPrecipitationRecord[];
}

const STANDARD = 'standard' as const;

const refusesKey = (error: unknown) =>
  error instanceof WeatherInvalidKeyError || error instanceof WeatherForbiddenError;

/**
 * 401 and 403 mean "wrong key" for current weather, which every plan has. For a paid product the
 * service answers a key it does not know and a plan without the product alike (upstream facts: one
 * 401 body for both; a new key is refused for minutes to hours until it is active), so `keyCheck`
 * asks for current weather: refused there too, the key is wrong (and nothing is paused for a plan);
 * answered, or not answered at all, the plan lacks the product.
 */
async function asProduct<T>(
  product: WeatherProduct,
  call: () => Promise<T>,
  keyCheck?: () => Promise<unknown>,
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!refusesKey(error)) throw error;
    if (product === 'current') throw new WeatherKeyRejectedError({ cause: error });
    const keyRefused = await (keyCheck?.().then(
      () => false,
      (checkError: unknown) => refusesKey(checkError),
    ) ?? false);
    throw keyRefused
      ? new WeatherKeyRejectedError({ cause: error })
      : new ProductNotInPlanError(product, { cause: error });
  }
}

/** Current weather at the place, asked only to tell a wrong key from a plan without a product. */
const keyCheckAt = (client: WeatherClient, place: Place) => () =>
  client.current.byCoords({ lat: place.lat, lon: place.lon, units: STANDARD, lang: 'en' });

export async function getCurrentWeather(
  client: WeatherClient,
  place: Place,
  options: { lang: WeatherLang },
): Promise<CurrentReport> {
  const weather = await asProduct('current', () =>
    client.current.byCoords({ lat: place.lat, lon: place.lon, units: STANDARD, lang: options.lang }),
  );
  return { place, weather };
}

/**
 * The place's clock over a forecast, which may cross a daylight-saving change: from the answer's
 * own `city` block when it has the offset, else from current weather (see `getPlaceClock`).
 */
async function forecastClock(
  client: WeatherClient,
  place: Place,
  forecast: HourlyForecast | DailyForecast,
  kind: 'hourly' | 'three-hourly' | 'daily',
): Promise<PlaceClock> {
  const timezone = forecast.city?.timezone;
  if (timezone === undefined) return getPlaceClock(client, place);
  // The offset is that of the moment of the answer, which the answer does not give, only where its
  // list starts: an hourly forecast with the hour it was given in; the 5-day one with the next
  // 3-hour step, up to three hours after; a daily one with its day, dated about midday.
  const at = forecast.list[0]?.dt;
  if (at === undefined) return { timezone };
  const country = forecast.city?.country;
  return placeClock(
    timezone,
    at,
    country === undefined || country === '' ? countryOfLabel(place.label) : country,
    place,
    ANSWERED[kind],
  );
}

/** When a forecast may have been given, around the `dt` its list starts with. */
const ANSWERED = {
  hourly: { before: 0, after: HOUR },
  'three-hourly': { before: 3 * HOUR, after: 0 },
  daily: { before: 12 * HOUR, after: 12 * HOUR },
} as const;

/**
 * A forecast may be an answer the client kept for some minutes (another member's, another
 * schedule's), given before the hour or the day turned: what is already past is left out of it, so
 * a post at midnight starts with the new day, not the one just over. One entry more than wanted is
 * asked for, so that what is left is still as long.
 */
const startOfHour = (unix: number) => Math.floor(unix / HOUR) * HOUR;
const nowInSeconds = () => Math.floor(Date.now() / 1000);

/**
 * The next `hours` hours. Where the plan lacks the hourly forecast (the real service's free plan),
 * they come in the 3-hour steps of the 5-day forecast, which every plan has, marked as such.
 */
export async function getHourlyForecast(
  client: WeatherClient,
  place: Place,
  options: { hours: number; lang: WeatherLang; nowSec?: number },
): Promise<HourlyReport> {
  const since = startOfHour(options.nowSec ?? nowInSeconds());
  const asked = Math.min(options.hours + 1, WEATHER_LIMITS.hourlyCnt);
  const forecast = await unlessRefused(client, 'hourly', place, () =>
    client.forecast.hourly(forecastQuery(place, asked, options.lang)),
  );
  if (forecast === undefined) {
    const steps = await fiveDayForecast(client, place, options.lang);
    const count = Math.ceil(options.hours / 3);
    const list = steps.forecast.list.filter((step) => step.dt >= since).slice(0, count);
    return { ...steps, forecast: { ...steps.forecast, list } };
  }
  const clock = await forecastClock(client, place, forecast, 'hourly');
  const list = forecast.list.filter((hour) => hour.dt >= since).slice(0, options.hours);
  return { ...clock, place, forecast: { ...forecast, list } };
}

/**
 * `call` for `product`, or `undefined` where the plan lacks it (now, or known from a refusal of the
 * last minutes): the caller then takes the 5-day forecast.
 */
async function unlessRefused<T>(
  client: WeatherClient,
  product: PaidForecast,
  place: Place,
  call: () => Promise<T>,
): Promise<T | undefined> {
  if (client.planLacks.has(product)) return undefined;
  try {
    return await asProduct(product, call, keyCheckAt(client, place));
  } catch (error) {
    if (!(error instanceof ProductNotInPlanError)) throw error;
    client.planLacks.note(product);
    return undefined;
  }
}

/** A forecast of `cnt` entries at the place, in standard units. */
const forecastQuery = (place: Place, cnt: number | undefined, lang: WeatherLang) => ({
  lat: place.lat,
  lon: place.lon,
  cnt,
  units: STANDARD,
  lang,
});

/** The 5-day/3-hour forecast, which every plan has, standing in for the hourly or daily one. */
async function fiveDayForecast(
  client: WeatherClient,
  place: Place,
  lang: WeatherLang,
): Promise<HourlyReport & { fromThreeHourly: true }> {
  // In every plan, as current weather is: a refusal here is about the key.
  const forecast = await asProduct('current', () =>
    client.forecast.threeHourly(forecastQuery(place, undefined, lang)),
  );
  const clock = await forecastClock(client, place, forecast, 'three-hourly');
  return { ...clock, place, forecast, fromThreeHourly: true };
}

/**
 * Up to `days` days. Where the plan lacks the daily forecast (the real service's free plan), the
 * days come from the 5-day/3-hour forecast, which every plan has: up to five, marked as such.
 */
export async function getDailyForecast(
  client: WeatherClient,
  place: Place,
  options: { days: number; lang: WeatherLang; nowSec?: number },
): Promise<DailyReport> {
  const nowSec = options.nowSec ?? nowInSeconds();
  const asked = Math.min(options.days + 1, WEATHER_LIMITS.dailyCnt);
  const forecast = await unlessRefused(client, 'daily', place, () =>
    client.forecast.daily(forecastQuery(place, asked, options.lang)),
  );
  if (forecast === undefined) {
    const steps = await fiveDayForecast(client, place, options.lang);
    const since = startOfHour(nowSec);
    const upcoming = steps.forecast.list.filter((step) => step.dt >= since);
    const days = dailyFromThreeHourly({ ...steps.forecast, list: upcoming }, steps);
    const list = days.list.slice(0, options.days);
    const startsTomorrow =
      list[0] !== undefined && localDayNumber(steps, list[0].dt) > localDayNumber(steps, nowSec);
    return { ...steps, forecast: { ...days, list }, ...(startsTomorrow ? { startsTomorrow: true } : {}) };
  }
  const clock = await forecastClock(client, place, forecast, 'daily');
  const today = localDayNumber(clock, nowSec);
  const list = forecast.list.filter((day) => localDayNumber(clock, day.dt) >= today).slice(0, options.days);
  return { ...clock, place, forecast: { ...forecast, list } };
}

/**
 * The place's clock, for dates in other seasons than now: the service gives only today's offset,
 * so the zone at the place (or those of its country) that shows it stands in (see `zones.ts`).
 */
export async function getPlaceClock(client: WeatherClient, place: Place): Promise<PlaceClock> {
  const { weather } = await getCurrentWeather(client, place, { lang: 'en' });
  // An empty `sys.country` (seen in real answers) names no country.
  const country = weather.sys?.country || countryOfLabel(place.label);
  return placeClock(answeredOffset(weather.timezone, weather.dt, place), weather.dt, country, place);
}

/**
 * Hourly history for a range that `resolveRange` works out with the place's clock (typed dates are
 * local to the place, with the offset of their own date, not of today), in as many calls as the
 * service's limit per call needs (two for the week of the autumn change; see `historyCalls`).
 */
export async function getWeatherHistory(
  client: WeatherClient,
  place: Place,
  resolveRange: (clock: PlaceClock) => UnixRange,
): Promise<HistoryReport> {
  const clock = await getPlaceClock(client, place);
  const range = resolveRange(clock);
  const answers = await asProduct('history', () =>
    Promise.all(
      historyCalls(range).map((call) =>
        client.history.hourly({ lat: place.lat, lon: place.lon, start: call.start, end: call.end }),
      ),
    ),
  );
  const list = answers.flatMap((answer) => answer.list);
  const history = { ...answers[0], cnt: list.length, list };
  return { ...clock, place, range, history };
}

export async function getDayStatistics(
  client: WeatherClient,
  place: Place,
  day: { month: number; day: number },
): Promise<StatisticsReport> {
  const yearly = await asProduct(
    'statistics',
    () => client.history.yearly({ lat: place.lat, lon: place.lon }),
    keyCheckAt(client, place),
  );
  const statistics = yearly.result.find((item) => item.month === day.month && item.day === day.day);
  return { place, month: day.month, day: day.day, statistics };
}

export async function getAccumulatedWeather(
  client: WeatherClient,
  place: Place,
  options: { range: UnixRange; thresholdK: number },
): Promise<AccumulatedReport> {
  const { range, thresholdK } = options;
  const where = { lat: place.lat, lon: place.lon, start: range.start, end: range.end };
  const [temperature, precipitation] = await asProduct(
    'accumulated',
    () =>
      Promise.all([
        client.history.accumulatedTemperature({ ...where, threshold: thresholdK }),
        client.history.accumulatedPrecipitation(where),
      ]),
    keyCheckAt(client, place),
  );
  return { place, range, thresholdK, temperature, precipitation };
}
