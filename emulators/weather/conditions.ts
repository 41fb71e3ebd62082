/**
 * The weather service's condition codes (upstream-facts.md, "Condition codes"): id → group (`main`),
 * English description and icon base. `lang` translates the description only, never `main`.
 */

export interface Condition {
  id: number;
  main: string;
  description: string;
  /** Icon without the day/night suffix: `01`, `10`, ... */
  icon: string;
}

const rows: ReadonlyArray<readonly [number, string, string, string]> = [
  [200, 'Thunderstorm', 'thunderstorm with light rain', '11'],
  [201, 'Thunderstorm', 'thunderstorm with rain', '11'],
  [202, 'Thunderstorm', 'thunderstorm with heavy rain', '11'],
  [210, 'Thunderstorm', 'light thunderstorm', '11'],
  [211, 'Thunderstorm', 'thunderstorm', '11'],
  [212, 'Thunderstorm', 'heavy thunderstorm', '11'],
  [221, 'Thunderstorm', 'ragged thunderstorm', '11'],
  [230, 'Thunderstorm', 'thunderstorm with light drizzle', '11'],
  [231, 'Thunderstorm', 'thunderstorm with drizzle', '11'],
  [232, 'Thunderstorm', 'thunderstorm with heavy drizzle', '11'],
  [300, 'Drizzle', 'light intensity drizzle', '09'],
  [301, 'Drizzle', 'drizzle', '09'],
  [302, 'Drizzle', 'heavy intensity drizzle', '09'],
  [310, 'Drizzle', 'light intensity drizzle rain', '09'],
  [311, 'Drizzle', 'drizzle rain', '09'],
  [312, 'Drizzle', 'heavy intensity drizzle rain', '09'],
  [313, 'Drizzle', 'shower rain and drizzle', '09'],
  [314, 'Drizzle', 'heavy shower rain and drizzle', '09'],
  [321, 'Drizzle', 'shower drizzle', '09'],
  [500, 'Rain', 'light rain', '10'],
  [501, 'Rain', 'moderate rain', '10'],
  [502, 'Rain', 'heavy intensity rain', '10'],
  [503, 'Rain', 'very heavy rain', '10'],
  [504, 'Rain', 'extreme rain', '10'],
  [511, 'Rain', 'freezing rain', '13'],
  [520, 'Rain', 'light intensity shower rain', '09'],
  [521, 'Rain', 'shower rain', '09'],
  [522, 'Rain', 'heavy intensity shower rain', '09'],
  [531, 'Rain', 'ragged shower rain', '09'],
  [600, 'Snow', 'light snow', '13'],
  [601, 'Snow', 'snow', '13'],
  [602, 'Snow', 'heavy snow', '13'],
  [611, 'Snow', 'sleet', '13'],
  [612, 'Snow', 'light shower sleet', '13'],
  [613, 'Snow', 'shower sleet', '13'],
  [615, 'Snow', 'light rain and snow', '13'],
  [616, 'Snow', 'rain and snow', '13'],
  [620, 'Snow', 'light shower snow', '13'],
  [621, 'Snow', 'shower snow', '13'],
  [622, 'Snow', 'heavy shower snow', '13'],
  [701, 'Mist', 'mist', '50'],
  [711, 'Smoke', 'smoke', '50'],
  [721, 'Haze', 'haze', '50'],
  [731, 'Dust', 'sand/dust whirls', '50'],
  [741, 'Fog', 'fog', '50'],
  [751, 'Sand', 'sand', '50'],
  [761, 'Dust', 'dust', '50'],
  [762, 'Ash', 'volcanic ash', '50'],
  [771, 'Squall', 'squalls', '50'],
  [781, 'Tornado', 'tornado', '50'],
  [800, 'Clear', 'clear sky', '01'],
  [801, 'Clouds', 'few clouds', '02'],
  [802, 'Clouds', 'scattered clouds', '03'],
  [803, 'Clouds', 'broken clouds', '04'],
  [804, 'Clouds', 'overcast clouds', '04'],
];

export const CONDITIONS: ReadonlyMap<number, Condition> = new Map(
  rows.map(([id, main, description, icon]) => [id, { id, main, description, icon }]),
);

/**
 * Translations of the descriptions the model produces (German, French, Spanish, Italian, Russian);
 * anything else falls back to English.
 */
