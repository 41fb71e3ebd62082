/**
 * Small pieces many process-level tests and benchmarks share: the settings that point the bot at
 * a weather emulator, and a daily scheduled post due at a given time.
 */
import type { WeatherEmulator } from '../../emulators/weather/index.js';
import type { Schedule } from '../../src/services/schedules/types.js';

/** `WEATHER_*` settings for the bot, pointing at `weather` with `key`. */
export function weatherEnv(
  weather: Pick<WeatherEmulator, 'apiUrl' | 'proUrl' | 'historyUrl' | 'bulkUrl'>,
  key: string,
): Record<string, string> {
  return {
    WEATHER_API_KEY: key,
    WEATHER_API_URL: weather.apiUrl,
    WEATHER_PRO_URL: weather.proUrl,
    WEATHER_HISTORY_URL: weather.historyUrl,
    WEATHER_BULK_URL: weather.bulkUrl,
  };
}

/**
 * A daily post of the current weather at `time` (UTC), in English and metric units, made an hour
 * ago so that the slot due now counts.
 */
export function dailyPost(where: {
  guildId: string;
  channelId: string;
  place: Schedule['place'];
  time: string;
  createdBy?: string;
}): Omit<Schedule, 'id'> {
  return {
    guildId: where.guildId,
    channelId: where.channelId,
    place: where.place,
    time: where.time,
    timezone: 'UTC',
    days: [],
    kind: 'current',
    units: 'metric',
    lang: 'en',
    createdBy: where.createdBy ?? '1',
    createdAt: Date.now() - 3_600_000,
  };
}
