import { EmbedBuilder } from '@discordjs/builders';
import {
  ApplicationCommandOptionType,
  type APIApplicationCommandOption,
  type RESTPostAPIChatInputApplicationCommandsJSONBody,
} from 'discord-api-types/v10';
import { HELP_WORDS } from '../i18n/help.js';
import { langOf } from '../i18n/index.js';
import { EMBED_LIMITS, truncate } from './text.js';

export interface HelpEntry {
  command: RESTPostAPIChatInputApplicationCommandsJSONBody;
  /** Set when the command's service is not configured on this bot. */
  switchedOff?: boolean;
}

/**
 * A name or description as Discord's command picker shows it to a member with `locale`: its
 * localisation for that exact locale, or the default.
 */
function inLocale(text: string, localizations: Localizations, locale: string | undefined): string {
  return (locale === undefined ? undefined : localizations?.[locale]) ?? text;
}

/** A localisation map as the registered data has it (discord-api-types' `LocalizationMap`, loosely). */
type Localizations = Readonly<Partial<Record<string, string | null | undefined>>> | null | undefined;

/**
 * Every invocable path of a command: `/music playlist view` for nested subcommands, in the names
 * and descriptions a member with `locale` sees in Discord's command picker (`/wetter jetzt` for
 * German), so they can type what they read.
 */
export function commandLines(
  command: RESTPostAPIChatInputApplicationCommandsJSONBody,
  locale?: string,
): { usage: string; description: string }[] {
  interface Named {
    name: string;
    name_localizations?: Localizations;
    description: string;
    description_localizations?: Localizations;
  }
  const name = (item: Named) => inLocale(item.name, item.name_localizations, locale);
  const description = (item: Named) => inLocale(item.description, item.description_localizations, locale);
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
        ? walk(`${prefix} ${name(sub)}`, sub.options, description(sub))
        : [{ usage: `${prefix} ${name(sub)}`, description: description(sub) }],
    );
  };
  return walk(`/${name(command)}`, command.options, description(command));
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
 * not fit in one), one line per subcommand, in the member's language: the commands as Discord's
 * command picker shows them to `locale`, and the embed's own words in German or English (see
 * `langOf`). Pure; fits Discord's limits by construction.
 */
export function renderHelp(entries: readonly HelpEntry[], locale?: string): EmbedBuilder {
  const words = HELP_WORDS[langOf(locale)];
  const fields: { name: string; value: string }[] = [];
  let total = 0;
  for (const { command, switchedOff } of entries) {
    const lines = commandLines(command, locale).map(
      ({ usage, description }) => `\`${usage}\` ${description}`,
    );
    const commandName = inLocale(command.name, command.name_localizations, locale);
    for (const [index, value] of chunkLines(lines, EMBED_LIMITS.fieldValue).entries()) {
      const name = truncate(
        `/${commandName}${index > 0 ? words.continued : ''}${switchedOff ? words.switchedOff : ''}`,
        EMBED_LIMITS.fieldName,
      );
      // Leave room for the title and description within the 6,000-character total.
      if (fields.length === EMBED_LIMITS.fields || total + name.length + value.length > 5_700) break;
      fields.push({ name, value });
      total += name.length + value.length;
    }
  }
  return new EmbedBuilder()
    .setTitle(words.title)
    .setDescription(words.description)
    .setColor(0x5865f2)
    .addFields(fields);
}
