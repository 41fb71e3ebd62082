import type { SlashCommandSubcommandBuilder } from '@discordjs/builders';
import type { ChatInputCommandInteraction } from 'discord.js';
import type { BotContext, MusicServices } from '../../bot/context.js';
import { featureOffMessage, UserError } from '../../bot/errors.js';

/** One `/music` subcommand (or a subcommand of a group), in its own file. */
export interface MusicSubcommand {
  name: string;
  build(builder: SlashCommandSubcommandBuilder): SlashCommandSubcommandBuilder;
  execute(interaction: ChatInputCommandInteraction, music: MusicServices, ctx: BotContext): Promise<void>;
}

export function musicOf(ctx: BotContext): MusicServices {
  if (!ctx.music) throw new UserError(featureOffMessage('music'));
  return ctx.music;
}
