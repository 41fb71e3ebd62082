/**
 * Text that the bot shows to members: shortened without breaking a character a member sees, and
 * quoted inside Discord markdown without turning into formatting or a link.
 *
 * Lengths are in UTF-16 code units. Discord counts code points (discord/discord-api-docs#1315),
 * and a code point is one or two units, so a text that fits in units always fits Discord's limit:
 * cutting by units is the safe side.
 */

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * Shortens `text` to at most `max` UTF-16 code units, ending with an ellipsis when cut. The cut
 * falls between graphemes, so it never leaves half of a surrogate pair, a flag, a family emoji or
 * a letter whose accent is a separate mark.
 */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 0) return '';
  let end = 0;
  for (const { index, segment } of graphemes.segment(text)) {
    if (index + segment.length > max - 1) break;
    end = index + segment.length;
  }
  return `${text.slice(0, end)}…`;
}

/**
 * `text` escaped for Discord markdown: bold, italics, underline, strike-through, spoilers, code,
 * masked links (`[text](url)`), mention or emoji tags (`<@id>`, `<#id>`, `<:name:id>`) and bare
 * links (`https://…`, which Discord makes clickable: `\:` shows a colon and breaks the link, as
 * `\:name:` shows an emoji's code) show as typed. So do, at the start of a line (where a name
 * begins a field's value), a heading (`# `), subtext (`-# `) and a list (`- `, `1. `).
 */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/[\\*_~`|<>[\]]/g, '\\$&')
    .replace(/:(?=\/\/)/g, '\\:')
    .replace(/^([ \t]*)(#|-(?=[\s#]))/gm, '$1\\$2')
    .replace(/^([ \t]*\d+)\.(?=\s)/gm, '$1\\.');
}

/**
 * Characters that set the direction of the text after them until the paragraph ends (embeddings,
 * overrides, isolates): inside a name they would turn the rest of the bot's own line around
 * (`abc\u202Eevil` reverses what follows). Marks (U+200E, U+200F) only nudge their neighbours, and stay.
 */
const DIRECTION_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;

/** `text` without {@link DIRECTION_CONTROLS}. */
export function withoutDirectionControls(text: string): string {
  return text.replace(DIRECTION_CONTROLS, '');
}

/**
 * A name or a member's input quoted inside a sentence: one line, at most `max` units before
 * escaping, and escaped, so a playlist called `[Re-link your account](https://…)` reads as typed
 * rather than as a link in the bot's own message (nor is its address one).
 */
export function quoteText(text: string, max = 60): string {
  return escapeMarkdown(truncate(withoutDirectionControls(text).replace(/\s+/g, ' ').trim(), max));
}

/** `1,234`: a count as the bot's English texts write it. */
export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

/** `1 item`, `1,234 items`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

/** `a track`, `an album`: the noun with its indefinite article. */
export function withArticle(noun: string): string {
  return /^[aeiou]/i.test(noun) ? `an ${noun}` : `a ${noun}`;
}

const listFormats = new Map<string, Intl.ListFormat>();

/**
 * A list in a sentence: `A`, `A and B`, `A, B, and C` (German `A, B und C` with `locale: 'de'`).
 * With `max`, at most that many are named and the rest counted: `A, B, and 3 more` (`more` words
 * the count). Nothing to list gives an empty string.
 */
export function joinList(
  items: readonly string[],
  options: { locale?: string; max?: number; more?: (hidden: number) => string } = {},
): string {
  const { locale = 'en', max = Infinity, more = (hidden) => `${formatCount(hidden)} more` } = options;
  let format = listFormats.get(locale);
  if (format === undefined) {
    format = new Intl.ListFormat(locale, { style: 'long', type: 'conjunction' });
    listFormats.set(locale, format);
  }
  const shown = items.length > max ? [...items.slice(0, max), more(items.length - max)] : items;
  return format.format(shown);
}

/**
 * `text` as a name is compared with what a member typed: letters without their accents (`Café` as
 * `cafe`, by compatibility decomposition, so `ﬁ` is `fi` too), curly apostrophes as the keyboard's
 * straight one (`Alice’s` as `Alice's`), without emoji and other symbols (`🚗 Road Songs` as
 * `road songs`), spaces collapsed, lower case. Two names may fold alike: a comparison looks for the
 * name as typed first.
 */
export function foldName(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[’‘ʼ]/g, "'")
    .replace(/[\p{Extended_Pictographic}\p{Emoji_Modifier}\p{So}\p{Cf}]/gu, '')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

/** `text` as a name is compared before folding: surrounding spaces and case ignored. */
export function plainName(text: string): string {
  return text.trim().toLowerCase();
}

/**
 * Whether `name` holds what a member `typed` (all do when nothing is): as typed, case ignored, or
 * folded alike (see {@link foldName}). Typed text that folds to nothing (an emoji alone) is matched
 * as typed only.
 */
export function nameContains(name: string, typed: string): boolean {
  const needle = plainName(typed);
  if (needle === '' || name.toLowerCase().includes(needle)) return true;
  const folded = foldName(typed);
  return folded !== '' && foldName(name).includes(folded);
}

/**
 * The items whose name is what a member typed: of those named exactly so (case and surrounding
 * spaces ignored), else of those whose name folds alike (see {@link foldName}). Typed text that
 * folds to nothing finds only the exact ones.
 */
export function byTypedName<T>(items: readonly T[], typed: string, nameOf: (item: T) => string): T[] {
  const plain = plainName(typed);
  const exact = items.filter((item) => plainName(nameOf(item)) === plain);
  const folded = foldName(typed);
  if (exact.length > 0 || folded === '') return exact;
  return items.filter((item) => foldName(nameOf(item)) === folded);
}
