import type { Linking } from '../auth/linking.js';
import type { Logger } from '../logger.js';
import type { MusicClient } from '../services/music/index.js';
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
}

export interface MusicServices {
  client: MusicClient;
  linking: Linking;
}
