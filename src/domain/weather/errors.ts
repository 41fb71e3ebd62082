/**
 * What can go wrong in a weather request that the member can act on. Each carries data, not words:
 * the command layer turns it into a sentence in the member's language.
 */
import type { Place } from './places.js';

/** The products of the weather service, as the bot names them to members. */
export type WeatherProduct = 'current' | 'hourly' | 'daily' | 'history' | 'statistics' | 'accumulated';

/** Geocoding found nothing for what the member typed. */
export class PlaceNotFoundError extends Error {
  override readonly name = 'PlaceNotFoundError';
  constructor(
    readonly query: string,
    /** Near misses worth offering instead (for `Springfield, XX`: the Springfields). */
    readonly suggestions: readonly Place[],
  ) {
    super(`No place matches "${query}"`);
  }
}

/** Five digits, perhaps a hyphen and four more: the shape of a US ZIP code. */
const US_ZIP = /^\d{5}(?:-\d{4})?$/;

/** No place has this postal code in this country (`undefined`: none was given). */
export class PostalCodeNotFoundError extends Error {
  override readonly name = 'PostalCodeNotFoundError';
  /**
   * Looked for as a US ZIP code, as the service reads a code without a country. A code of another
   * shape (`SW1A 1AA`, `1010`) can be none, whatever the service did with it.
   */
  readonly usZip: boolean;
  constructor(
    readonly code: string,
    readonly country: string | undefined,
  ) {
    super(`No place has the postal code "${code}"${country ? ` in ${country}` : ''}`);
    this.usZip = country === undefined && US_ZIP.test(code);
  }
}

/** Typed as coordinates (two numbers), but not a point on Earth: `148.85, 2.35`. */
export class CoordinatesOffEarthError extends Error {
  override readonly name = 'CoordinatesOffEarthError';
  constructor(readonly text: string) {
    super(`"${text}" are not coordinates on Earth`);
  }
}

/** No `place` option and neither a home of the member nor a default of the server. */
export class NoPlaceError extends Error {
  override readonly name = 'NoPlaceError';
  constructor() {
    super('No place given and no home place saved');
  }
}

/** `date`: the month and day of `/weather stats`, given as two numbers. */
export type DateField = 'start' | 'end' | 'date';

/** A date the bot cannot read: written in none of the forms it knows. */
export class InvalidDateError extends Error {
  override readonly name = 'InvalidDateError';
  constructor(
    readonly field: Exclude<DateField, 'date'>,
    readonly text: string,
  ) {
    super(`Cannot read ${field} "${text}"`);
  }
}

/**
 * What a date written in a form the bot reads names, when no calendar has it: a day its month lacks
 * (`2026-11-31`, `2025-02-29`), a thirteenth month, a time no day has (`24:00`, `13 pm`); for
 * `/weather stats`, a day of a month in any year (31 April), the month typed or today's.
 */
export type MissingDate =
  | { kind: 'date'; year: number; month: number; day: number }
  | { kind: 'calendar-day'; month: number; day: number; monthGiven: boolean }
  | { kind: 'month'; month: number }
  | { kind: 'time'; time: string };

/** A date the bot can read that names a day or a time that does not exist. */
export class NoSuchDateError extends Error {
  override readonly name = 'NoSuchDateError';
  constructor(
    readonly field: DateField,
    readonly missing: MissingDate,
  ) {
    super(`No such ${missing.kind} for ${field}: ${JSON.stringify(missing)}`);
  }
}

/**
 * A readable date before the weather service's records begin: 1970-01-01, Unix time 0, below which
 * the client refuses to ask at all.
 */
export class DateBeforeRecordsError extends Error {
  override readonly name = 'DateBeforeRecordsError';
  constructor(
    readonly field: 'start' | 'end',
    readonly text: string,
  ) {
    super(`The ${field} "${text}" is before the weather service's records begin`);
  }
}

/**
 * `utc-future`: a first day after today in UTC that may be today where the member is (east of UTC),
 * for products that count whole UTC days.
 */
export type RangeProblem = 'future' | 'utc-future' | 'order' | 'too-long' | 'end-and-hours';

/** Dates that are readable but do not make a range the service can answer. */
export class InvalidRangeError extends Error {
  override readonly name = 'InvalidRangeError';
  constructor(
    readonly problem: RangeProblem,
    /** For `too-long`: the longest range the product answers. */
    readonly limit?: { max: number; unit: 'hours' | 'days' },
  ) {
    super(`Invalid range: ${problem}${limit === undefined ? '' : ` (at most ${limit.max} ${limit.unit})`}`);
  }
}

/** The service refused the bot's key for a product: its plan does not include it. */
export class ProductNotInPlanError extends Error {
  override readonly name = 'ProductNotInPlanError';
  constructor(
    readonly product: WeatherProduct,
    options?: ErrorOptions,
  ) {
    super(`The weather plan does not include the ${product} product`, options);
  }
}

/** The service refused the bot's key for a product every plan has: the key itself is wrong. */
export class WeatherKeyRejectedError extends Error {
  override readonly name = 'WeatherKeyRejectedError';
  constructor(options?: ErrorOptions) {
    super('The weather service does not accept the configured key', options);
  }
}
