import { gzipSync } from 'node:zlib';
import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { placeLabel } from '../../src/domain/weather/places.js';
import { ResponseValidationError } from '../../src/services/http/errors.js';
import {
  BulkFormatError,
  createWeatherClient,
  WeatherBadRequestError,
  WeatherForbiddenError,
  WeatherInvalidKeyError,
  WeatherNotFoundError,
  WeatherParameterError,
  type WeatherClient,
  type WeatherLang,
} from '../../src/services/weather/index.js';
import {
  accumulatedTemperatureItems,
  currentWeatherBody,
  forecastBody,
  geocodingBody,
  instantTransport,
  invalidKeyBody,
  MOCK_URLS,
} from '../fixtures/weather.js';

const KEY = 'unit-test-key-5a1f0c';

let agent: MockAgent;
let client: WeatherClient;
let sleeps: number[];

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  sleeps = [];
  client = createWeatherClient({
    ...MOCK_URLS,
    apiKey: KEY,
    transport: instantTransport({
      dispatcher: agent,
      sleep: (ms) => {
        sleeps.push(ms);
        return Promise.resolve();
      },
    }),
  });
});

afterEach(async () => {
  agent.assertNoPendingInterceptors();
  await agent.close();
});

/**
 * Answers `times` GETs to `path` (any query) on `origin` with `status` and `body`; returns the list
 * the queries they were sent with are recorded into.
 */
function stub(
  origin: string,
  path: string,
  status: number,
  body: object,
  options: { headers?: Record<string, string>; times?: number } = {},
): URLSearchParams[] {
  const seen: URLSearchParams[] = [];
  agent
    .get(origin)
    .intercept({ method: 'GET', path: (p) => new URL(p, origin).pathname === path })
    .reply(
      status,
      (request) => {
        seen.push(new URL(request.path, origin).searchParams);
        return body;
      },
      { headers: options.headers ?? {} },
    )
    .times(options.times ?? 1);
  return seen;
}

