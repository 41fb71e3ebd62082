/**
 * Playlist pages (10 items, first / previous / next / last), the results of edits, and the
 * confirmations before removing or replacing items. Pure: data in, message JSON out.
 */
import { ButtonStyle } from 'discord-api-types/v10';
import type {
  PlaylistEdit,
  PlaylistHead,
  PlaylistPage,
  RemovalPreview,
  ReplacementPreview,
} from '../../domain/music/playlists.js';
import type { PlaylistEntry } from '../../services/music/index.js';
import { cancelButton, playlistPageButton, removeConfirmButton, replaceConfirmButton } from './music-ids.js';
import { buttonRows, type ButtonSpec, type MusicMessage } from './music-components.js';
import {
  clip,
  EMBED_LIMITS,
  fitEmbed,
  fitLines,
  fitPage,
  formatCount,
  formatDuration,
  label,
  md,
  plural,
  scaled,
} from './music-text.js';

function artistsOf(entry: PlaylistEntry, scale: number): string {
  const names = (entry.track?.artists ?? [])
    .map((artist) => artist.name ?? '')
    .filter((name) => name.trim() !== '');
  if (names.length === 0) return '';
  const most = scale < 1 / 2 ? 1 : 2;
  return ` — ${names
    .slice(0, most)
    .map((name) => md(name, scaled(40, scale)))
    .join(', ')}${names.length > most ? ', …' : ''}`;
}

function durationOf(entry: PlaylistEntry): string {
  const ms = entry.track?.duration_ms;
  return ms === null || ms === undefined || ms <= 0 ? '' : ` · ${formatDuration(ms)}`;
}

/**
 * One line per item, whatever it is: a null, local or episode item never breaks a page. `scale`
 * shortens the names (see `fitPage`).
 */
export function entryLine(entry: PlaylistEntry, position: number, scale = 1): string {
  const number = `\`${formatCount(position)}.\``;
  const item = entry.track;
  switch (entry.kind) {
    case 'track': {
      // As the album view marks its tracks: explicit, and not playable (with the service's reason).
      const marks = [
        item?.explicit === true ? 'explicit' : undefined,
        item?.is_playable === false || item?.restrictions !== undefined ? 'unavailable' : undefined,
      ]
        .filter((mark) => mark !== undefined)
        .map((mark) => ` · ${mark}`)
        .join('');
      return `${number} ${md(item?.name, scaled(80, scale))}${artistsOf(entry, scale)}${durationOf(entry)}${marks}`;
    }
    case 'episode':
      return `${number} 🎙️ ${md(item?.name, scaled(80, scale), 'untitled episode')}${
        item?.show?.name ? ` — ${md(item.show.name, scaled(60, scale))}` : ''
      }${durationOf(entry)}`;
    case 'local':
      return `${number} 💾 ${md(item?.name, scaled(80, scale), 'untitled file')}${artistsOf(entry, scale)}${durationOf(entry)} · local file`;
    case 'unavailable':
      return `${number} *Unavailable: removed from the service*`;
    case 'unsupported':
      return `${number} *An item the bot cannot show*`;
  }
}

function visibility(head: PlaylistHead): string {
  if (head.collaborative) return 'collaborative';
  if (head.public === true) return 'public';
  if (head.public === false) return 'private';
  return '';
}

function headline(head: PlaylistHead, total: number): string {
  return [
    `by **${md(head.ownerName ?? head.ownerId, 60, 'someone')}**`,
    plural(total, 'item'),
    visibility(head),
  ]
    .filter((part) => part !== '')
    .join(' · ');
}

export interface PlaylistPageOptions {
  /** Who ran the command: only they turn the pages. */
  ownerId: string;
  /** A sentence shown above the items (the result of an edit). */
  note?: string | undefined;
}

function pageButtons(page: PlaylistPage, ownerId: string): ButtonSpec[] {
  if (page.pageCount < 2) return [];
  const last = page.pageCount - 1;
  const current = Math.min(page.page, last);
  const id = (target: number, nav: 'first' | 'prev' | 'next' | 'last') =>
    playlistPageButton.encode({ owner: ownerId, playlist: page.head.id, page: target, nav });
  return [
    { customId: id(0, 'first'), label: '⏮ First', disabled: current === 0 },
    { customId: id(Math.max(0, current - 1), 'prev'), label: '◀ Previous', disabled: current === 0 },
    { customId: id(Math.min(last, current + 1), 'next'), label: 'Next ▶', disabled: current >= last },
    { customId: id(last, 'last'), label: 'Last ⏭', disabled: current >= last },
  ];
}

