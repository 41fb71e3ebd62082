/**
 * A small, deterministic weather model: every value is a pure function of (seed, lat, lon, time).
 * A climate (annual mean and seasonal swing by latitude, a diurnal cycle by solar time whose size
 * follows the height of the midday sun) plus smooth "weather systems" from value noise over a 2° grid
 * and a few days, from which clouds, precipitation, the condition code, humidity, wind, pressure and
 * visibility follow consistently.
 *
 * The products see the weather as hourly observations ({@link observe}): current weather is the
 * observation of the current hour, the hourly history and forecasts list whole hours, and daily
 * values, statistics and accumulated sums are built from the same hourly observations
 * ({@link dailyValues}). So every endpoint tells the same story.
 */

export type Units = 'standard' | 'metric' | 'imperial';

/** One instant at one place, in standard units (K, m/s, hPa, mm, m). */
export interface Sample {
  /** Unix seconds. */
  t: number;
  tempK: number;
  feelsLikeK: number;
  tempMinK: number;
  tempMaxK: number;
  pressure: number;
  grndLevel: number;
  humidity: number;
  clouds: number;
  windSpeed: number;
  windDeg: number;
  windGust: number;
  visibility: number;
  /** mm in the hour. */
  rain1h: number;
  snow1h: number;
  pop: number;
  conditionId: number;
  isDay: boolean;
}

const HOUR = 3600;
const DAY = 86_400;
const YEAR_DAYS = 365.2422;
const DEG = Math.PI / 180;
const KELVIN = 273.15;
const MPH = 0.447_04;

export const round2 = (x: number): number => Math.round(x * 100) / 100;
const clamp = (x: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, x));

/** A 32-bit integer hash of a few integers, as a number in [0, 1). */
function hash(seed: number, a: number, b: number, c: number, d: number): number {
  let h = (seed ^ 0x9e37_79b9) >>> 0;
  h = mix(h, a);
  h = mix(h, b);
  h = mix(h, c);
  h = mix(h, d);
  return (h >>> 0) / 4_294_967_296;
}

function mix(h: number, n: number): number {
  h = Math.imul(h ^ (n | 0), 0x85eb_ca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2_ae35);
  return h ^ (h >>> 16);
}

const smooth = (f: number): number => f * f * (3 - 2 * f);
const lerp = (a: number, b: number, f: number): number => a + (b - a) * f;

/**
 * Value noise in [0, 1), smooth in space (a 2° grid, bilinear) and in time (knots every `period`
 * seconds, smoothstep): neighbouring places share weather systems that come and go.
 */
function noise(seed: number, channel: number, lat: number, lon: number, t: number, period: number): number {
  const gx = (lon + 180) / 2;
  const gy = (lat + 90) / 2;
  const x0 = Math.floor(gx);
  const y0 = Math.floor(gy);
  const fx = smooth(gx - x0);
  const fy = smooth(gy - y0);
  const k = Math.floor(t / period);
  const ft = smooth(t / period - k);
  // The grid wraps around the antimeridian: 180 cells of 2°.
  const xa = x0 % 180;
  const xb = (x0 + 1) % 180;
  const now = lerp(
    lerp(hash(seed, channel, xa, y0, k), hash(seed, channel, xb, y0, k), fx),
    lerp(hash(seed, channel, xa, y0 + 1, k), hash(seed, channel, xb, y0 + 1, k), fx),
    fy,
  );
  const next = lerp(
    lerp(hash(seed, channel, xa, y0, k + 1), hash(seed, channel, xb, y0, k + 1), fx),
    lerp(hash(seed, channel, xa, y0 + 1, k + 1), hash(seed, channel, xb, y0 + 1, k + 1), fx),
    fy,
  );
  return lerp(now, next, ft);
}

/** Day of the year, fractional, 0 on 1 January (drifts by less than a day over decades). */
export function dayOfYear(t: number): number {
  return (((t / DAY) % YEAR_DAYS) + YEAR_DAYS) % YEAR_DAYS;
}

/**
 * The year's angle at `t` (radians), from noon UTC on 1 January, as NOAA's solar calculator takes
 * it for the two series below (NOAA Global Monitoring Laboratory, "General Solar Position
 * Calculations"): with them sunrise and sunset fall within a minute or two of the published times,
 * where a mean sun and a cosine declination were up to 20 minutes off (London, November).
 */
