/**
 * Response bodies of the weather service, built from the model: pure functions of the location,
 * the instant and the request's options, so every endpoint tells the same story.
 */
import { conditionObject, languageCode } from './conditions.js';
import {
  dailyValues,
  dayObservations,
  calculationTime,
  observationTime,
  round2,
  sample,
  speed,
  sunTimes,
  temperature,
  type Sample,
  type Units,
} from './model.js';
import { nearbyPlaces, type Place } from './places.js';
import { localDay, localToUnix, timeZoneFor, utcDateTimeText, utcOffset, type Clock } from './timezones.js';

export interface Location extends Clock {
  lat: number;
  lon: number;
  /** The gazetteer place the request named or that lies nearest (within 50 km). */
  place: Place | undefined;
  /** The IANA zone at the coordinates (see `timeZoneFor`). */
  timeZone: string | undefined;
}

export interface View {
  seed: number;
  units: Units;
  lang: string;
}

const HOUR = 3600;
const DAY = 86_400;

export function locate(lat: number, lon: number): Location {
  return { lat, lon, place: nearbyPlaces(lat, lon, 50)[0], timeZone: timeZoneFor(lat, lon) };
}

/** The location of a place the request named (`q`). */
export function locatePlace(place: Place): Location {
  return { lat: place.lat, lon: place.lon, place, timeZone: place.timeZone };
}

function mainBlock(s: Sample, units: Units) {
  return {
    temp: temperature(s.tempK, units),
    feels_like: temperature(s.feelsLikeK, units),
    temp_min: temperature(s.tempMinK, units),
    temp_max: temperature(s.tempMaxK, units),
    pressure: s.pressure,
    humidity: s.humidity,
    sea_level: s.pressure,
    grnd_level: s.grndLevel,
  };
}

function windBlock(s: Sample, units: Units) {
  return { speed: speed(s.windSpeed, units), deg: s.windDeg, gust: speed(s.windGust, units) };
}

type Amounts = { '1h'?: number; '3h'?: number };

/**
 * `rain` and `snow` (mm) of an entry: `1h` the hour's observation (the hour up to it), `3h` the sum
 * of the three hourly observations up to it. Present only when above zero, as upstream.
 */
function precipitation(spans: { '1h'?: readonly Sample[]; '3h'?: readonly Sample[] }) {
  const rain: Amounts = {};
  const snow: Amounts = {};
  for (const key of ['1h', '3h'] as const) {
    const hours = spans[key];
    if (!hours) continue;
    const r = round2(hours.reduce((sum, s) => sum + s.rain1h, 0));
    const w = round2(hours.reduce((sum, s) => sum + s.snow1h, 0));
    if (r > 0) rain[key] = r;
    if (w > 0) snow[key] = w;
  }
  return {
    ...(Object.keys(rain).length > 0 ? { rain } : {}),
    ...(Object.keys(snow).length > 0 ? { snow } : {}),
  };
}

/** The observations of the three hours up to `s` (`s` last). */
function threeHours(seed: number, location: Location, s: Sample): Sample[] {
  return [
    sample(seed, location.lat, location.lon, s.t - 2 * HOUR),
    sample(seed, location.lat, location.lon, s.t - HOUR),
    s,
  ];
}

/**
 * The coordinates an answer names: those asked for, to four decimals, as every recorded answer of
 * the service shows them (37.7749295, -122.4194155 comes back as 37.7749, -122.4194).
 */
function shownCoord(location: Location) {
  const round = (degrees: number) => Math.round(degrees * 10_000) / 10_000;
  return { lon: round(location.lon), lat: round(location.lat) };
}

/**
 * The place's name in the answer's language where the gazetteer has one: the service's current
 * weather page says "translation is applied for the city name and description fields", and its
 * recorded answers bear it out (Moscow, id 524901, comes back as `Москва` with `lang=ru`).
 */
function placeName(place: Place | undefined, lang: string): string {
  if (!place) return '';
  return place.local_names[languageCode(lang)] ?? place.name;
}

function cityBlock(location: Location, t: number, lang: string) {
  const sun = sunTimes(location.lat, location.lon, t);
  return {
    id: location.place?.id ?? 0,
    name: placeName(location.place, lang),
    coord: shownCoord(location),
    country: location.place?.country ?? '',
    population: location.place?.population ?? 0,
    // The shift at the time of the request, as upstream: one number for the whole forecast.
    timezone: utcOffset(location, t),
    sunrise: sun?.sunrise ?? 0,
    sunset: sun?.sunset ?? 0,
  };
}

