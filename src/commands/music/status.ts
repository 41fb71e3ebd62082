import { MessageFlags } from 'discord.js';
import { renderLinkStatus } from '../../bot/render/account.js';
import type { MusicServices } from '../../bot/context.js';
import type { Subcommand } from '../../bot/subcommands.js';

export default {
  name: 'status',
  build: (sub) => sub.setDescription('Show which music account is linked and what the bot may do with it'),
  async execute(interaction, music) {
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const link = await music.linking.getLink(interaction.user.id);
    if (!link) throw await music.linking.missingLink(interaction.user.id);
    const profile = await music.client.users.me(interaction.user.id);
    await interaction.editReply({ embeds: [renderLinkStatus(link, profile)] });
  },
} satisfies Subcommand<MusicServices>;
