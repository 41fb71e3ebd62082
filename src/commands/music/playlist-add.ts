import type { MusicServices } from '../../bot/context.js';
import type { Subcommand } from '../../bot/subcommands.js';
import { addToPlaylist } from '../../domain/music/playlists.js';
import { parseItemRefs, requireAllValid } from '../../domain/music/refs.js';
import { editablePlaylistChoices, myPlaylistOption } from './choices.js';
import { deferForPlaylist, depsOf, ensureLinked, guarded, showEdit } from './shared.js';

export default {
  name: 'add',
  group: 'playlist',
  build: (sub) =>
    sub
      .setDescription('Add tracks or episodes to a playlist')
      .addStringOption(myPlaylistOption)
      .addStringOption((option) =>
        option
          .setName('items')
          .setDescription('Track or episode links, URIs or ids, separated by spaces or commas')
          .setRequired(true),
      )
      .addIntegerOption((option) =>
        option
          .setName('position')
          .setDescription('Insert at this position (1 = first; the end if left out)')
          .setMinValue(1),
      ),
  execute: guarded(async (interaction, music, ctx) => {
    const playlist = interaction.options.getString('playlist', true);
    const items = interaction.options.getString('items', true);
    requireAllValid(parseItemRefs(items, music.client.uri).invalid, 'track or episode');
    if (!(await ensureLinked(interaction, music))) return;
    await deferForPlaylist(interaction, music, ctx, playlist, 'edit');
    const position = interaction.options.getInteger('position') ?? undefined;
    const edit = await addToPlaylist(depsOf(music, ctx), interaction.user.id, playlist, items, position);
    await showEdit(interaction, edit, interaction.user.id, ctx);
  }),
  autocomplete: editablePlaylistChoices,
} satisfies Subcommand<MusicServices>;
