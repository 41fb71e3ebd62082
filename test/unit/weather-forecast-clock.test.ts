/** The clock a forecast is read with: the answer's offset and the zones of the place's country. */
import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getDailyForecast, getHourlyForecast } from '../../src/domain/weather/reports.js';
import { offsetAt } from '../../src/domain/weather/zones.js';
import { createWeatherClient, type WeatherClient } from '../../src/services/weather/index.js';
import {
  currentWeatherBody,
  forecastBody,
  forecastEntryBody,
  instantTransport,
  MOCK_URLS,
} from '../fixtures/weather.js';

const HOUR = 3600;
const DAY = 86_400;
const BERLIN = { lat: 52.517, lon: 13.3889, label: 'Berlin, Berlin, DE' };
/** Saturday 24 October 2026, 12:00 UTC: Berlin is on UTC+2 until 01:00 UTC the next day. */
const SATURDAY = Date.UTC(2026, 9, 24, 12) / 1000;
const MONDAY = Date.UTC(2026, 9, 26, 12) / 1000;

let agent: MockAgent;
let client: WeatherClient;

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  client = createWeatherClient({
    ...MOCK_URLS,
    apiKey: 'unit-test-key',
    transport: instantTransport({ dispatcher: agent }),
  });
});

afterEach(async () => {
  // Every answer stubbed was asked for, and nothing else was (the net is closed).
  agent.assertNoPendingInterceptors();
  await agent.close();
});

function answer(origin: string, path: string, body: object): void {
  agent
    .get(origin)
    .intercept({ method: 'GET', path: (p) => new URL(p, origin).pathname === path })
    .reply(200, body);
}

function hourlyFrom(start: number, city: Record<string, unknown> | undefined) {
  return forecastBody(48, HOUR, {
    list: Array.from({ length: 48 }, (_, i) => forecastEntryBody(start + i * HOUR)),
    city,
  });
}

describe('forecast clocks', () => {
  it('read an hourly forecast across the autumn change from its own city block, with no other call', async () => {
    answer(
      MOCK_URLS.proUrl,
      '/data/2.5/forecast/hourly',
      hourlyFrom(SATURDAY, { country: 'DE', timezone: 2 * HOUR }),
    );
    const report = await getHourlyForecast(client, BERLIN, { hours: 48, lang: 'en', nowSec: 0 });
    expect(report.timezone).toBe(2 * HOUR);
    expect(report.zones).toContain('Europe/Berlin');
    expect(offsetAt(report, SATURDAY)).toBe(2 * HOUR);
    expect(offsetAt(report, MONDAY)).toBe(HOUR);
  });

  it('take the country from the place’s label when the city block has none', async () => {
    answer(
      MOCK_URLS.proUrl,
      '/data/2.5/forecast/hourly',
      hourlyFrom(SATURDAY, { country: '', timezone: 2 * HOUR }),
    );
    const report = await getHourlyForecast(client, BERLIN, { hours: 48, lang: 'en', nowSec: 0 });
    expect(offsetAt(report, MONDAY)).toBe(HOUR);
  });

  it('fall back to current weather, asked once, when the forecast gives no offset', async () => {
    answer(MOCK_URLS.proUrl, '/data/2.5/forecast/hourly', hourlyFrom(SATURDAY, undefined));
    answer(
      MOCK_URLS.apiUrl,
      '/data/2.5/weather',
      currentWeatherBody({ dt: SATURDAY, timezone: 2 * HOUR, sys: { country: 'DE' } }),
    );
    const report = await getHourlyForecast(client, BERLIN, { hours: 48, lang: 'en', nowSec: 0 });
    expect(offsetAt(report, MONDAY)).toBe(HOUR);
  });

  it('read a forecast across the November change by the zone at the place, where its country’s zones disagree', async () => {
    // In October UTC−7 is Los Angeles (PDT) and Phoenix (MST) alike; from 1 November 09:00 UTC Los
    // Angeles is on UTC−8 and Phoenix stays on UTC−7. Only the coordinates tell them apart.
    const saturday = Date.UTC(2026, 9, 31, 12) / 1000;
    const monday = Date.UTC(2026, 10, 2, 12) / 1000;
    const city = { country: 'US', timezone: -7 * HOUR };
    const places = [
      { place: { lat: 34.0522, lon: -118.2437, label: 'Los Angeles, California, US' }, after: -8 * HOUR },
      { place: { lat: 33.4484, lon: -112.074, label: 'Phoenix, Arizona, US' }, after: -7 * HOUR },
    ];
    for (const { place, after } of places) {
      answer(MOCK_URLS.proUrl, '/data/2.5/forecast/hourly', hourlyFrom(saturday, city));
      const report = await getHourlyForecast(client, place, { hours: 48, lang: 'en', nowSec: 0 });
      expect(offsetAt(report, saturday)).toBe(-7 * HOUR);
      expect(offsetAt(report, monday)).toBe(after);
    }
  });

  it('read a daily forecast across the spring change with summer time after it', async () => {
    // Asked on Friday 27 March 2026 (UTC+1); the clocks go forward on Sunday at 01:00 UTC.
    const friday = Date.UTC(2026, 2, 27, 11) / 1000;
    answer(MOCK_URLS.apiUrl, '/data/2.5/forecast/daily', {
      cod: '200',
      cnt: 5,
      city: { name: 'Berlin', country: 'DE', timezone: HOUR },
      list: Array.from({ length: 5 }, (_, i) => ({
        dt: friday + i * DAY,
        temp: { day: 280, min: 275, max: 284, night: 276, eve: 279, morn: 277 },
        weather: [{ id: 800, main: 'Clear', description: 'clear sky', icon: '01d' }],
      })),
    });
    const report = await getDailyForecast(client, BERLIN, { days: 5, lang: 'en', nowSec: 0 });
    expect(offsetAt(report, friday)).toBe(HOUR);
    expect(offsetAt(report, friday + 3 * DAY)).toBe(2 * HOUR);
  });

  it('keep the one offset for an empty forecast', async () => {
    answer(
      MOCK_URLS.proUrl,
      '/data/2.5/forecast/hourly',
      forecastBody(0, HOUR, { city: { timezone: 2 * HOUR } }),
    );
    const report = await getHourlyForecast(client, BERLIN, { hours: 48, lang: 'en', nowSec: 0 });
    expect(report.timezone).toBe(2 * HOUR);
    expect(report.zones).toBeUndefined();
  });
});
