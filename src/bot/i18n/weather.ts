/**
 * Every text of the weather command, in English and German: command, option and choice names and
 * descriptions for registration, and the words of the replies. German must have every English key
 * (the type says so), so a new English text cannot ship without its translation.
 */
import { managersOnly, type CommandText, type Lang, type Localized } from './index.js';

const text = (en: string, de: string): Localized => ({ en, de });
const command = (name: Localized, description: Localized): CommandText => ({ name, description });

/** Names (lowercase, no spaces: Discord's rule) and descriptions (at most 100 characters). */
export const WEATHER_COMMAND_TEXT = {
  command: command(
    text('weather', 'wetter'),
    text(
      'Weather anywhere: now, forecasts, history, statistics and totals',
      'Wetter überall: jetzt, Vorhersagen, Verlauf, Statistik und Summen',
    ),
  ),
  groups: {
    home: command(
      text('home', 'zuhause'),
      text(
        'Your home place, and this server’s default place',
        'Dein Heimatort und der Standardort dieses Servers',
      ),
    ),
  },
  subcommands: {
    now: command(text('now', 'jetzt'), text('Current weather at a place', 'Aktuelles Wetter an einem Ort')),
    hourly: command(
      text('hourly', 'stündlich'),
      text(
        'Hour-by-hour forecast for the next 24 to 96 hours, with a chart',
        'Stündliche Vorhersage für die nächsten 24 bis 96 Stunden, mit Diagramm',
      ),
    ),
    daily: command(
      text('daily', 'täglich'),
      text(
        'Daily forecast for up to 16 days, with a chart',
        'Tagesvorhersage für bis zu 16 Tage, mit Diagramm',
      ),
    ),
    history: command(
      text('history', 'verlauf'),
      text(
        'Past weather, hour by hour, for up to a week, with a chart',
        'Vergangenes Wetter, stündlich, bis zu einer Woche, mit Diagramm',
      ),
    ),
    stats: command(
      text('stats', 'statistik'),
      text(
        'Climate of a calendar day: records, averages and quartiles',
        'Klima eines Kalendertags: Rekorde, Mittelwerte und Quartile',
      ),
    ),
    accumulated: command(
      text('accumulated', 'summen'),
      text(
        'Warmth and precipitation summed between two dates (for gardens and fields)',
        'Wärme- und Niederschlagssummen zwischen zwei Daten (für Garten und Feld)',
      ),
    ),
    units: command(
      text('units', 'einheiten'),
      text('Choose the units of your weather replies', 'Wähle die Einheiten deiner Wetterantworten'),
    ),
    homeSet: command(
      text('set', 'festlegen'),
      text(
        'Save your home place, used when you leave out the place',
        'Speichere deinen Heimatort; er gilt, wenn du keinen Ort angibst',
      ),
    ),
    homeClear: command(
      text('clear', 'entfernen'),
      text('Forget your home place', 'Deinen Heimatort entfernen'),
    ),
    homeShow: command(
      text('show', 'anzeigen'),
      text(
        'Show your home place, this server’s default and your units',
        'Zeige deinen Heimatort, den Standardort dieses Servers und deine Einheiten',
      ),
    ),
    homeServer: command(
      text('server', 'server'),
      managersOnly(text('Set this server’s default place', 'Lege den Standardort dieses Servers fest')),
    ),
    homeServerClear: command(
      text('server-clear', 'server-entfernen'),
      managersOnly(text('Remove this server’s default place', 'Entferne den Standardort dieses Servers')),
    ),
  },
  options: {
    place: command(
      text('place', 'ort'),
      text(
        'A city; pick from the list to tell same-named places apart',
        'Eine Stadt; wähle aus der Liste, um gleichnamige Orte zu unterscheiden',
      ),
    ),
    placeRequired: command(
      text('place', 'ort'),
      text('A city; pick from the list', 'Eine Stadt; wähle aus der Liste'),
    ),
    hours: command(
      text('hours', 'stunden'),
      text('How many hours (24 to 96, default 24)', 'Wie viele Stunden (24 bis 96, Standard 24)'),
    ),
    days: command(
      text('days', 'tage'),
      text('How many days (1 to 16, default 7)', 'Wie viele Tage (1 bis 16, Standard 7)'),
    ),
    historyStart: command(
      text('start', 'beginn'),
      text(
        'From, local time: 2025-03-01 or 2025-03-01 14:00',
        'Ab, Ortszeit: 01.03.2025 oder 01.03.2025 14:00',
      ),
    ),
    historyEnd: command(
      text('end', 'ende'),
      text(
        'Until, local time (default: now, or 24 hours after a start): 2025-03-02 08:00',
        'Bis, Ortszeit (Standard: jetzt oder 24 Stunden nach dem Beginn): 02.03.2025 08:00',
      ),
    ),
    historyHours: command(
      text('hours', 'stunden'),
      text(
        'How many hours instead of an end (1 to 168, default 24)',
        'Wie viele Stunden statt eines Endes (1 bis 168, Standard 24)',
      ),
    ),
    month: command(
      text('month', 'monat'),
      text('Month (default: this month)', 'Monat (Standard: dieser Monat)'),
    ),
    day: command(
      text('day', 'tag'),
      text('Day of the month (default: today)', 'Tag des Monats (Standard: heute)'),
    ),
    accumulatedStart: command(
      text('start', 'beginn'),
      text('First day: 2025-03-01', 'Erster Tag: 01.03.2025'),
    ),
    accumulatedEnd: command(
      text('end', 'ende'),
      text('Last day (default: today): 2025-09-30', 'Letzter Tag (Standard: heute): 30.09.2025'),
    ),
    threshold: command(
      text('threshold', 'schwelle'),
      text(
        'Base temperature in your units (default 10 °C / 50 °F)',
        'Basistemperatur in deinen Einheiten (Standard 10 °C / 50 °F)',
      ),
    ),
    units: command(
      text('units', 'einheiten'),
      text('Units for your replies', 'Einheiten für deine Antworten'),
    ),
  },
  unitChoices: {
    metric: text('Metric (°C, m/s, mm, hPa)', 'Metrisch (°C, m/s, mm, hPa)'),
    imperial: text('Imperial (°F, mph, in, inHg)', 'Imperial (°F, mph, in, inHg)'),
    standard: text('Standard (K, m/s, mm, hPa)', 'Standard (K, m/s, mm, hPa)'),
    auto: text('Follow my Discord language', 'Nach meiner Discord-Sprache'),
  },
  months: [
    text('January', 'Januar'),
    text('February', 'Februar'),
    text('March', 'März'),
    text('April', 'April'),
    text('May', 'Mai'),
    text('June', 'Juni'),
    text('July', 'Juli'),
    text('August', 'August'),
    text('September', 'September'),
    text('October', 'Oktober'),
    text('November', 'November'),
    text('December', 'Dezember'),
  ],
} as const;

