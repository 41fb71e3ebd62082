import { renderPlaylistPage } from '../../bot/render/playlist.js';
import { formatCount } from '../../bot/render/music-text.js';
import type { MusicServices } from '../../bot/context.js';
import type { Subcommand } from '../../bot/subcommands.js';
import { openPlaylist } from '../../domain/music/playlists.js';
import { myPlaylistChoices } from './choices.js';
import { deferForPlaylist, depsOf, ensureLinked, guarded, showPlaylistMessage } from './shared.js';

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
    await deferForPlaylist(interaction, music, ctx, playlist, 'view');
    const page = (interaction.options.getInteger('page') ?? 1) - 1;
    const view = await openPlaylist(depsOf(music, ctx), interaction.user.id, playlist, page);
    // A page past the end shows the last one, and says so.
    const note =
      view.page < page && view.total > 0
        ? `There is no page ${formatCount(page + 1)}: this is the last.`
        : undefined;
    const message = renderPlaylistPage(view, { ownerId: interaction.user.id, note });
    await showPlaylistMessage(interaction, view.head, message);
  }),
  autocomplete: myPlaylistChoices,
} satisfies Subcommand<MusicServices>;
