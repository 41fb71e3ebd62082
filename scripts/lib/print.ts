/** Renders what the bot sent as plain terminal text, for the demo tour. */
import type { APIEmbed, APIMessage } from 'discord-api-types/v10';

function embedText(embed: APIEmbed): string[] {
  const lines: string[] = [];
  if (embed.author?.name) lines.push(`  ${embed.author.name}`);
  if (embed.title) lines.push(`  ## ${embed.title}`);
  if (embed.description) lines.push(...embed.description.split('\n').map((l) => `  ${l}`));
  for (const field of embed.fields ?? []) {
    lines.push(`  ${field.name}`);
    lines.push(...field.value.split('\n').map((l) => `    ${l}`));
  }
  if (embed.image?.url) lines.push(`  [image ${embed.image.url}]`);
  if (embed.footer?.text) lines.push(`  -- ${embed.footer.text}`);
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
): string {
  const lines: string[] = [];
  if ((message.flags ?? 0) & 64) lines.push('  (only you can see this)');
  if (message.content) lines.push(...message.content.split('\n').map((l) => `  ${l}`));
  for (const embed of message.embeds) lines.push(...embedText(embed));
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