/**
 * `GET /data/2.5/weather`: the observation of the current hour, the very record the hourly history
 * lists for that hour later on; `dt` is when it was last calculated (`calculationTime`).
 */
export function currentWeather(location: Location, now: number, view: View) {
  const t = observationTime(now);
  const calculated = calculationTime(view.seed, location.lat, location.lon, now);
  const s = sample(view.seed, location.lat, location.lon, t);
  const sun = sunTimes(location.lat, location.lon, t);
  return {
    coord: shownCoord(location),
    weather: [conditionObject(s.conditionId, s.isDay, view.lang)],
    base: 'stations',
    main: mainBlock(s, view.units),
    visibility: s.visibility,
    wind: windBlock(s, view.units),
    ...precipitation({ '1h': [s] }),
    clouds: { all: s.clouds },
    dt: calculated,
    sys: {
      ...(location.place ? { country: location.place.country } : {}),
      // Polar day or night: 0, as the forecasts send.
      sunrise: sun?.sunrise ?? 0,
      sunset: sun?.sunset ?? 0,
    },
    // The shift now (the emulator's clock), daylight saving included.
    timezone: utcOffset(location, now),
    id: location.place?.id ?? 0,
    name: placeName(location.place, view.lang),
    cod: 200,
  };
}

function forecastEntry(location: Location, dt: number, view: View, step: '1h' | '3h') {
  const s = sample(view.seed, location.lat, location.lon, dt);
  return {
    dt,
    main: { ...mainBlock(s, view.units), temp_kf: 0 },
    weather: [conditionObject(s.conditionId, s.isDay, view.lang)],
    clouds: { all: s.clouds },
    wind: windBlock(s, view.units),
    visibility: s.visibility,
    pop: s.pop,
    ...precipitation(step === '1h' ? { '1h': [s] } : { '3h': threeHours(view.seed, location, s) }),
    sys: { pod: s.isDay ? 'd' : 'n' },
    // UTC in both products. The spec's hourly forecast table says "local date/time text", but the
    // service's own hourly forecast page lists `list.dt_txt` as "Time of data forecasted, ISO, UTC",
    // and its sample (Zocca, 44.34/10.99, UTC+2 in August) pairs `dt` 1661875200 with
    // "2022-08-30 16:00:00", which is that instant in UTC; upstream-facts says UTC for the 5-day one.
    dt_txt: utcDateTimeText(dt),
  };
}

/** `GET {pro}/data/2.5/forecast/hourly`: from the current hour on. */
export function hourlyForecast(location: Location, t: number, cnt: number, view: View) {
  const first = Math.floor(t / HOUR) * HOUR;
  const list = Array.from({ length: cnt }, (_, i) => forecastEntry(location, first + i * HOUR, view, '1h'));
  return { cod: '200', message: 0, cnt, list, city: cityBlock(location, t, view.lang) };
}

/** `GET /data/2.5/forecast`: 5 days in 3-hour steps, from the next 3-hour slot on. */
export function threeHourForecast(location: Location, t: number, cnt: number, view: View) {
  const first = Math.floor(t / (3 * HOUR)) * 3 * HOUR + 3 * HOUR;
  const list = Array.from({ length: cnt }, (_, i) =>
    forecastEntry(location, first + i * 3 * HOUR, view, '3h'),
  );
  return { cod: '200', message: 0, cnt, list, city: cityBlock(location, t, view.lang) };
}

/**
 * The hourly observations of local day `day` (days since 1970-01-01, local): every whole UTC hour
 * from local midnight to the next, so 23 or 25 of them when the clocks change and 00:30 to 23:30 in
 * a half-hour zone, exactly the entries the hourly forecast lists for that day. `at(h)` is the
 * observation at local `h`:00, or the first one after it when that is not a whole UTC hour.
 */
function localDayHours(seed: number, location: Location, day: number) {
  const start = Math.ceil(localToUnix(location, day * DAY) / HOUR) * HOUR;
  const end = localToUnix(location, (day + 1) * DAY);
  const hours: Sample[] = [];
  for (let t = start; t < end; t += HOUR) hours.push(sample(seed, location.lat, location.lon, t));
  const at = (h: number): Sample => {
    const t = Math.ceil(localToUnix(location, day * DAY + h * HOUR) / HOUR) * HOUR;
    return hours[(t - start) / HOUR] ?? hours[0]!;
  };
  return { hours, at };
}

