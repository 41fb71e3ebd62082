import type { ButtonHandler } from '../../bot/types.js';

/** Buttons of the weather replies, by custom-id prefix. */
export const weatherButtons: readonly ButtonHandler[] = [];
