import { MessageFlags } from 'discord.js';
import type { MusicServices } from '../../bot/context.js';
import type { Subcommand } from '../../bot/subcommands.js';
import { forgetRecent } from '../../domain/music/recent.js';

const UNLINKED = {
  unlinked:
    'Your music account is unlinked and its tokens are deleted. You can also revoke the app in your music account settings.',
  // The member was being told their link expired: that is what goes.
  forgotten:
    'Your expired music link is forgotten: the bot held no tokens for it any more. /music link links an account again.',
  none: 'No music account was linked, so there was nothing to delete.',
} as const;

export default {
  name: 'unlink',
  build: (sub) => sub.setDescription('Unlink your music account and delete its tokens'),
  async execute(interaction, music, ctx) {
    // Acknowledged first: unlinking waits for a token refresh in flight (see `TokenVault.locked`),
    // which may take longer than Discord's three seconds when the token endpoint is slow.
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const outcome = await music.linking.unlink(interaction.user.id);
    // The albums and artists the member looked at go too, linked or not (lookups need no link).
    // Best effort: the link is gone either way, and a list left behind expires (RECENT_TTL_MS).
    await forgetRecent(ctx.storage.ns('music-recent'), interaction.user.id).catch((error: unknown) =>
      ctx.logger.warn({ err: error }, 'could not forget a member’s recent albums and artists'),
    );
    await interaction.editReply({ content: UNLINKED[outcome] });
  },
} satisfies Subcommand<MusicServices>;
