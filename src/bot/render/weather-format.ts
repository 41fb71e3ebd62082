/**
 * How weather values read in a reply: converted from standard units (K, m/s) to the member's, always
 * with their unit, numbers and dates in the member's language, times local to the place.
 */
import {
  fromKelvin,
  fromMetresPerSecond,
  kelvinDifference,
  millimetresIn,
  precipitationSymbol,
  pressureReading,
  speedSymbol,
  temperatureSymbol,
  visibilityDistance,
  type WeatherUnits,
} from '../../domain/weather/units.js';
import type { Condition } from '../../services/weather/index.js';
import { formatLocaleOf, langOf, type Lang } from '../i18n/index.js';
import { weatherMessages, type WeatherMessages } from '../i18n/weather.js';
import { truncate as fit } from './text.js';

export interface WeatherRenderOptions {
  units: WeatherUnits;
  /** The Discord locale of the member (`interaction.locale`): picks the language and number format. */
  locale: string;
  /** The weather service's website, for condition icons. */
  siteUrl?: string | undefined;
  /**
   * Set for a scheduled post: its footer names the schedule, whose units its owner chose, rather
   * than telling the channel to change their own units (which would not change the post).
   */
  scheduleId?: string | undefined;
}

export interface WeatherFormat {
  lang: Lang;
  t: WeatherMessages;
  units: WeatherUnits;
  /** The footer of every weather embed: the units, and where they come from. */
  footer: string;
  number(value: number, digits?: number): string;
  /** A temperature given in Kelvin. */
  temperature(kelvin: number, digits?: number): string;
  /** A temperature difference given in Kelvin (a spread, a sum of degrees). */
  temperatureDifference(kelvin: number, digits?: number, suffix?: string): string;
  /** A speed given in m/s. */
  speed(metresPerSecond: number): string;
  /** A share from 0 to 100. */
  percent(value: number): string;
  /** A probability from 0 to 1. */
  probability(value: number): string;
  /** Rain and snow, given in mm: mm, or inches for imperial; `< 0.1 mm` for a trace. */
  precipitation(millimetres: number): string;
  pressure(hectopascals: number): string;
  visibility(metres: number): string;
  compass(degrees: number): string;
  /** `14:00`, local to a place `tz` seconds east of UTC. */
  time(unix: number, tz: number): string;
  /** `Tue 14:00`. */
  weekdayTime(unix: number, tz: number): string;
  /** `Sat, Mar 1, 2025 00:00`: a moment that may be any day, years back (history's ends). */
  dateTime(unix: number, tz: number): string;
  /** `Tue 24`: short, for chart axes. */
  dayLabel(unix: number, tz: number): string;
  /** `Tue, Nov 24`. */
  dayHeading(unix: number, tz: number): string;
  /** `Nov 24, 2025`, of a UTC instant. */
  date(unix: number): string;
  /** `November 24`, of a calendar day of no particular year. */
  calendarDay(month: number, day: number): string;
  /** `UTC+1`, `UTC−3:30`. */
  utcOffset(tz: number): string;
  /** The service's description, capitalised: `Broken clouds`. */
  describe(condition: Condition | undefined): string;
  /** The condition group (`Rain`) in the member's language. */
  group(main: string): string;
}

export { fit };

/**
 * Between a value and its unit: a no-break space, so that a narrow inline field wraps between
 * values (`Day 61 °F · Night` / `55 °F`), never between a number and its unit.
 */
export const UNIT_SPACE = '\u00a0';

/** The most the service reports as visibility, in metres (its spec: "maximum 10000"). */
const VISIBILITY_CAP_METRES = 10_000;

const withUnit = (value: string, unit: string) => `${value}${UNIT_SPACE}${unit}`;

/** Condition descriptions are a few words; anything longer is cut. */
const DESCRIPTION_MAX = 80;

/** Rounds and removes the minus of a negative zero, so nothing reads `-0 °C`. */
function rounded(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor + 0;
}