function yearAngle(t: number): number {
  const year = new Date(t * 1000).getUTCFullYear();
  const start = Date.UTC(year, 0, 1) / 1000;
  const days = (Date.UTC(year + 1, 0, 1) / 1000 - start) / DAY;
  return ((2 * Math.PI) / days) * ((t - start) / DAY - 0.5);
}

/** The sun's declination at `t`, in radians (NOAA's series). */
function declination(t: number): number {
  const g = yearAngle(t);
  return (
    0.006918 -
    0.399912 * Math.cos(g) +
    0.070257 * Math.sin(g) -
    0.006758 * Math.cos(2 * g) +
    0.000907 * Math.sin(2 * g) -
    0.002697 * Math.cos(3 * g) +
    0.00148 * Math.sin(3 * g)
  );
}

/** The equation of time at `t`: apparent solar time less mean solar time, in hours (NOAA's series). */
function equationOfTime(t: number): number {
  const g = yearAngle(t);
  const minutes =
    229.18 *
    (0.000075 +
      0.001868 * Math.cos(g) -
      0.032077 * Math.sin(g) -
      0.014615 * Math.cos(2 * g) -
      0.040849 * Math.sin(2 * g));
  return minutes / 60;
}

/** Local apparent solar time in hours, 0-24: 12 when the sun is highest. */
export function solarHour(t: number, lon: number): number {
  return (((t / 3600 + lon / 15 + equationOfTime(t)) % 24) + 24) % 24;
}

/** Sun elevation above the horizon, in degrees. */
export function sunElevation(lat: number, lon: number, t: number): number {
  const phi = lat * DEG;
  const delta = declination(t);
  const hourAngle = (solarHour(t, lon) - 12) * 15 * DEG;
  const sin = Math.sin(phi) * Math.sin(delta) + Math.cos(phi) * Math.cos(delta) * Math.cos(hourAngle);
  return Math.asin(clamp(sin, -1, 1)) / DEG;
}

/** Day when the sun's upper limb is above the horizon (refraction included). */
export function isDaytime(lat: number, lon: number, t: number): boolean {
  return sunElevation(lat, lon, t) > -0.833;
}

/**
 * Sunrise and sunset (Unix seconds) of the solar day containing `t`; `undefined` during polar day or
 * night.
 */
export function sunTimes(
  lat: number,
  lon: number,
  t: number,
): { sunrise: number; sunset: number } | undefined {
  const solarMidnight = t - solarHour(t, lon) * 3600;
  const noon = solarMidnight + 12 * 3600;
  const phi = lat * DEG;
  const delta = declination(noon);
  const cos = (Math.sin(-0.833 * DEG) - Math.sin(phi) * Math.sin(delta)) / (Math.cos(phi) * Math.cos(delta));
  if (!(cos > -1 && cos < 1)) return undefined;
  const halfDay = (Math.acos(cos) / DEG / 15) * 3600;
  return { sunrise: Math.round(noon - halfDay), sunset: Math.round(noon + halfDay) };
}

/** Mean temperature in °C of the climate alone (no weather systems, no diurnal cycle). */
export function climateC(lat: number, t: number): number {
  const annualMean = 27 - 0.006 * lat * lat;
  const amplitude = Math.min(20, 0.22 * Math.abs(lat));
  // Warmest around 20 July in the north, around 20 January in the south.
  const season = Math.cos((2 * Math.PI * (dayOfYear(t) - 200)) / YEAR_DAYS) * (lat >= 0 ? 1 : -1);
  return annualMean + amplitude * season;
}

/**
 * How much cloudier (and wetter) than average a latitude is: the rainy tropics, the dry subtropics
 * (the desert belts near 25°), the stormy mid-latitudes near 55°.
 */
export function wetness(lat: number): number {
  const a = Math.abs(lat);
  return (
    0.08 * Math.exp(-((a / 10) ** 2)) -
    0.09 * Math.exp(-(((a - 25) / 8) ** 2)) +
    0.03 * Math.exp(-(((a - 55) / 10) ** 2))
  );
}

/** Channels of the noise, one per quantity. */
const Ch = {
  CloudSlow: 1,
  CloudFast: 2,
  TempSlow: 3,
  TempFast: 4,
  Humidity: 5,
  Wind: 6,
  WindDir: 7,
  Gust: 8,
  Pressure: 9,
  Spread: 10,
} as const;

