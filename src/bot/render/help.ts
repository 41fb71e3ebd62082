import { EmbedBuilder } from '@discordjs/builders';
import {
  ApplicationCommandOptionType,
  type APIApplicationCommandOption,
  type RESTPostAPIChatInputApplicationCommandsJSONBody,
} from 'discord-api-types/v10';
import { EMBED_LIMITS, truncate } from './text.js';

export interface HelpEntry {
  command: RESTPostAPIChatInputApplicationCommandsJSONBody;
  /** Set when the command's service is not configured on this bot. */
  switchedOff?: boolean;
}

/** Every invocable path of a command: `/music playlist view` for nested subcommands. */
export function commandLines(
  command: RESTPostAPIChatInputApplicationCommandsJSONBody,
): { usage: string; description: string }[] {
  const walk = (
    prefix: string,
    options: readonly APIApplicationCommandOption[] | undefined,
    fallback: string,
  ) => {
    const subs = (options ?? []).filter(
      (option) =>
        option.type === ApplicationCommandOptionType.Subcommand ||
        option.type === ApplicationCommandOptionType.SubcommandGroup,
    );
    if (subs.length === 0) return [{ usage: prefix, description: fallback }];
    return subs.flatMap((sub): { usage: string; description: string }[] =>
      sub.type === ApplicationCommandOptionType.SubcommandGroup
        ? walk(`${prefix} ${sub.name}`, sub.options, sub.description)
        : [{ usage: `${prefix} ${sub.name}`, description: sub.description }],
    );
  };
  return walk(`/${command.name}`, command.options, command.description);
}

/** Splits lines into chunks of at most `max` characters (one line longer than that is cut). */
function chunkLines(lines: readonly string[], max: number): string[] {
  const chunks: string[] = [];
  let current = '';
  for (const raw of lines) {
    const line = truncate(raw, max);
    if (current !== '' && current.length + 1 + line.length > max) {
      chunks.push(current);
      current = '';
    }
    current = current === '' ? line : `${current}\n${line}`;
  }
  if (current !== '') chunks.push(current);
  return chunks;
}

/**
 * The /help embed: one field per command (continued in further fields when its subcommands do
 * not fit in one), one line per subcommand. Pure; fits Discord's limits by construction.
 */
export function renderHelp(entries: readonly HelpEntry[]): EmbedBuilder {
  const fields: { name: string; value: string }[] = [];
  let total = 0;
  for (const { command, switchedOff } of entries) {
    const lines = commandLines(command).map(({ usage, description }) => `\`${usage}\` ${description}`);
    for (const [index, value] of chunkLines(lines, EMBED_LIMITS.fieldValue).entries()) {
      const name = truncate(
        `/${command.name}${index > 0 ? ' (continued)' : ''}${switchedOff ? ' (switched off on this bot)' : ''}`,
        EMBED_LIMITS.fieldName,
      );
      // Leave room for the title and description within the 6,000-character total.
      if (fields.length === EMBED_LIMITS.fields || total + name.length + value.length > 5_700) break;
      fields.push({ name, value });
      total += name.length + value.length;
    }
  }
  return new EmbedBuilder()
    .setTitle('What I can do')
    .setDescription('Type `/` in any channel to use a command. Replies only you can see are marked as such.')
    .setColor(0x5865f2)
    .addFields(fields);
}
