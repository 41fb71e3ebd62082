/**
 * The emulator's gazetteer: real places with their real coordinates, enough to make geocoding
 * realistic, including the ambiguous names a bot meets (eight Springfields; Paris in France, the US
 * and Canada; London in the UK, Canada and the US; two Sydneys, Portlands and Birminghams), with US
 * state codes, local names, the IANA time zone (for `timezone`) and, where the bulk zip-code files
 * cover the place, a postal code.
 * Ids are GeoNames-style numbers (as the service uses); they are unique here, not guaranteed real.
 */

export interface Place {
  id: number;
  name: string;
  local_names: Readonly<Record<string, string>>;
  lat: number;
  lon: number;
  /** ISO 3166 alpha-2. */
  country: string;
  /** IANA time zone: the place's civil time, daylight saving included (`timezone` in answers). */
  timeZone: string;
  state?: string;
  /** The US state code, matched by `q=Springfield,IL`. */
  stateCode?: string;
  population: number;
  /** A postal code of the place: its record in the bulk zip-code file of its region. */
  zip?: string;
}

const springfield = {
  en: 'Springfield',
  ru: 'Спрингфилд',
  uk: 'Спрінгфілд',
  ja: 'スプリングフィールド',
  zh: '斯普林菲尔德',
};

// A table reads better one place per entry than as prettier would spread it.
// prettier-ignore
export const PLACES: readonly Place[] = [
  { id: 4_250_542, name: 'Springfield', local_names: springfield, lat: 39.799, lon: -89.644, country: 'US', timeZone: 'America/Chicago', state: 'Illinois', stateCode: 'IL', population: 114_394, zip: '62701' },
  { id: 4_409_896, name: 'Springfield', local_names: springfield, lat: 37.2153, lon: -93.2982, country: 'US', timeZone: 'America/Chicago', state: 'Missouri', stateCode: 'MO', population: 169_176, zip: '65806' },
  { id: 4_951_788, name: 'Springfield', local_names: springfield, lat: 42.1015, lon: -72.5898, country: 'US', timeZone: 'America/New_York', state: 'Massachusetts', stateCode: 'MA', population: 155_929, zip: '01103' },
  { id: 5_754_005, name: 'Springfield', local_names: springfield, lat: 44.0462, lon: -123.022, country: 'US', timeZone: 'America/Los_Angeles', state: 'Oregon', stateCode: 'OR', population: 62_256, zip: '97477' },
  { id: 4_525_353, name: 'Springfield', local_names: springfield, lat: 39.9242, lon: -83.8088, country: 'US', timeZone: 'America/New_York', state: 'Ohio', stateCode: 'OH', population: 58_662, zip: '45502' },
  { id: 4_759_988, name: 'Springfield', local_names: springfield, lat: 38.7893, lon: -77.1872, country: 'US', timeZone: 'America/New_York', state: 'Virginia', stateCode: 'VA', population: 31_339, zip: '22150' },
  { id: 4_658_590, name: 'Springfield', local_names: springfield, lat: 36.5092, lon: -86.885, country: 'US', timeZone: 'America/Chicago', state: 'Tennessee', stateCode: 'TN', population: 18_782, zip: '37172' },
  { id: 5_241_248, name: 'Springfield', local_names: springfield, lat: 43.2984, lon: -72.4823, country: 'US', timeZone: 'America/New_York', state: 'Vermont', stateCode: 'VT', population: 9_062, zip: '05156' },
  {
    id: 2_950_159, name: 'Berlin', lat: 52.517, lon: 13.3889, country: 'DE', timeZone: 'Europe/Berlin', state: 'Berlin', population: 3_645_000, zip: '10117',
    local_names: { de: 'Berlin', en: 'Berlin', fr: 'Berlin', es: 'Berlín', pl: 'Berlin', ru: 'Берлин', ja: 'ベルリン' },
  },
  {
    id: 2_867_714, name: 'Munich', lat: 48.1371, lon: 11.5754, country: 'DE', timeZone: 'Europe/Berlin', state: 'Bavaria', population: 1_488_000, zip: '80331',
    local_names: { de: 'München', en: 'Munich', fr: 'Munich', it: 'Monaco di Baviera', es: 'Múnich', ru: 'Мюнхен', ja: 'ミュンヘン' },
  },
  {
    id: 2_911_298, name: 'Hamburg', lat: 53.5503, lon: 10.0007, country: 'DE', timeZone: 'Europe/Berlin', state: 'Hamburg', population: 1_841_000, zip: '20095',
    local_names: { de: 'Hamburg', en: 'Hamburg', fr: 'Hambourg', it: 'Amburgo', es: 'Hamburgo', ru: 'Гамбург' },
  },
  {
    id: 2_643_743, name: 'London', lat: 51.5073, lon: -0.1276, country: 'GB', timeZone: 'Europe/London', state: 'England', population: 8_961_989, zip: 'SW1A 1AA',
    local_names: { en: 'London', de: 'London', fr: 'Londres', es: 'Londres', it: 'Londra', ru: 'Лондон', ja: 'ロンドン' },
  },
  {
    id: 6_058_560, name: 'London', lat: 42.9832, lon: -81.2453, country: 'CA', timeZone: 'America/Toronto', state: 'Ontario', population: 422_324,
    local_names: { en: 'London', fr: 'London', ru: 'Лондон' },
  },
  {
    id: 4_298_960, name: 'London', lat: 37.129, lon: -84.0833, country: 'US', timeZone: 'America/New_York', state: 'Kentucky', stateCode: 'KY', population: 8_126, zip: '40741',
    local_names: { en: 'London' },
  },
  {
    id: 2_988_507, name: 'Paris', lat: 48.8589, lon: 2.32, country: 'FR', timeZone: 'Europe/Paris', state: 'Ile-de-France', population: 2_138_551, zip: '75001',
    local_names: { fr: 'Paris', en: 'Paris', de: 'Paris', es: 'París', it: 'Parigi', ru: 'Париж', ja: 'パリ' },
  },
  {
    id: 4_717_560, name: 'Paris', lat: 33.6609, lon: -95.5555, country: 'US', timeZone: 'America/Chicago', state: 'Texas', stateCode: 'TX', population: 24_782, zip: '75460',
    local_names: { en: 'Paris' },
  },
  {
    id: 4_647_963, name: 'Paris', lat: 36.302, lon: -88.3267, country: 'US', timeZone: 'America/Chicago', state: 'Tennessee', stateCode: 'TN', population: 10_316, zip: '38242',
    local_names: { en: 'Paris' },
  },
  {
    id: 4_303_602, name: 'Paris', lat: 38.2098, lon: -84.253, country: 'US', timeZone: 'America/New_York', state: 'Kentucky', stateCode: 'KY', population: 10_171, zip: '40361',
    local_names: { en: 'Paris' },
  },
  {
    id: 4_246_659, name: 'Paris', lat: 39.6112, lon: -87.6961, country: 'US', timeZone: 'America/Chicago', state: 'Illinois', stateCode: 'IL', population: 8_362, zip: '61944',
    local_names: { en: 'Paris' },
  },
  {
    id: 6_942_553, name: 'Paris', lat: 43.1939, lon: -80.3844, country: 'CA', timeZone: 'America/Toronto', state: 'Ontario', population: 12_310,
    local_names: { en: 'Paris', fr: 'Paris' },
  },
  {
    id: 5_746_545, name: 'Portland', lat: 45.5152, lon: -122.6784, country: 'US', timeZone: 'America/Los_Angeles', state: 'Oregon', stateCode: 'OR', population: 652_503, zip: '97204',
    local_names: { en: 'Portland', ru: 'Портленд' },
  },
  {
    id: 4_975_802, name: 'Portland', lat: 43.6591, lon: -70.2568, country: 'US', timeZone: 'America/New_York', state: 'Maine', stateCode: 'ME', population: 68_408, zip: '04101',
    local_names: { en: 'Portland' },
  },
  {
    id: 2_655_603, name: 'Birmingham', lat: 52.4797, lon: -1.9027, country: 'GB', timeZone: 'Europe/London', state: 'England', population: 1_144_919, zip: 'B2 4QA',
    local_names: { en: 'Birmingham', ru: 'Бирмингем' },
  },
  {
    id: 4_049_979, name: 'Birmingham', lat: 33.5207, lon: -86.8025, country: 'US', timeZone: 'America/Chicago', state: 'Alabama', stateCode: 'AL', population: 200_733, zip: '35203',
    local_names: { en: 'Birmingham' },
  },
  {
    id: 2_653_822, name: 'Cardiff', lat: 51.4816, lon: -3.1791, country: 'GB', timeZone: 'Europe/London', state: 'Wales', population: 362_756, zip: 'CF10 1EP',
    local_names: { en: 'Cardiff', cy: 'Caerdydd' },
  },
  {
    id: 2_650_225, name: 'Edinburgh', lat: 55.9533, lon: -3.1883, country: 'GB', timeZone: 'Europe/London', state: 'Scotland', population: 506_520, zip: 'EH1 1YZ',
    local_names: { en: 'Edinburgh', gd: 'Dùn Èideann' },
  },
  {
    id: 5_128_581, name: 'New York County', lat: 40.7127, lon: -74.006, country: 'US', timeZone: 'America/New_York', state: 'New York', stateCode: 'NY', population: 8_336_817, zip: '10007',
    local_names: { en: 'New York', es: 'Nueva York', fr: 'New York', de: 'New York', it: 'New York', ru: 'Нью-Йорк', ja: 'ニューヨーク' },
  },
  {
    id: 1_850_147, name: 'Tokyo', lat: 35.6828, lon: 139.7595, country: 'JP', timeZone: 'Asia/Tokyo', population: 13_960_000,
    local_names: { ja: '東京都', en: 'Tokyo', de: 'Tokio', fr: 'Tokyo', es: 'Tokio', ru: 'Токио' },
  },
  {
    id: 2_147_714, name: 'Sydney', lat: -33.8698, lon: 151.2083, country: 'AU', timeZone: 'Australia/Sydney', state: 'New South Wales', population: 5_312_000,
    local_names: { en: 'Sydney', ru: 'Сидней', ja: 'シドニー', zh: '悉尼' },
  },
  {
    id: 6_354_908, name: 'Sydney', lat: 46.1368, lon: -60.1942, country: 'CA', timeZone: 'America/Glace_Bay', state: 'Nova Scotia', population: 29_904,
    local_names: { en: 'Sydney', fr: 'Sydney' },
  },
  {
    id: 3_117_735, name: 'Madrid', lat: 40.4167, lon: -3.7036, country: 'ES', timeZone: 'Europe/Madrid', state: 'Community of Madrid', population: 3_255_944, zip: '28013',
    local_names: { es: 'Madrid', en: 'Madrid', ru: 'Мадрид' },
  },
  {
    id: 3_169_070, name: 'Rome', lat: 41.8933, lon: 12.4829, country: 'IT', timeZone: 'Europe/Rome', state: 'Lazio', population: 2_873_000, zip: '00184',
    local_names: { it: 'Roma', en: 'Rome', de: 'Rom', fr: 'Rome', es: 'Roma', ru: 'Рим' },
  },
  {
    id: 2_761_369, name: 'Vienna', lat: 48.2084, lon: 16.3725, country: 'AT', timeZone: 'Europe/Vienna', population: 1_897_000, zip: '1010',
    local_names: { de: 'Wien', en: 'Vienna', fr: 'Vienne', it: 'Vienna', ru: 'Вена' },
  },
  {
    id: 2_657_896, name: 'Zurich', lat: 47.3745, lon: 8.541, country: 'CH', timeZone: 'Europe/Zurich', state: 'Zurich', population: 421_878,
    local_names: { de: 'Zürich', en: 'Zurich', fr: 'Zurich', it: 'Zurigo' },
  },
  {
    id: 2_759_794, name: 'Amsterdam', lat: 52.3728, lon: 4.8936, country: 'NL', timeZone: 'Europe/Amsterdam', state: 'North Holland', population: 872_680, zip: '1012',
    local_names: { nl: 'Amsterdam', en: 'Amsterdam', ru: 'Амстердам' },
  },
  {
    id: 5_368_361, name: 'Los Angeles', lat: 34.0537, lon: -118.2428, country: 'US', timeZone: 'America/Los_Angeles', state: 'California', stateCode: 'CA', population: 3_898_747, zip: '90012',
    local_names: { en: 'Los Angeles', es: 'Los Ángeles', ru: 'Лос-Анджелес' },
  },
  {
    id: 4_887_398, name: 'Chicago', lat: 41.8756, lon: -87.6244, country: 'US', timeZone: 'America/Chicago', state: 'Illinois', stateCode: 'IL', population: 2_746_388, zip: '60604',
    local_names: { en: 'Chicago', ru: 'Чикаго' },
  },
  {
    id: 6_167_865, name: 'Toronto', lat: 43.6535, lon: -79.3839, country: 'CA', timeZone: 'America/Toronto', state: 'Ontario', population: 2_794_356,
    local_names: { en: 'Toronto', fr: 'Toronto' },
  },
  {
    id: 3_448_439, name: 'São Paulo', lat: -23.5506, lon: -46.6333, country: 'BR', timeZone: 'America/Sao_Paulo', state: 'São Paulo', population: 12_330_000,
    local_names: { pt: 'São Paulo', en: 'Sao Paulo', es: 'São Paulo' },
  },
  {
    id: 3_369_157, name: 'Cape Town', lat: -33.9288, lon: 18.4172, country: 'ZA', timeZone: 'Africa/Johannesburg', state: 'Western Cape', population: 4_772_846,
    local_names: { en: 'Cape Town', af: 'Kaapstad' },
  },
  {
    id: 1_275_339, name: 'Mumbai', lat: 19.076, lon: 72.8777, country: 'IN', timeZone: 'Asia/Kolkata', state: 'Maharashtra', population: 12_442_373,
    local_names: { en: 'Mumbai', hi: 'मुंबई' },
  },
  {
    id: 3_413_829, name: 'Reykjavik', lat: 64.1466, lon: -21.9426, country: 'IS', timeZone: 'Atlantic/Reykjavik', population: 131_136,
    local_names: { is: 'Reykjavík', en: 'Reykjavik' },
  },
  {
    id: 1_880_252, name: 'Singapore', lat: 1.29, lon: 103.852, country: 'SG', timeZone: 'Asia/Singapore', population: 5_686_000,
    local_names: { en: 'Singapore', zh: '新加坡', ms: 'Singapura' },
  },
  {
    id: 524_901, name: 'Moscow', lat: 55.7505, lon: 37.6175, country: 'RU', timeZone: 'Europe/Moscow', state: 'Moscow', population: 12_655_050,
    local_names: { ru: 'Москва', en: 'Moscow', de: 'Moskau', fr: 'Moscou' },
  },
  {
    id: 360_630, name: 'Cairo', lat: 30.0444, lon: 31.2357, country: 'EG', timeZone: 'Africa/Cairo', state: 'Cairo', population: 9_539_673,
    local_names: { ar: 'القاهرة', en: 'Cairo', fr: 'Le Caire' },
  },
  {
    id: 5_879_400, name: 'Anchorage', lat: 61.2163, lon: -149.8949, country: 'US', timeZone: 'America/Anchorage', state: 'Alaska', stateCode: 'AK', population: 291_247, zip: '99501',
    local_names: { en: 'Anchorage' },
  },
  {
    id: 3_833_367, name: 'Ushuaia', lat: -54.8069, lon: -68.3073, country: 'AR', timeZone: 'America/Argentina/Ushuaia', state: 'Tierra del Fuego', population: 82_615,
    local_names: { es: 'Ushuaia', en: 'Ushuaia' },
  },
  {
    id: 2_729_907, name: 'Longyearbyen', lat: 78.2232, lon: 15.6267, country: 'SJ', timeZone: 'Arctic/Longyearbyen', population: 2_417,
    local_names: { no: 'Longyearbyen', en: 'Longyearbyen' },
  },
  {
    id: 3_652_462, name: 'Quito', lat: -0.2202, lon: -78.5123, country: 'EC', timeZone: 'America/Guayaquil', state: 'Pichincha', population: 2_011_388,
    local_names: { es: 'Quito', en: 'Quito' },
  },
];