/** Samples the weather at one place and instant. */
export function sample(seed: number, lat: number, lon: number, t: number): Sample {
  const cloudField =
    0.65 * noise(seed, Ch.CloudSlow, lat, lon, t, 36 * 3600) +
    0.35 * noise(seed, Ch.CloudFast, lat, lon, t, 7 * 3600) +
    wetness(lat);
  // The cover is full (100 %) at a field of 0.7, where precipitation starts (below), and overcast
  // (85 %, condition 804) from 0.625: the band between is dry overcast sky, as under stratus. Were
  // 85 % reached only where it rains, an overcast sky without rain could never be reported.
  const clouds = Math.round(clamp((cloudField - 0.2) / 0.5, 0, 1) * 100);

  const diurnal = Math.cos((2 * Math.PI * (solarHour(t, lon) - 15)) / 24);
  // A high midday sun heats more by day: a wide daily range in the tropics and in summer, almost
  // none in the polar night. Clouds narrow it.
  const noonSun = Math.max(0, 90 - Math.abs(lat - declination(t) / DEG));
  const diurnalAmplitude = (2.5 + 4 * (1 - clouds / 100)) * (0.2 + 0.8 * Math.sin(noonSun * DEG));
  const anomaly =
    (noise(seed, Ch.TempSlow, lat, lon, t, 72 * 3600) - 0.5) * 10 +
    (noise(seed, Ch.TempFast, lat, lon, t, 6 * 3600) - 0.5) * 2;
  const tempC = climateC(lat, t) + diurnalAmplitude * diurnal + anomaly;
  const tempK = round2(tempC + KELVIN);

  const windSpeed = round2(0.4 + 11 * noise(seed, Ch.Wind, lat, lon, t, 24 * 3600) ** 2);
  const windGust = round2(windSpeed * (1.2 + 0.5 * noise(seed, Ch.Gust, lat, lon, t, 5 * 3600)));
  const windDeg = Math.floor(noise(seed, Ch.WindDir, lat, lon, t, 30 * 3600) * 360) % 360;

  // Precipitation where the cloud field is thickest; its kind follows the temperature.
  const rate = cloudField > 0.68 ? round2(((cloudField - 0.68) / 0.32) ** 2 * 12) : 0;
  const precipitating = rate >= 0.05;
  const pop = round2(clamp((cloudField - 0.5) / 0.25, 0, 1));

  let humidity =
    45 + 40 * noise(seed, Ch.Humidity, lat, lon, t, 20 * 3600) - 12 * diurnal + 10 * (clouds / 100);
  if (precipitating) humidity = Math.max(humidity, 85 + rate);
  humidity = Math.round(clamp(humidity, 8, 100));

  const pressure = Math.round(
    1013 + (noise(seed, Ch.Pressure, lat, lon, t, 60 * 3600) - 0.5) * 36 - (cloudField - 0.5) * 12,
  );

  let conditionId: number;
  let rain1h = 0;
  let snow1h = 0;
  let visibility = 10_000;
  if (precipitating) {
    if (tempC <= -1) {
      conditionId = rate < 1 ? 600 : rate < 4 ? 601 : 602;
      snow1h = rate;
      visibility = 10_000 - rate * 2_400;
    } else if (tempC <= 0 && rate >= 1) {
      conditionId = 511;
      rain1h = rate;
      visibility = 10_000 - rate * 900;
    } else if (tempC <= 1.5) {
      conditionId = rate < 1 ? 615 : 616;
      rain1h = round2(rate / 2);
      snow1h = round2(rate - rain1h);
      visibility = 10_000 - rate * 1_600;
    } else if (tempC > 20 && rate > 4) {
      conditionId = rate < 7 ? 201 : 202;
      rain1h = rate;
      visibility = 10_000 - rate * 700;
    } else {
      conditionId = rate < 0.3 ? 300 : rate < 0.5 ? 301 : rate < 2.5 ? 500 : rate < 7.6 ? 501 : 502;
      rain1h = rate;
      visibility = 10_000 - rate * 700;
    }
  } else if (humidity >= 97 && windSpeed < 2.5) {
    conditionId = 741;
    visibility = 150 + (windSpeed / 2.5) * 700;
  } else if (humidity >= 93 && windSpeed < 4) {
    conditionId = 701;
    visibility = 1_000 + (100 - humidity) * 500;
  } else {
    conditionId = clouds <= 10 ? 800 : clouds <= 25 ? 801 : clouds <= 50 ? 802 : clouds <= 84 ? 803 : 804;
  }
  visibility = Math.round(clamp(visibility, 50, 10_000));

  // Apparent temperature (Steadman, shade): humidity warms, wind cools.
  const vapour = (humidity / 100) * 6.105 * Math.exp((17.27 * tempC) / (237.7 + tempC));
  const feelsC = tempC + 0.33 * vapour - 0.7 * windSpeed - 4;
  const spread = 0.3 + 1.5 * noise(seed, Ch.Spread, lat, lon, t, 12 * 3600);

  return {
    t,
    tempK,
    feelsLikeK: round2(feelsC + KELVIN),
    tempMinK: round2(tempK - spread),
    tempMaxK: round2(tempK + spread * 0.8),
    pressure,
    grndLevel: pressure - Math.round(Math.abs(lat) / 10),
    humidity,
    clouds,
    windSpeed,
    windDeg,
    windGust,
    visibility,
    rain1h,
    snow1h,
    pop,
    conditionId,
    isDay: isDaytime(lat, lon, t),
  };
}