/** One page of a playlist: "page k of n", and first / previous / next / last. */
export function renderPlaylistPage(page: PlaylistPage, options: PlaylistPageOptions): MusicMessage {
  const top = [
    headline(page.head, page.total),
    ...(options.note === undefined ? [] : [`**${options.note}**`]),
  ]
    .map((line) => clip(line, 600))
    .join('\n');
  const lines = (scale?: number) =>
    page.entries.map((entry, index) => entryLine(entry, page.offset + index + 1, scale));
  const body =
    page.total === 0
      ? 'This playlist is empty.'
      : page.entries.length === 0
        ? `Nothing on this page any more: the playlist now has ${plural(page.total, 'item')}.`
        : fitPage(
            lines,
            EMBED_LIMITS.description - top.length - 2,
            (hidden) => `…and ${plural(hidden, 'more item')}`,
          );
  const range =
    page.entries.length === 0
      ? ''
      : ` · items ${formatCount(page.offset + 1)}–${formatCount(page.offset + page.entries.length)} of ${formatCount(page.total)}`;
  const embed = fitEmbed({
    title: label(page.head.name, EMBED_LIMITS.title, 'Untitled playlist'),
    url: page.head.url,
    thumbnail: page.head.image,
    description: `${top}\n\n${body}`,
    footer: `Page ${formatCount(Math.min(page.page, page.pageCount - 1) + 1)} of ${formatCount(page.pageCount)}${range}`,
  });
  return { embeds: [embed], components: buttonRows([pageButtons(page, options.ownerId)]) };
}

/** The sentence that says what an edit did. */
export function editNote(edit: PlaylistEdit): string {
  const items = plural(edit.count, 'item');
  switch (edit.kind) {
    case 'add':
      return `Added ${items} at position ${formatCount(edit.position)}.`;
    case 'move':
      return `Moved ${items} from position ${formatCount(edit.from ?? edit.position)} to ${formatCount(edit.position)}.`;
    case 'remove': {
      const copies = edit.copies ?? 0;
      const of = edit.count === 1 ? 'it' : 'them';
      const also = copies > 0 ? `, and ${plural(copies, 'other copy', 'other copies')} of ${of}` : '';
      return `Removed ${items} from position ${formatCount(edit.position)}${also}.`;
    }
    case 'replace':
      return `Replaced every item: the playlist now holds ${items}.`;
  }
}

/**
 * The result of an edit: the page where it shows, with its note. When that page could not be read
 * just after the edit, the note still says what was done, and a button shows the page later.
 */
export function renderPlaylistEdit(edit: PlaylistEdit, ownerId: string): MusicMessage {
  if (edit.page !== undefined) return renderPlaylistPage(edit.page, { ownerId, note: editNote(edit) });
  const embed = fitEmbed({
    title: label(edit.head.name, EMBED_LIMITS.title, 'Untitled playlist'),
    url: edit.head.url,
    thumbnail: edit.head.image,
    description: [
      `**${clip(editNote(edit), 600)}**`,
      '',
      'The music service did not show the playlist just after the change; the change is made, so do not run it again. Press Show to see it.',
    ].join('\n'),
  });
  const show: ButtonSpec = {
    customId: playlistPageButton.encode({
      owner: ownerId,
      playlist: edit.head.id,
      page: edit.pageIndex,
      nav: 'first',
    }),
    label: 'Show',
  };
  return { embeds: [embed], components: buttonRows([[show]]) };
}

/** The service removes every copy of a track (see `copiesOf`): where the other copies are. */
function copiesLine(positions: readonly number[]): string {
  // ` · ` between them: a comma would run into the thousands separator (1,204, 3,517).
  const shown = positions.slice(0, 20).map(formatCount).join(' · ');
  const more = positions.length > 20 ? ` and ${formatCount(positions.length - 20)} more` : '';
  const where =
    positions.length === 1 ? `the copy at position ${shown}` : `the copies at positions ${shown}${more}`;
  return `The service removes every copy of a track, so ${where} would go too.`;
}

