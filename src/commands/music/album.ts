import { renderAlbum } from '../../bot/render/music-catalog.js';
import type { MusicServices } from '../../bot/context.js';
import type { Subcommand } from '../../bot/subcommands.js';
import { viewAlbum } from '../../domain/music/catalog.js';
import { resolveRecent } from '../../domain/music/recent.js';
import { recentChoices } from './choices.js';
import { depsOf, guarded, marketOf } from './shared.js';

export default {
  name: 'album',
  build: (sub) =>
    sub
      .setDescription('Show an album and its tracks')
      .addStringOption((option) =>
        option
          .setName('album')
          .setDescription('Album link, URI or id (your recent albums are suggested)')
          .setRequired(true)
          .setAutocomplete(true),
      ),
  execute: guarded(async (interaction, music, ctx) => {
    const album = await resolveRecent(
      ctx.storage.ns('music-recent'),
      interaction.user.id,
      'albums',
      interaction.options.getString('album', true),
    );
    await interaction.deferReply();
    const market = await marketOf(music, interaction.user.id);
    const summary = await viewAlbum(depsOf(music, ctx), interaction.user.id, album, market);
    await interaction.editReply(renderAlbum(summary, { ownerId: interaction.user.id }));
  }),
  autocomplete: recentChoices('albums'),
} satisfies Subcommand<MusicServices>;
