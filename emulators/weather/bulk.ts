/**
 * Bulk snapshot files, generated on the fly as a stream: one record per location, JSON lines or CSV,
 * meant to be piped through gzip. Nothing is held in memory beyond one batch of lines.
 *
 * A file lists the gazetteer's places it covers (in the city files, every place in Europe, the UK
 * and the US; the places with a postal code in the file's region in the zip-code files), then, when
 * more records are asked for,
 * synthetic places in Europe, the UK and the US. Each record is the place's current weather at the
 * file's refresh time: the same observation the current-weather endpoint gives for that hour.
 *
 * JSON record shape (upstream-facts.md, "Bulk", an old third-party sample, unconfirmed):
 * `{city{id,name,findname,country,coord{lon,lat},zoom,langs[]}, time, main{temp,pressure,humidity,
 * temp_min,temp_max}, wind{speed,deg}, clouds{all}, weather[], rain?{1h}, snow?{1h}}`.
 *
 * CSV columns: the upstream columns are unknown; these are the emulator's choice (see CSV_COLUMNS).
 */
import { Readable } from 'node:stream';
import { conditionObject } from './conditions.js';
import { observe } from './model.js';
import { PLACES, type Place } from './places.js';

type Kind = 'cities' | 'zip.eu' | 'zip.us' | 'zip.uk';

/** File name → what it lists and the minute past each hour it is refreshed at. */
export const BULK_FILES: ReadonlyMap<string, { kind: Kind; format: 'json' | 'csv'; refreshMinute: number }> =
  new Map(
    (
      [
        ['weather_14', 'cities', 10],
        ['weather_16', 'cities', 20],
        ['weather_zip.eu', 'zip.eu', 20],
        ['weather_zip.us', 'zip.us', 20],
        ['weather_zip.uk', 'zip.uk', 20],
      ] as const
    ).flatMap(([stem, kind, refreshMinute]) =>
      (['json', 'csv'] as const).map(
        (format) => [`${stem}.${format}.gz`, { kind, format, refreshMinute }] as const,
      ),
    ),
  );

export const CSV_COLUMNS = [
  'city_id',
  'city_name',
  'findname',
  'country',
  'lat',
  'lon',
  'zoom',
  'time',
  'temp',
  'temp_min',
  'temp_max',
  'pressure',
  'humidity',
  'wind_speed',
  'wind_deg',
  'clouds_all',
  'weather_id',
  'weather_main',
  'weather_description',
  'weather_icon',
  'rain_1h',
  'snow_1h',
] as const;

interface Region {
  country: readonly string[];
  lat: readonly [number, number];
  lon: readonly [number, number];
}

/**
 * The countries of Europe (the United Kingdom with them): with the United States, what the bulk
 * files cover ("Coverage is Europe, England and the United States", the spec). A gazetteer place
 * elsewhere (Tokyo, Sydney) is in no file.
 */
const EUROPE: ReadonlySet<string> = new Set(
  (
    'AD AL AT AX BA BE BG BY CH CY CZ DE DK EE ES FI FO FR GB GG GI GR HR HU IE IM IS IT JE LI LT LU ' +
    'LV MC MD ME MK MT NL NO PL PT RO RS RU SE SI SJ SK SM UA VA XK'
  ).split(' '),
);

/** EU member states of the gazetteer's places. */
const EU: ReadonlySet<string> = new Set(['AT', 'BE', 'CZ', 'DE', 'DK', 'ES', 'FR', 'IT', 'NL', 'PL']);

const REGIONS: Readonly<Record<'eu' | 'us' | 'uk', Region>> = {
  eu: { country: ['DE', 'FR', 'NL', 'BE', 'AT', 'IT', 'ES', 'PL', 'DK', 'CZ'], lat: [36, 60], lon: [-9, 28] },
  us: { country: ['US'], lat: [25.5, 48.5], lon: [-123, -68] },
  uk: { country: ['GB'], lat: [50.2, 58.5], lon: [-5.5, 1.7] },
};

