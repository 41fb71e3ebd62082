/**
 * A local, spec-faithful stand-in for the weather service (docs: ./README.md). One node:http server
 * serves the four hosts under distinct path prefixes (`/api`, `/pro`, `/history`, `/bulk`), so a
 * client that sends a request to the wrong host gets a 404, as it would upstream.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream';
import { createGzip, constants as zlib } from 'node:zlib';
import { bulkContent } from './bulk.js';
import { LANGS } from './conditions.js';
import {
  currentWeatherHtml,
  currentWeatherXml,
  dailyForecastXml,
  escapeMarkup,
  forecastXml,
} from './formats.js';
import type { Units } from './model.js';
import { findPlaceById, findPlaceByZip, findPlaces, nearbyPlaces, PLACES, type Place } from './places.js';
import {
  accumulatedPrecipitation,
  accumulatedTemperature,
  currentWeather,
  dailyForecast,
  geocodingEntry,
  hourlyForecast,
  hourlyHistory,
  locate,
  locatePlace,
  threeHourForecast,
  yearlyStatistics,
  type Location,
} from './responses.js';

export type WeatherHost = 'api' | 'pro' | 'history' | 'bulk';

export interface WeatherEmulatorOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /** Keys on a paid plan: every product. Anything not listed gets 401. Default `['test-key']`. */
  apiKeys?: string[];
  /**
   * Keys on the free plan: current weather, the 5-day forecast and geocoding work; the daily
   * forecast and the paid hosts (pro, history, bulk) answer 401, as upstream does when the plan
   * lacks the product. Default `['test-free-key']`.
   */
  freeApiKeys?: string[];
  /** The emulator's clock, in ms; default `Date.now`. */
  now?: () => number;
  /** Requests per key per clock minute before 429; default unlimited. */
  quotaPerMinute?: number;
  /** Whether quota 429s carry `Retry-After` (seconds to the next minute). Upstream usually sends none. */
  quotaRetryAfter?: boolean;
  /**
   * Records per bulk file. Default: one per gazetteer place the file covers. A larger number adds
   * synthetic places (the real files hold up to 209,579 records).
   */
  bulkRecords?: number;
  /** Seed of the weather model; the same seed gives the same weather. Default 1. */
  seed?: number;
  /** The website host named in the 401 message. */
  siteUrl?: string;
}

export interface RecordedRequest {
  method: string;
  host: WeatherHost | undefined;
  /** The path within the host, e.g. `/data/2.5/weather`. */
  path: string;
  /** Query parameters; `appid` is replaced by `[key]` so a log of them may be printed. */
  query: Record<string, string>;
  /** The status answered; 0 when the connection was reset on purpose (or not answered yet). */
  status: number;
  /** Emulator clock, ms. */
  at: number;
}

export interface RequestFilter {
  /** Exact path within the host, or a pattern tested against it. */
  path?: string | RegExp;
  host?: WeatherHost;
}

export interface WeatherEmulator {
  /** Base URLs to configure the client with (no trailing slash). */
  readonly apiUrl: string;
  readonly proUrl: string;
  readonly historyUrl: string;
  readonly bulkUrl: string;
  /** The gazetteer the geocoder and `q` search. */
  readonly places: readonly Place[];
  /** Requests received (every one counts, failed ones included), optionally filtered. */
  requestCount(filter?: RequestFilter): number;
  /** Requests received per endpoint, keyed `host:path` (e.g. `api:/data/2.5/weather`), for reports. */
  countsByEndpoint(): Record<string, number>;
  requests(filter?: RequestFilter): readonly RecordedRequest[];
  resetCounts(): void;
  /** The next `count` requests with a valid key answer 429 (with `Retry-After` when given). */
  setRateLimit(options: { count: number; retryAfterSeconds?: number }): void;
  /** Changes the per-minute quota (`undefined` lifts it). */
  setQuota(perMinute: number | undefined, options?: { retryAfter?: boolean }): void;
  /**
   * The next request to `path` answers `status` with the given body (default: an upstream-style one),
   * or, with `'reset'`, has its connection dropped without an answer. Checked before the key.
   */
  failNext(path: string | RegExp, status: number | 'reset', body?: unknown): void;
  /** The next request to `path` is answered (normally) only after `ms` milliseconds. */
  delayNext(path: string | RegExp, ms: number): void;
  /** Fixes the clock at `ms`; `undefined` returns to the configured clock. */
  setNow(ms: number | undefined): void;
  /** Moves the clock forward (fixing it). */
  advanceTime(ms: number): void;
  now(): number;
  /** Replaces the paid-plan keys. */
  setApiKeys(keys: readonly string[]): void;
  /** Replaces the free-plan keys. */
  setFreeApiKeys(keys: readonly string[]): void;
  /** Records per bulk file; `undefined` returns to one per gazetteer place. */
  setBulkRecords(count: number | undefined): void;
  close(): Promise<void>;
}