/** Formatting for one reply. */
export function weatherFormat(options: WeatherRenderOptions): WeatherFormat {
  const lang = langOf(options.locale);
  const t = weatherMessages(lang);
  const locale = formatLocaleOf(options.locale);
  const { units } = options;
  const numbers = new Map<number, Intl.NumberFormat>();
  /** `fixed`: every digit shown, trailing zeros too (a barometer's 29.80 inHg, not 29.8). */
  const number = (value: number, digits = 1, fixed = false) => {
    const key = fixed ? -1 - digits : digits;
    let format = numbers.get(key);
    if (!format) {
      format = new Intl.NumberFormat(locale, {
        maximumFractionDigits: digits,
        ...(fixed ? { minimumFractionDigits: digits } : {}),
        useGrouping: 'min2',
      });
      numbers.set(key, format);
    }
    return format.format(rounded(value, digits));
  };
  const percentFormat = new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 0 });
  const utc = (options: Intl.DateTimeFormatOptions) =>
    new Intl.DateTimeFormat(locale, { ...options, timeZone: 'UTC' });
  const timeFormat = utc({ hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  const weekdayFormat = utc({ weekday: 'short' });
  const dayNumberFormat = utc({ day: 'numeric' });
  const headingFormat = utc({ weekday: 'short', day: 'numeric', month: 'short' });
  const dateFormat = utc({ day: 'numeric', month: 'short', year: 'numeric' });
  const dateTimeFormat = utc({ weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' });
  const calendarFormat = utc({ day: 'numeric', month: 'long' });
  const shifted = (unix: number, tz: number) => new Date((unix + tz) * 1000);
  const temperatureUnit = temperatureSymbol(units);

  const unitsName = t.unitNames[units];
  return {
    lang,
    t,
    units,
    footer:
      options.scheduleId === undefined
        ? t.unitsFooter(unitsName)
        : t.scheduledFooter(options.scheduleId, unitsName),
    number,
    temperature: (kelvin, digits = 1) => withUnit(number(fromKelvin(kelvin, units), digits), temperatureUnit),
    temperatureDifference: (kelvin, digits = 1, suffix = '') =>
      withUnit(number(kelvinDifference(kelvin, units), digits), `${temperatureUnit}${suffix}`),
    speed: (metresPerSecond) =>
      withUnit(number(fromMetresPerSecond(metresPerSecond, units), 1), speedSymbol(units)),
    percent: (value) => percentFormat.format(rounded(value, 0) / 100),
    probability: (value) => percentFormat.format(rounded(value * 100, 0) / 100),
    precipitation: (millimetres) => {
      const unit = precipitationSymbol(units);
      const digits = unit === 'in' ? 2 : 1;
      const amount = millimetresIn(millimetres, unit);
      // A drizzle too light to show at this precision is not "0": say it is below the least shown.
      const trace = amount > 0 && rounded(amount, digits) === 0;
      const shown = trace ? `<${UNIT_SPACE}${number(10 ** -digits, digits)}` : number(amount, digits);
      return withUnit(shown, unit);
    },
    pressure: (hectopascals) => {
      const reading = pressureReading(hectopascals, units);
      // Inches of mercury are read to the hundredth, always written so (29.80, as barometers show).
      const inches = reading.unit === 'inHg';
      return withUnit(number(reading.value, inches ? 2 : 0, inches), reading.unit);
    },
    visibility: (metres) => {
      // The service's visibility stops at 10 km: that reading is "10 km or more", not a limit.
      const capped = metres >= VISIBILITY_CAP_METRES;
      const distance = visibilityDistance(Math.min(metres, VISIBILITY_CAP_METRES), units);
      const at = capped ? `≥${UNIT_SPACE}` : '';
      // Fog: metres under a kilometre (40 m, not 0 km); under a tenth of a mile, said so (not 0 mi).
      const tens = Math.round(metres / 10) * 10;
      if (!capped && distance.unit === 'km' && tens < 1000)
        return tens === 0 ? withUnit(`<${UNIT_SPACE}${number(10, 0)}`, 'm') : withUnit(number(tens, 0), 'm');
      const digits = distance.value < 10 ? 1 : 0;
      if (metres > 0 && rounded(distance.value, digits) === 0)
        return withUnit(`<${UNIT_SPACE}${number(0.1, 1)}`, distance.unit);
      return withUnit(`${at}${number(distance.value, digits)}`, distance.unit);
    },
    compass: (degrees) => t.compass[Math.round((((degrees % 360) + 360) % 360) / 22.5) % 16] ?? '',
    time: (unix, tz) => timeFormat.format(shifted(unix, tz)),
    weekdayTime: (unix, tz) =>
      `${weekdayFormat.format(shifted(unix, tz))} ${timeFormat.format(shifted(unix, tz))}`,
    dateTime: (unix, tz) =>
      `${dateTimeFormat.format(shifted(unix, tz))} ${timeFormat.format(shifted(unix, tz))}`,
    dayLabel: (unix, tz) =>
      `${weekdayFormat.format(shifted(unix, tz))} ${dayNumberFormat.format(shifted(unix, tz))}`,
    dayHeading: (unix, tz) => headingFormat.format(shifted(unix, tz)),
    date: (unix) => dateFormat.format(new Date(unix * 1000)),
    calendarDay: (month, day) => calendarFormat.format(new Date(Date.UTC(2024, month - 1, day))),
    utcOffset: (tz) => {
      const sign = tz < 0 ? '−' : '+';
      const minutes = Math.round(Math.abs(tz) / 60);
      const rest = minutes % 60;
      return `UTC${sign}${Math.floor(minutes / 60)}${rest === 0 ? '' : `:${String(rest).padStart(2, '0')}`}`;
    },
    describe: (condition) => {
      const text = fit(condition?.description.trim() ?? '', DESCRIPTION_MAX);
      return text === '' ? '—' : text.charAt(0).toLocaleUpperCase(locale) + text.slice(1);
    },
    group: (main) => t.conditionGroups[main] ?? main,
  };
}

/** An emoji for a condition id (and day or night, from the icon's `d`/`n`). */
export function conditionEmoji(condition: Condition | undefined): string {
  if (!condition) return '🌡️';
  const { id } = condition;
  const night = condition.icon?.endsWith('n') ?? false;
  if (id >= 200 && id < 300) return '⛈️';
  if (id >= 300 && id < 400) return '🌦️';
  if (id === 511) return '🧊';
  if (id >= 500 && id < 600) return '🌧️';
  if (id >= 600 && id < 700) return '🌨️';
  if (id === 781) return '🌪️';
  if (id >= 700 && id < 800) return '🌫️';
  if (id === 800) return night ? '🌙' : '☀️';
  if (id === 801) return night ? '🌙' : '🌤️';
  if (id === 802) return '⛅';
  return '☁️';
}
