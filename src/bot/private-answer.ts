import {
  MessageFlags,
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
 * Shows `answer` to the member alone, whatever the interaction's state. A command deferred in public
 * shows "thinking…" to the channel: that message is deleted, then the answer follows ephemerally
 * (Discord makes the first follow-up after a defer take the defer's place and visibility, so the
 * deletion comes first). When the deletion fails, the answer takes the "thinking…" message's place
 * instead, as public as it was, rather than leaving it there and telling the member nothing.
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
      () => false,
    );
    if (deleted) await interaction.followUp({ ...answer, flags: MessageFlags.Ephemeral });
    else await interaction.editReply({ embeds: [], components: [], files: [], ...answer });
  } else {
    await interaction.followUp({ ...answer, flags: MessageFlags.Ephemeral });
  }
}