const DEFAULTS = {
  port: 0,
  host: '127.0.0.1',
  apiKeys: ['test-key'],
  freeApiKeys: ['test-free-key'],
  quotaRetryAfter: false,
  seed: 1,
  siteUrl: 'https://openweathermap.org',
} as const;

const LIMITS = {
  hourlyCnt: 96,
  dailyCnt: 16,
  dailyDefault: 7,
  threeHourCnt: 40,
  geocodingLimit: 5,
  historyHours: 168,
  accumulatedDays: 366,
} as const;

const HOUR = 3600;

type Format = 'json' | 'xml' | 'html';

const CONTENT_TYPES: Readonly<Record<Format, string>> = {
  json: 'application/json; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
  html: 'text/html; charset=utf-8',
};

/** Cross-origin headers the service sends on every answer of its API hosts (recorded answers). */
const CORS_HEADERS: Readonly<Record<string, string>> = {
  'access-control-allow-origin': '*',
  'access-control-allow-credentials': 'true',
  'access-control-allow-methods': 'GET, POST',
};

class Reply {
  constructor(
    readonly status: number,
    /** A value to serialise as JSON, or the text of an XML or HTML answer. */
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
    readonly format: Format = 'json',
  ) {}
}

const markup = (format: 'xml' | 'html', text: string) => new Reply(200, text, {}, format);

/** The products that answer in XML with `mode=xml` (see `mode` below). */
const XML_PRODUCTS: Partial<Record<WeatherHost, ReadonlySet<string>>> = {
  api: new Set(['/data/2.5/weather', '/data/2.5/forecast', '/data/2.5/forecast/daily']),
  pro: new Set([
    '/data/2.5/weather',
    '/data/2.5/forecast',
    '/data/2.5/forecast/daily',
    '/data/2.5/forecast/hourly',
  ]),
};

/**
 * A product's own refusal (400, 404) asked for in XML, as XML: the real service answers current
 * weather with `mode=xml` and no place with 400, `application/xml`, and a `ClientError` whose
 * `message` is "Nothing to geocode" (recorded in sallemi/API-Project's Cypress tests, which also
 * record the 401 of a wrong key staying JSON: refusals before the product, made by `gate`, stay
 * so here). The `cod` beside the message is the JSON body's.
 */
function xmlError(reply: Reply): Reply {
  if (reply.format !== 'json' || (reply.status !== 400 && reply.status !== 404)) return reply;
  const { cod, message } = reply.body as { cod: unknown; message: unknown };
  const text = `<ClientError><cod>${escapeMarkup(String(cod))}</cod><message>${escapeMarkup(String(message))}</message></ClientError>`;
  return new Reply(reply.status, text, reply.headers, 'xml');
}

const bad = (message: string) => new Reply(400, { cod: '400', message });

/** Hosts whose products need a paid plan. */
const PAID_HOSTS: ReadonlySet<WeatherHost> = new Set(['pro', 'history', 'bulk']);
/**
 * Paid products on the api host: the 16-day daily forecast is not in the real service's free plan
 * (free keys get the 401 of a wrong key there: pyowm #216 and #371, node-red-web-nodes #186).
 */
const PAID_API_PATHS: ReadonlySet<string> = new Set(['/data/2.5/forecast/daily']);

const DEFAULT_MESSAGES: Readonly<Record<number, string>> = {
  400: 'Bad request',
  403: 'Forbidden',
  404: 'Not found',
  500: 'Internal error',
  502: 'Bad gateway',
  503: 'Service unavailable',
};

interface Context {
  query: URLSearchParams;
  nowSec: number;
  seed: number;
  siteUrl: string;
  /** Yearly statistics, memoised per emulator: they cost ~88,000 samples each. */
  yearly: (where: Location) => ReturnType<typeof yearlyStatistics>;
}

