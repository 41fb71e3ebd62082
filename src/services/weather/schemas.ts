/**
 * zod schemas of the weather service's answers (spec: weather-service-api.md §2; gaps filled from
 * upstream-facts.md). Tolerant by design: unknown fields are dropped, unknown condition ids pass,
 * `cod` may be a number or a string, and fields the service is known to omit now and then are optional.
 */
import { z } from 'zod';

/** `cod` comes as `200` or `"200"`, in errors and successes alike. */
export const codSchema = z.union([z.number(), z.string()]);

/** An element of a `weather` array. `id` is any integer: new condition codes must not break us. */
export const conditionSchema = z.object({
  id: z.number().int(),
  main: z.string(),
  description: z.string(),
  icon: z.string().optional(),
});

export const coordSchema = z.object({ lon: z.number(), lat: z.number() });

/** `rain` / `snow`: mm in the last hour or three. */
export const precipitationSchema = z.object({
  '1h': z.number().optional(),
  '3h': z.number().optional(),
});

/**
 * `rain` or `snow` as a report carries it: left out when nothing fell, and read as left out when it
 * comes as null or as `{}` with no amount, as real answers had it (`"rain":{}` on light rain, 2019).
 */
const precipitationField = precipitationSchema
  .nullish()
  .transform((amount) => (amount?.['1h'] === undefined && amount?.['3h'] === undefined ? undefined : amount))
  .optional();

export const mainSchema = z.object({
  temp: z.number(),
  feels_like: z.number().optional(),
  temp_min: z.number().optional(),
  temp_max: z.number().optional(),
  pressure: z.number(),
  humidity: z.number(),
  sea_level: z.number().optional(),
  grnd_level: z.number().optional(),
});

export const windSchema = z.object({
  speed: z.number(),
  deg: z.number().optional(),
  gust: z.number().optional(),
});

export const cloudsSchema = z.object({ all: z.number() });

/**
 * An optional block of a report, read as left out when it comes as null: the 5-day forecast has sent
 * `"wind": null` in some entries (June 2016: martykan/forecastie#100, csparpa/pyowm#111), and one
 * such entry must not make the whole forecast unreadable.
 */
function absentWhenNull<T extends z.ZodType>(schema: T) {
  return schema
    .nullish()
    .transform((value) => value ?? undefined)
    .optional();
}
const windField = absentWhenNull(windSchema);
const cloudsField = absentWhenNull(cloudsSchema);

const messageSchema = z.union([z.string(), z.number()]);

/** `GET {api_url}/data/2.5/weather`. */
export const currentWeatherSchema = z.object({
  coord: coordSchema,
  weather: z.array(conditionSchema),
  base: z.string().optional(),
  main: mainSchema,
  /** Metres, at most 10,000. */
  visibility: z.number().optional(),
  wind: windField,
  clouds: cloudsField,
  rain: precipitationField,
  snow: precipitationField,
  /**
   * Unix seconds, UTC. The real service always sends it; the contract's field list for current
   * weather leaves it out, so an answer without it is read, timed when it arrived (see the client).
   */
  dt: z.number().optional(),
  sys: z
    .object({
      country: z.string().optional(),
      sunrise: z.number().optional(),
      sunset: z.number().optional(),
    })
    .optional(),
  /** Shift from UTC in seconds. */
  timezone: z.number().optional(),
  id: z.number().optional(),
  name: z.string().optional(),
  cod: codSchema.optional(),
});

/** The `city` block of the hourly and 5-day/3-hour forecasts. */
export const forecastCitySchema = z.object({
  id: z.number().optional(),
  name: z.string().optional(),
  coord: coordSchema.partial().optional(),
  country: z.string().optional(),
  population: z.number().optional(),
  timezone: z.number().optional(),
  sunrise: z.number().optional(),
  sunset: z.number().optional(),
});

/** An entry of the hourly or the 5-day/3-hour forecast. */
export const forecastEntrySchema = z.object({
  dt: z.number(),
  main: mainSchema.extend({ temp_kf: z.number().optional() }),
  weather: z.array(conditionSchema),
  clouds: cloudsField,
  wind: windField,
  visibility: z.number().optional(),
  /** Probability of precipitation, 0 to 1. */
  pop: z.number().optional(),
  rain: precipitationField,
  snow: precipitationField,
  sys: z.object({ pod: z.string().optional() }).optional(),
  /** `YYYY-MM-DD HH:MM:SS`, UTC. */
  dt_txt: z.string().optional(),
});

