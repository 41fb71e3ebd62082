/**
 * Problems with a music request that the member can act on. Each carries `userMessage`, which the
 * bot shows as it is (see `describeForUser` in src/bot/errors.ts).
 */
import { quoteText, truncate } from '../text.js';

/** Base class: an expected problem, worded for the member. */
export class MusicProblem extends Error {
  override readonly name: string = 'MusicProblem';
  get userMessage(): string {
    return this.message;
  }
}

/** Something typed in an option is not what the command expects. */
export class MusicInputError extends MusicProblem {
  override readonly name: string = 'MusicInputError';
}

/** The member tried to change a playlist they neither own nor collaborate on. */
export class NotYourPlaylistError extends MusicProblem {
  override readonly name: string = 'NotYourPlaylistError';
  constructor(playlistName?: string) {
    super(
      `${playlistName === undefined ? 'That playlist' : `“${quoteText(playlistName)}”`} is not yours: ` +
        'you can only change playlists you own or collaborate on.',
    );
  }
}

/**
 * A playlist shown earlier that the member can no longer open (deleted, or no longer shared with
 * them): a page turn on its message cannot work again, so the message loses its buttons.
 */
export class PlaylistGoneError extends MusicProblem {
  override readonly name: string = 'PlaylistGoneError';
}

/** A confirmation no longer matches the playlist (it changed), or its pending state expired. */
export class StaleConfirmationError extends MusicProblem {
  override readonly name: string = 'StaleConfirmationError';
}

/**
 * The service refused what a confirmation asked for, and would refuse it the same way at every
 * press (an item it does not know): the confirmation cannot be made, as a stale one cannot.
 */
export class RefusedConfirmationError extends MusicProblem {
  override readonly name: string = 'RefusedConfirmationError';
}

/**
 * Member input quoted back inside a code span: short, and without backticks that would end the
 * span. Quoted anywhere else, text goes through `quoteText` (src/domain/text.ts), which escapes it.
 */
export function shorten(text: string, max = 60): string {
  return truncate(text.replace(/`/g, "'").replace(/\s+/g, ' '), max);
}
