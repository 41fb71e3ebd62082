import type {
  AutocompleteInteraction,
  ButtonInteraction,
  ChatInputCommandInteraction,
  RESTPostAPIChatInputApplicationCommandsJSONBody,
} from 'discord.js';
import type { BotContext } from './context.js';

/** An optional upstream service; commands that need one are switched off when it is not configured. */
export type Feature = 'music' | 'weather';

/** One slash command: `export default { data, execute } satisfies Command`. */
export interface Command {
  data: { readonly name: string; toJSON(): RESTPostAPIChatInputApplicationCommandsJSONBody };
  requires?: Feature;
  execute(interaction: ChatInputCommandInteraction, ctx: BotContext): Promise<void>;
  autocomplete?(interaction: AutocompleteInteraction, ctx: BotContext): Promise<void>;
}

/** Handles the buttons whose `custom_id` starts with `prefix` followed by `:`. */
export interface ButtonHandler {
  prefix: string;
  requires?: Feature;
  handle(interaction: ButtonInteraction, ctx: BotContext, args: readonly string[]): Promise<void>;
}