/** `GET /data/2.5/forecast/daily`: from the local date of `t` on. */
export function dailyForecast(location: Location, t: number, cnt: number, view: View) {
  const today = localDay(location, t);
  const list = Array.from({ length: cnt }, (_, d) => {
    const { hours, at } = localDayHours(view.seed, location, today + d);
    const noon = at(12);
    const wettest = hours.reduce((a, b) => (b.rain1h + b.snow1h > a.rain1h + a.snow1h ? b : a));
    const rain = round2(hours.reduce((sum, s) => sum + s.rain1h, 0));
    const snow = round2(hours.reduce((sum, s) => sum + s.snow1h, 0));
    const primary = rain + snow > 0 ? wettest : noon;
    const sun = sunTimes(location.lat, location.lon, noon.t);
    const temps = hours.map((s) => s.tempK);
    const t_ = (k: number) => temperature(k, view.units);
    return {
      dt: noon.t,
      sunrise: sun?.sunrise ?? 0,
      sunset: sun?.sunset ?? 0,
      temp: {
        day: t_(noon.tempK),
        min: t_(Math.min(...temps)),
        max: t_(Math.max(...temps)),
        night: t_(at(0).tempK),
        eve: t_(at(18).tempK),
        morn: t_(at(6).tempK),
      },
      feels_like: {
        day: t_(noon.feelsLikeK),
        night: t_(at(0).feelsLikeK),
        eve: t_(at(18).feelsLikeK),
        morn: t_(at(6).feelsLikeK),
      },
      pressure: noon.pressure,
      humidity: noon.humidity,
      // Daily forecasts always use day icons.
      weather: [conditionObject(primary.conditionId, true, view.lang)],
      speed: speed(Math.max(...hours.map((s) => s.windSpeed)), view.units),
      deg: noon.windDeg,
      gust: speed(Math.max(...hours.map((s) => s.windGust)), view.units),
      clouds: noon.clouds,
      pop: Math.max(...hours.map((s) => s.pop)),
      ...(rain > 0 ? { rain } : {}),
      ...(snow > 0 ? { snow } : {}),
    };
  });
  const city = cityBlock(location, t, view.lang);
  return {
    city: {
      id: city.id,
      name: city.name,
      coord: shownCoord(location),
      country: city.country,
      population: city.population,
      timezone: city.timezone,
    },
    cod: '200',
    message: 0.05,
    cnt,
    list,
  };
}

/** `GET {history}/data/2.5/history/city?type=hour`: whole hours in [start, end], none after `now`. */
export function hourlyHistory(location: Location, start: number, end: number, now: number, seed: number) {
  const list = [];
  for (let dt = Math.ceil(start / HOUR) * HOUR; dt <= Math.min(end, now); dt += HOUR) {
    const s = sample(seed, location.lat, location.lon, dt);
    list.push({
      dt,
      main: mainBlock(s, 'standard'),
      wind: windBlock(s, 'standard'),
      clouds: { all: s.clouds },
      weather: [conditionObject(s.conditionId, s.isDay, 'en')],
      ...precipitation({ '1h': [s], '3h': threeHours(seed, location, s) }),
    });
  }
  return {
    message: `Count: ${list.length}`,
    cod: '200',
    city_id: location.place?.id ?? 0,
    calctime: 0.0123,
    cnt: list.length,
    list,
  };
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const a = sorted[lo] ?? 0;
  const b = sorted[Math.min(lo + 1, sorted.length - 1)] ?? a;
  return a + (b - a) * (pos - lo);
}

function stats(values: readonly number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, v) => sum + v, 0) / Math.max(1, sorted.length);
  const variance = sorted.reduce((sum, v) => sum + (v - mean) ** 2, 0) / Math.max(1, sorted.length);
  return {
    min: round2(sorted[0] ?? 0),
    max: round2(sorted.at(-1) ?? 0),
    median: round2(quantile(sorted, 0.5)),
    mean: round2(mean),
    p25: round2(quantile(sorted, 0.25)),
    p75: round2(quantile(sorted, 0.75)),
    st_dev: round2(Math.sqrt(variance)),
    num: sorted.length,
  };
}

/** The years the statistics cover: the ten full UTC years before the one containing `now`. */
export function statisticsYears(now: number): number[] {
  const year = new Date(now * 1000).getUTCFullYear();
  return Array.from({ length: 10 }, (_, i) => year - 10 + i);
}

/**
 * `GET {history}/data/2.5/aggregated/year`: one item per calendar day, "all 365 days of the entire
 * year" as the service's own page puts it (the spec says only "one item per calendar day in the
 * sample"), so 29 February is not among them; each holds
 * statistics over the hourly observations of that UTC date in each of the covered years, i.e. over
 * exactly the records the hourly history gives for those days. Temperatures in Kelvin whatever `units`;
 * precipitation is the hourly amount (rain and snow water, mm).
 */
