import type { ButtonHandler } from '../../bot/types.js';

/** Buttons of the music replies (player panel, album, playlist pages), by custom-id prefix. */
export const musicButtons: readonly ButtonHandler[] = [];
