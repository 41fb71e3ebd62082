/** `/music album`, `/music artist` and `/music artists`. Pure: data in, message JSON out. */
import { ButtonStyle, type APIEmbedField } from 'discord-api-types/v10';
import type { AlbumSummary, ArtistsView, ArtistView, TrackLine } from '../../domain/music/catalog.js';
import type { Artist } from '../../services/music/index.js';
import { albumButton } from './music-ids.js';
import { buttonRows, type ButtonSpec, type MusicMessage } from './music-components.js';
import {
  EMBED_LIMITS,
  fitEmbed,
  fitLines,
  fitPage,
  formatCount,
  formatDuration,
  formatLength,
  label,
  md,
  plural,
  scaled,
} from './music-text.js';

/** Tracks listed per page of an album. */
export const ALBUM_PAGE_SIZE = 20;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `2001`, `Mar 2001`, `12 Mar 2001`, by the date's precision; anything unreadable as it came. */
export function formatReleaseDate(date: string, precision: string): string {
  const match = /^(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?$/.exec(date);
  if (match === null) return md(date, 40, 'Unknown');
  const [, year = '', month, day] = match;
  const monthName = month === undefined ? undefined : MONTHS[Number(month) - 1];
  if (precision === 'year' || monthName === undefined) return year;
  if (precision === 'month' || day === undefined) return `${monthName} ${year}`;
  return `${Number(day)} ${monthName} ${year}`;
}

const ALBUM_TYPES: Record<string, string> = { album: 'Album', single: 'Single', compilation: 'Compilation' };

function albumTypeText(type: string): string {
  return ALBUM_TYPES[type] ?? md(type.charAt(0).toUpperCase() + type.slice(1), 40, 'Unknown');
}

const RESTRICTIONS: Record<string, string> = {
  market: 'not released there',
  product: 'not on your plan',
  explicit: 'explicit content is filtered',
};

function availability(album: AlbumSummary): string {
  const where = album.market ?? 'your market';
  if (album.restriction !== undefined) {
    const why = RESTRICTIONS[album.restriction] ?? `restriction: ${md(album.restriction, 40)}`;
    return `Not available in ${md(where, 20)} (${why})`;
  }
  if (album.market !== undefined) return `Available in ${md(album.market, 20)}`;
  if (album.availableMarkets !== undefined) return `In ${plural(album.availableMarkets.length, 'market')}`;
  return 'Available';
}

/**
 * A track's number on the album as the service gives it (`track_number`, with `disc_number` as
 * `2-5` when the album has more than one disc), not its place in the list: a track the service
 * sent unreadable is left out (see the album tracks' iteration), and the numbers after it must not
 * shift. A number below 1 (not one the service gives) falls back to the place in the list.
 */
function trackNumber(track: TrackLine, position: number, discs: boolean): string {
  if (!(track.trackNumber >= 1)) return String(position);
  return discs && track.discNumber >= 1
    ? `${track.discNumber}-${track.trackNumber}`
    : String(track.trackNumber);
}

/**
 * Who a track is by, where the album's own byline does not say it: nobody when the track's artists
 * are the album's; on a one-artist album, the others (the guests); on an album of several (a
 * compilation, a split), all of the track's, since the byline cannot tell who plays which.
 */
function trackArtists(track: TrackLine, albumArtists: readonly string[]): string[] {
  const others = track.artists.filter((artist) => !albumArtists.includes(artist));
  const sameAsAlbum = others.length === 0 && track.artists.length === albumArtists.length;
  if (sameAsAlbum) return [];
  return albumArtists.length <= 1 ? others : track.artists;
}

function trackLine(track: TrackLine, number: string, albumArtists: readonly string[], scale = 1): string {
  const shown = trackArtists(track, albumArtists);
  const most = scale < 1 / 2 ? 1 : scale < 1 ? 2 : 3;
  const byline =
    shown.length === 0
      ? ''
      : ` — ${shown
          .slice(0, most)
          .map((artist) => md(artist, scaled(40, scale)))
          .join(', ')}${shown.length > most ? ', …' : ''}`;
  const marks = [
    formatDuration(track.durationMs),
    track.explicit ? 'explicit' : undefined,
    track.playable ? undefined : 'unavailable',
  ].filter((mark): mark is string => mark !== undefined);
  return `\`${number}.\` ${md(track.name, scaled(90, scale))}${byline} · ${marks.join(' · ')}`;
}

export interface AlbumRenderOptions {
  /** Who ran the command: only they turn the pages. */
  ownerId: string;
  /** 0-based; clamped to the album's pages. */
  page?: number;
}

export function albumPageCount(album: AlbumSummary): number {
  return Math.max(1, Math.ceil(album.tracks.length / ALBUM_PAGE_SIZE));
}

/** The album: cover, artists, facts, one page of its tracks, and Save / Remove / paging buttons. */
export function renderAlbum(album: AlbumSummary, options: AlbumRenderOptions): MusicMessage {
  const pages = albumPageCount(album);
  const page = Math.min(Math.max(0, Math.trunc(options.page ?? 0)), pages - 1);
  const offset = page * ALBUM_PAGE_SIZE;
  const shown = album.tracks.slice(offset, offset + ALBUM_PAGE_SIZE);
  const artistNames = album.artists.map((artist) => artist.name);
  const discCount = new Set(album.tracks.map((track) => track.discNumber)).size;
  const discs = discCount > 1;
  const byline =
    album.artists.length === 0
      ? 'by an unknown artist'
      : `by ${album.artists
          .slice(0, 8)
          .map((artist) => `**${md(artist.name, 80)}**`)
          .join(
            ', ',
          )}${album.artists.length > 8 ? ` and ${plural(album.artists.length - 8, 'more artist')}` : ''}`;
  const missing = Math.max(0, album.totalTracks - album.tracks.length);
  const after = album.tracks.length - offset - shown.length + missing;
  const list =
    album.tracks.length === 0
      ? album.totalTracks === 0
        ? 'This album lists no tracks.'
        : 'The service listed none of its tracks.'
      : fitPage(
          (scale) =>
            shown.map((track, index) =>
              trackLine(track, trackNumber(track, offset + index + 1, discs), artistNames, scale),
            ),
          EMBED_LIMITS.description - byline.length - 2,
          (hidden) => `…and ${plural(hidden, 'more track')}`,
          after,
        );
  const lengthMs = album.tracks.reduce((sum, track) => sum + track.durationMs, 0);
  const fields: APIEmbedField[] = [
    {
      name: 'Released',
      value:
        album.releaseDate === undefined
          ? 'Not shown'
          : formatReleaseDate(album.releaseDate, album.releaseDatePrecision ?? 'day'),
      inline: true,
    },
    { name: 'Type', value: albumTypeText(album.albumType), inline: true },
    {
      name: 'Label',
      value: album.label === undefined ? 'Not shown' : md(album.label, 100, 'None'),
      inline: true,
    },
    {
      name: 'Tracks',
      value: discs
        ? `${formatCount(album.totalTracks)} on ${discCount} discs`
        : formatCount(album.totalTracks),
      inline: true,
    },
    {
      name: 'Length',
      value: missing > 0 ? `at least ${formatLength(lengthMs)}` : formatLength(lengthMs),
      inline: true,
    },
    { name: 'Availability', value: availability(album), inline: true },
  ];
  const range =
    shown.length === 0
      ? ''
      : `Tracks ${formatCount(offset + 1)}–${formatCount(offset + shown.length)} of ${formatCount(album.totalTracks)} · `;
  const embed = fitEmbed({
    title: label(album.name, EMBED_LIMITS.title, 'Untitled album'),
    url: album.url,
    thumbnail: album.image,
    description: `${byline}\n\n${list}`,
    fields,
    footer: `${range}page ${formatCount(page + 1)} of ${formatCount(pages)}${
      album.copyright === undefined ? '' : `\n${label(album.copyright, 300)}`
    }`,
  });

  const id = (action: 'save' | 'remove' | 'prev' | 'next', target: number) =>
    albumButton.encode({ owner: options.ownerId, album: album.id, page: target, action });
  const library: ButtonSpec[] = [
    { customId: id('save', page), label: 'Save to library', style: ButtonStyle.Success },
    { customId: id('remove', page), label: 'Remove from library' },
  ];
  const paging: ButtonSpec[] =
    pages < 2
      ? []
      : [
          { customId: id('prev', Math.max(0, page - 1)), label: '◀ Tracks', disabled: page === 0 },
          {
            customId: id('next', Math.min(pages - 1, page + 1)),
            label: 'Tracks ▶',
            disabled: page >= pages - 1,
          },
        ];
  return { embeds: [embed], components: buttonRows([[...library, ...paging]]) };
}

function followers(artist: Artist): string {
  return artist.followers === undefined ? 'Not shown' : formatCount(artist.followers.total);
}

function popularity(artist: Artist): string {
  return artist.popularity === undefined ? 'Not shown' : `${artist.popularity}/100`;
}

function genres(artist: Artist, max: number): string {
  if (artist.genres.length === 0) return 'Not classified yet';
  return fitLines([artist.genres.map((genre) => md(genre, 60)).join(', ')], max, () => '…');
}

/** The artist with followers, genres, popularity and top tracks in the member's market. */
export function renderArtist(view: ArtistView): MusicMessage {
  const { artist, topTracks } = view;
  const top =
    topTracks === undefined
      ? 'The music service does not offer top tracks to this bot’s app.'
      : topTracks.length === 0
        ? `None available in ${label(view.market, 20)}.`
        : fitPage(
            (scale) =>
              topTracks.map(
                (track, index) =>
                  `\`${index + 1}.\` ${md(track.name, scaled(80, scale))} — ${md(track.album.name, scaled(60, scale), 'untitled album')} · ${formatDuration(track.duration_ms)}${track.explicit ? ' · explicit' : ''}`,
              ),
            EMBED_LIMITS.fieldValue,
            (hidden) => `…and ${plural(hidden, 'more track')}`,
          );
  return {
    embeds: [
      fitEmbed({
        title: label(artist.name, EMBED_LIMITS.title, 'Unnamed artist'),
        url: artist.external_urls?.service,
        thumbnail: artist.images[0]?.url,
        fields: [
          { name: 'Followers', value: followers(artist), inline: true },
          { name: 'Popularity', value: popularity(artist), inline: true },
          { name: 'Genres', value: genres(artist, EMBED_LIMITS.fieldValue), inline: true },
          { name: `Top tracks in ${label(view.market, 20)}`, value: top },
        ],
      }),
    ],
    components: [],
  };
}

/** Several artists, one line each; ids the service does not know are listed apart. */
export function renderArtists(view: ArtistsView): MusicMessage {
  const lines = view.found.map((artist) => {
    const facts = [
      artist.followers === undefined ? undefined : `${formatCount(artist.followers.total)} followers`,
      artist.popularity === undefined ? undefined : `popularity ${artist.popularity}/100`,
      artist.genres.length === 0
        ? 'not classified yet'
        : artist.genres
            .slice(0, 3)
            .map((genre) => md(genre, 40))
            .join(', '),
    ].filter((fact): fact is string => fact !== undefined);
    return `**${md(artist.name, 80, 'Unnamed artist')}** — ${facts.join(' · ')}`;
  });
  const fields: APIEmbedField[] =
    view.missing.length === 0
      ? []
      : [
          {
            name: 'Not found',
            value: fitLines(
              view.missing.map((id) => `\`${label(id, 60)}\``),
              EMBED_LIMITS.fieldValue,
              (hidden) => `…and ${formatCount(hidden)} more`,
            ),
          },
        ];
  return {
    embeds: [
      fitEmbed({
        title: view.found.length === 0 ? 'No artists found' : plural(view.found.length, 'artist'),
        description:
          lines.length === 0
            ? 'None of those artists were found.'
            : fitLines(
                lines,
                EMBED_LIMITS.description - 1100,
                (hidden) => `…and ${plural(hidden, 'more artist')}`,
              ),
        fields,
      }),
    ],
    components: [],
  };
}
