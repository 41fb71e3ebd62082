/**
 * Text helpers every renderer shares. Lengths are in UTF-16 code units. Discord counts code points
 * (discord/discord-api-docs#1315), and a code point is one or two units, so a text that fits in
 * units always fits Discord's limit: cutting by units is the safe side.
 */

/** Discord's embed limits. */
export const EMBED_LIMITS = {
  title: 256,
  description: 4096,
  fields: 25,
  fieldName: 256,
  fieldValue: 1024,
  footer: 2048,
  author: 256,
  total: 6000,
} as const;

/**
 * Shortens `text` to at most `max` UTF-16 code units, and so to at most `max` of the code points
 * Discord counts, ending with an ellipsis when cut, never splitting a surrogate pair.
 */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 0) return '';
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}
