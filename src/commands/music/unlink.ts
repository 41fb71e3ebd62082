import { MessageFlags } from 'discord.js';
import type { MusicServices } from '../../bot/context.js';
import type { Subcommand } from '../../bot/subcommands.js';

export default {
  name: 'unlink',
  build: (sub) => sub.setDescription('Unlink your music account and delete its tokens'),
  async execute(interaction, music) {
    const removed = await music.linking.unlink(interaction.user.id);
    await interaction.reply({
      content: removed
        ? 'Your music account is unlinked and its tokens are deleted. You can also revoke the app in your music account settings.'
        : 'No music account was linked, so there was nothing to delete.',
      flags: MessageFlags.Ephemeral,
    });
  },
} satisfies Subcommand<MusicServices>;
