import { renderArtist } from '../../bot/render/music-catalog.js';
import type { MusicServices } from '../../bot/context.js';
import type { Subcommand } from '../../bot/subcommands.js';
import { viewArtist } from '../../domain/music/catalog.js';
import { resolveRecent } from '../../domain/music/recent.js';
import { recentChoices } from './choices.js';
import { depsOf, guarded, marketOf } from './shared.js';

export default {
  name: 'artist',
  build: (sub) =>
    sub
      .setDescription('Show an artist and their top tracks')
      .addStringOption((option) =>
        option
          .setName('artist')
          .setDescription('Artist link, URI or id (your recent artists are suggested)')
          .setRequired(true)
          .setAutocomplete(true),
      ),
  execute: guarded(async (interaction, music, ctx) => {
    const artist = await resolveRecent(
      ctx.storage.ns('music-recent'),
      interaction.user.id,
      'artists',
      interaction.options.getString('artist', true),
    );
    await interaction.deferReply();
    const market = await marketOf(music, interaction.user.id);
    const view = await viewArtist(depsOf(music, ctx), interaction.user.id, artist, market);
    await interaction.editReply(renderArtist(view));
  }),
  autocomplete: recentChoices('artists'),
} satisfies Subcommand<MusicServices>;
