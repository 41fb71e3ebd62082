import { renderRemovalPrompt } from '../../bot/render/playlist.js';
import type { MusicServices } from '../../bot/context.js';
import type { Subcommand } from '../../bot/subcommands.js';
import { MAX_REMOVE, previewRemoval } from '../../domain/music/playlists.js';
import { editablePlaylistChoices, myPlaylistOption } from './choices.js';
import { deferForPlaylist, depsOf, ensureLinked, guarded, showPlaylistMessage } from './shared.js';

export default {
  name: 'remove',
  group: 'playlist',
  build: (sub) =>
    sub
      .setDescription('Remove items from a playlist (asks first)')
      .addStringOption(myPlaylistOption)
      .addIntegerOption((option) =>
        option
          .setName('position')
          .setDescription('Position of the first item to remove (1 = first)')
          .setRequired(true)
          .setMinValue(1),
      )
      .addIntegerOption((option) =>
        option
          .setName('count')
          .setDescription('How many items from there (1 if left out)')
          .setMinValue(1)
          .setMaxValue(MAX_REMOVE),
      ),
  execute: guarded(async (interaction, music, ctx) => {
    const playlist = interaction.options.getString('playlist', true);
    if (!(await ensureLinked(interaction, music))) return;
    await deferForPlaylist(interaction, music, ctx, playlist, 'edit');
    const preview = await previewRemoval(
      depsOf(music, ctx),
      interaction.user.id,
      playlist,
      interaction.options.getInteger('position', true),
      interaction.options.getInteger('count') ?? 1,
    );
    await showPlaylistMessage(interaction, preview.head, renderRemovalPrompt(preview, interaction.user.id));
  }),
  autocomplete: editablePlaylistChoices,
} satisfies Subcommand<MusicServices>;