/** `GET {pro_url}/data/2.5/forecast/hourly` and `GET {api_url}/data/2.5/forecast`. */
export const forecastSchema = z.object({
  cod: codSchema.optional(),
  message: messageSchema.optional(),
  /** The entries' count; the bot reads `list.length`, so an answer without it still reads. */
  cnt: z.number().int().optional(),
  list: z.array(forecastEntrySchema),
  city: forecastCitySchema.optional(),
});
export const hourlyForecastSchema = forecastSchema;
export const threeHourForecastSchema = forecastSchema;

const dayPartsSchema = z.object({ day: z.number(), night: z.number(), eve: z.number(), morn: z.number() });

/** An entry (one day) of the daily forecast. */
export const dailyEntrySchema = z.object({
  dt: z.number(),
  sunrise: z.number().optional(),
  sunset: z.number().optional(),
  temp: dayPartsSchema.extend({ min: z.number(), max: z.number() }),
  feels_like: dayPartsSchema.optional(),
  pressure: z.number().optional(),
  humidity: z.number().optional(),
  weather: z.array(conditionSchema),
  /** Maximum wind speed of the day. */
  speed: z.number().optional(),
  deg: z.number().optional(),
  gust: z.number().optional(),
  clouds: z.number().optional(),
  /** mm for the day. */
  rain: z.number().optional(),
  snow: z.number().optional(),
  pop: z.number().optional(),
});

/** `GET {api_url}/data/2.5/forecast/daily`. */
export const dailyForecastSchema = z.object({
  city: z
    .object({
      id: z.number().optional(),
      name: z.string().optional(),
      coord: coordSchema.partial().optional(),
      country: z.string().optional(),
      population: z.number().optional(),
      timezone: z.number().optional(),
    })
    .optional(),
  cod: codSchema.optional(),
  message: messageSchema.optional(),
  /** The entries' count; the bot reads `list.length`, so an answer without it still reads. */
  cnt: z.number().int().optional(),
  list: z.array(dailyEntrySchema),
});

/** An element of the direct and reverse geocoding answers. */
export const geocodingLocationSchema = z.object({
  name: z.string(),
  local_names: z.record(z.string(), z.string()).optional(),
  lat: z.number(),
  lon: z.number(),
  // Always sent in the answers seen; optional so that one place without it does not lose the whole list.
  country: z.string().optional(),
  state: z.string().optional(),
});
export const geocodingSchema = z.array(geocodingLocationSchema);

/** The zip-code geocoding answer: one place, `{zip, name, lat, lon, country}` (upstream-facts). */
export const zipLocationSchema = z.object({
  zip: z.string(),
  name: z.string(),
  lat: z.number(),
  lon: z.number(),
  country: z.string().optional(),
});

/** An entry of the hourly history. */
export const historyEntrySchema = z.object({
  dt: z.number(),
  main: mainSchema,
  wind: windField,
  clouds: cloudsField,
  rain: precipitationField,
  snow: precipitationField,
  weather: z.array(conditionSchema),
});

/** `GET {history_url}/data/2.5/history/city?type=hour`. */
export const hourlyHistorySchema = z.object({
  message: messageSchema.optional(),
  cod: codSchema.optional(),
  city_id: z.number().optional(),
  calctime: z.number().optional(),
  /** The entries' count; the bot reads `list.length`, so an answer without it still reads. */
  cnt: z.number().int().optional(),
  list: z.array(historyEntrySchema),
});

const statisticsSchema = z.object({
  min: z.number(),
  max: z.number(),
  median: z.number(),
  mean: z.number(),
  p25: z.number(),
  p75: z.number(),
  st_dev: z.number(),
  num: z.number(),
});

/** One calendar day of the yearly statistics. Temperatures in Kelvin, whatever the units elsewhere. */
export const dayStatisticsSchema = z.object({
  month: z.number().int().min(1).max(12),
  day: z.number().int().min(1).max(31),
  temp: z.object({
    record_min: z.number(),
    record_max: z.number(),
    average_min: z.number(),
    average_max: z.number(),
    median: z.number(),
    mean: z.number(),
    p25: z.number(),
    p75: z.number(),
    st_dev: z.number(),
    num: z.number(),
  }),
  // Optional: the spec leaves some of their units "not shown", and one quantity missing on a day
  // should cost that line of the answer, not the answer.
  pressure: statisticsSchema.optional(),
  humidity: statisticsSchema.optional(),
  wind: statisticsSchema.optional(),
  precipitation: statisticsSchema.optional(),
  clouds: statisticsSchema.optional(),
});

