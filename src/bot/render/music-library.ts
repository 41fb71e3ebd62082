/** `/music library save|remove` and the album's library buttons. Pure: data in, message JSON out. */
import type { LibraryChange } from '../../domain/music/library.js';
import { shorten } from '../../domain/music/errors.js';
import type { MusicMessage } from './music-components.js';
import { EMBED_LIMITS, fitEmbed, fitLines, formatCount, md, plural } from './music-text.js';

export function renderLibraryChange(change: LibraryChange): MusicMessage {
  const n = change.albums.length;
  // The service answers a removal of an album that was not saved as it answers any other, and the
  // contract has no way to ask first: the title says where the albums are now, which holds either way.
  const title =
    change.action === 'save'
      ? `Saved ${plural(n, 'album')} to your library`
      : `${plural(n, 'album')} ${n === 1 ? 'is' : 'are'} out of your library`;
  const lines = change.albums.map((album) =>
    album.name === undefined ? `• \`${album.id}\`` : `• **${md(album.name, 100)}** (\`${album.id}\`)`,
  );
  const fields =
    change.invalid.length === 0
      ? []
      : [
          {
            name: 'Skipped: not album links, URIs or ids',
            value: fitLines(
              change.invalid.map((input) => `• \`${shorten(input)}\``),
              EMBED_LIMITS.fieldValue,
              (hidden) => `…and ${formatCount(hidden)} more`,
            ),
          },
        ];
  return {
    embeds: [
      fitEmbed({
        title,
        description: fitLines(
          lines,
          EMBED_LIMITS.description - 1500,
          (hidden) => `…and ${plural(hidden, 'more album')}`,
        ),
        fields,
      }),
    ],
    components: [],
  };
}
