import type { Interaction } from 'discord.js';
import type { BotContext } from './context.js';
import { featureOffError, replyWithError, UserError } from './errors.js';
import { commonMessages } from './i18n/common.js';
import { langOf } from './i18n/index.js';
import type { ButtonHandler, Command, Feature } from './types.js';

export interface RouterOptions {
  commands: readonly Command[];
  buttons: readonly ButtonHandler[];
  ctx: BotContext;
}

/** Separates a button handler's prefix from its arguments in a `custom_id`. */
export const CUSTOM_ID_SEPARATOR = ':';

/**
 * Routes every interaction: slash commands and autocomplete by command name, buttons by the prefix
 * of their `custom_id`. Errors end up in {@link replyWithError}; nothing thrown escapes.
 */
export function createInteractionRouter({ commands, buttons, ctx }: RouterOptions) {
  const byName = new Map(commands.map((command) => [command.data.name, command]));
  const byPrefix = new Map(buttons.map((button) => [button.prefix, button]));

  const ensureFeature = (feature: Feature | undefined, interaction: Interaction) => {
    if (feature && !ctx.features[feature]) throw featureOffError(feature, interaction.locale);
  };

  return async function route(interaction: Interaction): Promise<void> {
    try {
      if (interaction.isChatInputCommand()) {
        const command = byName.get(interaction.commandName);
        ctx.logger.debug(
          {
            command: interaction.commandName,
            guildId: interaction.guildId,
            shardId: interaction.guild?.shardId,
          },
          'slash command',
        );
        if (!command) throw new UserError(commonMessages(langOf(interaction.locale)).unknownCommand);
        ensureFeature(command.requires, interaction);
        await command.execute(interaction, ctx);
      } else if (interaction.isAutocomplete()) {
        const command = byName.get(interaction.commandName);
        if (!command?.autocomplete || (command.requires && !ctx.features[command.requires])) {
          await interaction.respond([]);
          return;
        }
        await command.autocomplete(interaction, ctx);
      } else if (interaction.isButton()) {
        const [prefix = '', ...args] = interaction.customId.split(CUSTOM_ID_SEPARATOR);
        const handler = byPrefix.get(prefix);
        if (!handler) throw new UserError(commonMessages(langOf(interaction.locale)).staleButton);
        ensureFeature(handler.requires, interaction);
        await handler.handle(interaction, ctx, args);
      }
    } catch (error) {
      await replyWithError(interaction, error, ctx.logger);
    }
  };
}