export function yearlyStatistics(location: Location, now: number, seed: number) {
  const years = statisticsYears(now);
  const result = [];
  for (let month = 1; month <= 12; month++) {
    const days = new Date(Date.UTC(2025, month, 0)).getUTCDate(); // a common year: no 29 February
    for (let day = 1; day <= days; day++) {
      const samples: Sample[] = [];
      const dailyMin: number[] = [];
      const dailyMax: number[] = [];
      for (const year of years) {
        const midnight = Date.UTC(year, month - 1, day) / 1000;
        const hours = dayObservations(seed, location.lat, location.lon, midnight);
        samples.push(...hours);
        dailyMin.push(Math.min(...hours.map((s) => s.tempK)));
        dailyMax.push(Math.max(...hours.map((s) => s.tempK)));
      }
      const temp = stats(samples.map((s) => s.tempK));
      const mean = (values: number[]) => round2(values.reduce((a, b) => a + b, 0) / values.length);
      result.push({
        month,
        day,
        temp: {
          record_min: temp.min,
          record_max: temp.max,
          average_min: mean(dailyMin),
          average_max: mean(dailyMax),
          median: temp.median,
          mean: temp.mean,
          p25: temp.p25,
          p75: temp.p75,
          st_dev: temp.st_dev,
          num: temp.num,
        },
        pressure: stats(samples.map((s) => s.pressure)),
        humidity: stats(samples.map((s) => s.humidity)),
        wind: stats(samples.map((s) => s.windSpeed)),
        precipitation: stats(samples.map((s) => s.rain1h + s.snow1h)),
        clouds: stats(samples.map((s) => s.clouds)),
      });
    }
  }
  return { cod: 200, city_id: location.place?.id ?? 0, calctime: 0.0871, result };
}

/** `2020-4-17`: the upstream sample's date format (no zero padding), UTC. */
function dateText(midnight: number): string {
  const d = new Date(midnight * 1000);
  return `${d.getUTCFullYear()}-${d.getUTCMonth() + 1}-${d.getUTCDate()}`;
}

/**
 * The midnights of the UTC days from the one of `start` to the one of `end` that are over by `now`.
 * A day's value is made of its 24 hourly observations, as the hourly history lists them, so the
 * current day counts only once it is over: a part of it would give a mean of some hours and a total
 * the next call changes, and later days have no history at all.
 */
function pastUtcDays(start: number, end: number, now: number): number[] {
  const days = [];
  for (let d = Math.floor(start / DAY) * DAY; d <= end && d + DAY <= now; d += DAY) days.push(d);
  return days;
}

/**
 * `GET {history}/data/2.5/history/accumulated_temperature`: a bare array, one running total per UTC
 * date: the sum of the daily mean temperatures (K; mean of the day's 24 hourly observations) of the
 * days whose mean is at least `threshold`, and how many days that sum holds.
 */
export function accumulatedTemperature(
  location: Location,
  start: number,
  end: number,
  threshold: number | undefined,
  now: number,
  seed: number,
) {
  let total = 0;
  let count = 0;
  return pastUtcDays(start, end, now).map((midnight) => {
    const { meanTempK } = dailyValues(seed, location.lat, location.lon, midnight);
    if (threshold === undefined || meanTempK >= threshold) {
      total += meanTempK;
      count++;
    }
    return { date: dateText(midnight), temp: round2(total), count };
  });
}

/**
 * `GET {history}/data/2.5/history/accumulated_precipitation`: a bare array, one running total per UTC
 * date of the daily precipitation (rain and snow water, mm: the sum of the day's hourly amounts, as
 * the hourly history lists them), with the number of days summed.
 */
export function accumulatedPrecipitation(
  location: Location,
  start: number,
  end: number,
  now: number,
  seed: number,
) {
  let total = 0;
  let count = 0;
  return pastUtcDays(start, end, now).map((midnight) => {
    total += dailyValues(seed, location.lat, location.lon, midnight).precipitation;
    count++;
    return { date: dateText(midnight), rain: round2(total), count };
  });
}

/** Geocoding answer element. */
export function geocodingEntry(place: Place) {
  return {
    name: place.name,
    local_names: place.local_names,
    lat: place.lat,
    lon: place.lon,
    country: place.country,
    ...(place.state ? { state: place.state } : {}),
  };
}
