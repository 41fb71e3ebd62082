/**
 * Text helpers for the music replies: every length here is in UTF-16 code units, which never
 * exceeds the code points Discord counts (src/domain/text.ts), and nothing is cut inside a grapheme.
 */
import { EmbedBuilder } from '@discordjs/builders';
import type { APIEmbed, APIEmbedField } from 'discord-api-types/v10';
import { formatCount, plural, quoteText, withoutDirectionControls } from '../../domain/text.js';
import { EMBED_LIMITS, truncate as clip } from './text.js';

export { clip, EMBED_LIMITS, formatCount, plural };

export const MUSIC_COLOUR = 0x1db954;

/** Button labels. */
export const LABEL_MAX = 80;

/** Message content. */
export const CONTENT_MAX = 2000;

/**
 * One line: runs of white space (new lines included) become one space, and characters that would
 * turn the direction of the rest of the line are left out (`withoutDirectionControls`).
 */
export function oneLine(text: string): string {
  return withoutDirectionControls(text).replace(/\s+/g, ' ').trim();
}

/** A name for plain-text places (titles, labels, footers): one line, clipped, never empty. */
export function label(text: string | null | undefined, max: number, fallback = 'Untitled'): string {
  const line = oneLine(text ?? '');
  return clip(line === '' ? fallback : line, max);
}

/**
 * A name from the service inside markdown: one line, clipped to `max` before escaping (so at most
 * `2 * max` after), with markdown, masked links and mention or emoji tags escaped. Never empty.
 */
export function md(text: string | null | undefined, max: number, fallback = '(untitled)'): string {
  return oneLine(text ?? '') === '' ? `*${fallback}*` : quoteText(text ?? '', max);
}

/**
 * As many of `lines` as fit in `max` (joined by new lines), followed by `tail(hidden)` when anything
 * is hidden: the lines left out plus `alsoHidden` (items beyond this list, say on later pages).
 */
export function fitLines(
  lines: readonly string[],
  max: number,
  tail: (hidden: number) => string,
  alsoHidden = 0,
): string {
  const bounded = lines.map((line) => clip(line, max));
  const ends: number[] = [0];
  for (const line of bounded) ends.push((ends.at(-1) ?? 0) + line.length + (ends.length > 1 ? 1 : 0));
  for (let shown = bounded.length; shown >= 0; shown--) {
    const hidden = bounded.length - shown + alsoHidden;
    const more = hidden > 0 ? tail(hidden) : '';
    const length = (ends[shown] ?? 0) + (more === '' ? 0 : more.length + (shown > 0 ? 1 : 0));
    if (length <= max) return [...bounded.slice(0, shown), ...(more === '' ? [] : [more])].join('\n');
  }
  return clip(tail(bounded.length + alsoHidden), max);
}

/**
 * How much of each name a page's lines keep, loosest first: 1 is each list's own lengths, the
 * others shrink them (see {@link fitPage}).
 */
export const LINE_SCALES = [1, 2 / 3, 4 / 9, 1 / 4] as const;

/** `base` scaled for {@link fitPage}, never below 8. */
export function scaled(base: number, scale: number): number {
  return Math.max(8, Math.round(base * scale));
}

/**
 * Every line of one page, made (`make(scale)`) with the loosest of {@link LINE_SCALES} that lets all
 * of them fit in `max`, with `tail(alsoHidden)` after them when items lie beyond the page. A page's
 * next page starts after its last item, so an item left off a page would be shown on none: names
 * are shortened instead. Only if even the tightest lines do not fit are lines left out (`fitLines`).
 */
export function fitPage(
  make: (scale: number) => readonly string[],
  max: number,
  tail: (hidden: number) => string,
  alsoHidden = 0,
): string {
  const more = alsoHidden > 0 ? tail(alsoHidden) : '';
  let lines: readonly string[] = [];
  for (const scale of LINE_SCALES) {
    lines = make(scale);
    const length = lines.reduce((sum, line) => sum + line.length + 1, 0) + (more === '' ? -1 : more.length);
    if (length <= max) return [...lines, ...(more === '' ? [] : [more])].join('\n');
  }
  return fitLines(lines, max, tail, alsoHidden);
}

