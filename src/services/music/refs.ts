/**
 * References to catalog objects as people paste them: a bare id, a `service:<type>:<id>` URI or an
 * `https://open.<host>/<type>/<id>` link.
 */

export type MusicRefType = 'album' | 'artist' | 'playlist' | 'track' | 'episode' | 'show' | 'user';

/**
 * The URI scheme of resource URIs (`service:album:<id>`). The spec writes the service's own name as
 * `service`; a deployment against the real service passes its name through `uriScheme`.
 */
export const DEFAULT_URI_SCHEME = 'service';

/** Catalog ids are base-62 and 22 characters long (128 bits). */
const BASE62_ID = /^[0-9A-Za-z]{22}$/;

/** True when `value` has the shape of a catalog id. */
export function isMusicId(value: string): boolean {
  return BASE62_ID.test(value);
}

/**
 * What members put around a reference they paste: `<…>` (how Discord keeps a link from showing a
 * preview), quotes, brackets or backticks, and the punctuation of the sentence it ends (`.`, `)`,
 * `;`, `,`, `!`, `?`, `:`). No id, URI or link path ends in one of these, so they are read as not
 * part of it; a link's own query and fragment stay.
 */
const WRAPPED_START = /^[\s<([{"'`“‘«]+/;
const WRAPPED_END = /[\s>)\]}"'`”’».,;:!?]+$/;

/** `input` without what surrounds the reference in it (see {@link WRAPPED_START}, {@link WRAPPED_END}). */
export function unwrapRef(input: string): string {
  return input.replace(WRAPPED_START, '').replace(WRAPPED_END, '');
}

/**
 * Extracts the id from an id, a URI or a share link of the given type; `undefined` when the input
 * is none of these, or names an object of another type. What surrounds it is left out first:
 * `<https://open.…/album/…>`, `(service:album:…)`, `https://open.…/album/….` all read as the album.
 *
 * - `4aawyAB9vmqN3uQ7FjRGTy`
 * - `service:album:4aawyAB9vmqN3uQ7FjRGTy` (any lowercase scheme word, so the real service's
 *   URIs work too; the old `service:user:<name>:playlist:<id>` form as well)
 * - `https://open.<host>/album/4aawyAB9vmqN3uQ7FjRGTy?si=…`, also with an `intl-xx/` or `embed/`
 *   segment before the type
 */
export function parseMusicRef(input: string, type: MusicRefType): string | undefined {
  const text = unwrapRef(input);
  if (text === '') return undefined;
  if (isMusicId(text)) return text;
  return fromUri(text, type) ?? fromLink(text, type);
}

function fromUri(text: string, type: MusicRefType): string | undefined {
  if (/^https?:/i.test(text)) return undefined;
  const parts = text.split(':');
  if (parts.length < 3 || !/^[a-z][a-z0-9]*$/.test(parts[0] ?? '')) return undefined;
  // `scheme:type:id`, or the legacy `scheme:user:<name>:playlist:<id>`.
  const [kind, id] =
    parts.length === 5 && parts[1] === 'user'
      ? [parts[3], parts[4]]
      : parts.length === 3
        ? [parts[1], parts[2]]
        : [];
  return kind === type && id !== undefined && isMusicId(id) ? id : undefined;
}

function fromLink(text: string, type: MusicRefType): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (!url.hostname.startsWith('open.')) return undefined;
  const segments = url.pathname.split('/').filter((segment) => segment !== '');
  while (segments.length > 0 && /^(intl-[a-z]{2}(-[a-z]{2})?|embed)$/i.test(segments[0] ?? ''))
    segments.shift();
  // Legacy `/user/<name>/playlist/<id>` links.
  if (segments.length === 4 && segments[0] === 'user') segments.splice(0, 2);
  if (segments.length !== 2) return undefined;
  const [kind, id] = segments;
  return kind === type && id !== undefined && isMusicId(id) ? id : undefined;
}

/** The resource URI for an id: `service:album:<id>`. */
export function toMusicUri(type: MusicRefType, id: string, scheme: string = DEFAULT_URI_SCHEME): string {
  return `${scheme}:${type}:${id}`;
}