function units(query: URLSearchParams): Units {
  const value = query.get('units');
  // Upstream falls back to standard units for anything it does not know.
  return value === 'metric' || value === 'imperial' ? value : 'standard';
}

function lang(query: URLSearchParams): string {
  const value = (query.get('lang') ?? 'en').toLowerCase();
  return LANGS.has(value) ? value : 'en';
}

function number(raw: string | null): number | undefined {
  if (raw === null || raw.trim() === '') return undefined;
  const value = Number(raw);
  return Number.isFinite(value) ? value : undefined;
}

function integer(raw: string | null): number | undefined {
  const value = number(raw);
  return value !== undefined && Number.isInteger(value) ? value : undefined;
}

function coordinates(query: URLSearchParams): Location | Reply {
  if (!query.has('lat') && !query.has('lon')) return bad('Nothing to geocode');
  const lat = number(query.get('lat'));
  if (lat === undefined || lat < -90 || lat > 90) return bad('wrong latitude');
  const lon = number(query.get('lon'));
  if (lon === undefined || lon < -180 || lon > 180) return bad('wrong longitude');
  return locate(lat, lon);
}

const cityNotFound = () => new Reply(404, { cod: '404', message: 'city not found' });

/**
 * Coordinates, or (for current weather and the forecasts, deprecated upstream but still accepted:
 * `forecast/daily?q=Edinburgh, UK` in lcd4linux#7, `forecast/hourly?q=…` in public clients) a `q`
 * city name, a city `id` or a `zip` code, in that order when several are given.
 */
function location(query: URLSearchParams): Location | Reply {
  if (query.has('lat') || query.has('lon')) return coordinates(query);
  const q = query.get('q');
  if (q !== null) {
    if (q.trim() === '') return bad('Nothing to geocode');
    const place = findPlaces(q)[0];
    return place ? locatePlace(place) : cityNotFound();
  }
  const id = query.get('id');
  if (id !== null) {
    const value = integer(id);
    // Upstream's wording for an id that is no number (unconfirmed).
    if (value === undefined) return bad(`${id} is not a city ID`);
    const place = findPlaceById(value);
    return place ? locatePlace(place) : cityNotFound();
  }
  const zip = query.get('zip');
  if (zip !== null) {
    if (zip.trim() === '') return bad('Nothing to geocode');
    const place = findPlaceByZip(zip);
    return place ? locatePlace(place) : cityNotFound();
  }
  return coordinates(query);
}

/** `cnt`: absent → default; not a positive integer → 400; above the maximum → the maximum. */
function count(query: URLSearchParams, fallback: number, max: number): number | Reply {
  if (!query.has('cnt')) return fallback;
  const value = integer(query.get('cnt'));
  if (value === undefined || value < 1) return bad('cnt must be a positive integer');
  return Math.min(value, max);
}

/**
 * `mode`: one of the formats the endpoint lists, else JSON. Like an unknown `units` or `lang`, an
 * unknown `mode` (or one the endpoint does not list) falls back to the default rather than failing.
 */
function mode<F extends Format>(query: URLSearchParams, listed: readonly F[]): F | 'json' {
  const value = query.get('mode');
  return listed.find((format) => format === value) ?? 'json';
}

type Handler = (ctx: Context) => Reply;

const view = (ctx: Context) => ({ seed: ctx.seed, units: units(ctx.query), lang: lang(ctx.query) });

/**
 * A forecast: its place (coordinates, or a name, id or zip), `cnt` steps (`fallback` when absent,
 * at most `max`), as JSON or, with `mode=xml`, as XML.
 */
function forecastRoute<B>(
  fallback: number,
  max: number,
  build: (where: Location, t: number, cnt: number, v: ReturnType<typeof view>) => B,
  xml: (body: B, where: Location, v: ReturnType<typeof view>) => string,
): Handler {
  return (ctx) => {
    const where = location(ctx.query);
    if (where instanceof Reply) return where;
    const cnt = count(ctx.query, fallback, max);
    if (cnt instanceof Reply) return cnt;
    const v = view(ctx);
    const body = build(where, ctx.nowSec, cnt, v);
    if (mode(ctx.query, ['xml']) === 'xml') return markup('xml', xml(body, where, v));
    return new Reply(200, body);
  };
}