const TRANSLATIONS: Readonly<Record<string, Readonly<Record<number, string>>>> = {
  de: {
    201: 'Gewitter mit Regen',
    202: 'Gewitter mit starkem Regen',
    300: 'leichter Nieselregen',
    301: 'Nieselregen',
    500: 'leichter Regen',
    501: 'mäßiger Regen',
    502: 'starker Regen',
    511: 'Eisregen',
    600: 'mäßiger Schnee',
    601: 'Schnee',
    602: 'starker Schneefall',
    615: 'leichter Regen und Schnee',
    616: 'Regen und Schnee',
    701: 'trüb',
    741: 'Nebel',
    800: 'Klarer Himmel',
    801: 'Ein paar Wolken',
    802: 'Mäßig bewölkt',
    803: 'Überwiegend bewölkt',
    804: 'Bedeckt',
  },
  fr: {
    201: 'orage et pluie',
    202: 'orage et forte pluie',
    300: 'bruine légère',
    301: 'bruine',
    500: 'légère pluie',
    501: 'pluie modérée',
    502: 'forte pluie',
    511: 'pluie verglaçante',
    600: 'légères chutes de neige',
    601: 'neige',
    602: 'fortes chutes de neige',
    615: 'pluie et neige légère',
    616: 'pluie et neige',
    701: 'brume',
    741: 'brouillard',
    800: 'ciel dégagé',
    801: 'peu nuageux',
    802: 'partiellement nuageux',
    803: 'nuageux',
    804: 'couvert',
  },
  es: {
    201: 'tormenta con lluvia',
    202: 'tormenta con lluvia intensa',
    300: 'llovizna ligera',
    301: 'llovizna',
    500: 'lluvia ligera',
    501: 'lluvia moderada',
    502: 'lluvia de gran intensidad',
    511: 'lluvia helada',
    600: 'nevada ligera',
    601: 'nieve',
    602: 'nevada intensa',
    615: 'lluvia y nieve ligera',
    616: 'lluvia y nieve',
    701: 'niebla',
    741: 'bruma',
    800: 'cielo claro',
    801: 'algo de nubes',
    802: 'nubes dispersas',
    803: 'muy nuboso',
    804: 'nubes',
  },
  it: {
    201: 'temporale con pioggia',
    202: 'temporale con pioggia forte',
    300: 'pioggerella leggera',
    301: 'pioggerella',
    500: 'pioggia leggera',
    501: 'pioggia moderata',
    502: 'pioggia forte',
    511: 'pioggia gelata',
    600: 'neve leggera',
    601: 'neve',
    602: 'neve forte',
    615: 'pioggia e neve leggera',
    616: 'pioggia e neve',
    701: 'foschia',
    741: 'nebbia',
    800: 'cielo sereno',
    801: 'poche nuvole',
    802: 'nubi sparse',
    803: 'nuvoloso',
    804: 'cielo coperto',
  },
  ru: {
    201: 'гроза с дождём',
    202: 'гроза с ливнем',
    300: 'лёгкая морось',
    301: 'морось',
    500: 'небольшой дождь',
    501: 'дождь',
    502: 'сильный дождь',
    511: 'ледяной дождь',
    600: 'небольшой снег',
    601: 'снег',
    602: 'сильный снег',
    615: 'небольшой дождь со снегом',
    616: 'дождь со снегом',
    701: 'дымка',
    741: 'туман',
    800: 'ясно',
    801: 'небольшая облачность',
    802: 'переменная облачность',
    803: 'облачно с прояснениями',
    804: 'пасмурно',
  },
};

/** The language codes the service accepts (upstream-facts.md, "lang codes"). */
export const LANGS: ReadonlySet<string> = new Set(
  (
    'af al ar az bg ca cz da de el en eu fa fi fr gl he hi hr hu id it ja kr la lt mk no nl pl pt pt_br ' +
    'ro ru sv se sk sl sp es sr th tr ua uk vi zh_cn zh_tw zu'
  ).split(' '),
);

/** The service's own codes that are not ISO 639-1 (`sp` Spanish, `la` Latvian...), by that code. */
const ISO_639_1: Readonly<Record<string, string>> = {
  al: 'sq',
  cz: 'cs',
  kr: 'ko',
  la: 'lv',
  pt_br: 'pt',
  se: 'sv',
  sp: 'es',
  ua: 'uk',
  zh_cn: 'zh',
  zh_tw: 'zh',
};

/** The ISO 639-1 code of one of {@link LANGS}: the key of a place's `local_names`. */
export function languageCode(lang: string): string {
  return ISO_639_1[lang] ?? lang;
}

/** A condition object as the service sends it: translated description, icon with `d`/`n`. */
export function conditionObject(
  id: number,
  isDay: boolean,
  lang: string,
): { id: number; main: string; description: string; icon: string } {
  const condition = CONDITIONS.get(id);
  if (!condition) throw new Error(`unknown condition id ${id}`);
  const language = lang === 'sp' ? 'es' : lang;
  const description = TRANSLATIONS[language]?.[id] ?? condition.description;
  return { id, main: condition.main, description, icon: `${condition.icon}${isDay ? 'd' : 'n'}` };
}