const list = (items: readonly string[]) => items.map((item) => `• ${item}`).join('\n');
/** `November`, `März`; the number itself for a month no year has. */
const monthName = (lang: Lang, month: number) =>
  WEATHER_COMMAND_TEXT.months[month - 1]?.[lang] ?? String(month);
const twoDigits = (value: number) => String(value).padStart(2, '0');
/** `1st`, `2nd`, `3rd`, `11th`, `31st`. */
const ordinal = (value: number) => {
  const tens = Math.floor(value / 10) % 10;
  const suffix = tens === 1 ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' }[value % 10] ?? 'th');
  return `${value}${suffix}`;
};

const en = {
  // Current weather
  temperature: 'Temperature',
  feelsLike: 'Feels like',
  wind: 'Wind',
  gusts: (speed: string) => `gusts ${speed}`,
  calm: 'calm',
  humidity: 'Humidity',
  pressure: 'Pressure',
  visibility: 'Visibility',
  clouds: 'Clouds',
  rainLastHour: 'Rain, last hour',
  snowLastHour: 'Snow, last hour',
  rainLast3Hours: 'Rain, last 3 hours',
  snowLast3Hours: 'Snow, last 3 hours',
  precipitationLastHour: 'Precipitation, last hour',
  /** When the service last worked out these values (its `dt`), in the place's time. */
  asOf: 'As of (local time)',
  sunriseSunset: 'Sunrise / sunset',
  unitsFooter: (units: string) => `Units: ${units} · change them with /weather units`,
  scheduledFooter: (id: string, units: string) => `Scheduled post ${id} · units: ${units}`,
  unitNames: { metric: 'metric', imperial: 'imperial', standard: 'standard (Kelvin)' },

  // Hourly forecast
  hourlyTitle: (place: string, hours: number) => `${place}: next ${hours} hours`,
  /** Under 3-hour steps of the 5-day forecast (a weather plan without the hourly forecast). */
  hourlyFromThreeHourly:
    'In 3-hour steps from the 5-day forecast: this bot’s weather plan has no hourly forecast.',
  hourlyOverview: (low: string, high: string, pop: string, precipitation: string) =>
    `Between ${low} and ${high}; chance of precipitation up to ${pop}; total precipitation ${precipitation}.`,
  byDay: 'Day by day',
  nextHours: 'Coming hours',
  hourlyChartAlt: 'Chart of temperature and chance of precipitation, hour by hour',
  threeHourlyChartAlt: 'Chart of temperature and chance of precipitation, in 3-hour steps',

  // Daily forecast
  /** A forecast of one day is today's, or tomorrow's when today was left out (see `startsTomorrow`). */
  dailyTitle: (place: string, days: number, startsTomorrow: boolean) =>
    days === 1 ? `${place}: ${startsTomorrow ? 'tomorrow' : 'today'}` : `${place}: next ${days} days`,
  /** Under a daily forecast made from the 5-day/3-hour one (a weather plan without the daily forecast). */
  dailyFromThreeHourly:
    'From the 5-day forecast in 3-hour steps: this bot’s weather plan has no daily forecast.',
  high: 'High',
  low: 'Low',
  dayPart: 'Day',
  nightPart: 'Night',
  chance: 'chance',
  dailyChartAlt: 'Chart of daily low and high temperatures and precipitation',

  // History
  historyTitle: (place: string, hours: number) =>
    `${place}: ${hours} ${hours === 1 ? 'hour' : 'hours'} of history`,
  /** When the service holds no record of the hours asked for. */
  historyNoneTitle: (place: string) => `No history for ${place}`,
  historyRange: (from: string, to: string) => `From ${from} to ${to}, local time.`,
  historyEmpty: 'The weather service has no records for these hours.',
  minMeanMax: (min: string, mean: string, max: string) => `${min} to ${max}, mean ${mean}`,
  precipitationTotal: 'Precipitation, total',
  strongestWind: 'Strongest wind',
  meanHumidity: 'Mean humidity',
  conditions: 'Conditions',
  hoursOf: (condition: string, hours: number) => `${condition}: ${hours} h`,
  historyChartAlt: 'Chart of temperature and precipitation, hour by hour',

  // Statistics
  statsTitle: (place: string, date: string) => `${place}: the climate on ${date}`,
  statsIntro: (count: number, formatted: string) =>
    `Statistics of every measurement on this calendar day over the past years (${formatted} ${count === 1 ? 'measurement' : 'measurements'}).`,
  statsEmpty: 'The weather service has no statistics for this day.',
  statsNoLeapDay:
    'The weather service keeps statistics for 365 days of the year, and 29 February is not one of them: ask for 28 February or 1 March.',
  records: 'Records',
  recordLowHigh: (low: string, high: string) => `lowest ${low}, highest ${high}`,
  averageLowHigh: 'Average low / high',
  meanMedian: 'Mean / median',
  middleHalf: 'Middle half (25th–75th percentile)',
  spread: 'Standard deviation',
  precipitation: 'Precipitation',
  meanAndMax: (mean: string, max: string) => `mean ${mean}, at most ${max}`,
  perMeasurement: 'per measurement',

  // Accumulated
  accumulatedTitle: (place: string) => `${place}: warmth and precipitation totals`,
  accumulatedMeaning: (threshold: string) =>
    `Warmth sums how far each day’s mean temperature rose above ${threshold} (growing degree days: what plants feel); precipitation sums all rain and melted snow.`,
  period: 'Period',
  /** `counted`: the days the service has summed, when fewer (today counts once it is over). */
  periodValue: (from: string, to: string, days: number, counted?: number) =>
    `${from} – ${to} (${days} ${days === 1 ? 'day' : 'days'}${
      counted === undefined ? '' : `, ${counted} of them counted so far`
    })`,
  warmthAbove: (threshold: string) => `Warmth above ${threshold}`,
  warmthValue: (sum: string, days: number, mean: string) =>
    days === 1
      ? `${sum} on 1 day above the threshold (its mean ${mean})`
      : `${sum} over ${days} days above the threshold (their mean ${mean})`,
  warmthNone: 'No day was warmer than the threshold.',
  precipitationValue: (sum: string, days: number) => `${sum} over ${days} ${days === 1 ? 'day' : 'days'}`,
  accumulatedEmpty: 'The weather service has no totals for this period.',

  // Preferences
  unitsSaved: (units: string) => `Your weather replies now use these units: ${units}.`,
  unitsReset: (units: string) => `Your weather replies follow your Discord language again (now: ${units}).`,
  homeSaved: (place: string) =>
    `Your home place is now **${place}**. Weather commands use it when you leave out the place.`,
  homeCleared: 'Your home place is forgotten.',
  homeNotSet: 'You had no home place saved.',
  serverHomeSaved: (place: string) =>
    `This server’s default place is now **${place}**, for members without a home place of their own.`,
  serverHomeCleared: 'This server’s default place is removed.',
  serverHomeNotSet: 'This server had no default place.',
  prefsTitle: 'Your weather settings',
  yourHome: 'Your home place',
  serverHome: 'This server’s default place',
  yourUnits: 'Your units',
  notSet: 'not set',
  followsLanguage: (units: string) => `${units} (from your Discord language)`,

  // Errors
  placeNotFound: (query: string) => `No place called “${query}” was found.`,
  coordinatesOffEarth: (typed: string) =>
    `“${typed}” is no point on Earth: the latitude comes first, from -90 to 90, then the longitude, from -180 to 180, as in \`48.8566, 2.3522\`.`,
  didYouMean: (suggestions: readonly string[]) => `Did you mean one of these?\n${list(suggestions)}`,
  placeTips:
    'Check the spelling, pick a place from the list while you type, or add a country code: `Paris, FR`, `Springfield, MO, US`. Coordinates and postal codes work too: `48.8566, 2.3522`, `10117, DE`.',
  postalCodeNotFound: (code: string, country: string | undefined, usZip: boolean) =>
    country !== undefined
      ? `No place with the postal code “${code}” was found in ${country}.`
      : usZip
        ? `No US ZIP code “${code}” was found. For a postal code in another country, add the country’s two-letter code after a comma, as in \`10117, DE\`.`
        : `No place with the postal code “${code}” was found. Add the country’s two-letter code after a comma, as in \`10117, DE\`.`,
  blankPlace: 'The place is empty: type a place name, a postal code or coordinates, or pick a suggestion.',
  noPlace:
    'Which place? Give one with the `place` option, or save yours with `/weather home set` so you can leave it out.',
  invalidDate: (field: string, typed: string) =>
    `“${typed}” is not a date I can read for \`${field}\`. Write it as 2025-03-01 or 2025-03-01 14:00 (or 01.03.2025 14:00).`,
  /** `/weather stats` with a day and month no year has. */
  noSuchCalendarDay: (day: number, month: number) => `There is no ${day} ${monthName('en', month)}.`,
  /** `/weather stats` with a day that this month (the member gave none) does not have. */
  dayNotInMonth: (day: number, month: number, monthOption: string) =>
    `${monthName('en', month)} has no ${ordinal(day)}: choose a month with \`${monthOption}\`.`,
  /** A typed date its month does not have: `2026-11-31`, `2025-02-29`. */
  noSuchDate: (day: number, month: number, year: number) =>
    `There is no ${day} ${monthName('en', month)} ${year}.`,
  noSuchMonth: (month: number) => `There is no month ${month}: a year has 12.`,
  /** A typed time no day has: `24:00`, `25:00`, `13 pm`. */
  noSuchTime: (time: string) => `There is no ${time} in a day: its hours run from 00:00 to 23:59.`,
  beforeRecords: (typed: string, field: string) =>
    `“${typed}” is before the weather service’s records begin (1970-01-01): pick a later \`${field}\`.`,
  rangeFuture: 'That range lies in the future; history and totals only cover the past.',
  rangeUtcFuture:
    'Totals count whole days in UTC, and your first day has not begun there yet. Try a range that starts a day earlier.',
  rangeOrder: 'The end comes before the start.',
  rangeTooLongHours: (limit: number) =>
    `That is too long: history covers at most a week at a time (${limit} hours, as from 00:00 on a Monday to 23:00 on the Sunday).`,
  rangeTooLongDays: (limit: number) => `That is too long: at most ${limit} days at a time.`,
  endAndHours: 'Give a start and an end, or one of them with `hours`, not all three.',
  notInPlan: (product: string) =>
    `This bot’s weather plan does not include ${product}. The bot’s owner can add it to the weather service subscription.`,
  products: {
    current: 'current weather',
    hourly: 'the hourly forecast',
    daily: 'the daily forecast',
    history: 'historical data',
    statistics: 'climate statistics',
    accumulated: 'accumulated totals',
  },
  keyRejected: 'The weather service does not accept this bot’s key. Please tell the bot’s owner.',
  rateLimited: (wait: string | undefined) =>
    `The weather service is receiving too many requests right now. Please try again ${wait === undefined ? 'in a little while' : `in ${wait}`}.`,
  unavailable: 'The weather service is not answering right now. Please try again in a minute.',
  unreadable:
    'The weather service sent an answer the bot could not read. Please try again in a minute; if it keeps happening, tell the bot’s owner.',
  /** The service refused the request (its words stay in the log). */
  refused:
    'The weather service refused this request. Check the place and any dates you gave, then try again.',
  /** The bot's own check refused the request before it was sent (its words stay in the log). */
  invalidRequest:
    'The bot could not make a weather request from what you gave. Check the place and any dates you gave, then try again.',
  noData: 'The weather service has no data for this place and period. Try another place or another period.',
  manageServerNeeded: 'Only members who may manage this server can change its default place.',
  serverOnly: 'This works only in a server.',
  scheduleAlreadyPaused: (id: string) =>
    `The scheduled post “${id}” is already paused: nothing changed. \`/weather schedule resume\` starts it again.`,
  scheduleNotPaused: (id: string) => `The scheduled post “${id}” is not paused: nothing changed.`,

  // Shared
  compass: [
    'N',
    'NNE',
    'NE',
    'ENE',
    'E',
    'ESE',
    'SE',
    'SSE',
    'S',
    'SSW',
    'SW',
    'WSW',
    'W',
    'WNW',
    'NW',
    'NNW',
  ],
  /** The service's condition groups (`main`, which it never translates). */
  conditionGroups: {
    Thunderstorm: 'Thunderstorm',
    Drizzle: 'Drizzle',
    Rain: 'Rain',
    Snow: 'Snow',
    Mist: 'Mist',
    Smoke: 'Smoke',
    Haze: 'Haze',
    Dust: 'Dust',
    Fog: 'Fog',
    Sand: 'Sand',
    Ash: 'Ash',
    Squall: 'Squalls',
    Tornado: 'Tornado',
    Clear: 'Clear',
    Clouds: 'Clouds',
  } as Readonly<Record<string, string>>,
  /** Words drawn in the charts. */
  chart: {
    temperature: 'Temperature',
    chanceOfPrecipitation: 'Chance of precipitation',
    precipitation: 'Precipitation',
    high: 'High',
    low: 'Low',
    range: 'Range',
    localTime: 'Local time',
  },
};

