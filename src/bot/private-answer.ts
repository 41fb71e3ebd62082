import {
  DiscordAPIError,
  MessageFlags,
  RESTJSONErrorCodes,
  type InteractionEditReplyOptions,
  type InteractionReplyOptions,
  type RepliableInteraction,
} from 'discord.js';

/** What a private answer may carry. */
export type PrivateAnswer = Pick<
  InteractionReplyOptions & InteractionEditReplyOptions,
  'content' | 'embeds' | 'components'
>;

/**
 * What the "thinking…" message says when it cannot be deleted and the answer is more than text (a
 * link prompt carries the member's own sign-in address, which must never be public).
 */
export const NOT_PRIVATE_TEXT = 'I could not answer you privately here. Please run the command again.';

/**
 * Shows `answer` to the member alone, whatever the interaction's state. A command deferred in public
 * shows "thinking…" to the channel: that message is deleted, then the answer follows ephemerally
 * (Discord makes the first follow-up after a defer take the defer's place and visibility, so the
 * deletion comes first; one already gone counts as deleted). When the deletion fails, a text answer
 * (an error message, which never carries a secret) takes the "thinking…" message's place instead,
 * as public as it was, rather than the member hearing nothing; an answer with embeds or buttons is
 * not shown there, and {@link NOT_PRIVATE_TEXT} is.
 */
export async function answerPrivately(
  interaction: RepliableInteraction,
  answer: PrivateAnswer,
): Promise<void> {
  const pendingOriginal = interaction.deferred && !interaction.replied && !interaction.isMessageComponent();
  if (!interaction.deferred && !interaction.replied) {
    await interaction.reply({ ...answer, flags: MessageFlags.Ephemeral });
  } else if (pendingOriginal && interaction.ephemeral === true) {
    await interaction.editReply({ embeds: [], components: [], files: [], ...answer });
  } else if (pendingOriginal) {
    const deleted = await interaction.deleteReply().then(
      () => true,
      (error: unknown) =>
        error instanceof DiscordAPIError && error.code === RESTJSONErrorCodes.UnknownMessage,
    );
    if (deleted) await interaction.followUp({ ...answer, flags: MessageFlags.Ephemeral });
    else
      await interaction.editReply({
        content: textOnly(answer) || NOT_PRIVATE_TEXT,
        embeds: [],
        components: [],
        files: [],
      });
  } else {
    await interaction.followUp({ ...answer, flags: MessageFlags.Ephemeral });
  }
}

/** The answer's text when it is nothing but text. */
function textOnly(answer: PrivateAnswer): string | undefined {
  const rich = (answer.embeds?.length ?? 0) > 0 || (answer.components?.length ?? 0) > 0;
  return rich ? undefined : (answer.content ?? undefined);
}
