import {
  DiscordAPIError,
  MessageFlags,
  RESTJSONErrorCodes,
  type InteractionEditReplyOptions,
  type InteractionReplyOptions,
  type RepliableInteraction,
} from 'discord.js';
import { langOf, type Localized } from './i18n/index.js';

/** What a private answer may carry. */
export type PrivateAnswer = Pick<
  InteractionReplyOptions & InteractionEditReplyOptions,
  'content' | 'embeds' | 'components'
>;

/**
 * What the "thinking…" message says when the private answer cannot be shown and is more than text
 * (a link prompt carries the member's own sign-in address, which must never be public); in the
 * member's language, as the answer is.
 */
export const NOT_PRIVATE_TEXTS: Localized = {
  en: 'I could not answer you privately here. Please run the command again.',
  de: 'Ich konnte dir hier nicht privat antworten. Bitte führe den Befehl noch einmal aus.',
};

/** What a public "thinking…" message says for the moment between its edit and its deletion. */
export const ANSWERED_PRIVATELY_TEXTS: Localized = {
  en: 'Answered you privately.',
  de: 'Ich habe dir privat geantwortet.',
};

/**
 * Shows `answer` to the member alone, whatever the interaction's state. A command deferred in public
 * shows "thinking…" to the channel. Discord makes the first follow-up after a deferral take the
 * deferral's place and visibility (discord-api-docs#2866, #3466), and a follow-up sent after the
 * deferred message was deleted was refused with 10008 Unknown Message (discord-api-docs#2739,
 * #3087; what Discord does there now is not documented). So the "thinking…" message is first
 * edited into a neutral line ({@link ANSWERED_PRIVATELY_TEXTS}), after which a follow-up is a
 * message of its own and keeps its ephemeral flag; then the answer follows ephemerally, and then
 * the line is deleted (a line that cannot be deleted stays, saying nothing more). When the
 * follow-up fails, a text answer (an error message, which never carries a secret) takes the line's
 * place instead, as public as it was, rather than the member hearing nothing; an answer with embeds
 * or buttons is not shown there, and {@link NOT_PRIVATE_TEXTS} is. When the edit fails, nothing is
 * followed up (the follow-up could take the public deferral's place), except, when the message is
 * gone already (10008), text that holds nothing private.
 */
export async function answerPrivately(
  interaction: RepliableInteraction,
  answer: PrivateAnswer,
  /**
   * What the line says instead of {@link NOT_PRIVATE_TEXTS} when an answer with embeds or buttons
   * cannot follow: for an answer to a change already made, that it was made, so the member does
   * not run it again. Public: it must hold nothing private.
   */
  inPlaceOfRich?: string,
): Promise<void> {
  const pendingOriginal = interaction.deferred && !interaction.replied && !interaction.isMessageComponent();
  if (!interaction.deferred && !interaction.replied) {
    await interaction.reply({ ...answer, flags: MessageFlags.Ephemeral });
  } else if (pendingOriginal && interaction.ephemeral === true) {
    await interaction.editReply({ embeds: [], components: [], files: [], ...answer });
  } else if (pendingOriginal) {
    await answerAfterPublicDefer(interaction, answer, inPlaceOfRich);
  } else {
    await interaction.followUp({ ...answer, flags: MessageFlags.Ephemeral });
  }
}

/** See {@link answerPrivately}: a command deferred in public, its "thinking…" message not yet edited. */
async function answerAfterPublicDefer(
  interaction: RepliableInteraction,
  answer: PrivateAnswer,
  inPlaceOfRich: string | undefined,
) {
  const lang = langOf(interaction.locale);
  const inPlace = (content: string) =>
    interaction.editReply({ content, embeds: [], components: [], files: [] });
  const edited = await inPlace(ANSWERED_PRIVATELY_TEXTS[lang]).then(
    () => true,
    (error: unknown) => {
      if (unknownMessage(error)) return false;
      throw error;
    },
  );
  // The "thinking…" message gone already (deleted by someone): what a follow-up then becomes is
  // not documented, and it may take the deferral's public place. Only text that holds nothing
  // private is risked there: a text answer (an error message, which never carries a secret), else
  // the line that stands in for a rich one (a change made: so that it is not made twice), else
  // {@link NOT_PRIVATE_TEXTS}. A sign-in prompt or a private playlist is never sent so.
  const publicSafe = textOnly(answer) || inPlaceOfRich || NOT_PRIVATE_TEXTS[lang];
  try {
    await interaction.followUp({
      ...(edited ? answer : { content: publicSafe }),
      flags: MessageFlags.Ephemeral,
    });
  } catch (error) {
    if (!edited) throw error;
    await inPlace(publicSafe);
    return;
  }
  if (edited) await interaction.deleteReply().catch(() => undefined);
}

const unknownMessage = (error: unknown) =>
  error instanceof DiscordAPIError && error.code === RESTJSONErrorCodes.UnknownMessage;

/**
 * How long the work behind a private answer may take before the interaction is acknowledged first:
 * well inside Discord's three seconds, with room for the acknowledgement's own trip.
 */
export const ACKNOWLEDGE_AFTER_MS = 1_500;

/**
 * Works out a private answer and shows it ({@link answerPrivately}). The work is the bot's own
 * (storage), which takes milliseconds, but storage can stall (a busy disk, Redis across a network):
 * when the work has not finished after {@link ACKNOWLEDGE_AFTER_MS}, the interaction is acknowledged
 * first, privately ("thinking…" for the member alone), and the answer takes its place. Without
 * that, a stall past three seconds would leave the member with "The application did not respond".
 * If the work fails, the acknowledgement is settled first, so the error's answer finds the
 * interaction in the state it is really in.
 */
export async function answerPrivatelySoon(
  interaction: RepliableInteraction,
  work: () => Promise<PrivateAnswer>,
): Promise<void> {
  let acknowledging: Promise<unknown> | undefined;
  const timer = setTimeout(() => {
    // A failure to acknowledge leaves the interaction as it was: the answer then tries a reply.
    acknowledging = interaction.deferReply({ flags: MessageFlags.Ephemeral }).catch(() => undefined);
  }, ACKNOWLEDGE_AFTER_MS);
  let answer: PrivateAnswer;
  try {
    answer = await work();
  } finally {
    clearTimeout(timer);
    await acknowledging;
  }
  await answerPrivately(interaction, answer);
}

/** The answer's text when it is nothing but text. */
function textOnly(answer: PrivateAnswer): string | undefined {
  const rich = (answer.embeds?.length ?? 0) > 0 || (answer.components?.length ?? 0) > 0;
  return rich ? undefined : (answer.content ?? undefined);
}