/** Lower case, accents stripped, inner spaces collapsed: `München` and `munchen` match. */
export function fold(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();
}

const COUNTRY_ALIASES: Readonly<Record<string, string>> = { uk: 'gb' };

/**
 * Finds places for `q` = "city", "city,country" or "city,state,country" (a US state code or name),
 * any part of which may be left empty ("London,,GB"); best known (largest) first. The name matches
 * the place's name or any of its local names. Of two parts, the second is a country, as upstream
 * reads it: a state asked without its country finds nothing there ("Seattle,WA" answers `[]`:
 * langchainrb#1006, pyowm#335, openweather-api-node#3), though the spec's "any subset allowed" could
 * be read otherwise; "Springfield,IL" looks in Israel.
 */
export function findPlaces(q: string, places: readonly Place[] = PLACES): Place[] {
  const parts = q.split(',').map(fold);
  const [name, second, third] = parts;
  if (!name) return [];
  const countryMatches = (place: Place, code: string) =>
    fold(place.country) === (COUNTRY_ALIASES[code] ?? code);
  const stateMatches = (place: Place, state: string) =>
    (place.stateCode !== undefined && fold(place.stateCode) === state) ||
    (place.state !== undefined && fold(place.state) === state);
  return (
    places
      .filter(
        (place) =>
          fold(place.name) === name || Object.values(place.local_names).some((n) => fold(n) === name),
      )
      // An empty part asks for nothing ("London,,GB": no state, the country GB).
      .filter((place) => {
        const state = parts.length >= 3 ? (second ?? '') : '';
        const country = parts.length >= 3 ? (third ?? '') : '';
        if (parts.length === 2 && second) return countryMatches(place, second);
        return (!state || stateMatches(place, state)) && (!country || countryMatches(place, country));
      })
      .sort((a, b) => b.population - a.population)
  );
}

