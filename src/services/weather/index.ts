/**
 * The weather service: client, schemas, errors, cache settings and parameter tables.
 * Construct with {@link createWeatherClient} in the composition root and pass it in.
 */
export {
  createWeatherClient,
  describeWeatherError,
  type BulkOptions,
  type Coordinates,
  type PaidForecast,
  type Presentation,
  type WeatherClient,
  type WeatherClientOptions,
} from './client.js';
export { DEFAULT_CACHE_TTLS, type SharedLock, type WeatherCacheTtls } from './cache.js';
export { BULK_FILE_NAMES, type BulkCsvFileName, type BulkJsonFileName } from './bulk.js';
export {
  BulkFormatError,
  RateLimitError,
  WeatherApiError,
  WeatherBadRequestError,
  WeatherForbiddenError,
  WeatherInvalidKeyError,
  WeatherNotFoundError,
  WeatherParameterError,
} from './errors.js';
export {
  isWeatherLang,
  WEATHER_LANGS,
  WEATHER_LIMITS,
  WEATHER_UNITS,
  type WeatherLang,
  type WeatherUnits,
} from './params.js';
export * from './schemas.js';