/** Asks before removing: the items that would go, Remove (only the invoker may confirm) and Cancel. */
export function renderRemovalPrompt(preview: RemovalPreview, ownerId: string): MusicMessage {
  const lines = (scale: number) =>
    preview.entries.map((entry, index) => entryLine(entry, preview.from + index, scale));
  const n = preview.entries.length;
  const copies = preview.copiesAt.length;
  const copiesNote = copies === 0 ? [] : ['', copiesLine(preview.copiesAt)];
  const embed = fitEmbed({
    title: `Remove from “${label(preview.head.name, 200, 'Untitled playlist')}”?`,
    url: preview.head.url,
    description: [
      `${n === 1 ? 'This item' : `These ${plural(n, 'item')}`} of ${formatCount(preview.total)} would be removed:`,
      '',
      fitPage(lines, EMBED_LIMITS.description - 500, (hidden) => `…and ${plural(hidden, 'more item')}`),
      ...copiesNote,
      '',
      `Only <@${ownerId}> can confirm. Nothing changes until then.`,
    ].join('\n'),
  });
  const confirm: ButtonSpec = {
    customId: removeConfirmButton.encode({
      owner: ownerId,
      playlist: preview.head.id,
      from: preview.from,
      count: n,
      check: preview.fingerprint,
    }),
    label: `Remove ${plural(n + copies, 'item')}`,
    style: ButtonStyle.Danger,
  };
  const cancel: ButtonSpec = {
    customId: cancelButton.encode({ owner: ownerId, kind: 'remove' }),
    label: 'Cancel',
  };
  return { embeds: [embed], components: buttonRows([[confirm, cancel]]) };
}

/** "All 30 items would be replaced by these 2 items:", worded for one item or an empty playlist. */
function replacementHeadline(total: number, n: number): string {
  const incoming = n === 1 ? 'this item' : `these ${plural(n, 'item')}`;
  if (total === 0) return `The playlist is empty; it would then hold ${incoming}:`;
  const outgoing = total === 1 ? 'Its only item' : `All ${plural(total, 'item')}`;
  return `${outgoing} would be replaced by ${incoming}:`;
}

/** Asks before replacing every item: what goes in, Replace (only the invoker may confirm) and Cancel. */
export function renderReplacementPrompt(preview: ReplacementPreview, ownerId: string): MusicMessage {
  const n = preview.uris.length;
  const lines = preview.uris.map((uri, index) => `\`${formatCount(index + 1)}.\` \`${label(uri, 100)}\``);
  const embed = fitEmbed({
    title: `Replace every item of “${label(preview.head.name, 200, 'Untitled playlist')}”?`,
    url: preview.head.url,
    description: [
      replacementHeadline(preview.total, n),
      '',
      fitLines(lines, EMBED_LIMITS.description - 300, (hidden) => `…and ${plural(hidden, 'more item')}`),
      '',
      `Only <@${ownerId}> can confirm, within 15 minutes. Nothing changes until then.`,
    ].join('\n'),
  });
  const confirm: ButtonSpec = {
    customId: replaceConfirmButton.encode({
      owner: ownerId,
      playlist: preview.head.id,
      token: preview.token,
    }),
    label: `Replace with ${plural(n, 'item')}`,
    style: ButtonStyle.Danger,
  };
  const cancel: ButtonSpec = {
    customId: cancelButton.encode({ owner: ownerId, kind: 'replace' }),
    label: 'Cancel',
  };
  return { embeds: [embed], components: buttonRows([[confirm, cancel]]) };
}

/** A cancelled confirmation: the buttons go away. */
/** A confirmation prompt that can no longer be confirmed: why, and no buttons. */
export function renderConfirmationEnded(reason: string): MusicMessage {
  return { content: reason, embeds: [], components: [] };
}

export function renderCancelled(kind: 'remove' | 'replace'): MusicMessage {
  return {
    content: `Cancelled: nothing was ${kind === 'remove' ? 'removed' : 'replaced'}.`,
    embeds: [],
    components: [],
  };
}