const SYLLABLES = [
  'ber',
  'lin',
  'ham',
  'ton',
  'ford',
  'wick',
  'dorf',
  'ville',
  'mar',
  'kir',
  'sel',
  'an',
  'bo',
  'ro',
  'stad',
  'hal',
  'ley',
  'mont',
];

/** A deterministic pseudo-random number in [0, 1) for record `i` and a purpose `k`. */
function rnd(i: number, k: number): number {
  let h = Math.imul(i ^ 0x2545_f491, 0x9e37_79b1) ^ Math.imul(k + 1, 0x85eb_ca6b);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b_3c6d);
  h ^= h >>> 12;
  return (h >>> 0) / 4_294_967_296;
}

function syntheticName(i: number): string {
  const count = 2 + Math.floor(rnd(i, 1) * 2);
  let name = '';
  for (let s = 0; s < count; s++) name += SYLLABLES[Math.floor(rnd(i, 10 + s) * SYLLABLES.length)] ?? '';
  name = name.charAt(0).toUpperCase() + name.slice(1);
  // Real names contain commas, apostrophes and (rarely) quotes: CSV readers must cope.
  if (i % 53 === 7) name += ', Upper';
  if (i % 89 === 11) name = `L'${name}`;
  if (i % 211 === 13) name = `${name} "Old Town"`;
  return name;
}

function zipCode(kind: Kind, i: number): string {
  if (kind === 'zip.us') return String(10_000 + ((i * 7_919) % 89_999)).padStart(5, '0');
  if (kind === 'zip.uk') {
    const letters = 'ABCDEFGHJKLMNPRSTUWYZ';
    const at = (k: number) => letters[Math.floor(rnd(i, k) * letters.length)] ?? 'A';
    return `${at(1)}${at(2)}${1 + (i % 9)} ${i % 10}${at(3)}${at(4)}`;
  }
  return String(1_000 + ((i * 104_729) % 98_999)).padStart(5, '0');
}

export interface BulkRecordSource {
  id: number;
  name: string;
  country: string;
  lat: number;
  lon: number;
  langs: Array<Record<string, string>>;
}

/** The gazetteer's places a file covers, in gazetteer order. */
function coveredPlaces(kind: Kind): readonly Place[] {
  switch (kind) {
    case 'cities':
      return PLACES.filter((p) => p.country === 'US' || EUROPE.has(p.country));
    case 'zip.us':
      return PLACES.filter((p) => p.zip !== undefined && p.country === 'US');
    case 'zip.uk':
      return PLACES.filter((p) => p.zip !== undefined && p.country === 'GB');
    case 'zip.eu':
      return PLACES.filter((p) => p.zip !== undefined && EU.has(p.country));
  }
}

const COVERED: ReadonlyMap<Kind, readonly Place[]> = new Map(
  (['cities', 'zip.eu', 'zip.us', 'zip.uk'] as const).map((kind) => [kind, coveredPlaces(kind)]),
);

/** The `i`-th location of a file: the gazetteer's places it covers first, then synthetic ones. */
export function bulkLocation(kind: Kind, i: number): BulkRecordSource {
  const place = COVERED.get(kind)?.[i];
  if (place) {
    const name = kind === 'cities' ? place.name : (place.zip ?? place.name);
    return {
      id: place.id,
      name,
      country: place.country,
      lat: place.lat,
      lon: place.lon,
      langs:
        kind === 'cities'
          ? Object.entries(place.local_names).map(([lang, local]) => ({ [lang]: local }))
          : [{ en: place.name }],
    };
  }
  const regionName =
    kind === 'cities'
      ? ((['eu', 'us', 'uk'] as const)[i % 3] ?? 'eu')
      : (kind.slice(4) as 'eu' | 'us' | 'uk');
  const region = REGIONS[regionName];
  const lat = Math.round((region.lat[0] + rnd(i, 2) * (region.lat[1] - region.lat[0])) * 10_000) / 10_000;
  const lon = Math.round((region.lon[0] + rnd(i, 3) * (region.lon[1] - region.lon[0])) * 10_000) / 10_000;
  const country = region.country[Math.floor(rnd(i, 4) * region.country.length)] ?? 'US';
  const name = kind === 'cities' ? syntheticName(i) : zipCode(kind, i);
  return { id: 90_000_000 + i, name, country, lat, lon, langs: kind === 'cities' ? [{ en: name }] : [] };
}

