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
 * masked links (`[text](url)`) and mention or emoji tags (`<@id>`, `<#id>`, `<:name:id>`) show as
 * typed.
 */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\*_~`|<>[\]]/g, '\\$&');
}

/**
 * A name or a member's input quoted inside a sentence: one line, at most `max` units before
 * escaping, and escaped, so a playlist called `[Re-link your account](https://…)` reads as typed
 * rather than as a link in the bot's own message.
 */
export function quoteText(text: string, max = 60): string {
  return escapeMarkdown(truncate(text.replace(/\s+/g, ' ').trim(), max));
}