describe('weather client requests', () => {
  it('sends coordinates rounded to 2 decimals, explicit units and lang, and the key as appid', async () => {
    const seen = stub(MOCK_URLS.apiUrl, '/data/2.5/weather', 200, currentWeatherBody());
    await client.current.byCoords({ lat: 52.520_08, lon: 13.404_95, units: 'metric', lang: 'de' });
    expect(Object.fromEntries(seen[0] ?? [])).toEqual({
      lat: '52.52',
      lon: '13.4',
      units: 'metric',
      lang: 'de',
      appid: KEY,
    });
  });

  it('asks the pro host for the hourly forecast and the history host for history', async () => {
    stub(MOCK_URLS.proUrl, '/data/2.5/forecast/hourly', 200, forecastBody(3, 3600));
    const history = stub(MOCK_URLS.historyUrl, '/data/2.5/history/city', 200, {
      message: 'Count: 0',
      cod: '200',
      city_id: 0,
      calctime: 0.01,
      cnt: 0,
      list: [],
    });
    expect((await client.forecast.hourly({ lat: 1, lon: 2, cnt: 3 })).list).toHaveLength(3);
    await client.history.hourly({ lat: 1, lon: 2, start: 1_700_000_000, cnt: 5 });
    expect(history[0]?.get('type')).toBe('hour');
    expect(history[0]?.get('cnt')).toBe('5');
  });

  it('accepts cod as a number or a string, extra fields and unknown condition ids', async () => {
    stub(
      MOCK_URLS.apiUrl,
      '/data/2.5/weather',
      200,
      currentWeatherBody({
        cod: '200',
        brand_new_field: { x: 1 },
        weather: [{ id: 999, main: 'Plasma', description: 'plasma storm' }],
      }),
    );
    const weather = await client.current.byCoords({ lat: 52.52, lon: 13.41 });
    expect(weather.weather[0]?.id).toBe(999);
    expect(weather.cod).toBe('200');
  });

  it('reads current weather shaped as the contract lists it, without dt, as of when it arrived', async () => {
    const at = Date.UTC(2025, 0, 15, 12, 34, 56);
    const timed = createWeatherClient({
      ...MOCK_URLS,
      apiKey: KEY,
      now: () => at,
      transport: instantTransport({ dispatcher: agent }),
    });
    // The contract's fields of current weather: coord, weather, main, visibility, wind, rain, clouds, name.
    const {
      dt: _dt,
      sys: _sys,
      timezone: _timezone,
      id: _id,
      base: _base,
      cod: _cod,
      ...listed
    } = currentWeatherBody() as Record<string, unknown>;
    stub(MOCK_URLS.apiUrl, '/data/2.5/weather', 200, listed);
    const weather = await timed.current.byCoords({ lat: 52.52, lon: 13.41 });
    expect(weather.dt).toBe(at / 1000);
    expect(weather.name).toBe(listed['name']);
    await timed.close();
  });

  it('accepts cod as a number or a string in forecasts and history too', async () => {
    stub(MOCK_URLS.proUrl, '/data/2.5/forecast/hourly', 200, forecastBody(2, 3600, { cod: 200 }));
    stub(MOCK_URLS.apiUrl, '/data/2.5/forecast', 200, forecastBody(2, 10_800, { cod: '200' }));
    stub(MOCK_URLS.historyUrl, '/data/2.5/history/city', 200, {
      cod: 200,
      message: 'Count: 0',
      cnt: 0,
      list: [],
    });
    expect((await client.forecast.hourly({ lat: 1, lon: 2 })).cod).toBe(200);
    expect((await client.forecast.threeHourly({ lat: 1, lon: 2 })).cod).toBe('200');
    expect((await client.history.hourly({ lat: 1, lon: 2, start: 1_700_000_000, cnt: 1 })).cod).toBe(200);
  });

  it('reads a forecast entry with null wind and clouds as one without them, and an answer without cnt', async () => {
    // As the 5-day forecast sent some entries in June 2016 (martykan/forecastie#100, csparpa/pyowm#111).
    const body = forecastBody(3, 10_800);
    const [first, second, third] = body.list;
    const { cnt: _cnt, ...withoutCount } = body;
    stub(MOCK_URLS.apiUrl, '/data/2.5/forecast', 200, {
      ...withoutCount,
      list: [first, { ...second, wind: null, clouds: null }, third],
    });
    const forecast = await client.forecast.threeHourly({ lat: 1, lon: 2 });
    expect(forecast.list).toHaveLength(3);
    expect(forecast.list[1]?.wind).toBeUndefined();
    expect(forecast.list[1]?.clouds).toBeUndefined();
    expect(forecast.list[1]?.main.temp).toBe(second?.main.temp);
    expect(forecast.list[2]?.wind).toEqual(third?.wind);
  });

  it('accepts accumulated records as a bare array or wrapped in list or result', async () => {
    for (const body of [
      accumulatedTemperatureItems(),
      { list: accumulatedTemperatureItems() },
      { result: accumulatedTemperatureItems() },
    ]) {
      stub(MOCK_URLS.historyUrl, '/data/2.5/history/accumulated_temperature', 200, body);
    }
    for (const start of [1_586_853_378, 1_586_853_379, 1_586_853_380]) {
      const records = await client.history.accumulatedTemperature({
        lat: 51.51,
        lon: -0.13,
        start,
        end: 1_589_445_367,
      });
      expect(records.map((r) => r.count)).toEqual([1, 2]);
    }
  });

  it('reads accumulated records whose date is a Unix time instead of text', async () => {
    const body = [
      { date: 1_586_822_400, rain: 0.4, count: 1 },
      { date: 1_586_908_800, rain: 2.9, count: 2 },
    ];
    stub(MOCK_URLS.historyUrl, '/data/2.5/history/accumulated_precipitation', 200, body);
    const records = await client.history.accumulatedPrecipitation({
      lat: 51.51,
      lon: -0.13,
      start: 1_586_822_400,
      end: 1_586_995_200,
    });
    expect(records.at(-1)).toMatchObject({ rain: 2.9, count: 2 });
  });

  it('asks for 5 places by default when geocoding a name', async () => {
    const seen = stub(MOCK_URLS.apiUrl, '/geo/1.0/direct', 200, geocodingBody());
    const places = await client.geocoding.direct({ q: ' Springfield , US ' });
    expect(places.map((p) => p.state)).toEqual(['Illinois', 'Missouri']);
    expect(seen[0]?.get('q')).toBe('Springfield,US');
    expect(seen[0]?.get('limit')).toBe('5');
  });

  it('keeps every place of a geocoding answer when one comes without a country', async () => {
    const [illinois, missouri] = geocodingBody();
    const { country: _, ...noCountry } = missouri!;
    stub(MOCK_URLS.apiUrl, '/geo/1.0/direct', 200, [illinois, noCountry]);
    const places = await client.geocoding.direct({ q: 'Springfield' });
    expect(places.map((place) => placeLabel(place))).toEqual([
      'Springfield, Illinois, US',
      'Springfield, Missouri',
    ]);
  });
});

