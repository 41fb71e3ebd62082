import { MessageFlags } from 'discord.js';
import type { MusicServices } from '../../bot/context.js';
import type { Subcommand } from '../../bot/subcommands.js';

export default {
  name: 'unlink',
  build: (sub) => sub.setDescription('Unlink your music account and delete its tokens'),
  async execute(interaction, music) {
    // Acknowledged first: unlinking waits for a token refresh in flight (see `TokenVault.locked`),
    // which may take longer than Discord's three seconds when the token endpoint is slow.
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const removed = await music.linking.unlink(interaction.user.id);
    await interaction.editReply({
      content: removed
        ? 'Your music account is unlinked and its tokens are deleted. You can also revoke the app in your music account settings.'
        : 'No music account was linked, so there was nothing to delete.',
    });
  },
} satisfies Subcommand<MusicServices>;
