/**
 * The weather service client: endpoints grouped by resource, every answer validated, cached by
 * normalised parameters and coalesced while in flight; bulk files streamed record by record.
 */
import { pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type Keyv from 'keyv';
import type { z } from 'zod';
import {
  DEFAULT_TRANSPORT_OPTIONS,
  Transport,
  type RateLimitGate,
  type RawResponse,
  type TransportOptions,
} from '../http/transport.js';
import { createMemoryRateGate } from '../http/rate-gate.js';
import {
  BULK_FILE_NAMES,
  BulkParseError,
  parseCsv,
  splitLines,
  type BulkCsvFileName,
  type BulkJsonFileName,
} from './bulk.js';
import {
  cacheKey,
  DEFAULT_CACHE_TTLS,
  WeatherCache,
  type SharedLock,
  type WeatherCacheTtls,
} from './cache.js';
import { BulkFormatError, toBulkStreamError, toWeatherError, WeatherParameterError } from './errors.js';
import * as params from './params.js';
import type { WeatherLang, WeatherUnits } from './params.js';
import {
  accumulatedPrecipitationSchema,
  accumulatedTemperatureSchema,
  bulkJsonRecordSchema,
  currentWeatherSchema,
  dailyForecastSchema,
  geocodingSchema,
  hourlyForecastSchema,
  hourlyHistorySchema,
  threeHourForecastSchema,
  yearlyStatisticsSchema,
  zipLocationSchema,
  type AccumulatedPrecipitationRecord,
  type AccumulatedTemperatureRecord,
  type BulkCsvRecord,
  type BulkJsonRecord,
  type CurrentWeather,
  type DailyForecast,
  type GeocodingLocation,
  type HourlyForecast,
  type HourlyHistory,
  type ThreeHourForecast,
  type YearlyStatistics,
  type ZipLocation,
} from './schemas.js';

export interface WeatherClientOptions {
  /** `{api_url}`: current weather, 5-day/3-hour and daily forecasts, geocoding. */
  apiUrl: string;
  /** `{pro_url}`: hourly forecast. */
  proUrl: string;
  /** `{history_url}`: history, statistics, accumulated values. */
  historyUrl: string;
  /** `{bulk_url}`: bulk files. */
  bulkUrl: string;
  /** Sent as `appid`; never logged, never in an error message. */
  apiKey: string;
  /** Where answers are cached; without it, identical requests in flight are still coalesced. */
  cache?: Keyv | undefined;
  /**
   * A lock shared by the processes sharing `cache`, so that identical requests from several
   * processes make one call (see `WeatherCache`). Without it, coalescing is per process.
   */
  cacheLock?: SharedLock | undefined;
  /** Overrides of the transport's options (timeouts, retry and 429 policy, `onExchange`, test hooks). */
  transport?: Partial<TransportOptions> | undefined;
  /**
   * The pause every call honours after a 429 (the service limits calls per key, on every host). By
   * default one process's memory; pass `createStorageRateGate(store, 'weather')` so that every
   * process sharing storage pauses, and a long `Retry-After` is not asked again by each command.
   */
  rateGate?: RateLimitGate | undefined;
  /** Freshness of cached answers, in ms; see {@link DEFAULT_CACHE_TTLS}. */
  ttl?: Partial<WeatherCacheTtls> | undefined;
  /** The clock the cache judges freshness by, in ms. */
  now?: (() => number) | undefined;
}

export interface Coordinates {
  lat: number;
  lon: number;
}

export interface Presentation {
  /** `standard` (K, m/s; the default), `metric` (°C, m/s) or `imperial` (°F, mph). */
  units?: WeatherUnits | undefined;
  /** Language of `description`; `main` stays English. Default `en`. */
  lang?: WeatherLang | undefined;
}

export interface WeatherClient {
  readonly current: {
    /** Current weather at a place. */
    byCoords(query: Coordinates & Presentation): Promise<CurrentWeather>;
    /**
     * Current weather by name: `q` = "city", "city,country" or "city,state,country". Names are
     * ambiguous; prefer geocoding and coordinates. An unknown name is a `WeatherNotFoundError`.
     */
    byName(query: { q: string } & Presentation): Promise<CurrentWeather>;
  };
  readonly forecast: {
    /**
     * Hourly forecast for up to 4 days (`cnt` 1-96), from the pro host. A paid product: a key whose
     * plan lacks it gets a `WeatherInvalidKeyError` with `paidProduct` set, like the history below.
     */
    hourly(query: Coordinates & Presentation & { cnt?: number | undefined }): Promise<HourlyForecast>;
    /**
     * Daily forecast for up to 16 days (`cnt` 1-16). Deprecated upstream. A paid product too (the
     * free plan's forecast is `threeHourly`).
     */
    daily(query: Coordinates & Presentation & { cnt?: number | undefined }): Promise<DailyForecast>;
    /** 5 days in 3-hour steps (`cnt` 1-40). */
    threeHourly(query: Coordinates & Presentation & { cnt?: number | undefined }): Promise<ThreeHourForecast>;
  };
  readonly geocoding: {
    /** Places matching "city[,state][,country]", up to `limit` (1-5, default 5), best known first. */
    direct(query: { q: string; limit?: number | undefined }): Promise<GeocodingLocation[]>;
    /** Places near the coordinates, up to `limit` (1-5, default 1). */
    reverse(query: Coordinates & { limit?: number | undefined }): Promise<GeocodingLocation[]>;
    /**
     * The place of a postal code (`90210`, `SW1A 1AA`) in a country (two letters; the service reads
     * a code without one as a US ZIP code). A code the service does not know is its 404:
     * `WeatherNotFoundError`. The spec does not show this request: it is sent as the real service
     * documents it, `{api_url}/geo/1.0/zip?zip={code},{country}&appid` (upstream-facts).
     */
    zip(query: { zip: string; country?: string | undefined }): Promise<ZipLocation>;
  };
  readonly history: {
    /**
     * Hourly records from `start` (Unix seconds) to `end`, or `cnt` hours from `start`. Upstream
     * allows about a week (168 hours) per call. Standard units.
     */
    hourly(
      query: Coordinates & { start: number; end?: number | undefined; cnt?: number | undefined },
    ): Promise<HourlyHistory>;
    /** Statistics per calendar day over the years (temperatures in Kelvin). */
    yearly(query: Coordinates): Promise<YearlyStatistics>;
    /** Running totals per date of temperature (K) above `threshold` (K), from `start` to `end` (Unix seconds). */
    accumulatedTemperature(
      query: Coordinates & { start: number; end: number; threshold?: number | undefined },
    ): Promise<AccumulatedTemperatureRecord[]>;
    /** Running totals per date of precipitation (mm), from `start` to `end` (Unix seconds). */
    accumulatedPrecipitation(
      query: Coordinates & { start: number; end: number },
    ): Promise<AccumulatedPrecipitationRecord[]>;
  };
  readonly bulk: {
    /**
     * Streams a bulk file: downloaded, gunzipped and parsed as it arrives, one record at a time.
     * JSON files yield validated records; CSV files yield rows keyed by the file's header. Stopping
     * early (`break`) closes the download.
     */
    snapshot(name: BulkJsonFileName, options?: BulkOptions): AsyncGenerator<BulkJsonRecord, void, undefined>;
    snapshot(name: BulkCsvFileName, options?: BulkOptions): AsyncGenerator<BulkCsvRecord, void, undefined>;
  };
  /**
   * Paid forecasts this client's key was found to lack, remembered for 10 minutes: while a plan
   * lacks one, asking before the 5-day forecast would spend a call of its quota (the free plan
   * has 60 a minute) on a known refusal. A plan may be upgraded meanwhile, so it is asked again.
   * (Refused and plan-refused look alike upstream; the caller tells them apart and notes a plan.)
   */
  readonly planLacks: {
    has(product: PaidForecast): boolean;
    note(product: PaidForecast): void;
  };
  /** Releases the connection pool. */
  close(): Promise<void>;
}

/** The forecasts a plan may lack, where the 5-day/3-hour one can stand in. */
export type PaidForecast = 'hourly' | 'daily';
const PLAN_LACKS_MEMORY_MS = 10 * 60_000;
const HOUR = 3600;
const DAY = 86_400;

export interface BulkOptions {
  signal?: AbortSignal | undefined;
}

type Host = 'api' | 'pro' | 'history';

/** Hosts whose products need a paid plan; bulk files (see `snapshot`) need one too. */
const PAID_HOSTS: ReadonlySet<Host> = new Set(['pro', 'history']);
/** A paid product on the api host: the free plan has no 16-day daily forecast (pyowm #216, #371). */
const isPaid = (endpoint: Endpoint) =>
  PAID_HOSTS.has(endpoint.host) || endpoint.path === ENDPOINTS.daily.path;

/** Every cached endpoint: where it lives and how long its answers stay fresh. */
const ENDPOINTS = {
  current: { host: 'api', path: '/data/2.5/weather', ttl: 'current' },
  threeHourly: { host: 'api', path: '/data/2.5/forecast', ttl: 'forecast' },
  daily: { host: 'api', path: '/data/2.5/forecast/daily', ttl: 'forecast' },
  hourly: { host: 'pro', path: '/data/2.5/forecast/hourly', ttl: 'forecast' },
  direct: { host: 'api', path: '/geo/1.0/direct', ttl: 'geocoding' },
  reverse: { host: 'api', path: '/geo/1.0/reverse', ttl: 'geocoding' },
  zip: { host: 'api', path: '/geo/1.0/zip', ttl: 'geocoding' },
  history: { host: 'history', path: '/data/2.5/history/city', ttl: 'history' },
  yearly: { host: 'history', path: '/data/2.5/aggregated/year', ttl: 'statistics' },
  accumulatedTemperature: {
    host: 'history',
    path: '/data/2.5/history/accumulated_temperature',
    ttl: 'history',
  },
  accumulatedPrecipitation: {
    host: 'history',
    path: '/data/2.5/history/accumulated_precipitation',
    ttl: 'history',
  },
} as const satisfies Record<string, { host: Host; path: string; ttl: keyof WeatherCacheTtls }>;

type Endpoint = (typeof ENDPOINTS)[keyof typeof ENDPOINTS];
type Query = Record<string, string | number | undefined>;

const BULK_NAME = /^[A-Za-z0-9_.-]+\.(json|csv)\.gz$/;

/** The service's own message from an error body `{cod, message}`. */
export function describeWeatherError(body: unknown): string | undefined {
  if (typeof body === 'object' && body !== null && 'message' in body && typeof body.message === 'string') {
    return body.message;
  }
  return undefined;
}

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/** Builds a weather client from the four base URLs and a key. */
export function createWeatherClient(options: WeatherClientOptions): WeatherClient {
  const { apiKey } = options;
  const bases: Record<Host | 'bulk', string> = {
    api: trimSlash(options.apiUrl),
    pro: trimSlash(options.proUrl),
    history: trimSlash(options.historyUrl),
    bulk: trimSlash(options.bulkUrl),
  };
  const extraSecrets = options.transport?.secrets;
  const transport = new Transport({
    ...options.transport,
    service: options.transport?.service ?? 'weather',
    secrets: () => [apiKey, ...(extraSecrets?.() ?? [])],
    describeError: options.transport?.describeError ?? describeWeatherError,
    gate: options.rateGate ?? options.transport?.gate ?? createMemoryRateGate(),
  });
  const timeoutMs = options.transport?.timeoutMs ?? DEFAULT_TRANSPORT_OPTIONS.timeoutMs;
  const ttl: WeatherCacheTtls = { ...DEFAULT_CACHE_TTLS, ...definedOnly(options.ttl ?? {}) };
  const now = options.now ?? Date.now;
  const cache = new WeatherCache(options.cache, now, options.cacheLock);
  const lacking = new Map<PaidForecast, number>();

  /**
   * Sends `query` (plus the key), cached under `keyQuery` (by default the query itself) for the
   * endpoint's time, or `ttlMs` when given.
   */
  function call<S extends z.ZodType>(
    endpoint: Endpoint,
    query: Query,
    schema: S,
    caching: { keyQuery?: Query; ttlMs?: number } = {},
  ): Promise<z.output<S>> {
    return callAs(endpoint, query, schema, (value) => value, caching);
  }

  /** {@link call}, with `finish` applied to the answer as it arrives (before it is cached). */
  function callAs<S extends z.ZodType, T>(
    endpoint: Endpoint,
    query: Query,
    schema: S,
    finish: (value: z.output<S>) => T,
    caching: { keyQuery?: Query; ttlMs?: number } = {},
  ): Promise<T> {
    const key = cacheKey(`${endpoint.host}${endpoint.path}`, caching.keyQuery ?? query);
    return cache.get(key, caching.ttlMs ?? ttl[endpoint.ttl], async () => {
      try {
        return finish(
          await transport.json(
            { url: endpoint.path, baseUrl: bases[endpoint.host], query: { ...query, appid: apiKey } },
            schema,
          ),
        );
      } catch (error) {
        throw toWeatherError(error, isPaid(endpoint));
      }
    });
  }

  /** Current weather without its time (see `currentWeatherSchema`) is of the moment it arrived. */
  const timed = (weather: z.output<typeof currentWeatherSchema>): CurrentWeather => ({
    ...weather,
    dt: weather.dt ?? Math.floor(now() / 1000),
  });

  /** Forecast parameters; an absent `cnt` is keyed as the service's default (its maximum). */
  function forecastQuery(
    query: Coordinates & Presentation & { cnt?: number | undefined },
    max: number,
    defaultCnt: number | undefined,
  ): { query: Query; keyQuery: Query } {
    const sent = {
      ...params.coordinates(query.lat, query.lon),
      ...presentation(query),
      cnt: params.count('cnt', query.cnt, max),
    };
    return { query: sent, keyQuery: { ...sent, cnt: sent.cnt ?? defaultCnt } };
  }

  function presentation(query: Presentation): { units: WeatherUnits; lang: WeatherLang } {
    return { units: params.units(query.units), lang: params.lang(query.lang) };
  }

  function historyRange(start: number, end: number): { start: number; end: number } {
    params.unixSeconds('start', start);
    params.unixSeconds('end', end);
    if (end < start) throw new WeatherParameterError('end', 'end must not be earlier than start');
    return { start, end };
  }

  /**
   * Accumulated values are sums of whole days. A period that ends in the past is final; one that
   * runs up to now (the usual "since 1 May") changes at most as the service counts another day, so
   * it is keyed by the hour its end falls in, not the second, and kept only as long as current
   * weather.
   */
  function accumulating(sent: Query & { end: number }): { keyQuery?: Query; ttlMs?: number } {
    const nowSec = Math.floor(now() / 1000);
    // Final once the UTC day the period ends in is over: an end the command set to its own "now"
    // is a second or more behind this clock, and read as past it was keyed by that second and kept
    // for hours, one set of calls per command.
    if (Math.floor(sent.end / DAY) * DAY + DAY <= nowSec) return {};
    return { keyQuery: { ...sent, end: Math.floor(nowSec / HOUR) * HOUR }, ttlMs: ttl.current };
  }

  async function* snapshot(
    name: string,
    bulkOptions: BulkOptions = {},
  ): AsyncGenerator<BulkJsonRecord | BulkCsvRecord, void, undefined> {
    const format = BULK_NAME.exec(name)?.[1];
    if (format === undefined) {
      throw new WeatherParameterError(
        'name',
        `a bulk file name ends in .json.gz or .csv.gz (for example ${BULK_FILE_NAMES[0]})`,
      );
    }
    let response: RawResponse;
    try {
      response = await transport.stream({
        url: `/snapshot/${name}`,
        baseUrl: bases.bulk,
        query: { appid: apiKey },
        headers: { accept: 'application/gzip, application/octet-stream, */*' },
        ...(bulkOptions.signal ? { signal: bulkOptions.signal } : {}),
      });
    } catch (error) {
      throw toWeatherError(error, true);
    }
    const gunzip = createGunzip();
    // Errors of either stream end the pipeline and surface when the text is read.
    pipeline(response.body, gunzip, () => {});
    gunzip.setEncoding('utf8');
    const text = gunzip as AsyncIterable<string>;
    try {
      if (format === 'json') {
        let line = 0;
        for await (const lines of splitLines(text)) {
          for (const raw of lines) {
            line++;
            yield parseJsonRecord(name, line, raw);
          }
        }
      } else {
        let header: string[] | undefined;
        let row = 0;
        for await (const rows of parseCsv(text)) {
          for (const fields of rows) {
            row++;
            if (header === undefined) {
              header = fields;
              continue;
            }
            if (fields.length !== header.length) {
              throw new BulkFormatError(
                name,
                `row ${row} has ${fields.length} fields, the header ${header.length}`,
              );
            }
            const columns = header;
            yield Object.fromEntries(fields.map((value, i) => [columns[i] ?? String(i), value]));
          }
        }
      }
    } catch (error) {
      if (error instanceof BulkParseError) throw new BulkFormatError(name, error.message);
      if (bulkOptions.signal?.aborted) throw error;
      throw toBulkStreamError(error, name, response.url, timeoutMs);
    } finally {
      gunzip.destroy();
      response.body.destroy();
    }
  }

  return {
    current: {
      byCoords: async (query) =>
        callAs(
          ENDPOINTS.current,
          { ...params.coordinates(query.lat, query.lon), ...presentation(query) },
          currentWeatherSchema,
          timed,
        ),
      byName: async (query) => {
        const q = params.cityQuery(query.q);
        const rest = presentation(query);
        // Names match case-insensitively upstream: `berlin` and `Berlin` share an entry.
        return callAs(ENDPOINTS.current, { q, ...rest }, currentWeatherSchema, timed, {
          keyQuery: { q: q.toLowerCase(), ...rest },
        });
      },
    },
    forecast: {
      hourly: async (query) => {
        const max = params.WEATHER_LIMITS.hourlyCnt;
        const { query: sent, keyQuery } = forecastQuery(query, max, max);
        return call(ENDPOINTS.hourly, sent, hourlyForecastSchema, { keyQuery });
      },
      daily: async (query) => {
        // The daily forecast's default length is not documented: an absent cnt stays its own key.
        const { query: sent } = forecastQuery(query, params.WEATHER_LIMITS.dailyCnt, undefined);
        return call(ENDPOINTS.daily, sent, dailyForecastSchema);
      },
      threeHourly: async (query) => {
        const max = params.WEATHER_LIMITS.threeHourCnt;
        const { query: sent, keyQuery } = forecastQuery(query, max, max);
        return call(ENDPOINTS.threeHourly, sent, threeHourForecastSchema, { keyQuery });
      },
    },
    geocoding: {
      direct: async (query) => {
        const q = params.cityQuery(query.q);
        const limit = params.count('limit', query.limit, params.WEATHER_LIMITS.geocodingLimit) ?? 5;
        return call(ENDPOINTS.direct, { q, limit }, geocodingSchema, {
          keyQuery: { q: q.toLowerCase(), limit },
        });
      },
      reverse: async (query) =>
        call(
          ENDPOINTS.reverse,
          {
            ...params.coordinates(query.lat, query.lon),
            limit: params.count('limit', query.limit, params.WEATHER_LIMITS.geocodingLimit) ?? 1,
          },
          geocodingSchema,
        ),
      zip: async (query) => {
        const zip = params.zipQuery(query.zip, query.country);
        return call(ENDPOINTS.zip, { zip }, zipLocationSchema, { keyQuery: { zip: zip.toUpperCase() } });
      },
    },
    history: {
      hourly: async (query) => {
        const start = params.unixSeconds('start', query.start);
        if (query.end !== undefined && query.cnt !== undefined) {
          throw new WeatherParameterError('cnt', 'give either end or cnt, not both');
        }
        const end = query.end === undefined ? undefined : historyRange(start, query.end).end;
        const cnt =
          query.cnt === undefined ? undefined : params.count('cnt', query.cnt, Number.MAX_SAFE_INTEGER);
        const sent = { ...params.coordinates(query.lat, query.lon), type: 'hour', start, end, cnt };
        // `cnt` counts hourly records from the first whole hour at or after `start`.
        const last =
          end ?? (cnt === undefined ? undefined : Math.ceil(start / HOUR) * HOUR + (cnt - 1) * HOUR);
        if (last === undefined)
          return call(ENDPOINTS.history, sent, hourlyHistorySchema, { ttlMs: ttl.current });
        // The records are hourly (`dt` on the hour), so the answer is the whole hours from `start` to
        // `last` (or now). Keyed by those, "the last 24 hours" asked at 14:35 and at 14:50 is one
        // answer; keyed by the raw end, it would be a new call every second. A range that reaches into
        // the present hour (a command's "up to now", its end a moment behind this clock) may still
        // gain that hour's record: keep it only as long as current weather.
        const nowSec = Math.floor(now() / 1000);
        const keyQuery = {
          lat: sent.lat,
          lon: sent.lon,
          from: Math.ceil(start / HOUR) * HOUR,
          through: Math.floor(Math.min(last, nowSec) / HOUR) * HOUR,
        };
        return call(ENDPOINTS.history, sent, hourlyHistorySchema, {
          keyQuery,
          ...(Math.floor(last / HOUR) >= Math.floor(nowSec / HOUR) ? { ttlMs: ttl.current } : {}),
        });
      },
      yearly: async (query) =>
        call(ENDPOINTS.yearly, params.coordinates(query.lat, query.lon), yearlyStatisticsSchema),
      accumulatedTemperature: async (query) => {
        if (query.threshold !== undefined && !Number.isFinite(query.threshold)) {
          throw new WeatherParameterError('threshold', 'threshold must be a number (Kelvin)');
        }
        const sent = {
          ...params.coordinates(query.lat, query.lon),
          ...historyRange(query.start, query.end),
          threshold: query.threshold,
        };
        return call(ENDPOINTS.accumulatedTemperature, sent, accumulatedTemperatureSchema, accumulating(sent));
      },
      accumulatedPrecipitation: async (query) => {
        const sent = { ...params.coordinates(query.lat, query.lon), ...historyRange(query.start, query.end) };
        return call(
          ENDPOINTS.accumulatedPrecipitation,
          sent,
          accumulatedPrecipitationSchema,
          accumulating(sent),
        );
      },
    },
    bulk: { snapshot: snapshot as WeatherClient['bulk']['snapshot'] },
    planLacks: {
      has: (product) => (lacking.get(product) ?? 0) > now(),
      note: (product) => void lacking.set(product, now() + PLAN_LACKS_MEMORY_MS),
    },
    close: () => transport.close(),
  };
}

function parseJsonRecord(file: string, line: number, raw: string): BulkJsonRecord {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new BulkFormatError(file, `line ${line} is not JSON`);
  }
  const parsed = bulkJsonRecordSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'unexpected shape';
    throw new BulkFormatError(file, `line ${line}: ${where}`, { cause: parsed.error });
  }
  return parsed.data;
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
