/** Reading lists of albums, artists and playlist items as members paste them. */
import { parseMusicRef, unwrapRef, type MusicClient, type MusicRefType } from '../../services/music/index.js';
import { joinList, withArticle } from '../text.js';
import { MusicInputError, shorten } from './errors.js';

/**
 * Links, `service:<type>:<id>` URIs and ids, separated by spaces, commas or new lines. A part that
 * is only punctuation or brackets (the `;` of `<link> ; <link>`) is no entry.
 */
export function splitRefs(text: string): string[] {
  return text.split(/[\s,]+/).filter((part) => unwrapRef(part) !== '');
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

/** One reference, or a `MusicInputError` naming what was expected (and what was given, if known). */
export function requireRef(text: string, type: MusicRefType): string {
  const id = parseMusicRef(text, type);
  if (id === undefined) {
    const given = otherKind(text, type);
    throw new MusicInputError(
      given === undefined
        ? `That is not ${articleFor(type)} link, URI or id: \`${shorten(text)}\`.${shortLinkHint([text])}`
        : `That points to ${articleFor(given)}, not ${articleFor(type)}: give ${articleFor(type)}’s link, URI or id.`,
    );
  }
  return id;
}

const KINDS: readonly MusicRefType[] = ['album', 'artist', 'playlist', 'track', 'episode', 'show', 'user'];

/**
 * The kind of a link or URI of a kind other than `wanted` (an album's link given for a playlist),
 * which a message can name; undefined when it is not a link or URI the bot reads. A bare id says
 * nothing of its kind.
 */
export function otherKind(
  text: string,
  wanted: MusicRefType | readonly MusicRefType[],
): MusicRefType | undefined {
  const kinds: readonly MusicRefType[] = typeof wanted === 'string' ? [wanted] : wanted;
  if (kinds.some((kind) => parseMusicRef(text, kind) !== undefined)) return undefined;
  return KINDS.find((kind) => !kinds.includes(kind) && parseMusicRef(text, kind) !== undefined);
}

/** A URI of a file on the member's own device (`service:local:artist:album:title:seconds`). */
const LOCAL_FILE = /^[a-z][a-z0-9]*:local:/i;

/**
 * For a short share link (the app's share sheet gives `https://<name>.link/…`, which only redirects):
 * the bot reads the full `https://open.…/<type>/<id>` links, and does not follow redirects to find one.
 */
export function shortLinkHint(parts: readonly string[]): string {
  const short = parts.some((part) => {
    try {
      const url = new URL(unwrapRef(part));
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

/** What a list of references holds: albums, artists, or a playlist's items. */
export type RefListKind = 'album' | 'artist' | 'track or episode';

const LIST_TYPES: Record<RefListKind, readonly MusicRefType[]> = {
  album: ['album'],
  artist: ['artist'],
  'track or episode': ['track', 'episode'],
};

const PLURALS: Record<RefListKind | MusicRefType, string> = {
  album: 'albums',
  artist: 'artists',
  playlist: 'playlists',
  track: 'tracks',
  episode: 'episodes',
  show: 'shows',
  user: 'users',
  'track or episode': 'tracks or episodes',
};

/** What a playlist can take of an album, a playlist or a show: not the whole, but what it holds. */
const HELD: Partial<Record<MusicRefType, string>> = {
  album: 'tracks',
  playlist: 'tracks',
  show: 'episodes',
};

const codeList = (parts: readonly string[]) =>
  joinList(
    parts.map((part) => `\`${shorten(part)}\``),
    { max: 3 },
  );

/**
 * The sentence for links or URIs of another kind than the list takes (`given`): named, as
 * `requireRef` names one given alone; an album, playlist or show among a playlist's items is said
 * to go in by its tracks (episodes), not whole.
 */
function wrongKind(parts: readonly string[], given: MusicRefType, wanted: RefListKind): string {
  const one = parts.length === 1;
  const held = wanted === 'track or episode' ? HELD[given] : undefined;
  if (held !== undefined) {
    return (
      `${codeList(parts)} ${one ? `is ${withArticle(given)}` : `are ${PLURALS[given]}`}: ` +
      `${PLURALS[given]} cannot be added to a playlist whole. Give ${one ? 'its' : 'their'} ${held}’ links, URIs or ids.`
    );
  }
  return one
    ? `${codeList(parts)} points to ${withArticle(given)}, not ${withArticle(wanted)}.`
    : `${codeList(parts)} point to ${PLURALS[given]}, not ${PLURALS[wanted]}.`;
}

/**
 * Refuses a list with parts it cannot take, naming a few of them: those that are no reference at
 * all, and those that point to another kind of thing (an album's link among artists), by kind.
 */
export function requireAllValid(invalid: readonly string[], wanted: RefListKind): void {
  if (invalid.length === 0) return;
  const unreadable: string[] = [];
  const byKind = new Map<MusicRefType, string[]>();
  for (const part of invalid) {
    const given = otherKind(part, LIST_TYPES[wanted]);
    if (given === undefined) unreadable.push(part);
    else byKind.set(given, [...(byKind.get(given) ?? []), part]);
  }
  const sentences: string[] = [];
  if (unreadable.length > 0) {
    // A local file's URI is well formed, but the file lives only on the device that has it.
    const local = unreadable.some((part) => LOCAL_FILE.test(unwrapRef(part)))
      ? ' Local files cannot be added: they exist only on the device that plays them.'
      : '';
    const these =
      unreadable.length === 1
        ? `This is not ${withArticle(wanted)} link, URI or id`
        : `These are not ${wanted} links, URIs or ids`;
    sentences.push(`${these}: ${codeList(unreadable)}.${shortLinkHint(unreadable)}${local}`);
  }
  for (const [given, parts] of byKind) sentences.push(wrongKind(parts, given, wanted));
  throw new MusicInputError(sentences.join(' '));
}

export function articleFor(type: MusicRefType): string {
  return withArticle(type);
}
