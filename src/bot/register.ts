import { REST, Routes, type RESTPutAPIApplicationCommandsResult } from 'discord.js';
import type { Command } from './types.js';

export interface RegisterOptions {
  token: string;
  applicationId: string;
  /** Register in one guild (shows at once; for development). Without it, globally (up to an hour). */
  guildId?: string | undefined;
  apiUrl: string;
  commands: readonly Command[];
}

/** Replaces the application's commands with the registry's, in one guild or globally. */
export async function registerCommands(
  options: RegisterOptions,
): Promise<RESTPutAPIApplicationCommandsResult> {
  const rest = new REST({ api: options.apiUrl }).setToken(options.token);
  const body = options.commands.map((command) => command.data.toJSON());
  const route = options.guildId
    ? Routes.applicationGuildCommands(options.applicationId, options.guildId)
    : Routes.applicationCommands(options.applicationId);
  return (await rest.put(route, { body })) as RESTPutAPIApplicationCommandsResult;
}