/** `3:07`, `1:02:03`. */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}` : `${minutes}:${seconds}`;
}

/** `42 min`, `1 h 12 min`, `45 s`. */
export function formatLength(ms: number): string {
  const seconds = Math.round(Math.max(0, ms) / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  const hours = Math.floor(minutes / 60);
  return hours > 0 ? `${hours} h ${minutes % 60} min` : `${minutes} min`;
}

/** An http(s) URL Discord accepts in an embed, or nothing. */
export function safeUrl(url: string | null | undefined): string | undefined {
  if (url === null || url === undefined || url.length > 2048 || !/^https?:\/\//i.test(url)) return undefined;
  return URL.canParse(url) ? url : undefined;
}

export interface EmbedParts {
  title?: string | undefined;
  url?: string | undefined;
  description?: string | undefined;
  thumbnail?: string | undefined;
  author?: string | undefined;
  fields?: readonly APIEmbedField[] | undefined;
  footer?: string | undefined;
  color?: number | undefined;
}

/**
 * An embed within every limit by construction: each part clipped to its own limit, empty parts
 * left out (Discord refuses empty ones), at most 25 fields, and over 6000 characters in total the
 * description is shortened, then trailing fields dropped.
 */
export function fitEmbed(parts: EmbedParts): APIEmbed {
  const title = parts.title === undefined ? '' : clip(oneLine(parts.title), EMBED_LIMITS.title);
  const author = parts.author === undefined ? '' : clip(oneLine(parts.author), EMBED_LIMITS.author);
  const footer = parts.footer === undefined ? '' : clip(parts.footer.trim(), EMBED_LIMITS.footer);
  let description =
    parts.description === undefined ? '' : clip(parts.description.trim(), EMBED_LIMITS.description);
  const fields = (parts.fields ?? []).slice(0, EMBED_LIMITS.fields).map((field) => ({
    name: clip(oneLine(field.name), EMBED_LIMITS.fieldName) || '\u200b',
    value: clip(field.value.trim(), EMBED_LIMITS.fieldValue) || '—',
    ...(field.inline === undefined ? {} : { inline: field.inline }),
  }));
  const fieldsLength = () => fields.reduce((sum, field) => sum + field.name.length + field.value.length, 0);
  const fixed = title.length + author.length + footer.length;
  const excess = fixed + description.length + fieldsLength() - EMBED_LIMITS.total;
  if (excess > 0) description = clip(description, Math.max(0, description.length - excess));
  while (fields.length > 0 && fixed + description.length + fieldsLength() > EMBED_LIMITS.total) fields.pop();

  const embed = new EmbedBuilder().setColor(parts.color ?? MUSIC_COLOUR);
  if (title !== '') embed.setTitle(title);
  const url = safeUrl(parts.url);
  if (url !== undefined && title !== '') embed.setURL(url);
  if (description !== '') embed.setDescription(description);
  const thumbnail = safeUrl(parts.thumbnail);
  if (thumbnail !== undefined) embed.setThumbnail(thumbnail);
  if (author !== '') embed.setAuthor({ name: author });
  if (fields.length > 0) embed.addFields(fields);
  if (footer !== '') embed.setFooter({ text: footer });
  return embed.toJSON();
}

/** Characters of an embed that count towards Discord's 6000. */
export function embedLength(embed: APIEmbed): number {
  return (
    (embed.title?.length ?? 0) +
    (embed.description?.length ?? 0) +
    (embed.footer?.text.length ?? 0) +
    (embed.author?.name.length ?? 0) +
    (embed.fields ?? []).reduce((sum, field) => sum + field.name.length + field.value.length, 0)
  );
}
