import type { Linking } from '../auth/linking.js';
import type { Logger } from '../logger.js';
import type { MusicClient } from '../services/music/index.js';
import type { Scheduler, UnpostedRun } from '../services/schedules/runner.js';
import type { ScheduleStore } from '../services/schedules/store.js';
import type { Schedule } from '../services/schedules/types.js';
import type { WeatherClient } from '../services/weather/index.js';
import type { Storage } from '../storage/index.js';
import type { Command, Feature } from './types.js';

/** What handlers get besides the interaction: services, storage and the logger, built in index.ts. */
export interface BotContext {
  logger: Logger;
  storage: Storage;
  /**
   * The bot's clock (epoch ms): `Date.now` except in the offline demo, whose time control moves it.
   * Commands read the time through it, so "next post in…" and date ranges agree with the schedules.
   */
  now: () => number;
  /** Which optional services are configured. */
  features: Readonly<Record<Feature, boolean>>;
  /** Every registered command, for /help. */
  commands: readonly Command[];
  /** Most scheduled posts one server may have. */
  scheduleLimit?: number;
  /** Present when the music service is configured. */
  music?: MusicServices | undefined;
  /** Present when the weather service is configured. */
  weather?: WeatherServices | undefined;
}

export interface WeatherServices {
  client: WeatherClient;
  /** The service's website, for condition icons: `${siteUrl}/img/wn/${icon}@2x.png`. */
  siteUrl: string;
  schedules: ScheduleServices;
}

export interface ScheduleServices {
  store: ScheduleStore;
  /** Told about every change, so posts follow it (local timer or BullMQ job schedulers). */
  scheduler: Pick<Scheduler, 'changed'>;
  /** Posts one schedule now, outside its slots (`/weather schedule test`). */
  postNow(schedule: Schedule): Promise<void>;
  /** Of these schedules, those whose latest run has not gone out, for the list (see `unpostedRuns`). */
  unposted(schedules: readonly Schedule[]): Promise<ReadonlyMap<string, UnpostedRun>>;
}

export interface MusicServices {
  client: MusicClient;
  linking: Linking;
}