/** `GET {history_url}/data/2.5/aggregated/year`. */
export const yearlyStatisticsSchema = z.object({
  cod: codSchema.optional(),
  city_id: z.number().optional(),
  calctime: z.number().optional(),
  /** The days that could be read: one malformed day of 366 leaves the others usable. */
  result: z.array(z.unknown()).transform((days) =>
    days.flatMap((day) => {
      const read = dayStatisticsSchema.safeParse(day);
      return read.success ? [read.data] : [];
    }),
  ),
});

/**
 * The outer container of accumulated records is not documented (the official sample shows bare
 * `{date, …, count}` items). A bare array is expected; `{list}` and `{result}` wrappers are accepted too.
 */
function accumulated<T extends z.ZodType>(record: T) {
  return z
    .union([z.array(record), z.object({ list: z.array(record) }), z.object({ result: z.array(record) })])
    .transform((value): Array<z.output<T>> =>
      Array.isArray(value) ? value : 'list' in value ? value.list : value.result,
    );
}

/**
 * The day of a running total: `2020-4-17` in the official sample; a Unix time is read too, since the
 * format is shown once only and the bot never reads it (the last record is the period's total).
 */
const accumulatedDateSchema = z.union([z.string(), z.number()]);

/** A running total up to `date` (`2020-4-17`): Kelvin degrees summed over `count` measurements. */
export const accumulatedTemperatureRecordSchema = z.object({
  date: accumulatedDateSchema,
  temp: z.number(),
  count: z.number().int(),
});
export const accumulatedTemperatureSchema = accumulated(accumulatedTemperatureRecordSchema);

/** A running total up to `date`: mm of precipitation over `count` measurements. */
export const accumulatedPrecipitationRecordSchema = z.object({
  date: accumulatedDateSchema,
  rain: z.number(),
  count: z.number().int(),
});
export const accumulatedPrecipitationSchema = accumulated(accumulatedPrecipitationRecordSchema);

/**
 * A line of a JSON bulk file (shape from an old third-party sample; unconfirmed): one location's
 * current weather, in standard units.
 */
export const bulkJsonRecordSchema = z.object({
  city: z.object({
    id: z.number(),
    name: z.string(),
    findname: z.string().optional(),
    country: z.string().optional(),
    coord: coordSchema,
    zoom: z.number().optional(),
    langs: z.union([z.array(z.record(z.string(), z.string())), z.record(z.string(), z.string())]).optional(),
  }),
  time: z.number(),
  main: z.object({
    temp: z.number(),
    pressure: z.number().optional(),
    humidity: z.number().optional(),
    temp_min: z.number().optional(),
    temp_max: z.number().optional(),
  }),
  wind: z.object({ speed: z.number(), deg: z.number().optional() }).optional(),
  clouds: cloudsField,
  weather: z.array(conditionSchema),
  rain: precipitationField,
  snow: precipitationField,
});

/** The error body: `{cod, message}`. */
export const errorBodySchema = z.object({ cod: codSchema.optional(), message: z.string() });

export type Condition = z.output<typeof conditionSchema>;
/** Current weather as the client gives it: `dt` is always there (see `currentWeatherSchema`). */
export type CurrentWeather = Omit<z.output<typeof currentWeatherSchema>, 'dt'> & { dt: number };
export type ForecastEntry = z.output<typeof forecastEntrySchema>;
export type HourlyForecast = z.output<typeof hourlyForecastSchema>;
export type ThreeHourForecast = z.output<typeof threeHourForecastSchema>;
export type DailyForecastEntry = z.output<typeof dailyEntrySchema>;
export type DailyForecast = z.output<typeof dailyForecastSchema>;
export type GeocodingLocation = z.output<typeof geocodingLocationSchema>;
export type ZipLocation = z.output<typeof zipLocationSchema>;
export type HistoryEntry = z.output<typeof historyEntrySchema>;
export type HourlyHistory = z.output<typeof hourlyHistorySchema>;
export type DayStatistics = z.output<typeof dayStatisticsSchema>;
export type YearlyStatistics = z.output<typeof yearlyStatisticsSchema>;
export type AccumulatedTemperatureRecord = z.output<typeof accumulatedTemperatureRecordSchema>;
export type AccumulatedPrecipitationRecord = z.output<typeof accumulatedPrecipitationRecordSchema>;
export type BulkJsonRecord = z.output<typeof bulkJsonRecordSchema>;
/** A CSV bulk row, keyed by the file's header (the upstream columns are not documented). */
export type BulkCsvRecord = Readonly<Record<string, string>>;
