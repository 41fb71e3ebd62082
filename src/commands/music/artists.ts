import { renderArtists } from '../../bot/render/music-catalog.js';
import type { MusicServices } from '../../bot/context.js';
import type { Subcommand } from '../../bot/subcommands.js';
import { viewArtists } from '../../domain/music/catalog.js';
import { parseRefList, requireAllValid } from '../../domain/music/refs.js';
import { recentListChoices } from './choices.js';
import { depsOf, guarded } from './shared.js';

export default {
  name: 'artists',
  build: (sub) =>
    sub
      .setDescription('Show several artists at once')
      .addStringOption((option) =>
        option
          .setName('artists')
          .setDescription('Artist links, URIs or ids, separated by spaces or commas')
          .setRequired(true)
          .setAutocomplete(true),
      ),
  execute: guarded(async (interaction, music, ctx) => {
    const artists = interaction.options.getString('artists', true);
    requireAllValid(parseRefList(artists, 'artist').invalid, 'artist');
    await interaction.deferReply();
    const view = await viewArtists(depsOf(music, ctx), interaction.user.id, artists);
    await interaction.editReply(renderArtists(view));
  }),
  autocomplete: recentListChoices('artists'),
} satisfies Subcommand<MusicServices>;
