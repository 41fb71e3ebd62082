import {
  SlashCommandBuilder,
  SlashCommandSubcommandBuilder,
  SlashCommandSubcommandGroupBuilder,
} from '@discordjs/builders';
import type { AutocompleteInteraction, ChatInputCommandInteraction } from 'discord.js';
import type { BotContext } from './context.js';
import { featureOffError, StaleInteractionError } from './errors.js';
import type { Command, Feature } from './types.js';

/** One subcommand of a command, in its own file: `commands/<command>/<sub>.ts`. */
export interface Subcommand<S> {
  name: string;
  /** The subcommand group it sits in (`/music playlist view`: group `playlist`). */
  group?: string;
  build(builder: SlashCommandSubcommandBuilder): SlashCommandSubcommandBuilder;
  execute(interaction: ChatInputCommandInteraction, services: S, ctx: BotContext): Promise<void>;
  autocomplete?(interaction: AutocompleteInteraction, services: S, ctx: BotContext): Promise<void>;
}

export interface CommandGroupOptions<S> {
  name: string;
  description: string;
  /** Descriptions of the subcommand groups, by name. */
  groups?: Record<string, string>;
  requires: Feature;
  services(ctx: BotContext): S | undefined;
  subcommands: readonly Subcommand<S>[];
  /** Applied to the builder last (default member permissions and the like). */
  configure?(builder: SlashCommandBuilder): void;
}

/** A slash command made of subcommands (and groups of them), each routed to its own file. */
export function commandGroup<S>(options: CommandGroupOptions<S>): Command {
  const data = new SlashCommandBuilder().setName(options.name).setDescription(options.description);
  const groups = new Map<string, SlashCommandSubcommandGroupBuilder>();
  for (const sub of options.subcommands) {
    const builder = sub.build(new SlashCommandSubcommandBuilder().setName(sub.name));
    if (!sub.group) {
      data.addSubcommand(builder);
      continue;
    }
    let group = groups.get(sub.group);
    if (!group) {
      group = new SlashCommandSubcommandGroupBuilder()
        .setName(sub.group)
        .setDescription(options.groups?.[sub.group] ?? sub.group);
      groups.set(sub.group, group);
      data.addSubcommandGroup(group);
    }
    group.addSubcommand(builder);
  }
  options.configure?.(data);

  const find = (interaction: ChatInputCommandInteraction | AutocompleteInteraction) => {
    const group = interaction.options.getSubcommandGroup(false) ?? undefined;
    const name = interaction.options.getSubcommand(false);
    return options.subcommands.find((sub) => sub.name === name && sub.group === group);
  };
  const servicesOf = (
    ctx: BotContext,
    interaction: ChatInputCommandInteraction | AutocompleteInteraction,
  ) => {
    const services = options.services(ctx);
    if (services === undefined) throw featureOffError(options.requires, interaction.locale);
    return services;
  };

  return {
    data,
    requires: options.requires,
    async execute(interaction, ctx) {
      const sub = find(interaction);
      if (!sub) throw new StaleInteractionError('unknownCommand');
      await sub.execute(interaction, servicesOf(ctx, interaction), ctx);
    },
    async autocomplete(interaction, ctx) {
      const sub = find(interaction);
      if (!sub?.autocomplete) {
        await interaction.respond([]);
        return;
      }
      await sub.autocomplete(interaction, servicesOf(ctx, interaction), ctx);
    },
  };
}