/** The weather products of the api host, which the pro host serves too (to paid keys). */
const DATA_ROUTES: Readonly<Record<string, Handler>> = {
  // The spec lists `xml` and `html` for current weather, `xml` and `json` for the hourly and daily
  // forecasts; upstream-facts lists `xml` for the 5-day forecast.
  '/data/2.5/weather': (ctx) => {
    const where = location(ctx.query);
    if (where instanceof Reply) return where;
    const v = view(ctx);
    const body = currentWeather(where, ctx.nowSec, v);
    switch (mode(ctx.query, ['xml', 'html'])) {
      case 'xml':
        return markup('xml', currentWeatherXml(body, v));
      case 'html':
        return markup('html', currentWeatherHtml(body, v, ctx.siteUrl));
      case 'json':
        return new Reply(200, body);
    }
  },
  '/data/2.5/forecast': forecastRoute(
    LIMITS.threeHourCnt,
    LIMITS.threeHourCnt,
    threeHourForecast,
    (body, where, v) => forecastXml(body, where, v, '3h'),
  ),
  '/data/2.5/forecast/daily': forecastRoute(
    LIMITS.dailyDefault,
    LIMITS.dailyCnt,
    dailyForecast,
    dailyForecastXml,
  ),
};

const ROUTES: Readonly<Record<WeatherHost, Readonly<Record<string, Handler>>>> = {
  api: {
    ...DATA_ROUTES,
    '/geo/1.0/direct': (ctx) => {
      const q = ctx.query.get('q') ?? '';
      if (q.trim() === '') return bad('Nothing to geocode');
      return new Reply(200, findPlaces(q).slice(0, geocodingLimit(ctx.query)).map(geocodingEntry));
    },
    '/geo/1.0/zip': (ctx) => {
      const zip = ctx.query.get('zip') ?? '';
      if (zip.trim() === '') return bad('Nothing to geocode');
      const place = findPlaceByZip(zip);
      if (!place?.zip) return new Reply(404, { cod: '404', message: 'not found' });
      return new Reply(200, {
        zip: place.zip,
        name: place.name,
        lat: place.lat,
        lon: place.lon,
        country: place.country,
      });
    },
    '/geo/1.0/reverse': (ctx) => {
      const where = coordinates(ctx.query);
      if (where instanceof Reply) return where;
      const places = nearbyPlaces(where.lat, where.lon, 100).slice(0, geocodingLimit(ctx.query));
      return new Reply(200, places.map(geocodingEntry));
    },
  },
  pro: {
    // The paid host answers the api host's weather products as well: public clients call
    // `pro.openweathermap.org/data/2.5/weather` (a free key gets the 401 of every paid host).
    ...DATA_ROUTES,
    '/data/2.5/forecast/hourly': forecastRoute(
      LIMITS.hourlyCnt,
      LIMITS.hourlyCnt,
      hourlyForecast,
      (body, where, v) => forecastXml(body, where, v, '1h'),
    ),
  },
  history: {
    '/data/2.5/history/city': (ctx) => {
      const where = coordinates(ctx.query);
      if (where instanceof Reply) return where;
      if (ctx.query.get('type') !== 'hour') return bad('type must be hour');
      const range = historyRange(ctx);
      if (range instanceof Reply) return range;
      return new Reply(200, hourlyHistory(where, range.start, range.end, ctx.nowSec, ctx.seed));
    },
    '/data/2.5/aggregated/year': (ctx) => {
      const where = coordinates(ctx.query);
      if (where instanceof Reply) return where;
      return new Reply(200, ctx.yearly(where));
    },
    '/data/2.5/history/accumulated_temperature': (ctx) => {
      const where = coordinates(ctx.query);
      if (where instanceof Reply) return where;
      const range = accumulatedRange(ctx.query);
      if (range instanceof Reply) return range;
      const threshold = ctx.query.has('threshold') ? number(ctx.query.get('threshold')) : undefined;
      if (ctx.query.has('threshold') && threshold === undefined) return bad('threshold must be a number');
      return new Reply(
        200,
        accumulatedTemperature(where, range.start, range.end, threshold, ctx.nowSec, ctx.seed),
      );
    },
    '/data/2.5/history/accumulated_precipitation': (ctx) => {
      const where = coordinates(ctx.query);
      if (where instanceof Reply) return where;
      const range = accumulatedRange(ctx.query);
      if (range instanceof Reply) return range;
      return new Reply(200, accumulatedPrecipitation(where, range.start, range.end, ctx.nowSec, ctx.seed));
    },
  },
  bulk: {},
};

