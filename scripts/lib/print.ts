/** Renders what the bot sent as plain terminal text, for the demo tour. */
import type { APIEmbed, APIMessage } from 'discord-api-types/v10';

/** How mentions read in the terminal: `@Alice`, `#general`, by id. */
export type Names = Readonly<Record<string, string>>;

const STAMP = new Intl.DateTimeFormat('en-GB', {
  weekday: 'short',
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZone: 'UTC',
  timeZoneName: 'short',
});

const RELATIVE = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

/** `in 3 hours`, `5 minutes ago`: a `<t:…:R>` timestamp as Discord shows it, from now. */
function relative(at: number): string {
  const seconds = Math.round((at - Date.now()) / 1000);
  const units: [Intl.RelativeTimeFormatUnit, number][] = [
    ['day', 86_400],
    ['hour', 3_600],
    ['minute', 60],
  ];
  for (const [unit, size] of units) {
    if (Math.abs(seconds) >= size) return RELATIVE.format(Math.round(seconds / size), unit);
  }
  return RELATIVE.format(seconds, 'second');
}

/**
 * Discord's markup as a Discord client shows it: `<t:…>` timestamps as a date (in UTC: the
 * terminal has no reader's time zone to use), user and channel mentions by name where known.
 */
export function readable(text: string, names: Names = {}): string {
  return text
    .replace(/<t:(-?\d+)(?::([tTdDfFR]))?>/g, (_all, seconds: string, style?: string) =>
      style === 'R' ? relative(Number(seconds) * 1000) : STAMP.format(Number(seconds) * 1000),
    )
    .replace(/<@!?(\d+)>/g, (_all, id: string) => names[id] ?? '@member')
    .replace(/<#(\d+)>/g, (_all, id: string) => names[id] ?? '#channel');
}

function embedText(embed: APIEmbed, names: Names): string[] {
  const lines: string[] = [];
  const indented = (text: string, indent: string, first = '') =>
    readable(text, names)
      .split('\n')
      .map((line, index) => `${indent}${index === 0 ? first : ''}${line}`);
  if (embed.author?.name) lines.push(...indented(embed.author.name, '  '));
  if (embed.title) lines.push(...indented(embed.title, '  ', '## '));
  if (embed.description) lines.push(...indented(embed.description, '  '));
  for (const field of embed.fields ?? []) {
    lines.push(...indented(field.name, '  '));
    lines.push(...indented(field.value, '    '));
  }
  if (embed.image?.url) lines.push(`  [image ${embed.image.url}]`);
  if (embed.footer?.text) lines.push(...indented(embed.footer.text, '  ', '-- '));
  return lines;
}

interface ButtonLike {
  type: number;
  label?: string;
  url?: string;
  disabled?: boolean;
}

export function messageText(
  message: Pick<APIMessage, 'content' | 'embeds' | 'components' | 'attachments' | 'flags'>,
  names: Names = {},
): string {
  const lines: string[] = [];
  if ((message.flags ?? 0) & 64) lines.push('  (only you can see this)');
  if (message.content)
    lines.push(
      ...readable(message.content, names)
        .split('\n')
        .map((l) => `  ${l}`),
    );
  for (const embed of message.embeds) lines.push(...embedText(embed, names));
  for (const row of message.components ?? []) {
    const buttons = ((row as { components?: ButtonLike[] }).components ?? []).filter((c) => c.type === 2);
    if (buttons.length > 0) {
      lines.push(
        `  ${buttons.map((b) => `[${b.label ?? '?'}${b.url ? ` -> ${b.url}` : ''}${b.disabled ? ' (off)' : ''}]`).join(' ')}`,
      );
    }
  }
  for (const attachment of message.attachments)
    lines.push(`  [file ${attachment.filename}, ${attachment.size} bytes]`);
  return lines.join('\n');
}
