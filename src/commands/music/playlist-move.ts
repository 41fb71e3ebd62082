import type { MusicServices } from '../../bot/context.js';
import type { Subcommand } from '../../bot/subcommands.js';
import { movePlaylistItems } from '../../domain/music/playlists.js';
import { editablePlaylistChoices, myPlaylistOption } from './choices.js';
import { deferForPlaylist, depsOf, ensureLinked, guarded, showEdit } from './shared.js';

export default {
  name: 'move',
  group: 'playlist',
  build: (sub) =>
    sub
      .setDescription('Move items within a playlist')
      .addStringOption(myPlaylistOption)
      .addIntegerOption((option) =>
        option
          .setName('from')
          .setDescription('Position of the first item to move (1 = first)')
          .setRequired(true)
          .setMinValue(1),
      )
      .addIntegerOption((option) =>
        option.setName('to').setDescription('Position it should end up at').setRequired(true).setMinValue(1),
      )
      .addIntegerOption((option) =>
        option
          .setName('count')
          .setDescription('How many items to move (1 if left out)')
          .setMinValue(1)
          .setMaxValue(100),
      ),
  execute: guarded(async (interaction, music, ctx) => {
    const playlist = interaction.options.getString('playlist', true);
    if (!(await ensureLinked(interaction, music))) return;
    await deferForPlaylist(interaction, music, ctx, playlist, 'edit');
    const edit = await movePlaylistItems(
      depsOf(music, ctx),
      interaction.user.id,
      playlist,
      interaction.options.getInteger('from', true),
      interaction.options.getInteger('to', true),
      interaction.options.getInteger('count') ?? 1,
    );
    await showEdit(interaction, edit, interaction.user.id, ctx);
  }),
  autocomplete: editablePlaylistChoices,
} satisfies Subcommand<MusicServices>;
