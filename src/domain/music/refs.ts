/** Reading lists of albums, artists and playlist items as members paste them. */
import { parseMusicRef, type MusicClient, type MusicRefType } from '../../services/music/index.js';
import { MusicInputError, shorten } from './errors.js';

/** Links, `service:<type>:<id>` URIs and ids, separated by spaces, commas or new lines. */
export function splitRefs(text: string): string[] {
  return text.split(/[\s,]+/).filter((part) => part !== '');
}

export interface ParsedRefs {
  /** Ids in the order given, without repeats. */
  ids: string[];
  /** Inputs that are not a reference of the expected type. */
  invalid: string[];
}

export function parseRefList(text: string, type: MusicRefType): ParsedRefs {
  const ids: string[] = [];
  const invalid: string[] = [];
  for (const part of splitRefs(text)) {
    const id = parseMusicRef(part, type);
    if (id === undefined) invalid.push(part);
    else if (!ids.includes(id)) ids.push(id);
  }
  return { ids, invalid };
}

/** One reference, or a `MusicInputError` naming what was expected. */
export function requireRef(text: string, type: MusicRefType): string {
  const id = parseMusicRef(text, type);
  if (id === undefined) {
    throw new MusicInputError(
      `That is not ${articleFor(type)} link, URI or id: \`${shorten(text)}\`.${shortLinkHint([text])}`,
    );
  }
  return id;
}

/**
 * For a short share link (the app's share sheet gives `https://<name>.link/…`, which only redirects):
 * the bot reads the full `https://open.…/<type>/<id>` links, and does not follow redirects to find one.
 */
export function shortLinkHint(parts: readonly string[]): string {
  const short = parts.some((part) => {
    try {
      const url = new URL(part.trim());
      return /^https?:$/.test(url.protocol) && url.hostname.endsWith('.link');
    } catch {
      return false;
    }
  });
  return short ? ' A short share link must be opened first: copy the full link it leads to.' : '';
}

export interface ParsedItems {
  /** Track and episode URIs in the order given; repeats are kept (a playlist may hold one twice). */
  uris: string[];
  invalid: string[];
}

/**
 * Tracks and episodes for a playlist; a bare id is taken as a track. URIs are written with the
 * service's own scheme (`uri`, the music client's), whatever scheme a pasted URI came with.
 */
export function parseItemRefs(text: string, uri: MusicClient['uri']): ParsedItems {
  const uris: string[] = [];
  const invalid: string[] = [];
  for (const part of splitRefs(text)) {
    const track = parseMusicRef(part, 'track');
    const episode = track === undefined ? parseMusicRef(part, 'episode') : undefined;
    if (track !== undefined) uris.push(uri('track', track));
    else if (episode !== undefined) uris.push(uri('episode', episode));
    else invalid.push(part);
  }
  return { uris, invalid };
}

/** Refuses a list with unreadable parts, naming a few of them. */
export function requireAllValid(invalid: readonly string[], what: string): void {
  if (invalid.length === 0) return;
  const shown = invalid
    .slice(0, 3)
    .map((part) => `\`${shorten(part)}\``)
    .join(', ');
  const more = invalid.length > 3 ? ` and ${invalid.length - 3} more` : '';
  throw new MusicInputError(
    `These are not ${what} links, URIs or ids: ${shown}${more}.${shortLinkHint(invalid)}`,
  );
}

function articleFor(type: MusicRefType): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