function geocodingLimit(query: URLSearchParams): number {
  // Without `limit` the geocoder answers one place (unconfirmed upstream); at most 5.
  const value = integer(query.get('limit'));
  return value === undefined || value < 1 ? 1 : Math.min(value, LIMITS.geocodingLimit);
}

/**
 * `start`+`end` or `start`+`cnt`; without `start`, the `cnt` (default 24) whole hours up to `end` (or
 * the current hour); without `end`/`cnt`, 24 hours from `start`. `cnt` counts hourly timestamps, the
 * first being `start` rounded up to the hour. A period longer than 168 hours (one week: `end - start`)
 * or a `cnt` above 168 is refused.
 */
function historyRange(ctx: Context): { start: number; end: number } | Reply {
  const { query } = ctx;
  const rawStart = query.has('start') ? integer(query.get('start')) : undefined;
  const rawEnd = query.has('end') ? integer(query.get('end')) : undefined;
  const cnt = query.has('cnt') ? integer(query.get('cnt')) : undefined;
  if (query.has('start') && rawStart === undefined) return bad('start must be a Unix time');
  if (query.has('end') && rawEnd === undefined) return bad('end must be a Unix time');
  if (query.has('cnt') && (cnt === undefined || cnt < 1)) return bad('cnt must be a positive integer');
  const span = ((cnt ?? 24) - 1) * HOUR;
  let start: number;
  let end: number;
  if (rawStart !== undefined) {
    start = rawStart;
    end = rawEnd ?? Math.ceil(rawStart / HOUR) * HOUR + span;
  } else {
    end = rawEnd ?? ctx.nowSec;
    start = Math.floor(end / HOUR) * HOUR - span;
  }
  if (end < start) return bad('end must not be earlier than start');
  if ((cnt ?? 0) > LIMITS.historyHours || end - start > LIMITS.historyHours * HOUR) {
    return bad(`requested period is longer than ${LIMITS.historyHours} hours`);
  }
  return { start, end };
}

function accumulatedRange(query: URLSearchParams): { start: number; end: number } | Reply {
  const start = integer(query.get('start'));
  const end = integer(query.get('end'));
  if (start === undefined || end === undefined) return bad('start and end are required (Unix time)');
  if (end < start) return bad('end must not be earlier than start');
  if ((end - start) / 86_400 > LIMITS.accumulatedDays) {
    return bad(`requested period is longer than ${LIMITS.accumulatedDays} days`);
  }
  return { start, end };
}

/** The bulk file a `/snapshot/{name}` path asks for; none when the name is not valid percent-encoding. */
function fileName(path: string): string | undefined {
  const encoded = /^\/snapshot\/([^/]+)$/.exec(path)?.[1];
  if (encoded === undefined) return undefined;
  try {
    return decodeURIComponent(encoded);
  } catch {
    // `%E0%A4%A` names no file: the same 404 as any unknown name, not a 500.
    return undefined;
  }
}

function matches(pattern: string | RegExp | undefined, path: string): boolean {
  if (pattern === undefined) return true;
  return typeof pattern === 'string' ? pattern === path : pattern.test(path);
}

/** Removes and returns the first queued fault meant for `path`. */
function take<T extends { path: string | RegExp }>(queue: T[], path: string): T | undefined {
  const at = queue.findIndex((item) => matches(item.path, path));
  return at >= 0 ? queue.splice(at, 1)[0] : undefined;
}

