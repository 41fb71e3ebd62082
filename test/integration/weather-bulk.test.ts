import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startWeatherEmulator, type WeatherEmulator } from '../../emulators/weather/index.js';
import { BULK_FILE_NAMES, type WeatherClient } from '../../src/services/weather/index.js';
import { weatherClientFor } from '../fixtures/weather.js';

const RECORDS = 50_000;

let emulator: WeatherEmulator;
let client: WeatherClient;

beforeAll(async () => {
  emulator = await startWeatherEmulator({ bulkRecords: RECORDS, now: () => Date.UTC(2025, 0, 15, 12, 34) });
  client = weatherClientFor(emulator);
});
afterAll(async () => {
  await client.close();
  await emulator.close();
});
beforeEach(() => {
  emulator.resetCounts();
  emulator.setBulkRecords(RECORDS);
});

describe('weather bulk files', () => {
  it(`streams and counts a JSON file of ${RECORDS.toLocaleString('en')} records, each validated`, async () => {
    let count = 0;
    let rainy = 0;
    const ids = new Set<number>();
    for await (const record of client.bulk.snapshot('weather_16.json.gz')) {
      count++;
      ids.add(record.city.id);
      if (record.rain?.['1h'] !== undefined) rainy++;
      // Refreshed hourly at minute 20: at 12:34 the snapshot is from 12:20.
      if (count === 1) expect(record.time).toBe(Date.UTC(2025, 0, 15, 12, 20) / 1000);
    }
    expect(count).toBe(RECORDS);
    expect(ids.size).toBe(RECORDS);
    expect(rainy).toBeGreaterThan(0);
  });

  it(`streams and counts a CSV file of ${RECORDS.toLocaleString('en')} records, quoted names included`, async () => {
    let count = 0;
    const awkward: string[] = [];
    for await (const row of client.bulk.snapshot('weather_14.csv.gz')) {
      count++;
      const name = row['city_name'] ?? '';
      if (/[,"]/.test(name)) awkward.push(name);
      expect(Number(row['temp'])).toBeGreaterThan(150);
      // Refreshed hourly at minute 10.
      if (count === 1) expect(row['time']).toBe(String(Date.UTC(2025, 0, 15, 12, 10) / 1000));
    }
    expect(count).toBe(RECORDS);
    expect(awkward.some((n) => n.endsWith(', Upper'))).toBe(true);
    expect(awkward.some((n) => n.includes('"Old Town"'))).toBe(true);
  });

  it('serves every bulk file name of the spec, in both formats', async () => {
    emulator.setBulkRecords(3);
    for (const name of BULK_FILE_NAMES) {
      let count = 0;
      for await (const _ of client.bulk.snapshot(name as `${string}.json.gz`)) count++;
      expect(count, name).toBe(3);
    }
  });

  it('lists one record per gazetteer place it covers by default: Europe, the UK and the US in city files, their postcodes in zip files', async () => {
    emulator.setBulkRecords(undefined);
    const elsewhere = ['JP', 'AU', 'BR', 'IN', 'ZA', 'EG', 'SG', 'AR', 'EC', 'CA'];
    const places = emulator.places.filter((p) => !elsewhere.includes(p.country));
    expect(emulator.places.length - places.length).toBeGreaterThanOrEqual(elsewhere.length);
    const withZip = (countries: readonly string[]) =>
      emulator.places.filter((p) => p.zip !== undefined && countries.includes(p.country)).map((p) => p.zip);

    const cities: Array<{ id: number; name: string }> = [];
    for await (const record of client.bulk.snapshot('weather_14.json.gz')) cities.push(record.city);
    expect(cities.map((c) => c.id)).toEqual(places.map((p) => p.id));
    expect(cities.map((c) => c.name)).toEqual(places.map((p) => p.name));

    const rows: string[] = [];
    for await (const row of client.bulk.snapshot('weather_16.csv.gz')) rows.push(row['city_name'] ?? '');
    expect(rows).toEqual(places.map((p) => p.name));

    const zips = async (name: `${string}.json.gz`) => {
      const names: string[] = [];
      for await (const record of client.bulk.snapshot(name)) names.push(record.city.name);
      return names;
    };
    expect(await zips('weather_zip.us.json.gz')).toEqual(withZip(['US']));
    expect(await zips('weather_zip.uk.json.gz')).toEqual(withZip(['GB']));
    expect(await zips('weather_zip.eu.json.gz')).toEqual(withZip(['AT', 'DE', 'ES', 'FR', 'IT', 'NL']));
    expect(withZip(['US']).length).toBeGreaterThan(10);
  });

  it('stops downloading when the reader stops early, and the connection pool stays usable', async () => {
    let count = 0;
    for await (const _ of client.bulk.snapshot('weather_16.json.gz')) {
      if (++count === 10) break;
    }
    expect(count).toBe(10);
    expect((await client.current.byCoords({ lat: 52.52, lon: 13.41 })).name).toBe('Berlin');
  });

  it('lets a slow reader take longer than the request time limit, as long as data keeps coming', async () => {
    emulator.setBulkRecords(5_000);
    const slow = weatherClientFor(emulator, { transport: { timeoutMs: 300 } });
    const started = Date.now();
    let count = 0;
    for await (const _ of slow.bulk.snapshot('weather_zip.us.json.gz')) {
      if (++count % 500 === 0) await delay(60);
    }
    expect(count).toBe(5_000);
    expect(Date.now() - started).toBeGreaterThan(300);
    await slow.close();
  });
});