describe('zip-code geocoding', () => {
  const zipPlace = (zip: string, name: string, lat: number, lon: number, country: string) => ({
    zip,
    name,
    lat,
    lon,
    country,
  });
  const stubZip = (body: object) => stub(MOCK_URLS.apiUrl, '/geo/1.0/zip', 200, body);

  it('sends the code with its country, and keeps the code’s inner space', async () => {
    const seen = stubZip({ ...zipPlace('SW1A 1AA', 'London', 51.5073, -0.1276, 'GB'), extra: 'ignored' });
    const place = await client.geocoding.zip({ zip: ' sw1a   1aa ', country: 'gb' });
    expect(place).toEqual({ zip: 'SW1A 1AA', name: 'London', lat: 51.5073, lon: -0.1276, country: 'GB' });
    expect(seen[0]?.get('zip')).toBe('sw1a 1aa,GB');
    expect(seen[0]?.get('appid')).toBe(KEY);
  });

  it('sends a code without a country as it is (the service reads it as a US ZIP code)', async () => {
    const seen = stubZip(zipPlace('90210', 'Beverly Hills', 34.0901, -118.4065, 'US'));
    await client.geocoding.zip({ zip: '90210' });
    expect(seen[0]?.get('zip')).toBe('90210');
  });

  it('turns the service’s 404 for an unknown code into WeatherNotFoundError', async () => {
    stub(MOCK_URLS.apiUrl, '/geo/1.0/zip', 404, { cod: '404', message: 'not found' });
    await expect(client.geocoding.zip({ zip: '00000', country: 'DE' })).rejects.toBeInstanceOf(
      WeatherNotFoundError,
    );
  });

  it('refuses an empty code or a country that is not two letters, before sending anything', async () => {
    await expect(client.geocoding.zip({ zip: '  ' })).rejects.toBeInstanceOf(WeatherParameterError);
    await expect(client.geocoding.zip({ zip: '10117', country: 'DEU' })).rejects.toBeInstanceOf(
      WeatherParameterError,
    );
    await expect(client.geocoding.zip({ zip: '10117,DE' })).rejects.toBeInstanceOf(WeatherParameterError);
  });
});

describe('yearly statistics as the service may send them', () => {
  const stat = { min: 1, max: 3, median: 2, mean: 2, p25: 1.5, p75: 2.5, st_dev: 0.5, num: 10 };
  const day = (month: number, dayOfMonth: number, extra: Record<string, unknown> = {}) => ({
    month,
    day: dayOfMonth,
    temp: { record_min: 260, record_max: 300, average_min: 270, average_max: 290, ...stat },
    pressure: stat,
    humidity: stat,
    wind: stat,
    precipitation: stat,
    clouds: stat,
    ...extra,
  });

  it('keeps every day it can read: one without clouds, and none of a malformed one', async () => {
    stub(MOCK_URLS.historyUrl, '/data/2.5/aggregated/year', 200, {
      cod: 200,
      city_id: 1,
      calctime: 0.1,
      result: [day(1, 1), day(1, 2, { clouds: undefined }), { month: 1, day: 3, temp: 'n/a' }, day(1, 4)],
    });
    const yearly = await client.history.yearly({ lat: 52.52, lon: 13.4 });
    expect(yearly.result.map((d) => [d.day, d.clouds === undefined])).toEqual([
      [1, false],
      [2, true],
      [4, false],
    ]);
  });
});