/** Starts the emulator; resolves once it listens. */
export async function startWeatherEmulator(options: WeatherEmulatorOptions = {}): Promise<WeatherEmulator> {
  const seed = options.seed ?? DEFAULTS.seed;
  const siteUrl = options.siteUrl ?? DEFAULTS.siteUrl;
  const clock = options.now ?? Date.now;
  let fixedNow: number | undefined;
  const now = () => fixedNow ?? clock();
  let keys = new Set(options.apiKeys ?? DEFAULTS.apiKeys);
  let freeKeys = new Set(options.freeApiKeys ?? DEFAULTS.freeApiKeys);
  let quota = options.quotaPerMinute;
  let quotaRetryAfter = options.quotaRetryAfter ?? DEFAULTS.quotaRetryAfter;
  let bulkRecords = options.bulkRecords;
  let forcedLimit: { remaining: number; retryAfterSeconds: number | undefined } = {
    remaining: 0,
    retryAfterSeconds: undefined,
  };
  const failures: Array<{ path: string | RegExp; status: number | 'reset'; body: unknown }> = [];
  const delays: Array<{ path: string | RegExp; ms: number }> = [];
  const timers = new Set<NodeJS.Timeout>();
  const log: RecordedRequest[] = [];
  const usage = new Map<string, { minute: number; count: number }>();
  const yearlyMemo = new Map<string, ReturnType<typeof yearlyStatistics>>();
  const yearly = (where: Location) => {
    // The statistics cover the ten years before the current one: a new year, new statistics.
    const year = new Date(now()).getUTCFullYear();
    const key = `${where.lat}:${where.lon}:${year}`;
    let stats = yearlyMemo.get(key);
    if (!stats) {
      stats = yearlyStatistics(where, Math.floor(now() / 1000), seed);
      if (yearlyMemo.size >= 32) yearlyMemo.clear();
      yearlyMemo.set(key, stats);
    }
    return stats;
  };

  const invalidKey = () =>
    new Reply(401, {
      cod: 401,
      message: `Invalid API key. Please see ${siteUrl}/faq#error401 for more info.`,
    });
  const tooMany = (retryAfterSeconds: number | undefined) =>
    new Reply(
      429,
      {
        cod: 429,
        message:
          'Your account is temporary blocked due to exceeding of requests limitation of your subscription type. ' +
          `Please choose the proper subscription ${siteUrl}/price`,
      },
      retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) },
    );

  /** Everything but the answer itself: injected failures, key and plan, rate limits. */
  function gate(
    host: WeatherHost | undefined,
    path: string,
    query: URLSearchParams,
  ): Reply | 'reset' | undefined {
    const injected = take(failures, path);
    if (injected) {
      const { status, body } = injected;
      if (status === 'reset') return 'reset';
      if (body !== undefined) return new Reply(status, body);
      if (status === 401) return invalidKey();
      if (status === 429) return tooMany(undefined);
      return new Reply(status, { cod: String(status), message: DEFAULT_MESSAGES[status] ?? 'Error' });
    }
    // `APPID` as the service's own pages once spelt it (and many clients still send): both work.
    const key = query.get('appid') ?? query.get('APPID') ?? '';
    const paid = keys.has(key);
    if (!paid && !freeKeys.has(key)) return invalidKey();
    // Upstream answers a product outside the key's plan with the same 401 as a wrong key.
    const paidProduct =
      host === undefined || host === 'api' ? PAID_API_PATHS.has(path) : PAID_HOSTS.has(host);
    if (!paid && paidProduct) return invalidKey();
    if (forcedLimit.remaining > 0) {
      forcedLimit.remaining--;
      return tooMany(forcedLimit.retryAfterSeconds);
    }
    if (quota !== undefined) {
      const minute = Math.floor(now() / 60_000);
      const used = usage.get(key);
      const current = used && used.minute === minute ? used : { minute, count: 0 };
      current.count++;
      usage.set(key, current);
      if (current.count > quota) {
        const wait = Math.ceil(((minute + 1) * 60_000 - now()) / 1000);
        return tooMany(quotaRetryAfter ? wait : undefined);
      }
    }
    return undefined;
  }

  function send(res: ServerResponse, reply: Reply): void {
    const text = reply.format === 'json' ? JSON.stringify(reply.body) : String(reply.body);
    res.writeHead(reply.status, {
      'content-type': CONTENT_TYPES[reply.format],
      'content-length': Buffer.byteLength(text),
      // As every recorded answer of the API hosts carries them, errors included.
      ...CORS_HEADERS,
      ...reply.headers,
    });
    res.end(text);
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://emulator');
    // A trailing slash names the same product (`/data/2.5/forecast/?q=…` answers as without it).
    const pathname = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
    const [, first = '', ...rest] = pathname.split('/');
    const host = (['api', 'pro', 'history', 'bulk'] as const).find((h) => h === first);
    const path = host ? `/${rest.join('/')}` : pathname;
    const query = url.searchParams;
    const entry: RecordedRequest = {
      method: req.method ?? 'GET',
      host,
      path,
      query: Object.fromEntries([...query].map(([k, v]) => [k, k.toLowerCase() === 'appid' ? '[key]' : v])),
      status: 0,
      at: now(),
    };
    log.push(entry);
    const delay = take(delays, path);
    if (delay) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (res.destroyed) return;
        try {
          respond(req, res, entry, host, path, query);
        } catch (error) {
          fail(res, error);
        }
      }, delay.ms);
      timers.add(timer);
      return;
    }
    respond(req, res, entry, host, path, query);
  }

  function respond(
    req: IncomingMessage,
    res: ServerResponse,
    entry: RecordedRequest,
    host: WeatherHost | undefined,
    path: string,
    query: URLSearchParams,
  ): void {
    const answer = (reply: Reply) => {
      entry.status = reply.status;
      send(res, reply);
    };

    // A 405 names the methods the resource takes (RFC 9110 §15.5.6): every product is read-only.
    if (req.method !== 'GET') {
      return answer(new Reply(405, { cod: '405', message: 'Method Not Allowed' }, { allow: 'GET' }));
    }
    const refused = gate(host, path, query);
    if (refused === 'reset') {
      req.socket.destroy();
      return;
    }
    if (refused) return answer(refused);

    if (host === 'bulk') {
      const name = fileName(path);
      const content =
        name === undefined ? undefined : bulkContent({ name, records: bulkRecords, seed, nowMs: now() });
      if (!content) return answer(new Reply(404, { cod: '404', message: 'file not found' }));
      entry.status = 200;
      res.writeHead(200, { 'content-type': 'application/gzip', ...CORS_HEADERS });
      // Generated, compressed and sent as the client reads: a big file never sits in memory.
      pipeline(content, createGzip({ level: zlib.Z_BEST_SPEED }), res, () => {
        // A client that stops reading early closes the connection; nothing to report.
      });
      return;
    }
    const handler = host ? ROUTES[host][path] : undefined;
    // Upstream answers a path it does not serve (or a product asked on another product's host) with
    // this body, not with a "not found" wording: seen in public client tests and troubleshooting notes.
    if (!handler) return answer(new Reply(404, { cod: '404', message: 'Internal error' }));
    const reply = handler({ query, nowSec: Math.floor(now() / 1000), seed, siteUrl, yearly });
    answer(host && XML_PRODUCTS[host]?.has(path) && query.get('mode') === 'xml' ? xmlError(reply) : reply);
  }

  function fail(res: ServerResponse, error: unknown): void {
    if (!res.headersSent) send(res, new Reply(500, { cod: '500', message: 'Internal error' }));
    else res.destroy(error as Error);
  }

  const server = createServer((req, res) => {
    try {
      handle(req, res);
    } catch (error) {
      fail(res, error);
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? DEFAULTS.port, options.host ?? DEFAULTS.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const origin = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;

  const select = (filter: RequestFilter = {}) =>
    log.filter((r) => matches(filter.path, r.path) && (filter.host === undefined || filter.host === r.host));

  return {
    apiUrl: `${origin}/api`,
    proUrl: `${origin}/pro`,
    historyUrl: `${origin}/history`,
    bulkUrl: `${origin}/bulk`,
    places: PLACES,
    requestCount: (filter) => select(filter).length,
    countsByEndpoint: () => {
      const counts: Record<string, number> = {};
      for (const r of log) {
        const key = `${r.host ?? '-'}:${r.path}`;
        counts[key] = (counts[key] ?? 0) + 1;
      }
      return counts;
    },
    requests: (filter) => select(filter),
    resetCounts: () => {
      log.length = 0;
    },
    setRateLimit: ({ count: n, retryAfterSeconds }) => {
      forcedLimit = { remaining: n, retryAfterSeconds };
    },
    setQuota: (perMinute, opts = {}) => {
      quota = perMinute;
      quotaRetryAfter = opts.retryAfter ?? quotaRetryAfter;
      usage.clear();
    },
    failNext: (path, status, body) => {
      failures.push({ path, status, body });
    },
    delayNext: (path, ms) => {
      delays.push({ path, ms });
    },
    setNow: (ms) => {
      fixedNow = ms;
    },
    advanceTime: (ms) => {
      fixedNow = now() + ms;
    },
    now,
    setApiKeys: (list) => {
      keys = new Set(list);
    },
    setFreeApiKeys: (list) => {
      freeKeys = new Set(list);
    },
    setBulkRecords: (n) => {
      bulkRecords = n;
    },
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