/** The instant a file was last refreshed: hourly, at its minute. */
export function snapshotTime(nowMs: number, refreshMinute: number): number {
  const now = Math.floor(nowMs / 1000);
  const hour = Math.floor(now / 3600) * 3600;
  const refreshed = hour + refreshMinute * 60;
  return refreshed <= now ? refreshed : refreshed - 3600;
}

function record(seed: number, kind: Kind, i: number, time: number) {
  const location = bulkLocation(kind, i);
  const s = observe(seed, location.lat, location.lon, time);
  return {
    location,
    s,
    weather: conditionObject(s.conditionId, s.isDay, 'en'),
  };
}

function jsonLine(seed: number, kind: Kind, i: number, time: number): string {
  const { location, s, weather } = record(seed, kind, i, time);
  return JSON.stringify({
    city: {
      id: location.id,
      name: location.name,
      findname: location.name.toUpperCase(),
      country: location.country,
      coord: { lon: location.lon, lat: location.lat },
      zoom: kind === 'cities' ? 5 + (i % 6) : 10,
      langs: location.langs,
    },
    time,
    main: {
      temp: s.tempK,
      pressure: s.pressure,
      humidity: s.humidity,
      temp_min: s.tempMinK,
      temp_max: s.tempMaxK,
    },
    wind: { speed: s.windSpeed, deg: s.windDeg },
    clouds: { all: s.clouds },
    weather: [weather],
    ...(s.rain1h > 0 ? { rain: { '1h': s.rain1h } } : {}),
    ...(s.snow1h > 0 ? { snow: { '1h': s.snow1h } } : {}),
  });
}

export function csvField(value: string | number): string {
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function csvLine(seed: number, kind: Kind, i: number, time: number): string {
  const { location, s, weather } = record(seed, kind, i, time);
  return [
    location.id,
    location.name,
    location.name.toUpperCase(),
    location.country,
    location.lat,
    location.lon,
    kind === 'cities' ? 5 + (i % 6) : 10,
    time,
    s.tempK,
    s.tempMinK,
    s.tempMaxK,
    s.pressure,
    s.humidity,
    s.windSpeed,
    s.windDeg,
    s.clouds,
    weather.id,
    weather.main,
    weather.description,
    weather.icon,
    s.rain1h > 0 ? s.rain1h : '',
    s.snow1h > 0 ? s.snow1h : '',
  ]
    .map(csvField)
    .join(',');
}

/**
 * A readable of the uncompressed file, produced batch by batch as the consumer pulls. `records`
 * defaults to one per gazetteer place the file covers; more adds synthetic places.
 */
export function bulkContent(options: {
  name: string;
  records?: number | undefined;
  seed: number;
  nowMs: number;
}): Readable | undefined {
  const file = BULK_FILES.get(options.name);
  if (!file) return undefined;
  const records = options.records ?? (COVERED.get(file.kind) ?? []).length;
  const time = snapshotTime(options.nowMs, file.refreshMinute);
  const line = file.format === 'json' ? jsonLine : csvLine;
  let next = 0;
  let headerSent = file.format === 'json';
  const BATCH = 256;
  return new Readable({
    read() {
      for (;;) {
        let chunk = '';
        if (!headerSent) {
          chunk = `${CSV_COLUMNS.join(',')}\n`;
          headerSent = true;
        }
        const end = Math.min(records, next + BATCH);
        for (; next < end; next++) chunk += `${line(options.seed, file.kind, next, time)}\n`;
        if (chunk !== '' && !this.push(chunk)) return;
        if (next >= records) {
          this.push(null);
          return;
        }
      }
    },
  });
}
