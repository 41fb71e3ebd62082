import type { Logger } from '../logger.js';
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
}
