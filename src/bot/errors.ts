import { randomBytes } from 'node:crypto';
import { MessageFlags, type Interaction } from 'discord.js';
import {
  HttpError,
  NetworkError,
  RateLimitError,
  ResponseValidationError,
  TimeoutError,
  UpstreamError,
} from '../services/http/errors.js';
import { VaultError } from '../auth/vault.js';
import type { Logger } from '../logger.js';
import type { Feature } from './types.js';

/**
 * An expected problem the member can act on (account not linked, city not found, no active device).
 * Its message is shown to them, ephemerally, as it is.
 */
export class UserError extends Error {
  override readonly name = 'UserError';
}

const SERVICE_NAMES: Record<Feature, string> = { music: 'music', weather: 'weather' };

export function featureOffMessage(feature: Feature): string {
  return (
    `The ${SERVICE_NAMES[feature]} commands are switched off on this bot: its owner has not configured ` +
    `the ${SERVICE_NAMES[feature]} service yet.`
  );
}

/** What the member sees for an error; `undefined` means "internal: log it and say something generic". */
export function describeForUser(error: unknown): string | undefined {
  if (error instanceof UserError) return error.message;
  // Service and auth errors that the member can act on carry their own sentence for them.
  const userMessage = (error as { userMessage?: unknown } | null)?.userMessage;
  if (typeof userMessage === 'string') return userMessage;
  if (error instanceof RateLimitError) {
    const wait =
      error.retryAfterMs === undefined ? 'in a little while' : `in ${formatShortWait(error.retryAfterMs)}`;
    return `The ${error.service} service is receiving too many requests right now. Please try again ${wait}.`;
  }
  // A fault on the service's side (5xx, also after the retries) reads as "not answering" too.
  if (
    error instanceof TimeoutError ||
    error instanceof NetworkError ||
    (error instanceof HttpError && error.status >= 500)
  ) {
    return `The ${error.service} service is not answering right now. Please try again in a minute.`;
  }
  if (error instanceof ResponseValidationError) {
    return (
      `The ${error.service} service sent an answer the bot could not read. Please try again in a minute; ` +
      'if it keeps happening, tell the bot’s owner.'
    );
  }
  return undefined;
}

function formatShortWait(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  if (seconds < 90) return `${seconds} seconds`;
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 90) return `${minutes} minutes`;
  return `about ${Math.round(minutes / 60)} hours`;
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
  const known = describeForUser(error);
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
  if (content === undefined) {
    const reference = randomBytes(3).toString('hex');
    logger.error({ err: error, reference, ...context }, 'interaction failed');
    content = `Something went wrong on our side, sorry. It has been logged (reference \`${reference}\`).`;
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
    if (interaction.deferred && !interaction.replied && !interaction.isMessageComponent()) {
      if (interaction.ephemeral) {
        await interaction.editReply({ content, embeds: [], components: [], files: [] });
      } else {
        // The "thinking…" message is public; an error is for the member alone.
        await interaction.deleteReply().catch(() => undefined);
        await interaction.followUp({ content, flags: MessageFlags.Ephemeral });
      }
    } else if (interaction.replied || interaction.deferred) {
      await interaction.followUp({ content, flags: MessageFlags.Ephemeral });
    } else {
      await interaction.reply({ content, flags: MessageFlags.Ephemeral });
    }
  } catch (replyError) {
    logger.warn({ err: replyError, ...context }, 'could not tell the member about an error');
  }
}
