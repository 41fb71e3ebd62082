/**
 * Unit systems and conversions. The bot asks the service for standard units (K, m/s) and converts
 * here, so every product (history, statistics and accumulated values come in Kelvin whatever is
 * asked) goes through the same arithmetic, and one cached answer serves every unit system.
 */
import type { WeatherUnits } from '../../services/weather/index.js';

export type { WeatherUnits };

const KELVIN = 273.15;
const METRES_PER_SECOND_PER_MPH = 0.447_04;
const METRES_PER_MILE = 1_609.344;
const MILLIMETRES_PER_INCH = 25.4;
/** Hectopascals in an inch of mercury (at 0 °C, standard gravity). */
const HECTOPASCALS_PER_INCH_OF_MERCURY = 33.863_886;

export type TemperatureSymbol = '°C' | '°F' | 'K';
export type SpeedSymbol = 'm/s' | 'mph';
export type PrecipitationSymbol = 'mm' | 'in';

/** Metric everywhere but for United States English, as the issue asks. */
export function defaultUnitsFor(locale: string | undefined): WeatherUnits {
  return locale === 'en-US' ? 'imperial' : 'metric';
}

export function temperatureSymbol(units: WeatherUnits): TemperatureSymbol {
  return units === 'imperial' ? '°F' : units === 'metric' ? '°C' : 'K';
}

export function speedSymbol(units: WeatherUnits): SpeedSymbol {
  return units === 'imperial' ? 'mph' : 'm/s';
}

export function fromKelvin(kelvin: number, units: WeatherUnits): number {
  if (units === 'standard') return kelvin;
  const celsius = kelvin - KELVIN;
  return units === 'metric' ? celsius : (celsius * 9) / 5 + 32;
}

export function toKelvin(value: number, units: WeatherUnits): number {
  if (units === 'standard') return value;
  return units === 'metric' ? value + KELVIN : ((value - 32) * 5) / 9 + KELVIN;
}

/** A temperature difference (a spread, a sum of degrees above a threshold): no offset, only the scale. */
export function kelvinDifference(delta: number, units: WeatherUnits): number {
  return units === 'imperial' ? (delta * 9) / 5 : delta;
}

export function fromMetresPerSecond(speed: number, units: WeatherUnits): number {
  return units === 'imperial' ? speed / METRES_PER_SECOND_PER_MPH : speed;
}

/** Visibility in km, or miles for imperial. */
export function visibilityDistance(
  metres: number,
  units: WeatherUnits,
): { value: number; unit: 'km' | 'mi' } {
  return units === 'imperial'
    ? { value: metres / METRES_PER_MILE, unit: 'mi' }
    : { value: metres / 1000, unit: 'km' };
}

/**
 * Rain and snow: the service gives millimetres whatever units are asked (its `units` parameter
 * changes temperatures and speeds only); for imperial the bot shows inches, as weather reports in
 * the United States do.
 */
export function precipitationSymbol(units: WeatherUnits): PrecipitationSymbol {
  return units === 'imperial' ? 'in' : 'mm';
}

/** An amount given in mm, in `symbol`'s unit. */
export function millimetresIn(millimetres: number, symbol: PrecipitationSymbol): number {
  return symbol === 'in' ? millimetres / MILLIMETRES_PER_INCH : millimetres;
}

/** Air pressure, given in hPa: inches of mercury for imperial, as US weather reports give it. */
export function pressureReading(
  hectopascals: number,
  units: WeatherUnits,
): { value: number; unit: 'hPa' | 'inHg' } {
  return units === 'imperial'
    ? { value: hectopascals / HECTOPASCALS_PER_INCH_OF_MERCURY, unit: 'inHg' }
    : { value: hectopascals, unit: 'hPa' };
}
