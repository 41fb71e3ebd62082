import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentWeatherHtml, currentWeatherXml } from '../../emulators/weather/formats.js';
import { startWeatherEmulator, type WeatherEmulator } from '../../emulators/weather/index.js';
import { currentWeather, locate } from '../../emulators/weather/responses.js';

const NOW = Date.UTC(2025, 0, 15, 12);
const KEY = 'appid=test-key';
const BERLIN = 'lat=52.52&lon=13.41';

const XML = 'application/xml; charset=utf-8';
const HTML = 'text/html; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';

interface XmlNode {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
  text: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(raw: string): string {
  if (/&(?!(?:amp|lt|gt|quot|apos);)/.test(raw)) throw new Error(`unescaped & in ${raw}`);
  return raw.replace(/&(amp|lt|gt|quot|apos);/g, (_, name: string) => ENTITIES[name] ?? '');
}

/** A strict little XML reader: one root, balanced tags, quoted attributes, escaped text. */
function parseXml(text: string): XmlNode {
  const body = text.replace(/^<\?xml version="1\.0" encoding="UTF-8"\?>/, '');
  const token = /<(\/?)([A-Za-z_][\w.-]*)((?:\s+[\w:-]+="[^"<>]*")*)\s*(\/?)>|([^<]+)/y;
  const root: XmlNode = { name: '#document', attrs: {}, children: [], text: '' };
  const stack = [root];
  while (token.lastIndex < body.length) {
    const at = token.lastIndex;
    const match = token.exec(body);
    if (!match) throw new Error(`not XML at ${at}: ${body.slice(at, at + 40)}`);
    const [, closing, name = '', attributes = '', selfClosing, chars] = match;
    const parent = stack.at(-1)!;
    if (chars !== undefined) {
      parent.text += decode(chars);
    } else if (closing) {
      if (parent.name !== name) throw new Error(`</${name}> closes <${parent.name}>`);
      stack.pop();
    } else {
      const attrs: Record<string, string> = {};
      for (const [, key = '', value = ''] of attributes.matchAll(/([\w:-]+)="([^"]*)"/g))
        attrs[key] = decode(value);
      const node: XmlNode = { name, attrs, children: [], text: '' };
      parent.children.push(node);
      if (!selfClosing) stack.push(node);
    }
  }
  if (stack.length !== 1 || root.children.length !== 1) throw new Error('unbalanced XML');
  return root.children[0]!;
}

/** The first element at a slash-separated path below `node`. */
function at(node: XmlNode, path: string): XmlNode {
  let found = node;
  for (const name of path.split('/')) {
    const next = found.children.find((child) => child.name === name);
    if (!next) throw new Error(`no <${name}> in <${found.name}>`);
    found = next;
  }
  return found;
}

const iso = (t: number) => new Date(t * 1000).toISOString().slice(0, 19);

let emulator: WeatherEmulator;

beforeAll(async () => {
  emulator = await startWeatherEmulator({ now: () => NOW });
});
afterAll(() => emulator.close());

async function get(url: string): Promise<{ status: number; type: unknown; text: string }> {
  const response = await request(url);
  return {
    status: response.statusCode,
    type: response.headers['content-type'],
    text: await response.body.text(),
  };
}

interface CurrentJson {
  coord: { lon: number; lat: number };
  weather: Array<{ id: number; description: string; icon: string }>;
  main: {
    temp: number;
    feels_like: number;
    temp_min: number;
    temp_max: number;
    pressure: number;
    humidity: number;
  };
  wind: { speed: number; deg: number; gust: number };
  clouds: { all: number };
  visibility: number;
  dt: number;
  sys: { country: string; sunrise: number; sunset: number };
  timezone: number;
  id: number;
  name: string;
}

interface ForecastJson {
  list: Array<{
    dt: number;
    main: { temp: number; humidity: number };
    weather: Array<{ id: number; description: string; icon: string }>;
    wind: { speed: number; deg: number };
  }>;
  city: { id: number; name: string; country: string; timezone: number };
}

interface DailyJson {
  list: Array<{
    dt: number;
    temp: { day: number; min: number; max: number };
    weather: Array<{ id: number }>;
  }>;
  city: { timezone: number };
}

describe('mode=xml and mode=html, as the service answers them', () => {
  it('answers current weather in XML with the same values as the JSON answer', async () => {
    const url = `${emulator.apiUrl}/data/2.5/weather?${BERLIN}&units=metric&${KEY}`;
    const json = JSON.parse((await get(url)).text) as CurrentJson;
    const answer = await get(`${url}&mode=xml`);
    expect(answer).toMatchObject({ status: 200, type: XML });
    expect(answer.text.startsWith('<?xml version="1.0" encoding="UTF-8"?><current>')).toBe(true);
    const xml = parseXml(answer.text);
    expect(xml.name).toBe('current');
    expect(xml.children.map((c) => c.name)).toEqual([
      'city',
      'temperature',
      'feels_like',
      'humidity',
      'pressure',
      'wind',
      'clouds',
      'visibility',
      'precipitation',
      'weather',
      'lastupdate',
    ]);
    expect(at(xml, 'city').attrs).toEqual({ id: String(json.id), name: 'Berlin' });
    expect(at(xml, 'city/coord').attrs).toEqual({ lon: '13.41', lat: '52.52' });
    expect(at(xml, 'city/country').text).toBe('DE');
    expect(at(xml, 'city/timezone').text).toBe(String(json.timezone));
    expect(at(xml, 'city/sun').attrs).toEqual({ rise: iso(json.sys.sunrise), set: iso(json.sys.sunset) });
    expect(at(xml, 'temperature').attrs).toEqual({
      value: String(json.main.temp),
      min: String(json.main.temp_min),
      max: String(json.main.temp_max),
      unit: 'celsius',
    });
    expect(at(xml, 'feels_like').attrs).toEqual({ value: String(json.main.feels_like), unit: 'celsius' });
    expect(at(xml, 'humidity').attrs).toEqual({ value: String(json.main.humidity), unit: '%' });
    expect(at(xml, 'pressure').attrs).toEqual({ value: String(json.main.pressure), unit: 'hPa' });
    expect(at(xml, 'wind/speed').attrs).toMatchObject({ value: String(json.wind.speed), unit: 'm/s' });
    expect(at(xml, 'wind/speed').attrs['name']).toMatch(/breeze|Calm|Gale|Storm|wind|Hurricane/i);
    expect(at(xml, 'wind/gusts').attrs).toEqual({ value: String(json.wind.gust) });
    expect(at(xml, 'wind/direction').attrs['value']).toBe(String(json.wind.deg));
    expect(at(xml, 'wind/direction').attrs['code']).toMatch(/^[NESW]{1,3}$/);
    expect(at(xml, 'clouds').attrs['value']).toBe(String(json.clouds.all));
    expect(at(xml, 'visibility').attrs).toEqual({ value: String(json.visibility) });
    expect(at(xml, 'weather').attrs).toEqual({
      number: String(json.weather[0]?.id),
      value: json.weather[0]?.description,
      icon: json.weather[0]?.icon,
    });
    expect(at(xml, 'lastupdate').attrs).toEqual({ value: iso(json.dt) });
  });

  it('names the units of the unit system asked for, and translates the wording with lang', async () => {
    const xml = parseXml(
      (await get(`${emulator.apiUrl}/data/2.5/weather?${BERLIN}&units=imperial&lang=de&mode=xml&${KEY}`))
        .text,
    );
    expect(at(xml, 'temperature').attrs['unit']).toBe('fahrenheit');
    expect(at(xml, 'wind/speed').attrs['unit']).toBe('mph');
    const json = JSON.parse(
      (await get(`${emulator.apiUrl}/data/2.5/weather?${BERLIN}&lang=de&${KEY}`)).text,
    ) as CurrentJson;
    expect(at(xml, 'weather').attrs['value']).toBe(json.weather[0]?.description);
    const standard = parseXml(
      (await get(`${emulator.apiUrl}/data/2.5/weather?${BERLIN}&mode=xml&${KEY}`)).text,
    );
    expect(at(standard, 'temperature').attrs['unit']).toBe('kelvin');
  });

  it('answers current weather as a small HTML page', async () => {
    const url = `${emulator.apiUrl}/data/2.5/weather?${BERLIN}&units=metric&${KEY}`;
    const json = JSON.parse((await get(url)).text) as CurrentJson;
    const page = await get(`${url}&mode=html`);
    expect(page).toMatchObject({ status: 200, type: HTML });
    expect(page.text).toMatch(/^<!DOCTYPE html>/);
    expect(page.text).toContain('<title>Berlin</title>');
    expect(page.text).toContain(`${json.main.temp} °C`);
    expect(page.text).toContain(`Humidity: ${json.main.humidity}%`);
    expect(page.text).toContain(`https://openweathermap.org/img/wn/${json.weather[0]?.icon}@2x.png`);
  });

  it('answers the hourly forecast in XML, one <time> an hour ending at the JSON entry’s dt', async () => {
    const url = `${emulator.proUrl}/data/2.5/forecast/hourly?${BERLIN}&cnt=3&${KEY}`;
    const json = JSON.parse((await get(url)).text) as ForecastJson;
    const answer = await get(`${url}&mode=xml`);
    expect(answer).toMatchObject({ status: 200, type: XML });
    const xml = parseXml(answer.text);
    expect(xml.children.map((c) => c.name)).toEqual(['location', 'credit', 'meta', 'sun', 'forecast']);
    expect(at(xml, 'location/name').text).toBe('Berlin');
    expect(at(xml, 'location/country').text).toBe('DE');
    expect(at(xml, 'location/timezone').text).toBe(String(json.city.timezone));
    expect(at(xml, 'location/location').attrs).toMatchObject({
      latitude: '52.52',
      longitude: '13.41',
      geobaseid: String(json.city.id),
    });
    const times = at(xml, 'forecast').children;
    expect(times).toHaveLength(3);
    times.forEach((time, i) => {
      const entry = json.list[i]!;
      expect(time.attrs).toEqual({ from: iso(entry.dt - 3600), to: iso(entry.dt) });
      expect(at(time, 'symbol').attrs).toEqual({
        number: String(entry.weather[0]?.id),
        name: entry.weather[0]?.description,
        var: entry.weather[0]?.icon,
      });
      expect(at(time, 'temperature').attrs).toMatchObject({ unit: 'kelvin', value: String(entry.main.temp) });
      expect(at(time, 'humidity').attrs).toEqual({ value: String(entry.main.humidity), unit: '%' });
      expect(at(time, 'windSpeed').attrs).toMatchObject({ mps: String(entry.wind.speed), unit: 'm/s' });
      expect(at(time, 'windDirection').attrs['deg']).toBe(String(entry.wind.deg));
    });
  });

  it('answers the 5-day forecast in XML in three-hour spans', async () => {
    const url = `${emulator.apiUrl}/data/2.5/forecast?${BERLIN}&cnt=2&${KEY}`;
    const json = JSON.parse((await get(url)).text) as ForecastJson;
    const xml = parseXml((await get(`${url}&mode=xml`)).text);
    expect(at(xml, 'forecast').children.map((t) => t.attrs)).toEqual(
      json.list.map((e) => ({ from: iso(e.dt - 3 * 3600), to: iso(e.dt) })),
    );
  });

  it('answers the daily forecast in XML, one <time day> per local date', async () => {
    const url = `${emulator.apiUrl}/data/2.5/forecast/daily?lat=40.71&lon=-74.01&cnt=3&units=metric&${KEY}`;
    const json = JSON.parse((await get(url)).text) as DailyJson;
    const answer = await get(`${url}&mode=xml`);
    expect(answer).toMatchObject({ status: 200, type: XML });
    const xml = parseXml(answer.text);
    expect(at(xml, 'location/timezone').text).toBe(String(json.city.timezone));
    const days = at(xml, 'forecast').children;
    // New York's days: 15, 16 and 17 January local time.
    expect(days.map((d) => d.attrs)).toEqual([
      { day: '2025-01-15' },
      { day: '2025-01-16' },
      { day: '2025-01-17' },
    ]);
    days.forEach((day, i) => {
      const entry = json.list[i]!;
      expect(at(day, 'temperature').attrs).toMatchObject({
        day: String(entry.temp.day),
        min: String(entry.temp.min),
        max: String(entry.temp.max),
      });
      expect(at(day, 'symbol').attrs['number']).toBe(String(entry.weather[0]?.id));
    });
  });

  it('treats mode=json as no mode, and an unknown or unlisted mode like other unknown values: JSON', async () => {
    const cases = [
      [`${emulator.apiUrl}/data/2.5/weather?${BERLIN}&${KEY}`, ['json', 'pdf', '']],
      [`${emulator.proUrl}/data/2.5/forecast/hourly?${BERLIN}&cnt=2&${KEY}`, ['json', 'html', 'yaml']],
      [`${emulator.apiUrl}/data/2.5/forecast/daily?${BERLIN}&cnt=2&${KEY}`, ['json', 'html']],
    ] as const;
    for (const [url, modes] of cases) {
      const plain = await get(url);
      for (const mode of modes) {
        const answer = await get(`${url}&mode=${mode}`);
        expect(answer).toMatchObject({ status: 200, type: JSON_TYPE });
        expect(JSON.parse(answer.text)).toEqual(JSON.parse(plain.text));
      }
    }
  });

  it('answers a product’s refusal in XML when XML was asked for, and a wrong key in JSON, as upstream', async () => {
    const noPlace = await get(`${emulator.apiUrl}/data/2.5/weather?mode=xml&${KEY}`);
    expect(noPlace).toMatchObject({ status: 400, type: XML });
    const refusal = parseXml(noPlace.text);
    expect(refusal.name).toBe('ClientError');
    expect(at(refusal, 'message').text).toBe('Nothing to geocode');
    expect(at(refusal, 'cod').text).toBe('400');
    const badLatitude = await get(`${emulator.apiUrl}/data/2.5/weather?lat=91&lon=0&mode=xml&${KEY}`);
    expect(badLatitude).toMatchObject({ status: 400, type: XML });
    expect(at(parseXml(badLatitude.text), 'message').text).toBe('wrong latitude');
    const unknown = await get(`${emulator.apiUrl}/data/2.5/forecast?q=Qwxzvbnmqq&mode=xml&${KEY}`);
    expect(unknown).toMatchObject({ status: 404, type: XML });
    expect(at(parseXml(unknown.text), 'message').text).toBe('city not found');
    // The key is refused before the product is asked: JSON, as recorded.
    const wrongKey = await get(`${emulator.apiUrl}/data/2.5/weather?lat=0&lon=0&mode=xml&appid=wrong`);
    expect(wrongKey).toMatchObject({ status: 401, type: JSON_TYPE });
    // A product with no XML answers its refusals in JSON whatever `mode` says.
    const geocoding = await get(`${emulator.apiUrl}/geo/1.0/reverse?lat=91&lon=0&mode=xml&${KEY}`);
    expect(geocoding).toMatchObject({ status: 400, type: JSON_TYPE });
  });

  it('escapes every value it writes into XML and HTML', () => {
    const where = locate(52.52, 13.41);
    const tricky = `Bed & <Breakfast> "Inn" 'Hof'`;
    const view = { seed: 1, units: 'metric', lang: 'en' } as const;
    const body = { ...currentWeather(where, NOW / 1000, view), name: tricky };
    const xml = currentWeatherXml(body, view);
    expect(at(parseXml(xml), 'city').attrs['name']).toBe(tricky);
    const html = currentWeatherHtml(body, view, 'https://example.test/?a=1&b=<2>');
    expect(html).toContain('<title>Bed &amp; &lt;Breakfast&gt; &quot;Inn&quot; &apos;Hof&apos;</title>');
    expect(html).toContain('src="https://example.test/?a=1&amp;b=&lt;2&gt;/img/wn/');
    expect(html).not.toContain(tricky);
  });
});
