import { gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startWeatherEmulator, type WeatherEmulator } from '../../emulators/weather/index.js';

const NOW = Date.UTC(2025, 0, 15, 12);
const KEY = 'appid=test-key';

let emulator: WeatherEmulator;

beforeAll(async () => {
  emulator = await startWeatherEmulator({ now: () => NOW, bulkRecords: 5 });
});
afterAll(() => emulator.close());
beforeEach(() => {
  emulator.resetCounts();
  emulator.setNow(undefined);
});

async function get(
  url: string,
): Promise<{ status: number; body: unknown; headers: Record<string, unknown> }> {
  const response = await request(url);
  const text = await response.body.text();
  return { status: response.statusCode, body: JSON.parse(text) as unknown, headers: response.headers };
}

describe('the weather emulator speaks like the service', () => {
  it('answers a bad or missing key with 401 and a numeric cod', async () => {
    const expected = {
      cod: 401,
      message: 'Invalid API key. Please see https://openweathermap.org/faq#error401 for more info.',
    };
    expect(await get(`${emulator.apiUrl}/data/2.5/weather?lat=1&lon=1&appid=nope`)).toMatchObject({
      status: 401,
      body: expected,
    });
    expect((await get(`${emulator.proUrl}/data/2.5/forecast/hourly?lat=1&lon=1`)).body).toEqual(expected);
  });

  it('refuses a free-plan key the paid products with the same 401, and serves it the free ones', async () => {
    const free = 'appid=test-free-key';
    expect((await get(`${emulator.apiUrl}/data/2.5/weather?lat=1&lon=1&${free}`)).status).toBe(200);
    expect((await get(`${emulator.apiUrl}/data/2.5/forecast?lat=1&lon=1&${free}`)).status).toBe(200);
    expect((await get(`${emulator.apiUrl}/geo/1.0/direct?q=Paris&${free}`)).status).toBe(200);
    const paid = [
      // The 16-day daily forecast is not in the real free plan (pyowm #216, #371).
      `${emulator.apiUrl}/data/2.5/forecast/daily?lat=1&lon=1&${free}`,
      `${emulator.proUrl}/data/2.5/forecast/hourly?lat=1&lon=1&${free}`,
      `${emulator.historyUrl}/data/2.5/history/city?lat=1&lon=1&type=hour&${free}`,
      `${emulator.historyUrl}/data/2.5/aggregated/year?lat=1&lon=1&${free}`,
      `${emulator.bulkUrl}/snapshot/weather_14.json.gz?${free}`,
    ];
    for (const url of paid) {
      expect(await get(url)).toMatchObject({
        status: 401,
        body: { cod: 401, message: expect.stringContaining('Invalid API key') as unknown },
      });
    }
    // The paid key has every product.
    expect((await get(`${emulator.proUrl}/data/2.5/forecast/hourly?lat=1&lon=1&cnt=1&${KEY}`)).status).toBe(
      200,
    );
  });

  it('translates descriptions into several languages, never the group, and falls back to English', async () => {
    // Scattered clouds at this place and hour, a condition every language of the emulator has.
    const ask = async (lang: string) =>
      (
        (await get(`${emulator.apiUrl}/data/2.5/weather?lat=52.52&lon=13.41&lang=${lang}&${KEY}`)).body as {
          weather: Array<{ id: number; main: string; description: string; icon: string }>;
        }
      ).weather[0];
    const english = await ask('en');
    const others = await Promise.all(['de', 'fr', 'es', 'it', 'ru'].map(ask));
    expect(new Set([english, ...others].map((w) => w?.description)).size).toBe(6);
    for (const other of others)
      expect({ ...other, description: '' }).toEqual({ ...english, description: '' });
    expect(await ask('sp')).toEqual(others[2]);
    expect(await ask('zz')).toEqual(english);
    expect(await ask('zh_cn')).toEqual(english);
  });

  it('names the city in the language asked for where it has the name, as it does the description', async () => {
    const at = 'lat=48.1371&lon=11.5754';
    const names = async (lang: string) => {
      const current = (await get(`${emulator.apiUrl}/data/2.5/weather?${at}&lang=${lang}&${KEY}`)).body as {
        name: string;
      };
      const forecast = (await get(`${emulator.apiUrl}/data/2.5/forecast?${at}&cnt=1&lang=${lang}&${KEY}`))
        .body as { city: { name: string } };
      const daily = (await get(`${emulator.apiUrl}/data/2.5/forecast/daily?${at}&cnt=1&lang=${lang}&${KEY}`))
        .body as { city: { name: string } };
      return [current.name, forecast.city.name, daily.city.name];
    };
    expect(await names('en')).toEqual(['Munich', 'Munich', 'Munich']);
    expect(await names('de')).toEqual(['München', 'München', 'München']);
    expect(await names('ja')).toEqual(['ミュンヘン', 'ミュンヘン', 'ミュンヘン']);
    // The service's own code for Spanish, and a language the gazetteer has no name in.
    expect(await names('sp')).toEqual(['Múnich', 'Múnich', 'Múnich']);
    expect(await names('pl')).toEqual(['Munich', 'Munich', 'Munich']);
  });

  it('allows any origin on every answer of its API hosts, errors included', async () => {
    for (const url of [
      `${emulator.apiUrl}/data/2.5/weather?lat=1&lon=1&${KEY}`,
      `${emulator.apiUrl}/data/2.5/weather?lat=1&lon=1&appid=nope`,
      `${emulator.historyUrl}/data/2.5/history/city?lat=1&lon=1&type=hour&cnt=1&${KEY}`,
    ]) {
      expect((await get(url)).headers).toMatchObject({
        'access-control-allow-origin': '*',
        'access-control-allow-credentials': 'true',
        'access-control-allow-methods': 'GET, POST',
      });
    }
    // A bulk file too, not only its errors.
    const bulk = await request(`${emulator.bulkUrl}/snapshot/weather_14.json.gz?${KEY}`);
    await bulk.body.arrayBuffer();
    expect([bulk.statusCode, bulk.headers['access-control-allow-origin']]).toEqual([200, '*']);
  });

  it('names the coordinates asked for to four decimals, as the service does', async () => {
    const at = 'lat=37.7749295&lon=-122.4194155';
    const current = (await get(`${emulator.apiUrl}/data/2.5/weather?${at}&${KEY}`)).body as {
      coord: { lat: number; lon: number };
    };
    expect(current.coord).toEqual({ lat: 37.7749, lon: -122.4194 });
    const forecast = (await get(`${emulator.apiUrl}/data/2.5/forecast?${at}&${KEY}`)).body as {
      city: { coord: { lat: number; lon: number } };
    };
    expect(forecast.city.coord).toEqual({ lat: 37.7749, lon: -122.4194 });
  });

  it('answers bad input with 400 and a string cod', async () => {
    const cases: Array<[string, string]> = [
      [`${emulator.apiUrl}/data/2.5/weather?lat=91&lon=0&${KEY}`, 'wrong latitude'],
      [`${emulator.apiUrl}/data/2.5/weather?lat=1&lon=181&${KEY}`, 'wrong longitude'],
      [`${emulator.apiUrl}/data/2.5/weather?${KEY}`, 'Nothing to geocode'],
      [`${emulator.apiUrl}/geo/1.0/direct?q=&${KEY}`, 'Nothing to geocode'],
      [`${emulator.historyUrl}/data/2.5/history/city?lat=1&lon=1&type=day&${KEY}`, 'type must be hour'],
    ];
    for (const [url, message] of cases) {
      expect(await get(url)).toMatchObject({ status: 400, body: { cod: '400', message } });
    }
  });

  it('answers an unknown city name with 404 "city not found", and an unknown geocoding name with []', async () => {
    expect(await get(`${emulator.apiUrl}/data/2.5/weather?q=Atlantis&${KEY}`)).toMatchObject({
      status: 404,
      body: { cod: '404', message: 'city not found' },
    });
    expect(await get(`${emulator.apiUrl}/geo/1.0/direct?q=Atlantis&${KEY}`)).toMatchObject({
      status: 200,
      body: [],
    });
  });

  it('refuses a method other than GET with 405, naming GET', async () => {
    const response = await request(`${emulator.apiUrl}/data/2.5/weather?q=London&${KEY}`, { method: 'POST' });
    expect(response.statusCode).toBe(405);
    expect(response.headers['allow']).toBe('GET');
    expect(JSON.parse(await response.body.text())).toEqual({ cod: '405', message: 'Method Not Allowed' });
  });

  it('answers 429 with the service body and, by default, no Retry-After', async () => {
    emulator.setRateLimit({ count: 2, retryAfterSeconds: 7 });
    const limited = await get(`${emulator.apiUrl}/data/2.5/weather?lat=1&lon=1&${KEY}`);
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('7');
    emulator.setRateLimit({ count: 1 });
    const plain = await get(`${emulator.apiUrl}/data/2.5/weather?lat=1&lon=1&${KEY}`);
    expect(plain.headers['retry-after']).toBeUndefined();
    expect(plain.body).toEqual({
      cod: 429,
      message:
        'Your account is temporary blocked due to exceeding of requests limitation of your subscription type. ' +
        'Please choose the proper subscription https://openweathermap.org/price',
    });
  });

  it('takes the key as `APPID` too, as the service’s own pages once wrote it and many clients send it', async () => {
    const key = KEY.replace(/^appid=/, '');
    const answer = await get(`${emulator.apiUrl}/data/2.5/weather?lat=1&lon=1&APPID=${key}`);
    expect(answer.status).toBe(200);
    expect(emulator.requests({ path: '/data/2.5/weather' }).at(-1)?.query['APPID']).toBe('[key]');
  });

  it('answers a path with a trailing slash as without it', async () => {
    const answer = await get(`${emulator.apiUrl}/data/2.5/forecast/?q=Edinburgh,GB&${KEY}`);
    expect(answer.status).toBe(200);
    expect((answer.body as { city: { name: string } }).city.name).toBe('Edinburgh');
  });

  it('serves each endpoint on its own host, and the api host’s weather on the paid pro host too', async () => {
    const wrongHost = await get(`${emulator.apiUrl}/data/2.5/forecast/hourly?lat=1&lon=1&${KEY}`);
    expect(wrongHost.status).toBe(404);
    // Upstream's body for a path it does not serve.
    expect(wrongHost.body).toEqual({ cod: '404', message: 'Internal error' });
    expect((await get(`${emulator.historyUrl}/data/2.5/forecast?lat=1&lon=1&${KEY}`)).status).toBe(404);
    expect((await get(`${emulator.proUrl}/geo/1.0/direct?q=London&${KEY}`)).status).toBe(404);
    const onPro = await get(`${emulator.proUrl}/data/2.5/weather?lat=1&lon=1&${KEY}`);
    expect(onPro.status).toBe(200);
    expect(onPro.body).toEqual((await get(`${emulator.apiUrl}/data/2.5/weather?lat=1&lon=1&${KEY}`)).body);
  });

  it('caps cnt at the maximum of each forecast and refuses a cnt that is not a positive integer', async () => {
    const cases: Array<[string, number]> = [
      [`${emulator.proUrl}/data/2.5/forecast/hourly?lat=1&lon=1&cnt=500&${KEY}`, 96],
      [`${emulator.apiUrl}/data/2.5/forecast/daily?lat=1&lon=1&cnt=30&${KEY}`, 16],
      [`${emulator.apiUrl}/data/2.5/forecast/daily?lat=1&lon=1&${KEY}`, 7],
      [`${emulator.apiUrl}/data/2.5/forecast?lat=1&lon=1&cnt=99&${KEY}`, 40],
    ];
    for (const [url, cnt] of cases) {
      const { body } = await get(url);
      expect((body as { cnt: number; list: unknown[] }).list).toHaveLength(cnt);
    }
    expect((await get(`${emulator.apiUrl}/data/2.5/forecast?lat=1&lon=1&cnt=0&${KEY}`)).status).toBe(400);
  });

  it('gives at most 5 geocoding results and 1 when no limit is given', async () => {
    const many = await get(`${emulator.apiUrl}/geo/1.0/direct?q=Springfield&limit=50&${KEY}`);
    expect(many.body).toHaveLength(5);
    const one = await get(`${emulator.apiUrl}/geo/1.0/direct?q=Springfield&${KEY}`);
    expect(one.body).toHaveLength(1);
  });

  it('geocodes "city,state,country" with any part left empty', async () => {
    const names = async (q: string) =>
      (
        (await get(`${emulator.apiUrl}/geo/1.0/direct?q=${encodeURIComponent(q)}&limit=5&${KEY}`)).body as {
          name: string;
          country: string;
          state?: string;
        }[]
      ).map((place) => `${place.name} ${place.state ?? ''} ${place.country}`.replace(/\s+/g, ' '));
    expect(await names('London,,GB')).toEqual(await names('London,GB'));
    expect(await names('London,,GB')).not.toEqual([]);
    // Of two parts the second is a country, as upstream reads it (see places.ts): a US state code
    // asked without the country finds nothing, or a place of that country ("IL" is Israel).
    expect(await names('Springfield,IL')).toEqual([]);
    expect(await names('Springfield,IL,US')).toEqual(['Springfield Illinois US']);
    expect(await names('Springfield,IL,')).toEqual(['Springfield Illinois US']);
    expect(await names('Springfield,,')).toEqual(await names('Springfield'));
    expect(await names('Springfield,,US')).toHaveLength(5);
  });

  it('limits history to 168 hours per call and to the past', async () => {
    const now = NOW / 1000;
    const history = (range: string) =>
      get(`${emulator.historyUrl}/data/2.5/history/city?lat=1&lon=1&type=hour&${range}&${KEY}`);
    const week = await history(`start=${now - 167 * 3600}&end=${now}`);
    expect((week.body as { cnt: number }).cnt).toBe(168);
    // Exactly one week (end = start + 604800) is allowed; a second more is not.
    const fullWeek = await history(`start=${now - 168 * 3600}&end=${now}`);
    expect(fullWeek.status).toBe(200);
    const tooLong = await history(`start=${now - 168 * 3600 - 1}&end=${now}`);
    expect(tooLong).toMatchObject({
      status: 400,
      body: { cod: '400', message: 'requested period is longer than 168 hours' },
    });
    expect((await history(`start=${now - 200 * 3600}&cnt=168`)).status).toBe(200);
    expect((await history(`start=${now - 200 * 3600}&cnt=169`)).status).toBe(400);
    const future = await get(
      `${emulator.historyUrl}/data/2.5/history/city?lat=1&lon=1&type=hour&start=${now - 3600}&cnt=5&${KEY}`,
    );
    expect(future.body as { cnt: number; message: string }).toMatchObject({ cnt: 2, message: 'Count: 2' });
  });

  it('lists exactly cnt whole hours of history, from start rounded up to the hour or up to the current hour', async () => {
    // Half past twelve: the current hour is 12:00, whose observation current weather reports.
    emulator.setNow(NOW + 30 * 60_000);
    const now = NOW / 1000;
    const hours = async (range: string) =>
      (
        (await get(`${emulator.historyUrl}/data/2.5/history/city?lat=1&lon=1&type=hour&${range}&${KEY}`))
          .body as { cnt: number; list: Array<{ dt: number }> }
      ).list.map((entry) => (entry.dt - now) / 3600);
    // 07:01 + 3 hourly timestamps: 08:00, 09:00, 10:00.
    expect(await hours(`start=${now - 5 * 3600 + 60}&cnt=3`)).toEqual([-4, -3, -2]);
    expect(await hours('cnt=3')).toEqual([-2, -1, 0]);
    const day = await hours('');
    expect(day).toHaveLength(24);
    expect(day.at(-1)).toBe(0);
    expect(await hours(`start=${now - 30 * 3600 + 1}`)).toHaveLength(24);
  });

  it('serves bulk files as gzip (JSON lines, CSV with a header) and 404 for unknown names', async () => {
    const json = await request(`${emulator.bulkUrl}/snapshot/weather_14.json.gz?${KEY}`);
    expect(json.headers['content-type']).toBe('application/gzip');
    const lines = gunzipSync(Buffer.from(await json.body.arrayBuffer()))
      .toString('utf8')
      .trim()
      .split('\n');
    expect(lines).toHaveLength(5);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({
      city: { name: 'Springfield', findname: 'SPRINGFIELD', country: 'US' },
    });

    const csv = await request(`${emulator.bulkUrl}/snapshot/weather_14.csv.gz?${KEY}`);
    const rows = gunzipSync(Buffer.from(await csv.body.arrayBuffer()))
      .toString('utf8')
      .trim()
      .split('\n');
    expect(rows[0]).toMatch(/^city_id,city_name,findname,country,lat,lon,/);
    expect(rows).toHaveLength(6);

    expect((await get(`${emulator.bulkUrl}/snapshot/weather_99.json.gz?${KEY}`)).status).toBe(404);
  });

  it('answers a bulk file name with broken percent-encoding with the file-not-found 404', async () => {
    expect(await get(`${emulator.bulkUrl}/snapshot/weather_%E0%A4%A.json.gz?${KEY}`)).toEqual(
      expect.objectContaining({ status: 404, body: { cod: '404', message: 'file not found' } }),
    );
  });

  it('sends sunrise and sunset as 0 in polar night, in current weather as in the forecasts', async () => {
    const polar = 'lat=80&lon=15';
    const current = (await get(`${emulator.apiUrl}/data/2.5/weather?${polar}&${KEY}`)).body as {
      sys: Record<string, unknown>;
    };
    const forecast = (await get(`${emulator.apiUrl}/data/2.5/forecast?${polar}&cnt=1&${KEY}`)).body as {
      city: Record<string, unknown>;
    };
    expect(forecast.city).toMatchObject({ sunrise: 0, sunset: 0 });
    expect(current.sys).toMatchObject({ sunrise: 0, sunset: 0 });
    // Where the sun rises, both are times of the day.
    const berlin = (await get(`${emulator.apiUrl}/data/2.5/weather?lat=52.52&lon=13.41&${KEY}`)).body as {
      sys: { sunrise: number; sunset: number };
    };
    expect(berlin.sys.sunrise).toBeLessThan(NOW / 1000);
    expect(berlin.sys.sunset).toBeGreaterThan(NOW / 1000);
  });

  it('gives sunrise and sunset within a few minutes of the almanac’s times', async () => {
    // Published times (UTC) for the day, from the almanacs (London in GMT and BST, Sydney in AEDT).
    const days = [
      { at: '2025-11-03T12:00:00Z', where: 'lat=51.5074&lon=-0.1278', sunrise: '06:55', sunset: '16:31' },
      { at: '2025-07-15T12:00:00Z', where: 'lat=51.5074&lon=-0.1278', sunrise: '03:58', sunset: '20:14' },
      { at: '2025-02-10T17:00:00Z', where: 'lat=40.7128&lon=-74.006', sunrise: '11:56', sunset: '22:25' },
      { at: '2025-12-21T02:00:00Z', where: 'lat=-33.8688&lon=151.2093', sunrise: '18:41', sunset: '09:05' },
    ];
    const minutesOfDay = (t: number) => ((Math.round(t / 60) % 1440) + 1440) % 1440;
    const published = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3));
    const apart = (a: number, b: number) => Math.min(Math.abs(a - b), 1440 - Math.abs(a - b));
    for (const day of days) {
      emulator.setNow(Date.parse(day.at));
      const { sys } = (await get(`${emulator.apiUrl}/data/2.5/weather?${day.where}&${KEY}`)).body as {
        sys: { sunrise: number; sunset: number };
      };
      expect(
        apart(minutesOfDay(sys.sunrise), published(day.sunrise)),
        `${day.at} sunrise`,
      ).toBeLessThanOrEqual(3);
      expect(apart(minutesOfDay(sys.sunset), published(day.sunset)), `${day.at} sunset`).toBeLessThanOrEqual(
        3,
      );
    }
  });

  it('geocodes a zip code with its country, the US by default, and answers 404 for an unknown one', async () => {
    expect((await get(`${emulator.apiUrl}/geo/1.0/zip?zip=10117,DE&${KEY}`)).body).toEqual({
      zip: '10117',
      name: 'Berlin',
      lat: 52.517,
      lon: 13.3889,
      country: 'DE',
    });
    expect((await get(`${emulator.apiUrl}/geo/1.0/zip?zip=sw1a 1aa,gb&${KEY}`)).body).toMatchObject({
      zip: 'SW1A 1AA',
      name: 'London',
      country: 'GB',
    });
    expect((await get(`${emulator.apiUrl}/geo/1.0/zip?zip=65806&${KEY}`)).body).toMatchObject({
      name: 'Springfield',
      country: 'US',
      lat: 37.2153,
    });
    // A real code of another country is not one of the US.
    expect(await get(`${emulator.apiUrl}/geo/1.0/zip?zip=10117&${KEY}`)).toMatchObject({
      status: 404,
      body: { cod: '404', message: 'not found' },
    });
    expect(await get(`${emulator.apiUrl}/geo/1.0/zip?zip=00000,US&${KEY}`)).toMatchObject({
      status: 404,
      body: { cod: '404', message: 'not found' },
    });
  });

  it('finds the 5-day forecast by city id or zip code as by name', async () => {
    const city = async (params: string) =>
      (await get(`${emulator.apiUrl}/data/2.5/forecast?${params}&cnt=1&${KEY}`)).body as {
        city: { id: number; name: string; country: string };
        list: unknown[];
      };
    const byName = await city('q=Munich,DE');
    expect(byName.city).toMatchObject({ id: 2_867_714, name: 'Munich', country: 'DE' });
    expect(await city('id=2867714')).toEqual(byName);
    expect(await city('zip=80331,de')).toEqual(byName);
    expect(await get(`${emulator.apiUrl}/data/2.5/forecast?id=1&${KEY}`)).toMatchObject({
      status: 404,
      body: { cod: '404', message: 'city not found' },
    });
    expect(await get(`${emulator.apiUrl}/data/2.5/forecast?zip=00000,US&${KEY}`)).toMatchObject({
      status: 404,
      body: { cod: '404', message: 'city not found' },
    });
  });

  it('finds the daily and hourly forecasts by name, city id or zip code, as by coordinates', async () => {
    const city = async (url: string, params: string) =>
      (await get(`${url}?${params}&cnt=1&${KEY}`)).body as { city: { id: number; name: string } };
    for (const url of [
      `${emulator.apiUrl}/data/2.5/forecast/daily`,
      `${emulator.proUrl}/data/2.5/forecast/hourly`,
    ]) {
      const byName = await city(url, 'q=Munich,DE');
      expect(byName.city).toMatchObject({ id: 2_867_714, name: 'Munich' });
      expect(await city(url, 'id=2867714')).toEqual(byName);
      expect(await city(url, 'zip=80331,de')).toEqual(byName);
      expect((await city(url, 'lat=48.1371&lon=11.5754')).city).toMatchObject({ name: 'Munich' });
      expect((await get(`${url}?q=Qwxzvbnmqq&${KEY}`)).status).toBe(404);
    }
  });

  it('counts requests by path and host, and replays injected failures once', async () => {
    emulator.failNext(/forecast/, 503);
    expect((await get(`${emulator.apiUrl}/data/2.5/forecast?lat=1&lon=1&${KEY}`)).status).toBe(503);
    expect((await get(`${emulator.apiUrl}/data/2.5/forecast?lat=1&lon=1&${KEY}`)).status).toBe(200);
    expect(emulator.requestCount({ path: '/data/2.5/forecast' })).toBe(2);
    expect(emulator.requestCount({ path: /forecast/, host: 'pro' })).toBe(0);
    expect(emulator.requests()[0]?.query['appid']).toBe('[key]');
    await get(`${emulator.proUrl}/data/2.5/forecast/hourly?lat=1&lon=1&cnt=1&${KEY}`);
    await get(`${emulator.apiUrl}/nowhere?${KEY}`);
    expect(emulator.countsByEndpoint()).toEqual({
      'api:/data/2.5/forecast': 2,
      'pro:/data/2.5/forecast/hourly': 1,
      'api:/nowhere': 1,
    });
  });

  it('injects a dropped connection and a slow answer', async () => {
    emulator.failNext('/data/2.5/weather', 'reset');
    await expect(request(`${emulator.apiUrl}/data/2.5/weather?lat=1&lon=1&${KEY}`)).rejects.toThrow();
    emulator.delayNext('/data/2.5/weather', 150);
    const started = Date.now();
    expect((await get(`${emulator.apiUrl}/data/2.5/weather?lat=1&lon=1&${KEY}`)).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(emulator.requests({ path: '/data/2.5/weather' }).map((r) => r.status)).toEqual([0, 200]);
  });

  it('keeps its own clock, which drives dt', async () => {
    emulator.setNow(NOW + 3_600_000);
    const { body } = await get(`${emulator.apiUrl}/data/2.5/weather?lat=1&lon=1&${KEY}`);
    expect((body as { dt: number }).dt).toBe(NOW / 1000 + 3600);
    emulator.advanceTime(60_000);
    expect(emulator.now()).toBe(NOW + 3_660_000);
  });

  it('dates current weather when it was last calculated, every 10 minutes, not on the hour', async () => {
    // Upstream's sample: "dt": 1661870592 (14:43:12 UTC). A place is recalculated every 10 minutes,
    // so dt is at most 10 minutes old; within an hour the values stay those of the hour's record.
    const current = async (lat: number, lon: number) =>
      (await get(`${emulator.apiUrl}/data/2.5/weather?lat=${lat}&lon=${lon}&${KEY}`)).body as {
        dt: number;
        main: { temp: number };
      };
    const hour = NOW / 1000 + 7200;
    const stamps = new Set<number>();
    for (const minute of [12, 25, 38, 51, 59]) {
      emulator.setNow((hour + minute * 60 + 17) * 1000);
      const now = emulator.now() / 1000;
      const places = [
        [52.52, 13.405],
        [48.8566, 2.3522],
        [40.7128, -74.006],
      ] as const;
      for (const [lat, lon] of places) {
        const body = await current(lat, lon);
        expect(body.dt).toBeLessThanOrEqual(now);
        expect(body.dt).toBeGreaterThan(now - 600);
        expect(body.dt).toBeGreaterThanOrEqual(hour);
        stamps.add(body.dt % 60);
      }
    }
    // Calculated at many moments, not all on a whole minute (let alone the hour).
    expect([...stamps].some((second) => second !== 0)).toBe(true);
    // A calculation stands until the next, 10 minutes on: dt is the same a moment later and up to
    // 10 minutes on, and each place has its own moment.
    emulator.setNow((hour + 30 * 60) * 1000);
    const { dt } = await current(52.52, 13.405);
    for (const later of [1, 299, 599]) {
      emulator.setNow((dt + later) * 1000);
      expect((await current(52.52, 13.405)).dt).toBe(dt);
    }
    emulator.setNow((dt + 600) * 1000);
    expect((await current(52.52, 13.405)).dt).toBe(dt + 600);
    emulator.setNow((hour + 30 * 60) * 1000);
    const offsets = new Set<number>();
    for (const [lat, lon] of [
      [52.52, 13.405],
      [48.8566, 2.3522],
      [40.7128, -74.006],
      [35.6762, 139.6503],
    ] as const)
      offsets.add((await current(lat, lon)).dt % 600);
    expect(offsets.size).toBeGreaterThan(1);
    emulator.setNow((hour + 59 * 60) * 1000);
    const late = await current(52.52, 13.405);
    emulator.setNow((hour + 60) * 1000);
    expect((await current(52.52, 13.405)).main.temp).toBe(late.main.temp);
  });
});
