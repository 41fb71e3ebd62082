/** `/music library save` and `/music library remove`: the same command around a different change. */
import { MessageFlags } from 'discord.js';
import { renderLibraryChange } from '../../bot/render/music-library.js';
import type { MusicServices } from '../../bot/context.js';
import type { Subcommand } from '../../bot/subcommands.js';
import type { MusicDeps } from '../../domain/music/deps.js';
import {
  removeAlbumsFromLibrary,
  saveAlbumsToLibrary,
  type LibraryChange,
} from '../../domain/music/library.js';
import { recentListChoices } from './choices.js';
import { depsOf, ensureLinked, guarded } from './shared.js';

function libraryCommand(
  name: string,
  description: string,
  change: (deps: MusicDeps, userId: string, albums: string) => Promise<LibraryChange>,
): Subcommand<MusicServices> {
  return {
    name,
    group: 'library',
    build: (sub) =>
      sub
        .setDescription(description)
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
      const done = await change(
        depsOf(music, ctx),
        interaction.user.id,
        interaction.options.getString('albums', true),
      );
      await interaction.editReply(renderLibraryChange(done));
    }),
    autocomplete: recentListChoices('albums'),
  };
}

export const librarySave = libraryCommand('save', 'Save albums to your library', saveAlbumsToLibrary);
export const libraryRemove = libraryCommand(
  'remove',
  'Remove albums from your library',
  removeAlbumsFromLibrary,
);
