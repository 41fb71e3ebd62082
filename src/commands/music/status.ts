import { MessageFlags } from 'discord.js';
import { renderLinkStatus } from '../../bot/render/account.js';
import type { MusicServices } from '../../bot/context.js';
import type { Subcommand } from '../../bot/subcommands.js';
import { RateLimitError, ResponseValidationError, unanswered } from '../../services/http/errors.js';
import { guarded } from './shared.js';

/**
 * Whether the service could not answer for now (a 5xx, a timeout, no connection, a long rate limit,
 * an answer it could not read), rather than refusing the account: the status then shows what the
 * link itself holds. A refusal (an expired link, a missing scope, a member not on the app's list)
 * is the member's to mend and is answered as every music command answers it, with the link button.
 */
function notAnsweringNow(error: unknown): boolean {
  return unanswered(error) || error instanceof RateLimitError || error instanceof ResponseValidationError;
}

export default {
  name: 'status',
  build: (sub) => sub.setDescription('Show which music account is linked and what the bot may do with it'),
  execute: guarded(async (interaction, music) => {
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const link = await music.linking.getLink(interaction.user.id);
    if (!link) throw await music.linking.missingLink(interaction.user.id);
    const profile = await music.client.users.me(interaction.user.id).catch((error: unknown) => {
      if (notAnsweringNow(error)) return undefined;
      throw error;
    });
    await interaction.editReply({ embeds: [renderLinkStatus(link, profile)] });
  }),
} satisfies Subcommand<MusicServices>;
