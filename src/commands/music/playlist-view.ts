import { renderPlaylistPage } from '../../bot/render/playlist.js';
import type { MusicServices } from '../../bot/context.js';
import type { Subcommand } from '../../bot/subcommands.js';
import { openPlaylist } from '../../domain/music/playlists.js';
import { myPlaylistChoices } from './choices.js';
import { depsOf, ensureLinked, guarded } from './shared.js';

export default {
  name: 'view',
  group: 'playlist',
  build: (sub) =>
    sub
      .setDescription('Page through a playlist')
      .addStringOption((option) =>
        option
          .setName('playlist')
          .setDescription('One of your playlists, or a playlist link, URI or id')
          .setRequired(true)
          .setAutocomplete(true),
      )
      .addIntegerOption((option) =>
        option.setName('page').setDescription('Start at this page').setMinValue(1),
      ),
  execute: guarded(async (interaction, music, ctx) => {
    const playlist = interaction.options.getString('playlist', true);
    if (!(await ensureLinked(interaction, music))) return;
    await interaction.deferReply();
    const page = (interaction.options.getInteger('page') ?? 1) - 1;
    const view = await openPlaylist(depsOf(music, ctx), interaction.user.id, playlist, page);
    await interaction.editReply(renderPlaylistPage(view, { ownerId: interaction.user.id }));
  }),
  autocomplete: myPlaylistChoices,
} satisfies Subcommand<MusicServices>;
