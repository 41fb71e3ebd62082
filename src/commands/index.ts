import type { ButtonHandler, Command } from '../bot/types.js';
import help from './help.js';
import { musicButtons } from './music/buttons.js';
import music from './music/index.js';
import { weatherButtons } from './weather/buttons.js';
import weather from './weather/index.js';

/** The static registry: used at run time and by `npm run register`. */
export const commands: readonly Command[] = [help, music, weather];

/** Button handlers, by `custom_id` prefix. */
export const buttons: readonly ButtonHandler[] = [...musicButtons, ...weatherButtons];
