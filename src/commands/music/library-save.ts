import { MessageFlags } from 'discord.js';
import { renderLibraryChange } from '../../bot/render/music-library.js';
import type { MusicServices } from '../../bot/context.js';
import type { Subcommand } from '../../bot/subcommands.js';
import { saveAlbumsToLibrary } from '../../domain/music/library.js';
import { recentListChoices } from './choices.js';
import { depsOf, ensureLinked, guarded } from './shared.js';

export default {
  name: 'save',
  group: 'library',
  build: (sub) =>
    sub
      .setDescription('Save albums to your library')
      .addStringOption((option) =>
        option
          .setName('albums')
          .setDescription('Album links, URIs or ids, separated by spaces or commas')
          .setRequired(true)
          .setAutocomplete(true),
      ),
  execute: guarded(async (interaction, music, ctx) => {
    if (!(await ensureLinked(interaction, music))) return;
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const change = await saveAlbumsToLibrary(
      depsOf(music, ctx),
      interaction.user.id,
      interaction.options.getString('albums', true),
    );
    await interaction.editReply(renderLibraryChange(change));
  }),
  autocomplete: recentListChoices('albums'),
} satisfies Subcommand<MusicServices>;
