import { EmbedBuilder } from '@discordjs/builders';
import {
  ApplicationCommandOptionType,
  type APIApplicationCommandOption,
  type RESTPostAPIChatInputApplicationCommandsJSONBody,
} from 'discord-api-types/v10';
import { truncate } from './text.js';

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

/** The /help embed: one field per command, one line per subcommand. Pure; fits Discord's limits. */
export function renderHelp(entries: readonly HelpEntry[]): EmbedBuilder {
  const fields = entries.slice(0, 25).map(({ command, switchedOff }) => {
    const lines = commandLines(command).map(({ usage, description }) => `\`${usage}\` ${description}`);
    return {
      name: truncate(`/${command.name}${switchedOff ? ' (switched off on this bot)' : ''}`, 256),
      value: truncate(lines.join('\n'), 1024),
    };
  });
  return new EmbedBuilder()
    .setTitle('What I can do')
    .setDescription('Type `/` in any channel to use a command. Replies only you can see are marked as such.')
    .setColor(0x5865f2)
    .addFields(fields);
}