/** The place with this id (the `id` parameter). */
export function findPlaceById(id: number, places: readonly Place[] = PLACES): Place | undefined {
  return places.find((place) => place.id === id);
}

/**
 * The place with postal code `zip` = "code,country" or "code" (then the US, upstream's documented
 * default for `zip`). Case and spaces in the code do not matter: `sw1a1aa,gb` is London's `SW1A 1AA`.
 */
export function findPlaceByZip(zip: string, places: readonly Place[] = PLACES): Place | undefined {
  const comma = zip.lastIndexOf(',');
  const compact = (text: string) => text.replace(/\s+/g, '').toLowerCase();
  const code = compact(comma >= 0 ? zip.slice(0, comma) : zip);
  const country = comma >= 0 ? fold(zip.slice(comma + 1)) : 'us';
  if (code === '') return undefined;
  return places.find(
    (place) =>
      place.zip !== undefined &&
      compact(place.zip) === code &&
      fold(place.country) === (COUNTRY_ALIASES[country] ?? country),
  );
}

/** Great-circle distance in km. */
export function distanceKm(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const rad = Math.PI / 180;
  const dLat = (lat2 - lat1) * rad;
  const dLon = (lon2 - lon1) * rad;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** Places within `radiusKm`, nearest first. */
export function nearbyPlaces(
  lat: number,
  lon: number,
  radiusKm: number,
  places: readonly Place[] = PLACES,
): Place[] {
  return places
    .map((place) => ({ place, km: distanceKm(lat, lon, place.lat, place.lon) }))
    .filter(({ km }) => km <= radiusKm)
    .sort((a, b) => a.km - b.km)
    .map(({ place }) => place);
}
