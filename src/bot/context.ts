import type { Linking } from '../auth/linking.js';
import type { Logger } from '../logger.js';
import type { MusicClient } from '../services/music/index.js';
import type { WeatherClient } from '../services/weather/index.js';
import type { Storage } from '../storage/index.js';
import type { Command, Feature } from './types.js';

/** What handlers get besides the interaction: services, storage and the logger, built in index.ts. */
export interface BotContext {
  logger: Logger;
  storage: Storage;
  /** Which optional services are configured. */
  features: Readonly<Record<Feature, boolean>>;
  /** Every registered command, for /help. */
  commands: readonly Command[];
  /** Present when the music service is configured. */
  music?: MusicServices | undefined;
  /** Present when the weather service is configured. */
  weather?: WeatherServices | undefined;
}

export interface WeatherServices {
  client: WeatherClient;
  /** The service's website, for condition icons: `${siteUrl}/img/wn/${icon}@2x.png`. */
  siteUrl: string;
}

export interface MusicServices {
  client: MusicClient;
  linking: Linking;
}