export type WeatherMessages = typeof en;

const de: WeatherMessages = {
  temperature: 'Temperatur',
  feelsLike: 'Gefühlt',
  wind: 'Wind',
  gusts: (speed) => `Böen ${speed}`,
  calm: 'windstill',
  humidity: 'Luftfeuchtigkeit',
  pressure: 'Luftdruck',
  visibility: 'Sichtweite',
  clouds: 'Bewölkung',
  rainLastHour: 'Regen, letzte Stunde',
  snowLastHour: 'Schnee, letzte Stunde',
  rainLast3Hours: 'Regen, letzte 3 Stunden',
  snowLast3Hours: 'Schnee, letzte 3 Stunden',
  precipitationLastHour: 'Niederschlag, letzte Stunde',
  asOf: 'Stand (Ortszeit)',
  sunriseSunset: 'Sonnenaufgang / -untergang',
  unitsFooter: (units) => `Einheiten: ${units} · ändern mit /wetter einheiten`,
  scheduledFooter: (id, units) => `Geplanter Post ${id} · Einheiten: ${units}`,
  unitNames: { metric: 'metrisch', imperial: 'imperial', standard: 'Standard (Kelvin)' },

  hourlyTitle: (place, hours) => `${place}: die nächsten ${hours} Stunden`,
  hourlyFromThreeHourly:
    'In 3-Stunden-Schritten aus der 5-Tage-Vorhersage: Der Wettertarif dieses Bots enthält keine stündliche Vorhersage.',
  hourlyOverview: (low, high, pop, precipitation) =>
    `Zwischen ${low} und ${high}; Niederschlagswahrscheinlichkeit bis ${pop}; insgesamt ${precipitation}.`,
  byDay: 'Tag für Tag',
  nextHours: 'Die nächsten Stunden',
  hourlyChartAlt: 'Diagramm von Temperatur und Niederschlagswahrscheinlichkeit, stündlich',
  threeHourlyChartAlt: 'Diagramm von Temperatur und Niederschlagswahrscheinlichkeit, in 3-Stunden-Schritten',

  dailyTitle: (place, days, startsTomorrow) =>
    days === 1 ? `${place}: ${startsTomorrow ? 'morgen' : 'heute'}` : `${place}: die nächsten ${days} Tage`,
  dailyFromThreeHourly:
    'Aus der 5-Tage-Vorhersage in 3-Stunden-Schritten: Der Wettertarif dieses Bots enthält keine Tagesvorhersage.',
  high: 'Höchstwert',
  low: 'Tiefstwert',
  dayPart: 'Tag',
  nightPart: 'Nacht',
  chance: 'Wahrscheinlichkeit',
  dailyChartAlt: 'Diagramm der Tiefst- und Höchsttemperaturen und des Niederschlags pro Tag',

  historyTitle: (place, hours) => `${place}: ${hours} ${hours === 1 ? 'Stunde' : 'Stunden'} Verlauf`,
  historyNoneTitle: (place) => `Kein Verlauf für ${place}`,
  historyRange: (from, to) => `Von ${from} bis ${to}, Ortszeit.`,
  historyEmpty: 'Der Wetterdienst hat für diese Stunden keine Aufzeichnungen.',
  minMeanMax: (min, mean, max) => `${min} bis ${max}, Mittel ${mean}`,
  precipitationTotal: 'Niederschlag, gesamt',
  strongestWind: 'Stärkster Wind',
  meanHumidity: 'Mittlere Luftfeuchtigkeit',
  conditions: 'Wetterlage',
  hoursOf: (condition, hours) => `${condition}: ${hours} Std.`,
  historyChartAlt: 'Diagramm von Temperatur und Niederschlag, stündlich',

  statsTitle: (place, date) => `${place}: das Klima am ${date}`,
  statsIntro: (count, formatted) =>
    `Statistik aller Messungen an diesem Kalendertag in den vergangenen Jahren (${formatted} ${count === 1 ? 'Messung' : 'Messungen'}).`,
  statsEmpty: 'Der Wetterdienst hat für diesen Tag keine Statistik.',
  statsNoLeapDay:
    'Der Wetterdienst führt Statistiken für 365 Tage im Jahr, und der 29. Februar gehört nicht dazu: Frag nach dem 28. Februar oder dem 1. März.',
  records: 'Rekorde',
  recordLowHigh: (low, high) => `Tiefstwert ${low}, Höchstwert ${high}`,
  averageLowHigh: 'Mittleres Minimum / Maximum',
  meanMedian: 'Mittelwert / Median',
  middleHalf: 'Mittlere Hälfte (25.–75. Perzentil)',
  spread: 'Standardabweichung',
  precipitation: 'Niederschlag',
  meanAndMax: (mean, max) => `im Mittel ${mean}, höchstens ${max}`,
  perMeasurement: 'pro Messung',

  accumulatedTitle: (place) => `${place}: Wärme- und Niederschlagssummen`,
  accumulatedMeaning: (threshold) =>
    `Die Wärmesumme addiert, wie weit das Tagesmittel der Temperatur über ${threshold} lag (Wachstumsgradtage: das, was Pflanzen spüren); die Niederschlagssumme umfasst Regen und geschmolzenen Schnee.`,
  period: 'Zeitraum',
  periodValue: (from, to, days, counted) =>
    `${from} – ${to} (${days} ${days === 1 ? 'Tag' : 'Tage'}${
      counted === undefined ? '' : `, davon bisher ${counted} erfasst`
    })`,
  warmthAbove: (threshold) => `Wärmesumme über ${threshold}`,
  warmthValue: (sum, days, mean) =>
    days === 1
      ? `${sum} an 1 Tag über der Schwelle (Tagesmittel ${mean})`
      : `${sum} an ${days} Tagen über der Schwelle (im Mittel ${mean})`,
  warmthNone: 'Kein Tag war wärmer als die Schwelle.',
  // Not 'über N Tage' (read as 'more than'), 'an N Tagen' (the days it fell on) nor 'in N Tagen'
  // ('0,08 in in 1 Tag' in inches).
  precipitationValue: (sum, days) => `${sum} innerhalb von ${days} ${days === 1 ? 'Tag' : 'Tagen'}`,
  accumulatedEmpty: 'Der Wetterdienst hat für diesen Zeitraum keine Summen.',

  unitsSaved: (units) => `Deine Wetterantworten verwenden jetzt diese Einheiten: ${units}.`,
  unitsReset: (units) =>
    `Deine Wetterantworten richten sich wieder nach deiner Discord-Sprache (jetzt: ${units}).`,
  homeSaved: (place) =>
    `Dein Heimatort ist jetzt **${place}**. Wetterbefehle verwenden ihn, wenn du keinen Ort angibst.`,
  homeCleared: 'Dein Heimatort wurde entfernt.',
  homeNotSet: 'Du hattest keinen Heimatort gespeichert.',
  serverHomeSaved: (place) =>
    `Der Standardort dieses Servers ist jetzt **${place}**, für Mitglieder ohne eigenen Heimatort.`,
  serverHomeCleared: 'Der Standardort dieses Servers wurde entfernt.',
  serverHomeNotSet: 'Dieser Server hatte keinen Standardort.',
  prefsTitle: 'Deine Wettereinstellungen',
  yourHome: 'Dein Heimatort',
  serverHome: 'Standardort dieses Servers',
  yourUnits: 'Deine Einheiten',
  notSet: 'nicht festgelegt',
  followsLanguage: (units) => `${units} (nach deiner Discord-Sprache)`,

  placeNotFound: (query) => `Kein Ort namens „${query}“ gefunden.`,
  coordinatesOffEarth: (typed) =>
    `„${typed}“ ist kein Punkt auf der Erde: zuerst die Breite, von -90 bis 90, dann die Länge, von -180 bis 180, etwa \`48.8566, 2.3522\` (Dezimalstellen mit Punkt).`,
  didYouMean: (suggestions) => `Meintest du einen dieser Orte?\n${list(suggestions)}`,
  placeTips:
    'Prüfe die Schreibweise, wähle beim Tippen einen Ort aus der Liste oder ergänze ein Länderkürzel: `Paris, FR`, `Springfield, MO, US`. Koordinaten (Dezimalstellen mit Punkt) und Postleitzahlen gehen auch: `48.8566, 2.3522`, `10117, DE`.',
  postalCodeNotFound: (code, country, usZip) =>
    country !== undefined
      ? `Kein Ort mit der Postleitzahl „${code}“ in ${country} gefunden.`
      : usZip
        ? `Keine US-Postleitzahl (ZIP) „${code}“ gefunden. Für eine Postleitzahl in einem anderen Land ergänze nach einem Komma das Länderkürzel, etwa \`10117, DE\`.`
        : `Kein Ort mit der Postleitzahl „${code}“ gefunden. Ergänze nach einem Komma das Länderkürzel, etwa \`10117, DE\`.`,
  blankPlace:
    'Der Ort ist leer: Gib einen Ortsnamen, eine Postleitzahl oder Koordinaten ein, oder wähle einen Vorschlag.',
  noPlace:
    'Welcher Ort? Gib einen mit der Option `ort` an oder speichere deinen mit `/wetter zuhause festlegen`, dann kannst du ihn weglassen.',
  invalidDate: (field, typed) =>
    `„${typed}“ kann ich für \`${field}\` nicht als Datum lesen. Schreibe es als 01.03.2025 oder 01.03.2025 14:00 (oder 2025-03-01 14:00).`,
  noSuchCalendarDay: (day, month) => `Den ${day}. ${monthName('de', month)} gibt es nicht.`,
  dayNotInMonth: (day, month, monthOption) =>
    `Der ${monthName('de', month)} hat keinen ${day}.: Wähle einen Monat mit \`${monthOption}\`.`,
  noSuchDate: (day, month, year) => `Den ${twoDigits(day)}.${twoDigits(month)}.${year} gibt es nicht.`,
  noSuchMonth: (month) => `Einen Monat ${month} gibt es nicht: Ein Jahr hat 12.`,
  noSuchTime: (time) => `Die Uhrzeit ${time} gibt es nicht: Ein Tag geht von 00:00 bis 23:59.`,
  beforeRecords: (typed, field) =>
    `„${typed}“ liegt vor dem Beginn der Aufzeichnungen des Wetterdienstes (01.01.1970): Wähle für \`${field}\` ein späteres Datum.`,
  rangeFuture: 'Dieser Zeitraum liegt in der Zukunft; Verlauf und Summen gibt es nur für die Vergangenheit.',
  rangeUtcFuture:
    'Summen zählen ganze Tage in UTC, und dort hat dein erster Tag noch nicht begonnen. Versuche einen Zeitraum, der einen Tag früher beginnt.',
  rangeOrder: 'Das Ende liegt vor dem Beginn.',
  rangeTooLongHours: (limit) =>
    `Das ist zu lang: Der Verlauf umfasst höchstens eine Woche auf einmal (${limit} Stunden, etwa Montag 00:00 bis Sonntag 23:00).`,
  rangeTooLongDays: (limit) => `Das ist zu lang: höchstens ${limit} Tage auf einmal.`,
  endAndHours: 'Gib Beginn und Ende an oder eines von beiden mit `stunden`, nicht alle drei.',
  notInPlan: (product) =>
    `Der Wettertarif dieses Bots umfasst ${product} nicht. Der Betreiber des Bots kann das Abonnement beim Wetterdienst erweitern.`,
  products: {
    current: 'das aktuelle Wetter',
    hourly: 'die stündliche Vorhersage',
    daily: 'die Tagesvorhersage',
    history: 'historische Daten',
    statistics: 'Klimastatistiken',
    accumulated: 'Summenwerte',
  },
  keyRejected:
    'Der Wetterdienst akzeptiert den Schlüssel dieses Bots nicht. Bitte sag dem Betreiber des Bots Bescheid.',
  rateLimited: (wait) =>
    `Der Wetterdienst bekommt gerade zu viele Anfragen. Bitte versuche es ${wait === undefined ? 'etwas später' : `in ${wait}`} noch einmal.`,
  unavailable: 'Der Wetterdienst antwortet gerade nicht. Bitte versuche es in einer Minute noch einmal.',
  unreadable:
    'Der Wetterdienst hat eine Antwort geschickt, die der Bot nicht lesen kann. Bitte versuche es in einer Minute noch einmal; wenn es so bleibt, sag dem Betreiber des Bots Bescheid.',
  refused:
    'Der Wetterdienst hat diese Anfrage abgelehnt. Prüfe den Ort und den Zeitraum, falls du einen angegeben hast, und versuche es dann noch einmal.',
  invalidRequest:
    'Aus deinen Angaben konnte der Bot keine Wetteranfrage machen. Prüfe den Ort und den Zeitraum, falls du einen angegeben hast, und versuche es dann noch einmal.',
  noData:
    'Der Wetterdienst hat für diesen Ort und Zeitraum keine Daten. Versuche einen anderen Ort oder einen anderen Zeitraum.',
  manageServerNeeded: 'Nur Mitglieder, die diesen Server verwalten dürfen, können seinen Standardort ändern.',
  serverOnly: 'Das geht nur auf einem Server.',
  scheduleAlreadyPaused: (id) =>
    `Der geplante Post „${id}“ ist bereits pausiert: Es wurde nichts geändert. \`/wetter zeitplan fortsetzen\` setzt ihn fort.`,
  scheduleNotPaused: (id) => `Der geplante Post „${id}“ ist nicht pausiert: Es wurde nichts geändert.`,

  compass: [
    'N',
    'NNO',
    'NO',
    'ONO',
    'O',
    'OSO',
    'SO',
    'SSO',
    'S',
    'SSW',
    'SW',
    'WSW',
    'W',
    'WNW',
    'NW',
    'NNW',
  ],
  conditionGroups: {
    Thunderstorm: 'Gewitter',
    Drizzle: 'Nieselregen',
    Rain: 'Regen',
    Snow: 'Schnee',
    Mist: 'Dunst',
    Smoke: 'Rauch',
    Haze: 'Trübung',
    Dust: 'Staub',
    Fog: 'Nebel',
    Sand: 'Sand',
    Ash: 'Vulkanasche',
    Squall: 'Sturmböen',
    Tornado: 'Tornado',
    Clear: 'Klar',
    Clouds: 'Wolken',
  },
  chart: {
    temperature: 'Temperatur',
    chanceOfPrecipitation: 'Niederschlagswahrscheinlichkeit',
    precipitation: 'Niederschlag',
    high: 'Höchstwert',
    low: 'Tiefstwert',
    range: 'Spanne',
    localTime: 'Ortszeit',
  },
};

const CATALOGUES: Readonly<Record<Lang, WeatherMessages>> = { en, de };

export function weatherMessages(lang: Lang): WeatherMessages {
  return CATALOGUES[lang];
}
