/**
 * Places: what autocomplete offers, what a chosen value carries (coordinates, so the weather is that
 * of the place picked, not of the first match for its name), and how typed text is geocoded.
 */
import {
  WeatherForbiddenError,
  WeatherInvalidKeyError,
  WeatherNotFoundError,
  type GeocodingLocation,
  type WeatherClient,
  type WeatherLang,
  type ZipLocation,
} from '../../services/weather/index.js';
import { foldName, truncate } from '../text.js';
import { countryCode, isCountryCode } from './countries.js';
import {
  CoordinatesOffEarthError,
  PlaceNotFoundError,
  PostalCodeNotFoundError,
  WeatherKeyRejectedError,
} from './errors.js';

export interface Place {
  lat: number;
  lon: number;
  /** `Springfield, Missouri, US`: distinct among places of the same name. */
  label: string;
}

/** Discord's limit for choice names and values. */
export const MAX_CHOICE_LENGTH = 100;
export const PLACE_VALUE_PREFIX = 'geo:';
/** Geocoding answers at most five places. */
export const MAX_PLACE_SUGGESTIONS = 5;

const COORDINATE = String.raw`-?\d{1,3}(?:\.\d{1,6})?`;
const PLACE_VALUE = new RegExp(`^${PLACE_VALUE_PREFIX}(${COORDINATE}),(${COORDINATE})\\|(.{1,100})$`, 's');

/** `Springfield, Missouri, US`, with the name in the member's language when the service has it. */
export function placeLabel(location: GeocodingLocation, lang: WeatherLang = 'en'): string {
  const local = location.local_names?.[lang]?.trim();
  const label = [local || location.name, location.state, location.country]
    .map((part) => part?.trim())
    .filter((part) => part !== undefined && part !== '')
    .join(', ');
  // A result with no name at all would be an empty choice, which Discord refuses with the whole
  // list of suggestions, and an empty label, which the place value cannot carry: its coordinates.
  return label === '' ? `${round4(location.lat)}, ${round4(location.lon)}` : label;
}

export function placeFromLocation(location: GeocodingLocation, lang: WeatherLang = 'en'): Place {
  return { lat: location.lat, lon: location.lon, label: placeLabel(location, lang) };
}

const round4 = (value: number) => Math.round(value * 10_000) / 10_000 + 0;

/** `geo:37.2153,-93.2982|Springfield, Missouri, US`, at most 100 characters. */
export function encodePlace(place: Place): string {
  const head = `${PLACE_VALUE_PREFIX}${round4(place.lat)},${round4(place.lon)}|`;
  const room = MAX_CHOICE_LENGTH - head.length;
  return head + truncate(place.label, room);
}

/**
 * What a place's name may hold: letters and digits of any script, spaces, the punctuation geocoded
 * names and coordinates use (`St. John's`, `Frankfurt (Oder)`, `Bozen/Bolzano`, `Westward Ho!`,
 * `-30.5`) and the ellipsis of a name `encodePlace` shortened. Everything else goes: markdown,
 * mention and link syntax (`*_~` and the backtick, `|<>[]#@:` and the backslash), and invisible and
 * direction-changing characters.
 */