/** The start of the hour containing `t` (Unix seconds): the observation current weather reports. */
export function observationTime(t: number): number {
  return Math.floor(t / HOUR) * HOUR;
}

/** Seconds between two calculations of a place's current weather (10 minutes). */
const CALCULATION_EVERY = 600;

/**
 * When the current weather reported at `t` was calculated (its `dt`): the service recalculates a
 * place every 10 minutes, each place at its own offset, so `dt` is a few minutes old and seldom on
 * the hour (the documentation's sample reads `"dt": 1661870592`, 14:43:12 UTC). Never before the
 * hour containing `t`, whose observation the values are: a calculation in the last hour reports
 * that hour's values, as history lists them.
 */
export function calculationTime(seed: number, lat: number, lon: number, t: number): number {
  const offset = Math.floor(
    hash(seed, 0x63616c63, Math.round(lat * 100), Math.round(lon * 100), 0) * CALCULATION_EVERY,
  );
  const last = Math.floor((t - offset) / CALCULATION_EVERY) * CALCULATION_EVERY + offset;
  return Math.max(observationTime(t), last);
}

/** The observation of the hour containing `t`: what every product reports for that hour. */
export function observe(seed: number, lat: number, lon: number, t: number): Sample {
  return sample(seed, lat, lon, observationTime(t));
}

/** The 24 hourly observations of the day that starts at `midnight` (Unix seconds). */
export function dayObservations(seed: number, lat: number, lon: number, midnight: number): Sample[] {
  return Array.from({ length: 24 }, (_, h) => sample(seed, lat, lon, midnight + h * HOUR));
}

/** A day's values, from its 24 hourly observations (what the hourly history lists for that day). */
export interface DailyValues {
  /** Mean of the hourly temperatures, K. */
  meanTempK: number;
  /** Rain and snow (water) of the day: the sum of the hourly amounts, mm, unrounded. */
  precipitation: number;
}

/** The values of the UTC day (or local day, given its midnight) starting at `midnight`. */
export function dailyValues(seed: number, lat: number, lon: number, midnight: number): DailyValues {
  const hours = dayObservations(seed, lat, lon, midnight);
  const temps = hours.map((s) => s.tempK);
  return {
    meanTempK: temps.reduce((a, b) => a + b, 0) / temps.length,
    precipitation: hours.reduce((sum, s) => sum + s.rain1h + s.snow1h, 0),
  };
}

/** A temperature (K, already rounded to 2 decimals) in the requested units, rounded to 2 decimals. */
export function temperature(kelvin: number, units: Units): number {
  if (units === 'standard') return kelvin;
  const celsius = kelvin - KELVIN;
  return round2(units === 'metric' ? celsius : (celsius * 9) / 5 + 32);
}

/** A speed (m/s) in the requested units: mph for imperial. */
export function speed(metresPerSecond: number, units: Units): number {
  return units === 'imperial' ? round2(metresPerSecond / MPH) : metresPerSecond;
}