describe('weather client errors', () => {
  it('turns 401 into WeatherInvalidKeyError carrying the service message, not the key', async () => {
    stub(MOCK_URLS.apiUrl, '/data/2.5/weather', 401, invalidKeyBody());
    const error = await client.current.byCoords({ lat: 1, lon: 2 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WeatherInvalidKeyError);
    expect((error as Error).message).toContain(
      'Invalid API key. Please see https://openweathermap.org/faq#error401',
    );
    expect((error as Error).message).not.toContain(KEY);
  });

  it('says that a 401 for a paid product may be the plan rather than the key', async () => {
    stub(MOCK_URLS.proUrl, '/data/2.5/forecast/hourly', 401, invalidKeyBody());
    const error = await client.forecast.hourly({ lat: 1, lon: 2 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WeatherInvalidKeyError);
    expect((error as WeatherInvalidKeyError).paidProduct).toBe(true);
    expect((error as Error).message).toMatch(/Invalid API key.*needs a paid plan/);
  });

  it.each([
    [400, { cod: '400', message: 'wrong latitude' }, WeatherBadRequestError],
    [403, { cod: 403, message: 'Forbidden' }, WeatherForbiddenError],
    [404, { cod: '404', message: 'city not found' }, WeatherNotFoundError],
  ] as const)('turns %i into its own error class, without retrying', async (status, body, type) => {
    const seen = stub(MOCK_URLS.apiUrl, '/data/2.5/weather', status, body);
    const error = await client.current.byName({ q: 'Atlantis' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(type);
    expect((error as WeatherBadRequestError).status).toBe(status);
    expect((error as Error).message).toContain(body.message);
    expect(seen).toHaveLength(1);
  });

  it('waits out a short Retry-After on 429 and then succeeds', async () => {
    stub(
      MOCK_URLS.apiUrl,
      '/data/2.5/weather',
      429,
      { cod: 429, message: 'Your account is temporary blocked' },
      {
        headers: { 'retry-after': '2' },
      },
    );
    stub(MOCK_URLS.apiUrl, '/data/2.5/weather', 200, currentWeatherBody());
    await client.current.byCoords({ lat: 1, lon: 2 });
    expect(sleeps).toEqual([2000]);
  });

  it('reports an answer of the wrong shape as a ResponseValidationError naming the field', async () => {
    stub(MOCK_URLS.apiUrl, '/data/2.5/weather', 200, { coord: { lat: 1, lon: 2 }, weather: [] });
    const error = await client.current.byCoords({ lat: 1, lon: 2 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as Error).message).toMatch(/main/);
    expect((error as Error).message).not.toContain(KEY);
  });

  it('refuses values the service would refuse, before sending anything', async () => {
    const attempts: Array<() => Promise<unknown>> = [
      () => client.current.byCoords({ lat: 91, lon: 0 }),
      () => client.current.byCoords({ lat: 0, lon: Number.NaN }),
      () => client.current.byCoords({ lat: 0, lon: 0, lang: 'klingon' as WeatherLang }),
      () => client.current.byName({ q: ' , ' }),
      () => client.forecast.hourly({ lat: 0, lon: 0, cnt: 97 }),
      () => client.forecast.daily({ lat: 0, lon: 0, cnt: 17 }),
      () => client.forecast.threeHourly({ lat: 0, lon: 0, cnt: 0 }),
      () => client.geocoding.direct({ q: 'Springfield', limit: 6 }),
      () => client.history.hourly({ lat: 0, lon: 0, start: 1_700_000_000, end: 1_700_003_600, cnt: 2 }),
      () => client.history.hourly({ lat: 0, lon: 0, start: 1_700_000_000_000 }),
      () =>
        client.history.accumulatedPrecipitation({ lat: 0, lon: 0, start: 1_700_086_400, end: 1_700_000_000 }),
    ];
    for (const attempt of attempts) {
      await expect(attempt()).rejects.toBeInstanceOf(WeatherParameterError);
    }
  });

  it('accepts language codes in any case, and the non-ISO ones of the service', async () => {
    const seen = stub(MOCK_URLS.apiUrl, '/data/2.5/weather', 200, currentWeatherBody(), { times: 2 });
    await client.current.byCoords({ lat: 0, lon: 0, lang: 'ZH_CN' as WeatherLang });
    await client.current.byCoords({ lat: 0, lon: 1, lang: 'kr' });
    expect(seen.map((q) => q.get('lang'))).toEqual(['zh_cn', 'kr']);
  });
});

describe('weather bulk files (parsing failures)', () => {
  function serveBulk(name: string, content: Buffer) {
    agent
      .get(MOCK_URLS.bulkUrl)
      .intercept({ method: 'GET', path: (p) => p.startsWith(`/snapshot/${name}?`) })
      .reply(200, content, { headers: { 'content-type': 'application/gzip' } });
  }

  async function drain(iterable: AsyncIterable<unknown>): Promise<number> {
    let n = 0;
    for await (const _ of iterable) n++;
    return n;
  }

  it('reports a file that is not gzip as malformed', async () => {
    serveBulk('weather_14.json.gz', Buffer.from('{"not":"gzip"}\n'));
    await expect(drain(client.bulk.snapshot('weather_14.json.gz'))).rejects.toBeInstanceOf(BulkFormatError);
  });

  it('names the line of a JSON record of the wrong shape', async () => {
    const good = JSON.stringify({
      city: { id: 1, name: 'A', coord: { lon: 1, lat: 2 } },
      time: 1,
      main: { temp: 280 },
      weather: [],
    });
    serveBulk('weather_14.json.gz', gzipSync(`${good}\n${good}\n{"city":{}}\n`));
    await expect(drain(client.bulk.snapshot('weather_14.json.gz'))).rejects.toThrow(/line 3/);
  });

  it('names the CSV row whose field count differs from the header', async () => {
    serveBulk('weather_14.csv.gz', gzipSync('a,b,c\n1,2,3\n4,5\n'));
    await expect(drain(client.bulk.snapshot('weather_14.csv.gz'))).rejects.toThrow(/row 3 has 2 fields/);
  });

  it('refuses a file name that is not a bulk file name, before sending anything', async () => {
    await expect(drain(client.bulk.snapshot('../etc/passwd.json.gz'))).rejects.toBeInstanceOf(
      WeatherParameterError,
    );
  });
});
