import { DiscordjsErrorCodes, type Interaction } from 'discord.js';
import { withinMs } from '../services/time-limit.js';
import type { BotContext } from './context.js';
import {
  featureOffError,
  LATE_AUTOCOMPLETE_MESSAGE,
  replyWithError,
  StaleInteractionError,
  UserError,
} from './errors.js';
import { commonMessages } from './i18n/common.js';
import { langOf } from './i18n/index.js';
import type { ButtonHandler, Command, Feature } from './types.js';

/**
 * How long an autocomplete handler may take before the router answers it with no suggestions
 * itself: Discord takes an autocomplete answer only within 3 s of the interaction, and the answer
 * needs a round trip of its own. Each handler bounds its service calls more tightly; this bounds
 * everything else (storage that stalls, say).
 */
export const AUTOCOMPLETE_BUDGET_MS = 2_400;

/**
 * {@link AUTOCOMPLETE_BUDGET_MS}, less the time the interaction took to reach the bot (and to wait
 * on its event loop): Discord's 3 s run from when it made the interaction (the time in its id), not
 * from when the gateway delivered it. Past the budget, nothing is left: no suggestions, at once,
 * which may still arrive in time where late ones would not. A lag below 0 or over 3 s says more
 * about this machine's clock than about the delivery, and is not counted.
 */
export function autocompleteBudgetMs(createdTimestamp: number, now: number): number {
  const lag = now - createdTimestamp;
  return lag > 0 && lag <= 3_000 ? Math.max(0, AUTOCOMPLETE_BUDGET_MS - lag) : AUTOCOMPLETE_BUDGET_MS;
}

/** discord.js's refusals to read options that are not as the code declares them. */
const OPTION_MISMATCHES: ReadonlySet<unknown> = new Set([
  DiscordjsErrorCodes.CommandInteractionOptionNotFound,
  DiscordjsErrorCodes.CommandInteractionOptionType,
  DiscordjsErrorCodes.CommandInteractionOptionEmpty,
  DiscordjsErrorCodes.CommandInteractionOptionNoSubcommand,
  DiscordjsErrorCodes.CommandInteractionOptionNoSubcommandGroup,
]);

/**
 * A command whose options, as Discord sent them, are not those the code declares: registered by
 * another version of the bot (before `npm run register`, or a server's leftover copy). The member
 * is told the command changed; the owner, in the log, what to run.
 */
function outdatedCommand(error: unknown, interaction: Interaction, ctx: BotContext) {
  const code = (error as { code?: unknown } | null)?.code;
  if (!OPTION_MISMATCHES.has(code)) return undefined;
  ctx.logger.warn(
    {
      err: error,
      command: interaction.isCommand() || interaction.isAutocomplete() ? interaction.commandName : undefined,
      guildId: interaction.guildId,
    },
    'a command came with options this version does not declare: run `npm run register` (and remove any copy registered in one server)',
  );
  return new StaleInteractionError('commandChanged', { cause: error });
}

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
        // Discord drops suggestions that come after 3 s: past the budget, none are offered, now.
        await withinMs(
          command.autocomplete(interaction, ctx),
          autocompleteBudgetMs(interaction.createdTimestamp, Date.now()),
          LATE_AUTOCOMPLETE_MESSAGE,
        );
      } else if (interaction.isButton()) {
        const [prefix = '', ...args] = interaction.customId.split(CUSTOM_ID_SEPARATOR);
        const handler = byPrefix.get(prefix);
        if (!handler) throw new UserError(commonMessages(langOf(interaction.locale)).staleButton);
        ensureFeature(handler.requires, interaction);
        await handler.handle(interaction, ctx, args);
      }
    } catch (error) {
      await replyWithError(interaction, outdatedCommand(error, interaction, ctx) ?? error, ctx.logger);
    }
  };
}