const NOT_IN_LABEL = /[^\p{L}\p{M}\p{N}\p{Zs},.'’()/&!…-]+/gu;

/**
 * The place a value carries; `undefined` for anything not shaped like one (typed text).
 *
 * Discord does not check that an autocomplete option's value was one of the choices offered: a
 * member can type `geo:0,0|@everyone **pwn**`, and the label would be shown publicly as the
 * place's name (a `/weather now` title, a schedule's daily posts). Checking the label against what
 * autocomplete would offer for those coordinates cannot be done: the choices come from a search by
 * name (or are the member's saved places), and a reverse look-up of their coordinates names
 * whatever is nearest, often something else. So the label is cleaned instead: it keeps what place
 * names are made of and nothing that formats, mentions or links, and the value's pattern already
 * holds it to 100 characters. A label with nothing left is named by its coordinates, as a place at
 * sea is.
 */
export function decodePlace(value: string): Place | undefined {
  const match = PLACE_VALUE.exec(value.trim());
  if (!match) return undefined;
  const lat = Number(match[1]);
  const lon = Number(match[2]);
  if (!onEarth(lat, lon)) return undefined;
  const label = (match[3] ?? '').replace(NOT_IN_LABEL, ' ').replace(/\s+/g, ' ').trim();
  return { lat, lon, label: label === '' ? `${lat}, ${lon}` : label };
}

/** Places matching typed text, best known first: what autocomplete offers. */
export async function suggestPlaces(
  client: WeatherClient,
  typed: string,
  lang: WeatherLang,
): Promise<Place[]> {
  const query = typed.trim();
  if (query.replaceAll(',', '').trim() === '') return [];
  const coordinates = typedCoordinates(query);
  if (coordinates) return [await placeAt(client, coordinates, lang)];
  if (offEarthCoordinates(query)) return [];
  const town = postalCodeThenTown(query);
  if (town) return placesOfTown(client, town, lang);
  const postal = postalCodes(query);
  if (postal.length > 0) {
    for (const code of postal) {
      const place = await placeOfPostalCode(client, code);
      if (place) return [place];
    }
    return [];
  }
  const found = await locationsNamed(client, query);
  return found.map((location) => placeFromLocation(location, lang));
}

/** The places of a name (perhaps with its state and country), best known first. */
async function locationsNamed(client: WeatherClient, query: string): Promise<GeocodingLocation[]> {
  const found = await geocode(client, query);
  if (found.length > 0) return found;
  // `Seattle, WA`: the real service reads a second part as a country code and finds nothing; a US
  // state code goes before the country (`Seattle,WA,US`). Asked only when the text as typed found
  // nothing, since many state codes are country codes too (`Berlin, DE`).
  const state = US_STATE_QUERY.exec(query);
  if (state && US_STATES.has(state[2]!.toUpperCase()))
    return geocode(client, `${state[1]!.trim()},${state[2]!.toUpperCase()},US`);
  // `Berlin Germany`, `Paris FR`, `Springfield IL`: the country or state without a comma, asked with
  // one. Only now, as a name found as typed may end in a country's name (`West Jordan`, Utah).
  const split = nameThenCountry(query);
  return split ? locationsNamed(client, `${split.name}, ${split.region}`) : [];
}

/** Country names run to four words (`Bosnien und Herzegowina`, `British Indian Ocean Territory`). */
const MAX_COUNTRY_WORDS = 4;

/**
 * A name followed, without a comma, by a country's code or English or German name, or by a US
 * state's code; the longest such ending wins (`Papua New Guinea`, not `Guinea`).
 */
function nameThenCountry(text: string): { name: string; region: string } | undefined {
  if (text.includes(',')) return undefined;
  const words = text.split(/\s+/);
  for (let n = Math.min(MAX_COUNTRY_WORDS, words.length - 1); n >= 1; n--) {
    const ending = words.slice(-n).join(' ');
    const state = n === 1 && US_STATES.has(ending.toUpperCase()) ? ending.toUpperCase() : undefined;
    const region = countryCode(ending) ?? state;
    if (region) return { name: words.slice(0, -n).join(' '), region };
  }
  return undefined;
}

const geocode = (client: WeatherClient, q: string) =>
  withKeyMeaning(() => client.geocoding.direct({ q, limit: MAX_PLACE_SUGGESTIONS }));

async function withKeyMeaning<T>(lookUp: () => Promise<T>): Promise<T> {
  try {
    return await lookUp();
  } catch (error) {
    // Geocoding is in every plan: a refusal there is about the key, never about the plan.
    if (error instanceof WeatherInvalidKeyError || error instanceof WeatherForbiddenError) {
      throw new WeatherKeyRejectedError({ cause: error });
    }
    throw error;
  }
}

/**
 * `90210`, `SW1A 1AA, GB`, `10117,de`, `K1A 0B1, CA`, `VLT 1117, MT`: a postal code (2 to 10
 * letters, digits, spaces or hyphens, with a digit and no more than three letters in a row), then
 * perhaps a country code. Place names have no digits, or words of four letters and more beside them
 * (`25 de Mayo`, `Paris 13`): those are asked by name.
 */
const POSTAL_QUERY =
  /^(?=[^,]*\d)(?![^,]*\p{L}{4})([\p{L}\p{N}][\p{L}\p{N} -]{1,9})(?:\s*,\s*([A-Za-z]{2}))?$/u;

interface PostalCode {
  code: string;
  /** Two letters in capitals, or none: the service then reads the code as a US ZIP code. */
  country: string | undefined;
}

function postalCode(text: string): PostalCode | undefined {
  const match = POSTAL_QUERY.exec(text.trim());
  if (!match) return undefined;
  return { code: match[1]!.trim().replace(/\s+/g, ' ').toUpperCase(), country: match[2]?.toUpperCase() };
}

/** `62701 US`, `SW1A 1AA gb`: a postal code, then a country code after a space instead of a comma. */
const POSTAL_SPACE_COUNTRY = /^(.+?)\s+([A-Za-z]{2})$/;

/**
 * The postal codes typed text may be, to look up in turn: the text as typed, then, when its last
 * word is a country code, the code before it in that country. As typed comes first, since a code
 * may end in two letters that are a country's code too (`2511 CV`, in the Netherlands, not Cape
 * Verde): the country is read from them only when the whole was not found.
 */
function postalCodes(text: string): PostalCode[] {
  const codes: PostalCode[] = [];
  const asTyped = postalCode(text);
  if (asTyped) codes.push(asTyped);
  const [, head = '', country = ''] = POSTAL_SPACE_COUNTRY.exec(text.trim()) ?? [];
  const before = isCountryCode(country) ? postalCode(head) : undefined;
  if (before && before.country === undefined)
    codes.push({ code: before.code, country: country.toUpperCase() });
  return codes;
}

/**
 * `10117 Berlin`, `00184 Rom`, `114 55 Stockholm`, `00-950 Warszawa`: a postal code of four digits
 * or more (with the space or hyphen some countries write), then the town, as much of Europe writes
 * an address.
 */
const POSTAL_CODE_THEN_TOWN = /^(\d{4,5}|\d{3} \d{2}|\d{2,5}-\d{3,4})\s+(\p{L}\D*)$/u;

interface PostalCodeAndTown {
  code: string;
  town: string;
}

function postalCodeThenTown(text: string): PostalCodeAndTown | undefined {
  const [, code, town] = POSTAL_CODE_THEN_TOWN.exec(text.trim()) ?? [];
  // Letters with no three in a row are the code's end (`1012 AB`, `1012 AB, NL`) or its country
  // (`62701 US`), not a town.
  if (code === undefined || town === undefined || !/\p{L}{3}/u.test(town)) return undefined;
  return { code, town: town.trim() };
}

/**
 * The places of `10117 Berlin`: found by the town's name, in whose country the code is then asked,
 * to name the part of the town it is (`Berlin (10117), DE`). The code is not asked first: alone it
 * has no country, and the service reads it as a US ZIP code, which 10117 is none of (and 75001,
 * Paris's, is Addison, Texas). What the code names is taken only when it is the town typed: a code
 * of another town, or of none, leaves the town's places as its name found them.
 */
async function placesOfTown(
  client: WeatherClient,
  { code, town }: PostalCodeAndTown,
  lang: WeatherLang,
): Promise<Place[]> {
  const found = await locationsNamed(client, town);
  // The code is asked only in the countries of places called what was typed (`Rom` is Rome's
  // German name): a town half typed in autocomplete (`10117 Ber`) names none and costs no more
  // calls, and the countries are asked at once, not one after the other.
  const typed = foldName(town);
  const namesOf = (location: GeocodingLocation) => [
    location.name,
    ...Object.values(location.local_names ?? {}),
  ];
  const countries = [
    ...new Set(
      found
        .filter((location) => namesOf(location).some((name) => foldName(name) === typed))
        .map((location) => location.country)
        .filter((country) => country !== undefined),
    ),
  ];
  const answers = await Promise.all(countries.map((country) => zipLocation(client, { code, country })));
  for (const [index, country] of countries.entries()) {
    const at = answers[index];
    const sameTown = (location: GeocodingLocation) =>
      location.country === country && at !== undefined && foldName(location.name) === foldName(at.name);
    if (at && found.some(sameTown)) return [placeOfZip(at, country)];
  }
  return found.map((location) => placeFromLocation(location, lang));
}

/** The place of a postal code, named `Beverly Hills (90210), US`; `undefined` when none has it. */
async function placeOfPostalCode(client: WeatherClient, postal: PostalCode): Promise<Place | undefined> {
  const found = await zipLocation(client, postal);
  return found && placeOfZip(found, postal.country);
}

async function zipLocation(client: WeatherClient, postal: PostalCode): Promise<ZipLocation | undefined> {
  try {
    return await withKeyMeaning(() => client.geocoding.zip({ zip: postal.code, country: postal.country }));
  } catch (error) {
    // The service's 404 is its "no such code".
    if (error instanceof WeatherNotFoundError) return undefined;
    throw error;
  }
}

function placeOfZip(found: ZipLocation, asked: string | undefined): Place {
  const country = found.country ?? asked;
  return {
    lat: found.lat,
    lon: found.lon,
    label: `${found.name} (${found.zip})${country ? `, ${country}` : ''}`,
  };
}

/**
 * A latitude or longitude as typed: `48.8566`, `-33.9`, or with a degree sign (`°`, or the `º`
 * some keyboards have instead) and a hemisphere letter, `52.52°N`, `33.9° S`, `13.40 E`. Not `O`:
 * east on German maps (Ost), west on Spanish, French, Italian and Portuguese ones (Oeste, Ouest).
 */
const TYPED_DEGREES = String.raw`(-?\d+(?:\.\d+)?)\s*[°º]?\s*([NSEW])?`;
/**
 * Two numbers as coordinates are typed, latitude first, between them a comma or a space: in range
 * or not, never a place name worth geocoding.
 */
const TYPED_COORDINATES = new RegExp(`^${TYPED_DEGREES}(?:\\s*,\\s*|\\s+)${TYPED_DEGREES}$`, 'i');

/** `48.8566, 2.3522`, `52.52 N 13.40 E`, `33.9°S, 18.4°E`: coordinates on the Earth. */
function typedCoordinates(text: string): { lat: number; lon: number } | undefined {
  const match = TYPED_COORDINATES.exec(text);
  if (!match) return undefined;
  const lat = degrees(match[1]!, match[2], 'N', 'S');
  const lon = degrees(match[3]!, match[4], 'E', 'W');
  return onEarth(lat, lon) ? { lat: round4(lat), lon: round4(lon) } : undefined;
}

/**
 * The signed value of `52.52` or `33.9 S`; NaN when the letter contradicts a minus sign (`-33.9 S`)
 * or names the other axis (`13.40 E` as a latitude).
 */
function degrees(number: string, letter: string | undefined, positive: string, negative: string): number {
  if (letter === undefined) return Number(number);
  const hemisphere = letter.toUpperCase();
  if (number.startsWith('-')) return NaN;
  if (positive.includes(hemisphere)) return Number(number);
  return hemisphere === negative ? -Number(number) : NaN;
}

/**
 * Two whole numbers with a space between: how Sweden, Czechia, Slovakia and Greece write postal
 * codes (`114 55`). Off the Earth as coordinates, such text is read as a postal code instead.
 */
const SPACED_POSTAL_CODE = /^\d{2,5} \d{2,5}$/;

/** Text typed as coordinates that are not on the Earth (and not a postal code written so). */
function offEarthCoordinates(text: string): boolean {
  return TYPED_COORDINATES.test(text) && !typedCoordinates(text) && !SPACED_POSTAL_CODE.test(text);
}

/** A latitude and longitude in range (NaN is not). */
const onEarth = (lat: number, lon: number) => lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180;

/**
 * The place at typed coordinates, named by reverse geocoding; at sea, or anywhere the service names
 * nothing, by its coordinates.
 */
async function placeAt(
  client: WeatherClient,
  at: { lat: number; lon: number },
  lang: WeatherLang,
): Promise<Place> {
  let named: GeocodingLocation | undefined;
  try {
    [named] = await withKeyMeaning(() => client.geocoding.reverse({ ...at, limit: 1 }));
  } catch (error) {
    // The coordinates are known: only a refused key is worth failing the command for.
    if (error instanceof WeatherKeyRejectedError) throw error;
  }
  return { ...at, label: named ? placeLabel(named, lang) : `${at.lat}, ${at.lon}` };
}

/** `<name>, <two letters>`. */
const US_STATE_QUERY = /^([^,]+),\s*([A-Za-z]{2})\s*$/;
/** The US state codes the geocoder takes (states, DC and the territories with their own code). */
const US_STATES: ReadonlySet<string> = new Set(
  (
    'AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ' +
    'ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC PR GU VI AS MP'
  ).split(' '),
);

/**
 * The place for a `place` option: the coordinates of a chosen value as they are, or the first match
 * for typed text. When nothing matches, near misses (the name without its state or country) come
 * with the error.
 */
export async function resolvePlace(client: WeatherClient, input: string, lang: WeatherLang): Promise<Place> {
  const chosen = decodePlace(input);
  if (chosen) return chosen;
  const typed = input.trim();
  if (offEarthCoordinates(typed)) throw new CoordinatesOffEarthError(typed);
  const [first] = await suggestPlaces(client, input, lang);
  if (first) return first;
  // A postal code is not a misspelt name: what helps is the country it belongs to. Of `10117 FR`,
  // the member hears that 10117 is not in FR, the last reading, not to add the country they added.
  const postal = postalCodeThenTown(typed) ? undefined : postalCodes(typed).at(-1);
  if (postal) throw new PostalCodeNotFoundError(postal.code, postal.country);
  const name = input.split(',')[0]?.trim() ?? '';
  const suggestions = name !== '' && name !== input.trim() ? await suggestPlaces(client, name, lang) : [];
  throw new PlaceNotFoundError(input.trim(), suggestions);
}
