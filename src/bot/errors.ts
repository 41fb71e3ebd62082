import { randomBytes } from 'node:crypto';
import { DiscordAPIError, RESTJSONErrorCodes, type Interaction } from 'discord.js';
import {
  RateLimitError,
  ResponseValidationError,
  unanswered,
  UpstreamError,
} from '../services/http/errors.js';
import { VaultError } from '../auth/vault.js';
import { UnreadableStoreError } from '../services/schedules/store.js';
import { LockBusyError } from '../storage/index.js';
import type { Logger } from '../logger.js';
import { commonMessages } from './i18n/common.js';
import { langOf, type Lang } from './i18n/index.js';
import { answerPrivately } from './private-answer.js';
import type { Feature } from './types.js';

/**
 * An expected problem the member can act on (account not linked, city not found, no active device).
 * Its message is shown to them, ephemerally, as it is.
 */
export class UserError extends Error {
  override readonly name = 'UserError';
}

/** The router's own sentences an interaction the bot cannot serve as sent is answered with. */
export type StaleKind = 'unknownCommand' | 'staleButton' | 'invalidButton' | 'commandChanged';

/**
 * An interaction the bot cannot serve as Discord sent it: a command or subcommand it no longer
 * has, a button of an older version or a forged one, or a command whose registered options no
 * longer match the code (registered by another version). Told in the member's language (see
 * {@link describeForUser}); the message is the English sentence.
 */
export class StaleInteractionError extends UserError {
  constructor(
    readonly kind: StaleKind,
    options?: ErrorOptions,
  ) {
    super(commonMessages('en')[kind], options);
  }
}

/**
 * An autocomplete that missed Discord's 3 s: the router's budget ran out (see `router.ts`), or
 * Discord already refused the answer as too late (10062 "Unknown interaction").
 */
function lateAutocomplete(error: unknown): boolean {
  return (
    (error instanceof Error && error.message === LATE_AUTOCOMPLETE_MESSAGE) ||
    (error instanceof DiscordAPIError && error.code === RESTJSONErrorCodes.UnknownInteraction)
  );
}

/** What `withinMs` rejects with when an autocomplete handler overruns the router's budget. */
export const LATE_AUTOCOMPLETE_MESSAGE =
  'autocomplete took longer than its budget: answered with no suggestions';

/** What a member gets when a service's commands are switched off, in their language. */
export function featureOffError(feature: Feature, locale: string | null | undefined): UserError {
  return new UserError(commonMessages(langOf(locale)).featureOff(feature));
}

/**
 * What the member sees for an error, in `lang` where the words are the router's own (a service's
 * trouble; an error's `userMessage` is as written); `undefined` means "internal: log it and say
 * something generic".
 */
export function describeForUser(error: unknown, lang: Lang = 'en'): string | undefined {
  if (error instanceof StaleInteractionError) return commonMessages(lang)[error.kind];
  // Storage's own refusals, met by any command that saves settings: in the member's language.
  if (error instanceof LockBusyError) return commonMessages(lang).lockBusy;
  if (error instanceof UnreadableStoreError) return commonMessages(lang).schedulesUnreadable;
  if (error instanceof UserError) return error.message;
  // Service and auth errors that the member can act on carry their own sentence for them.
  const userMessage = (error as { userMessage?: unknown } | null)?.userMessage;
  if (typeof userMessage === 'string') return userMessage;
  const t = commonMessages(lang);
  if (error instanceof RateLimitError) return t.tooManyRequests(error.service, error.retryAfterMs);
  // A fault on the service's side (5xx, also after the retries) reads as "not answering" too.
  if (unanswered(error)) return t.notAnswering(error.service);
  if (error instanceof ResponseValidationError) return t.unreadable(error.service);
  return undefined;
}

/**
 * Answers an interaction that failed: a specific ephemeral message for a user error, a short generic
 * one with a reference for anything else (which is logged with context, secrets redacted). Uses
 * `editReply`/`followUp` when the interaction was already acknowledged.
 */
export async function replyWithError(
  interaction: Interaction,
  error: unknown,
  logger: Logger,
): Promise<void> {
  const lang = langOf(interaction.locale);
  const known = describeForUser(error, lang);
  let content = known;
  const context = {
    interactionId: interaction.id,
    kind: interaction.isChatInputCommand()
      ? `/${interaction.commandName}`
      : interaction.isButton()
        ? 'button'
        : interaction.type,
    userId: interaction.user.id,
    guildId: interaction.guildId,
  };
  if (interaction.isAutocomplete() && lateAutocomplete(error)) {
    // Nothing for the member to read, nor anything broken: suggestions that came too late.
    logger.warn(
      { err: error, ...context },
      'autocomplete took too long for Discord: answered with no suggestions (unless its own answer got there first)',
    );
    if (!interaction.responded) await interaction.respond([]).catch(() => undefined);
    return;
  }
  if (content === undefined) {
    const reference = randomBytes(3).toString('hex');
    logger.error({ err: error, reference, ...context }, 'interaction failed');
    content = commonMessages(lang).internal(reference);
  } else if (error instanceof UpstreamError) {
    logger.warn({ err: error, ...context }, 'upstream service trouble');
  } else if (error instanceof VaultError) {
    // The member is asked to link again; the owner should know why (see the README's troubleshooting).
    logger.warn({ err: error, ...context }, 'a stored music link could not be read');
  } else {
    logger.debug({ ...context, message: content }, 'user error');
  }

  if (interaction.isAutocomplete()) {
    if (!interaction.responded) await interaction.respond([]).catch(() => undefined);
    return;
  }
  if (!interaction.isRepliable()) return;
  try {
    // The "thinking…" message of a public defer is public; an error is for the member alone.
    await answerPrivately(interaction, { content });
  } catch (replyError) {
    logger.warn({ err: replyError, ...context }, 'could not tell the member about an error');
  }
}
