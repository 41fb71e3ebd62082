import { ActionRowBuilder, ButtonBuilder } from '@discordjs/builders';
import { ButtonStyle } from 'discord.js';
import { renderLinkPrompt } from '../../bot/render/account.js';
import type { MusicServices } from '../../bot/context.js';
import { answerPrivatelySoon } from '../../bot/private-answer.js';
import type { Subcommand } from '../../bot/subcommands.js';
import { discordAccount } from './shared.js';

export default {
  name: 'link',
  build: (sub) => sub.setDescription('Link your music account to the bot (only you see the link)'),
  async execute(interaction, music) {
    await answerPrivatelySoon(interaction, async () => {
      // A link the bot cannot read (another key) is one to replace, said no differently.
      const current = await music.linking.getLink(interaction.user.id).catch(() => undefined);
      const url = await music.linking.startLink(interaction.user.id, {
        account: discordAccount(interaction.user),
        notify: { applicationId: interaction.applicationId, interactionToken: interaction.token },
      });
      const button = new ButtonBuilder()
        .setStyle(ButtonStyle.Link)
        .setLabel('Link my music account')
        .setURL(url);
      return {
        embeds: [renderLinkPrompt(current)],
        components: [new ActionRowBuilder<ButtonBuilder>().addComponents(button).toJSON()],
      };
    });
  },
} satisfies Subcommand<MusicServices>;
