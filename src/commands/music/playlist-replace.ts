import { renderReplacementPrompt } from '../../bot/render/playlist.js';
import type { MusicServices } from '../../bot/context.js';
import type { Subcommand } from '../../bot/subcommands.js';
import { prepareReplacement, replacementUris } from '../../domain/music/playlists.js';
import { editablePlaylistChoices, myPlaylistOption } from './choices.js';
import { deferForPlaylist, depsOf, ensureLinked, guarded, showPlaylistMessage } from './shared.js';

export default {
  name: 'replace',
  group: 'playlist',
  build: (sub) =>
    sub
      .setDescription('Replace every item of a playlist (asks first)')
      .addStringOption(myPlaylistOption)
      .addStringOption((option) =>
        option
          .setName('items')
          .setDescription(
            'The new track or episode links, URIs or ids (100 at most), separated by spaces or commas',
          )
          .setRequired(true),
      ),
  execute: guarded(async (interaction, music, ctx) => {
    const playlist = interaction.options.getString('playlist', true);
    const items = interaction.options.getString('items', true);
    replacementUris(music.client.uri, items);
    if (!(await ensureLinked(interaction, music))) return;
    await deferForPlaylist(interaction, music, ctx, playlist, 'edit');
    const preview = await prepareReplacement(depsOf(music, ctx), interaction.user.id, playlist, items);
    await showPlaylistMessage(
      interaction,
      preview.head,
      renderReplacementPrompt(preview, interaction.user.id),
    );
  }),
  autocomplete: editablePlaylistChoices,
} satisfies Subcommand<MusicServices>;
