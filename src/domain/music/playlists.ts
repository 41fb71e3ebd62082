/**
 * Playlists: pages of 10 items that cost one request each whatever the depth, the member's own
 * playlists for autocomplete, and edits (add, move, remove, replace) that first check the playlist is
 * the member's to change.
 */
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { HttpError, RateLimitError } from '../../services/http/errors.js';
import {
  MAX_PAGE_SIZE,
  MAX_PLAYLIST_ITEMS_PER_REQUEST,
  ForbiddenError,
  IncompleteChangeError,
  NotFoundError,
  onlyTheFirst,
  pageCount,
  parseMusicRef,
  type Page,
  type Playlist,
  type PlaylistEntry,
  type MusicClient,
  type SimplifiedPlaylist,
} from '../../services/music/index.js';
import { byTypedName, formatCount, joinList, plural, quoteText } from '../text.js';
import { cached, readCached, within } from './cache.js';
import type { MusicDeps } from './deps.js';
import {
  MusicInputError,
  MusicProblem,
  NotYourPlaylistError,
  PlaylistGoneError,
  RefusedConfirmationError,
  StaleConfirmationError,
} from './errors.js';
import { articleFor, otherKind, parseItemRefs, requireAllValid, shortLinkHint } from './refs.js';

export const PLAYLIST_PAGE_SIZE = 10;
/** Items removed by one confirmation at most (one page of the service's list). */
export const MAX_REMOVE = MAX_PAGE_SIZE;
/** A playlist's name and owner are reused this long, so a page turn is one request. */
const HEAD_TTL_MS = 60 * 60_000;
/** The member's playlists are listed for autocomplete from a copy this fresh, else fetched quickly. */
const MINE_FRESH_MS = 60_000;
const MINE_KEEP_MS = 24 * 60 * 60_000;
/** How long a replacement waits for its confirmation. */
const PENDING_TTL_MS = 15 * 60_000;
/**
 * Items one replacement puts in at most: one request, which the service applies whole or not at
 * all. More would take a second request, and if that failed the playlist would be left
 * half-replaced, its old items gone; the contract can neither check ids beforehand nor undo.
 */
export const MAX_REPLACE = MAX_PLAYLIST_ITEMS_PER_REQUEST;

const playlistHeadSchema = z.object({
  id: z.string(),
  name: z.string(),
  ownerId: z.string(),
  ownerName: z.string().nullable(),
  public: z.boolean().nullable(),
  collaborative: z.boolean(),
  description: z.string().nullable(),
  url: z.string().optional(),
  image: z.string().optional(),
});
export type PlaylistHead = z.output<typeof playlistHeadSchema>;

export function headOf(playlist: Playlist | SimplifiedPlaylist): PlaylistHead {
  const head: PlaylistHead = {
    id: playlist.id,
    name: playlist.name,
    ownerId: playlist.owner.id,
    ownerName: playlist.owner.display_name ?? null,
    public: playlist.public,
    collaborative: playlist.collaborative,
    description: playlist.description,
  };
  const url = playlist.external_urls?.service;
  if (url !== undefined) head.url = url;
  const image = playlist.images?.[0]?.url;
  if (image !== undefined) head.image = image;
  return head;
}

const headKey = (userId: string, playlistId: string) => `playlist:${userId}:${playlistId}`;

async function keepHead(deps: MusicDeps, userId: string, playlist: Playlist): Promise<PlaylistHead> {
  const head = headOf(playlist);
  await deps.cache.set(headKey(userId, playlist.id), head, HEAD_TTL_MS);
  return head;
}

export interface PlaylistPage {
  head: PlaylistHead;
  entries: PlaylistEntry[];
  /** 0-based. */
  page: number;
  pageCount: number;
  total: number;
  offset: number;
  pageSize: number;
}

function pageView(head: PlaylistHead, page: number, total: number, entries: PlaylistEntry[]): PlaylistPage {
  return {
    head,
    entries,
    page,
    pageCount: pageCount(total, PLAYLIST_PAGE_SIZE),
    total,
    offset: page * PLAYLIST_PAGE_SIZE,
    pageSize: PLAYLIST_PAGE_SIZE,
  };
}

function itemsOf(playlist: Playlist): Page<PlaylistEntry> {
  if (playlist.tracks === undefined) {
    throw new MusicProblem(
      'The music service shows the items of this playlist only to its owner and collaborators.',
    );
  }
  return playlist.tracks;
}

/** Entries `[offset, offset + limit)`: from the items the playlist came with, else one request. */
async function entriesAt(
  deps: MusicDeps,
  userId: string,
  playlist: Playlist,
  offset: number,
  limit: number,
): Promise<PlaylistEntry[]> {
  const embedded = itemsOf(playlist);
  const wanted = Math.max(0, Math.min(limit, embedded.total - offset));
  const start = offset - embedded.offset;
  if (start >= 0 && start + wanted <= embedded.items.length)
    return embedded.items.slice(start, start + wanted);
  const page = await deps.client.playlists.items(playlist.id, { offset, limit }, { userId });
  return page.items;
}

/** `/music playlist view`: the playlist and one page of it (0-based, clamped to the last page). */
export async function openPlaylist(
  deps: MusicDeps,
  userId: string,
  playlist: string,
  page = 0,
): Promise<PlaylistPage> {
  const id = await resolvePlaylist(deps, userId, playlist);
  const full = await getPlaylist(deps, id, userId);
  const head = await keepHead(deps, userId, full);
  const total = itemsOf(full).total;
  await noteTotal(deps, userId, full.id, total);
  const at = Math.min(Math.max(0, page), pageCount(total, PLAYLIST_PAGE_SIZE) - 1);
  const entries = await entriesAt(deps, userId, full, at * PLAYLIST_PAGE_SIZE, PLAYLIST_PAGE_SIZE);
  return pageView(head, at, total, entries);
}

/**
 * A page turn: exactly one request (the page's items) while the playlist's name and owner are
 * cached, two when they must be fetched again. A page past the end (the playlist shrank since the
 * button was drawn, or an edit removed the last page's items) becomes the last page, one request
 * more, as `openPlaylist` clamps; so does "Last" (`toLast`) on a playlist that has grown since.
 * A playlist the member can no longer open is said so, as a {@link PlaylistGoneError}: they typed
 * no id that could be wrong.
 */
export async function getPlaylistPage(
  deps: MusicDeps,
  userId: string,
  playlistId: string,
  page: number,
  toLast = false,
): Promise<PlaylistPage> {
  const itemsAt = (at: number) =>
    whileOpen(
      deps.client.playlists.items(
        playlistId,
        { offset: at * PLAYLIST_PAGE_SIZE, limit: PLAYLIST_PAGE_SIZE },
        { userId },
      ),
    );
  let at = page;
  let items = await itemsAt(at);
  const last = pageCount(items.total, PLAYLIST_PAGE_SIZE) - 1;
  if (at > last || (toLast && at < last)) {
    at = last;
    if (items.total > 0) items = await itemsAt(at);
  }
  const head =
    (await readCached(deps.cache, headKey(userId, playlistId), playlistHeadSchema)) ??
    (await keepHead(deps, userId, await whileOpen(getPlaylist(deps, playlistId, userId))));
  return pageView(head, at, items.total, items.items);
}

/**
 * A request for a playlist shown before: a 404 means it is gone, a bare 403 that its items are no
 * longer the member's to see (no longer a collaborator; since 2026 the service shows items only to
 * the owner and collaborators).
 */
async function whileOpen<T>(request: Promise<T>): Promise<T> {
  try {
    return await request;
  } catch (error) {
    if (error instanceof NotFoundError)
      throw new PlaylistGoneError('This playlist no longer exists: its pages cannot be turned any more.');
    if (error instanceof ForbiddenError && error.userMessage === undefined)
      throw new PlaylistGoneError(
        'You can no longer see this playlist’s items: the music service shows them only to its owner and collaborators.',
      );
    throw error;
  }
}

const mineSchema = z.object({
  at: z.number(),
  playlists: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      owner: z.string().nullable(),
      total: z.number().nullable(),
      /**
       * Whether the member may change it (theirs, or collaborative, as `requireEditable` checks);
       * absent when their profile could not be read, and in copies kept before this field.
       */
      editable: z.boolean().optional(),
      /** The service's `public` (false: private); absent in copies kept before this field. */
      public: z.boolean().nullable().optional(),
      /**
       * Whether the playlist came with its items' reference: since 2026, only to its owner and
       * collaborators. Absent in copies kept before this field.
       */
      itemsShown: z.boolean().optional(),
    }),
  ),
});
export type PlaylistChoice = z.output<typeof mineSchema>['playlists'][number];

const mineKey = (userId: string) => `mine:${userId}`;

/**
 * How many of the member's playlists are read for suggestions and names: ten pages. The service
 * lists the newest first, so one page would leave every playlist past the 50th out of both.
 */
export const MAX_MINE = 500;

async function fetchMine(deps: MusicDeps, userId: string): Promise<PlaylistChoice[]> {
  // The member's own id on the service (not their account id) tells theirs from those they follow;
  // read alongside the first page. Without it, every playlist stays a suggestion for the edits.
  const [first, me] = await Promise.all([
    deps.client.playlists.mine(userId, { offset: 0, limit: MAX_PAGE_SIZE }),
    deps.client.users.me(userId).catch(() => undefined),
  ]);
  const playlists: PlaylistChoice[] = [];
  for await (const playlist of deps.client.paging.iterate(first, { max: MAX_MINE })) {
    playlists.push({
      id: playlist.id,
      name: playlist.name,
      owner: playlist.owner.display_name ?? playlist.owner.id,
      total: playlist.tracks?.total ?? null,
      public: playlist.public,
      itemsShown: playlist.tracks !== undefined,
      ...(me === undefined ? {} : { editable: mayChange(playlist, me.id) }),
    });
  }
  // Kept only with the member's id known: a copy that cannot tell their playlists from those they
  // follow would stand in for a minute, and the edits would suggest followed ones all that time.
  if (me !== undefined) await deps.cache.set(mineKey(userId), { at: Date.now(), playlists }, MINE_KEEP_MS);
  return playlists;
}

/**
 * The member's playlists for autocomplete: a copy under a minute old, else a call that must answer
 * within `timeoutMs`, else the older copy, else nothing.
 */
export async function playlistChoices(
  deps: MusicDeps,
  userId: string,
  timeoutMs: number,
): Promise<PlaylistChoice[]> {
  const copy = await readCached(deps.cache, mineKey(userId), mineSchema);
  if (copy !== undefined && Date.now() - copy.at < MINE_FRESH_MS) return copy.playlists;
  return (await within(fetchMine(deps, userId), timeoutMs)) ?? copy?.playlists ?? [];
}

/**
 * Puts a playlist's item count as the service has just given it into the member's copy of their
 * playlists, after a view or an edit: otherwise, for up to a minute, the suggestions would show the
 * count from before the member's own change ("30 items" right after adding 2). Best effort: a copy
 * left as it was shows an older count, nothing worse.
 */
async function noteTotal(deps: MusicDeps, userId: string, playlistId: string, total: number): Promise<void> {
  try {
    const copy = await readCached(deps.cache, mineKey(userId), mineSchema);
    const entry = copy?.playlists.find((playlist) => playlist.id === playlistId);
    if (copy === undefined || entry === undefined || entry.total === total) return;
    entry.total = total;
    await deps.cache.set(mineKey(userId), copy, MINE_KEEP_MS);
  } catch {
    // The storage did not answer: the copy is refreshed within a minute anyway.
  }
}

/**
 * What a playlist named by the member is for: to view (any in their list it can show) or to edit
 * (theirs and collaborative ones).
 */
export type PlaylistUse = 'view' | 'edit';

/**
 * Whether the playlist can serve `use`. Viewing: not one that is not the member's to change and
 * came without its items (since 2026 the service leaves the items out of playlists the member
 * neither owns nor collaborates on, and refuses to list them). Editing: not one known not to be
 * theirs to change.
 */
export function usableFor(playlist: PlaylistChoice, use: PlaylistUse): boolean {
  return use === 'edit'
    ? playlist.editable !== false
    : !(playlist.editable === false && playlist.itemsShown === false);
}

/**
 * The member's playlists called `input` (typed without picking a suggestion; see `byTypedName`: as
 * typed, else folded alike), of those that can serve `use`: one the member may change, of one of
 * theirs and one they follow of that name. None usable, those of that name all the same, so the
 * answer can say why (not theirs to change).
 */
function named(playlists: readonly PlaylistChoice[], input: string, use: PlaylistUse): PlaylistChoice[] {
  const nameOf = (playlist: PlaylistChoice) => playlist.name;
  const usable = byTypedName(
    playlists.filter((playlist) => usableFor(playlist, use)),
    input,
    nameOf,
  );
  // To view, of the member's own (or collaborative) playlist and ones they follow of that name, the
  // one they may change is taken, as for an edit: looking at it loses nothing, and it is the likelier
  // meant. Two of their own stay two.
  const theirs = usable.filter((playlist) => playlist.editable === true);
  if (use === 'view' && usable.length > 1 && theirs.length === 1) return theirs;
  return usable.length > 0 ? usable : byTypedName(playlists, input, nameOf);
}

/**
 * Several playlists answer to the typed name: the bot does not pick one, as a change to the wrong
 * one would be the member's loss. Each is told by what the suggestions show of it (its item
 * count, and its owner when they differ), for the member to pick it there.
 */
function ambiguousName(input: string, matches: readonly PlaylistChoice[]): MusicInputError {
  const names = new Set(matches.map((playlist) => playlist.name.trim()));
  const name = names.size === 1 ? [...names][0]! : input.trim();
  const owners = new Set(matches.map((playlist) => playlist.owner));
  const details = matches.map((playlist) =>
    [
      playlist.total === null ? undefined : plural(playlist.total, 'item'),
      owners.size > 1 ? (playlist.owner ?? undefined) : undefined,
    ]
      .filter((part) => part !== undefined)
      .join(' · '),
  );
  const told = details.every((detail) => detail !== '') ? ` (${details.join(', ')})` : '';
  return new MusicInputError(
    `You have ${formatCount(matches.length)} playlists called “${quoteText(name)}”${told}: ` +
      'pick one from the suggestions, or give its link.',
  );
}

/**
 * Whether a playlist is private: `public: false`, or collaborative (which the service makes private,
 * whatever a response that leaves `public` out would default it to).
 */
export function isPrivatePlaylist(head: Pick<PlaylistHead, 'public' | 'collaborative'>): boolean {
  return head.public === false || head.collaborative;
}

/**
 * Whether the playlist `input` names is known to be private from what the bot keeps: the member's
 * copy of their playlists (refreshed by autocomplete) or the playlist's head (kept by a view or an
 * edit for an hour). Storage only, no call to the service, so that a command can acknowledge in
 * private from the start. Either copy saying private is enough; unknown is false, and the answer
 * then learns it from the playlist itself (see `showPlaylistMessage` in the commands).
 */
export async function knownPrivate(
  deps: MusicDeps,
  userId: string,
  input: string,
  use: PlaylistUse = 'view',
): Promise<boolean> {
  const copy = await readCached(deps.cache, mineKey(userId), mineSchema);
  const matches = copy === undefined ? [] : named(copy.playlists, input, use);
  const id = parseMusicRef(input, 'playlist') ?? (matches.length === 1 ? matches[0]?.id : undefined);
  if (id === undefined) return false;
  if (copy?.playlists.find((playlist) => playlist.id === id)?.public === false) return true;
  const head = await readCached(deps.cache, headKey(userId, id), playlistHeadSchema);
  return head !== undefined && isPrivatePlaylist(head);
}

/**
 * The playlist's id from a link, URI or id, or from the name of one of the member's playlists (typed
 * without picking a suggestion). A name is looked up in the suggestions' copy of their playlists
 * while it is under a minute old, else in their list as it is now: an older copy may not have a
 * playlist of that name made since, and would let one of two go unnoticed. A name that several
 * playlists answer to is refused (see {@link ambiguousName}).
 */
export async function resolvePlaylist(
  deps: MusicDeps,
  userId: string,
  input: string,
  use: PlaylistUse = 'view',
): Promise<string> {
  const id = parseMusicRef(input, 'playlist');
  if (id !== undefined) return id;
  // An album's (or a track's) link is no playlist's name: said so, rather than "none is called".
  const given = otherKind(input, 'playlist');
  if (given !== undefined) {
    throw new MusicInputError(
      `That points to ${articleFor(given)}, not a playlist: give a playlist’s link, URI or id, or pick one of yours from the suggestions.`,
    );
  }
  const copy = await readCached(deps.cache, mineKey(userId), mineSchema);
  const fresh = copy !== undefined && Date.now() - copy.at < MINE_FRESH_MS;
  let matches = fresh ? named(copy.playlists, input, use) : [];
  if (matches.length === 0) matches = named(await fetchMine(deps, userId), input, use);
  const [found, ...others] = matches;
  if (found !== undefined && others.length === 0) return found.id;
  // Several of that name, none the member's to change: which one does not matter (review).
  if (found !== undefined && use === 'edit' && matches.every((playlist) => playlist.editable === false))
    throw new NotYourPlaylistError(found.name);
  if (found !== undefined) throw ambiguousName(input, matches);
  throw new MusicInputError(
    `None of your playlists is called “${quoteText(input)}”. Pick one from the suggestions, or give its link, URI or id.${shortLinkHint([input])}`,
  );
}

/**
 * Playlists the service makes itself (editorial ones, Discover Weekly, the daily mixes) have ids
 * that start like this, and since 27 November 2024 the real service answers 404 to apps asking for
 * them (spotipy #1175): the link is fine, the service does not serve it. Said so, not "not found".
 */
const SERVICE_MADE_PLAYLIST = /^37i9dQZ/;

async function getPlaylist(deps: MusicDeps, id: string, userId: string): Promise<Playlist> {
  try {
    return await deps.client.playlists.get(id, { userId });
  } catch (error) {
    if (error instanceof NotFoundError && SERVICE_MADE_PLAYLIST.test(id)) {
      throw new MusicInputError(
        'The music service does not let apps open the playlists it makes itself (editorial ones, Discover Weekly, daily mixes). Open it in the app.',
      );
    }
    throw error;
  }
}

/**
 * Whether the member may change the playlist: theirs, or collaborative (the service checks that
 * they are one of its collaborators). Since 2026 a playlist comes without its items to anyone but
 * its owner and collaborators, so a collaborative one without them is one they only follow.
 */
function mayChange(playlist: Playlist | SimplifiedPlaylist, memberId: string): boolean {
  return playlist.owner.id === memberId || (playlist.collaborative && playlist.tracks !== undefined);
}

/** The playlist, when the member owns it or it is collaborative (the service checks the rest). */
async function requireEditable(deps: MusicDeps, userId: string, playlist: string): Promise<Playlist> {
  const id = await resolvePlaylist(deps, userId, playlist, 'edit');
  const [full, me] = await Promise.all([getPlaylist(deps, id, userId), deps.client.users.me(userId)]);
  if (!mayChange(full, me.id)) throw new NotYourPlaylistError(full.name);
  await keepHead(deps, userId, full);
  return full;
}

/**
 * The service's `Index out of bounds`: a position past the end of the playlist as it is now, read a
 * moment ago with more items (a change made meanwhile, in the app or another command). The emulator
 * answers it with a 400; the service has been recorded answering it with a 403 (spotipy #716), which
 * would otherwise read as a playlist that is not the member's.
 */
function isPastTheEnd(error: unknown): boolean {
  return (
    error instanceof HttpError &&
    (error.status === 400 || error.status === 403) &&
    /\bindex out of bounds\b/i.test(error.detail ?? '')
  );
}

/** A 403 on an edit means the playlist is not the member's to change. */
async function editing<T>(playlist: Playlist, change: () => Promise<T>): Promise<T> {
  try {
    return await change();
  } catch (error) {
    if (isPastTheEnd(error)) {
      throw new MusicInputError(
        `“${quoteText(playlist.name)}” has fewer items than a moment ago (it changed meanwhile), so ` +
          'that position is past its end: nothing was changed. Look at it again (`/music playlist view`) ' +
          'and choose the position from there.',
        { cause: error },
      );
    }
    // A bare 403 (no scope, allow-list or removal meaning) on an edit: not the member's playlist.
    if (error instanceof ForbiddenError && error.userMessage === undefined)
      throw new NotYourPlaylistError(playlist.name);
    throw error;
  }
}

function checkRange(total: number, from: number, count: number): void {
  if (!Number.isInteger(count) || count < 1) throw new MusicInputError('The count must be 1 or more.');
  if (!Number.isInteger(from) || from < 1 || from + count - 1 > total) {
    throw new MusicInputError(
      total === 0
        ? 'That playlist is empty.'
        : count === 1
          ? `Position ${formatCount(from)} is not in the playlist: it has ${plural(total, 'item')}.`
          : `${itemRange(from, from + count - 1)} are not all in the playlist: it has ${plural(total, 'item')}.`,
    );
  }
}

/** `Items 3–5` (`items 3–5` with `lower`), and `item 3` when the range is one item. */
function itemRange(from: number, to: number, lower = false): string {
  const text = from === to ? `Item ${formatCount(from)}` : `Items ${formatCount(from)}–${formatCount(to)}`;
  return lower ? text.toLowerCase() : text;
}

const pageIndexOf = (position: number) => Math.floor(Math.max(0, position - 1) / PLAYLIST_PAGE_SIZE);

export interface PlaylistEdit {
  kind: 'add' | 'move' | 'remove' | 'replace';
  /** Items added, moved, removed, or put in. */
  count: number;
  /** 1-based position where the changed items now start (add, move), or started (remove). */
  position: number;
  /** For a move: where the items were. */
  from?: number;
  /** For a removal: copies of the removed items elsewhere in the playlist, which went too. */
  copies?: number;
  /**
   * The page that shows the change, read just after it; undefined when that read failed (the change
   * stands all the same: it is never reported as the edit's failure, which the member would try again).
   */
  page: PlaylistPage | undefined;
  /** The playlist, and the 0-based page that shows the change (for a button to show it later). */
  head: PlaylistHead;
  pageIndex: number;
  /** Why the page could not be read, for the log. */
  pageError?: unknown;
}

/** The page that shows an edit already made; a failure to read it is kept, not thrown. */
async function afterEdit(
  deps: MusicDeps,
  userId: string,
  full: Playlist,
  pageIndex: number,
): Promise<Pick<PlaylistEdit, 'page' | 'head' | 'pageIndex' | 'pageError'>> {
  const head = headOf(full);
  let page: PlaylistPage;
  try {
    page = await getPlaylistPage(deps, userId, full.id, pageIndex);
  } catch (error) {
    return { page: undefined, head, pageIndex, pageError: error };
  }
  await noteTotal(deps, userId, full.id, page.total);
  return { page, head, pageIndex };
}

/** The track and episode URIs of an `items` option, or a `MusicInputError` saying what is wrong. */
function itemUris(uri: MusicClient['uri'], input: string): string[] {
  const { uris, invalid } = parseItemRefs(input, uri);
  requireAllValid(invalid, 'track or episode');
  if (uris.length === 0) throw new MusicInputError('Give at least one track or episode link, URI or id.');
  return uris;
}

function tooManyToReplace(count: number): MusicInputError {
  return new MusicInputError(
    `A replacement takes at most ${formatCount(MAX_REPLACE)} items, so that it happens all at once; you gave ${formatCount(count)}. ` +
      `Nothing was changed. To put in more, replace with the first ${formatCount(MAX_REPLACE)}, then add the rest with /music playlist add.`,
  );
}

/** The items of `/music playlist replace`: as for `itemUris`, and at most `MAX_REPLACE`. */
export function replacementUris(uri: MusicClient['uri'], input: string): string[] {
  const uris = itemUris(uri, input);
  if (uris.length > MAX_REPLACE) throw tooManyToReplace(uris.length);
  return uris;
}

/** The service's 400 for a well-formed id it has no track or episode for (the whole request is refused). */
function isUnknownItem(error: unknown): boolean {
  return error instanceof HttpError && error.status === 400 && /non-existing id/i.test(error.detail ?? '');
}

function unknownItemHint(deps: MusicDeps): string {
  return (
    'Check the links and ids: a bare id is read as a track, so give an episode as its full ' +
    `\`${deps.client.uri('episode', '<id>')}\` URI or its link.`
  );
}

/**
 * What a member is told when adding failed: an unknown item (with what did go in, when an earlier
 * request of a long list had already been applied), else the error as it is.
 */
function addFailure(deps: MusicDeps, error: unknown, at: number): unknown {
  if (isUnknownItem(error)) {
    return new MusicInputError(
      `One of those items is not a track or episode the music service knows, so it refused them: nothing was changed. ${unknownItemHint(deps)}`,
      { cause: error },
    );
  }
  if (error instanceof IncompleteChangeError && isUnknownItem(error.cause)) {
    const { applied, total } = error;
    const refusedTo = Math.min(applied + MAX_PLAYLIST_ITEMS_PER_REQUEST, total);
    const unsent = refusedTo < total ? `, and ${itemRange(refusedTo + 1, total, true)} were not sent` : '';
    const where = placedAt(at, applied);
    const which =
      refusedTo === applied + 1
        ? 'as it is not a track or episode it knows'
        : 'as one of them is not a track or episode it knows';
    return new MusicInputError(
      `${onlyTheFirst(applied, total, 'items', 'added', 'your')}, ${where}. ` +
        `The music service refused ${itemRange(applied + 1, refusedTo, true)}, ${which}${unsent}. ` +
        `${unknownItemHint(deps)} Then add ${itemRange(applied + 1, total, true)} again.`,
      { cause: error },
    );
  }
  if (error instanceof IncompleteChangeError && error.applied > 0) return new IncompleteAddError(error, at);
  return error;
}

/** `at position 5`, `at positions 5–104`: where `applied` items added at `at` went. */
function placedAt(at: number, applied: number): string {
  return applied === 1
    ? `at position ${formatCount(at)}`
    : `at positions ${formatCount(at)}–${formatCount(at + applied - 1)}`;
}

/**
 * A long addition the service failed part-way through (its own trouble, not the items): which
 * positions the added items took, and where the rest belong, so that adding them again keeps the
 * member's order. Still the service's failure, for the log. Only a refusal (a 4xx, a rate limit)
 * says the failed request added nothing; a request that timed out, lost its connection or met a
 * 5xx may have been applied (an addition is never sent twice), so the member is asked to look first.
 */
class IncompleteAddError extends IncompleteChangeError {
  override readonly userMessage: string;
  constructor(source: IncompleteChangeError, at: number) {
    super(source.applied, source.total, source.cause, 'playlist-add');
    const { applied, total } = source;
    const where = placedAt(at, applied);
    const rest = itemRange(applied + 1, total, true);
    const one = total - applied === 1;
    const next = formatCount(at + applied);
    const refused =
      source.cause instanceof RateLimitError ||
      (source.cause instanceof HttpError && source.cause.status >= 400 && source.cause.status < 500);
    this.userMessage = refused
      ? `${onlyTheFirst(applied, total, 'items', 'added', 'your')}, ${where}: the music service then ` +
        `failed, so ${rest} ${one ? 'was' : 'were'} not. Add ${one ? 'it' : 'them'} again later at ` +
        `position ${next}, to keep your order.`
      : `${onlyTheFirst(applied, total, 'items', 'added', 'your')} for sure, ${where}: the music ` +
        `service then failed, and ${rest} may or may not have gone in. Look at the playlist from ` +
        `position ${next} (\`/music playlist view\`) before adding ${one ? 'it' : 'them'} again there.`;
  }
}

/** `/music playlist add`: appends, or inserts at a 1-based position. */
export async function addToPlaylist(
  deps: MusicDeps,
  userId: string,
  playlist: string,
  items: string,
  position?: number,
): Promise<PlaylistEdit> {
  const uris = itemUris(deps.client.uri, items);
  const full = await requireEditable(deps, userId, playlist);
  const total = itemsOf(full).total;
  if (position !== undefined && (!Number.isInteger(position) || position < 1 || position > total + 1))
    throw new MusicInputError(`The position must be between 1 and ${formatCount(total + 1)}.`);
  const at = position ?? total + 1;
  await editing(full, () =>
    deps.client.playlists.addItems(
      userId,
      full.id,
      uris,
      position === undefined ? {} : { position: position - 1 },
    ),
  ).catch((error: unknown) => {
    throw addFailure(deps, error, at);
  });
  return {
    kind: 'add',
    count: uris.length,
    position: at,
    ...(await afterEdit(deps, userId, full, pageIndexOf(at))),
  };
}

/** `/music playlist move`: `count` items from position `from` so that they start at `to` (1-based). */
export async function movePlaylistItems(
  deps: MusicDeps,
  userId: string,
  playlist: string,
  from: number,
  to: number,
  count = 1,
): Promise<PlaylistEdit> {
  const full = await requireEditable(deps, userId, playlist);
  const total = itemsOf(full).total;
  checkRange(total, from, count);
  if (!Number.isInteger(to) || to < 1 || to > total - count + 1)
    throw new MusicInputError(`The new position must be between 1 and ${formatCount(total - count + 1)}.`);
  if (to === from)
    throw new MusicInputError(count === 1 ? 'That item is already there.' : 'Those items are already there.');
  const start = from - 1;
  const target = to - 1;
  // insert_before counts positions before the move, when the moved items are still in place.
  const insertBefore = target > start ? target + count : target;
  await editing(full, () =>
    deps.client.playlists.reorder(userId, full.id, {
      rangeStart: start,
      insertBefore,
      rangeLength: count,
      snapshotId: full.snapshot_id,
    }),
  );
  return {
    kind: 'move',
    count,
    position: to,
    from,
    ...(await afterEdit(deps, userId, full, pageIndexOf(to))),
  };
}

/**
 * Names the items of a removal and where their other copies are, so a confirmation only applies to
 * the items it showed.
 */
export function fingerprintOf(entries: readonly PlaylistEntry[], copiesAt: readonly number[]): string {
  const uris = entries.map((entry) => entry.track?.uri ?? '-').join(',');
  return createHash('sha256')
    .update(`${uris}|${copiesAt.join(',')}`)
    .digest('base64url')
    .slice(0, 10);
}

export interface RemovalPreview {
  head: PlaylistHead;
  /** 1-based. */
  from: number;
  entries: PlaylistEntry[];
  /** 1-based positions outside the range that hold the same tracks: they go too (see `copiesOf`). */
  copiesAt: number[];
  total: number;
  fingerprint: string;
}

/**
 * Where else in the playlist the items to remove sit (1-based). The contract's removal names items
 * by URI only, and the real service removes every copy of a URI: it has ignored `positions` since
 * 2024 (spotipy #1098, tekore #315, spotify-dedup #157). So the member is shown every copy that
 * would go before confirming. Reads the pages after the first one the playlist came with (none for
 * a playlist of up to 100 items).
 */
async function copiesOf(
  deps: MusicDeps,
  full: Playlist,
  from: number,
  entries: readonly PlaylistEntry[],
): Promise<number[]> {
  // A version of the playlist (its snapshot) holds the same copies: the Remove button, pressed on
  // an unchanged playlist, reuses what the prompt read instead of reading every page again.
  const key = `copies:${full.id}:${full.snapshot_id}:${from}:${fingerprintOf(entries, [])}`;
  return cached(deps.cache, key, PENDING_TTL_MS, copiesSchema, async () => {
    const uris = new Set(entries.map((entry) => entry.track?.uri));
    const copies: number[] = [];
    let position = itemsOf(full).offset;
    for await (const entry of deps.client.paging.iterate(itemsOf(full))) {
      position++;
      const inRange = position >= from && position < from + entries.length;
      if (!inRange && entry.track?.uri !== undefined && uris.has(entry.track.uri)) copies.push(position);
    }
    return copies;
  });
}

const copiesSchema = z.array(z.number().int());

async function removableEntries(
  deps: MusicDeps,
  userId: string,
  full: Playlist,
  from: number,
  count: number,
): Promise<PlaylistEntry[]> {
  checkRange(itemsOf(full).total, from, count);
  if (count > MAX_REMOVE) throw new MusicInputError(`At most ${MAX_REMOVE} items can be removed at once.`);
  const entries = await entriesAt(deps, userId, full, from - 1, count);
  // A local file has a URI of its own form (`…:local:…`), but the service refuses it in every
  // request (400 `Invalid track uri`), and a removed track has none: asking would only fail.
  const stuck = entries.flatMap((entry, index) =>
    entry.kind !== 'local' && entry.track?.uri ? [] : [from + index],
  );
  if (stuck.length > 0) {
    throw new MusicInputError(
      `${stuck.length === 1 ? 'Item' : 'Items'} ${joinList(stuck.map(formatCount))} cannot be removed by the bot: ` +
        'the service does not let apps remove local files or items it no longer has. ' +
        `Remove ${stuck.length === 1 ? 'it' : 'them'} in the app.`,
    );
  }
  return entries;
}

/** `/music playlist remove`, first step: what would go. Nothing changes yet. */
export async function previewRemoval(
  deps: MusicDeps,
  userId: string,
  playlist: string,
  from: number,
  count = 1,
): Promise<RemovalPreview> {
  const full = await requireEditable(deps, userId, playlist);
  const entries = await removableEntries(deps, userId, full, from, count);
  const copiesAt = await copiesOf(deps, full, from, entries);
  return {
    head: headOf(full),
    from,
    entries,
    copiesAt,
    total: itemsOf(full).total,
    fingerprint: fingerprintOf(entries, copiesAt),
  };
}

/** The Remove button: removes the previewed items, if they are still where they were. */
export async function removePlaylistItems(
  deps: MusicDeps,
  userId: string,
  playlistId: string,
  from: number,
  count: number,
  fingerprint: string,
): Promise<PlaylistEdit> {
  const full = await requireEditable(deps, userId, playlistId);
  const done = removedKey(userId, playlistId, from, count, fingerprint);
  // What this very confirmation removed already (a second press of its button, a double click or a
  // retry): said as done, where the items now at those positions would read as a changed playlist.
  const stale = async (): Promise<PlaylistEdit> => {
    const made = await readCached(deps.cache, done, removedSchema).catch(() => undefined);
    if (made === undefined) throw new StaleConfirmationError(changedMessage('remove'));
    const edit = { kind: 'remove', count, copies: made.copies, position: from } as const;
    return { ...edit, ...(await afterEdit(deps, userId, full, pageIndexOf(from))) };
  };
  let entries: PlaylistEntry[];
  try {
    entries = await removableEntries(deps, userId, full, from, count);
  } catch (error) {
    if (error instanceof MusicInputError) return stale();
    throw error;
  }
  const copiesAt = await copiesOf(deps, full, from, entries);
  if (fingerprintOf(entries, copiesAt) !== fingerprint) return stale();
  // By URI alone, as the contract names them: every copy goes, as the prompt said.
  const uris = [...new Set(entries.map((entry) => entry.track?.uri ?? ''))];
  await editing(full, () => deps.client.playlists.removeItems(userId, full.id, uris, full.snapshot_id)).catch(
    (error: unknown) => {
      // The service checks the items against the snapshot: a 400 means they changed meanwhile.
      if (error instanceof HttpError && error.status === 400)
        throw new StaleConfirmationError(changedMessage('remove'));
      throw error;
    },
  );
  // Storage that fails here does not make a removal that was made read as one that failed.
  await deps.cache.set(done, { copies: copiesAt.length }, PENDING_TTL_MS).catch(() => undefined);
  return {
    kind: 'remove',
    count,
    copies: copiesAt.length,
    position: from,
    ...(await afterEdit(deps, userId, full, pageIndexOf(from))),
  };
}

/** Marks a confirmed removal as made, for as long as its prompt can be confirmed. */
const removedKey = (userId: string, playlistId: string, from: number, count: number, fingerprint: string) =>
  `removed:${userId}:${playlistId}:${from}:${count}:${fingerprint}`;
const removedSchema = z.object({ copies: z.number().int().nonnegative() });

function changedMessage(command: 'remove' | 'replace'): string {
  return `The playlist changed since you asked: nothing was ${command === 'remove' ? 'removed' : 'replaced'}. Run /music playlist ${command} again.`;
}

const pendingSchema = z.object({
  userId: z.string(),
  playlistId: z.string(),
  uris: z.array(z.string()),
  /** The playlist's version the prompt showed (absent in replacements kept by older versions). */
  snapshot: z.string().optional(),
});
const pendingKey = (token: string) => `replace:${token}`;

export interface ReplacementPreview {
  head: PlaylistHead;
  total: number;
  uris: string[];
  /** Names the pending replacement (kept for 15 minutes); goes in the confirm button. */
  token: string;
}

/** `/music playlist replace`, first step: keeps the new items until the member confirms. */
export async function prepareReplacement(
  deps: MusicDeps,
  userId: string,
  playlist: string,
  items: string,
): Promise<ReplacementPreview> {
  const uris = replacementUris(deps.client.uri, items);
  const full = await requireEditable(deps, userId, playlist);
  const token = randomBytes(9).toString('base64url');
  await deps.cache.set(
    pendingKey(token),
    { userId, playlistId: full.id, uris, snapshot: full.snapshot_id },
    PENDING_TTL_MS,
  );
  return { head: headOf(full), total: itemsOf(full).total, uris, token };
}

/** The Replace button: puts the pending items in place of every item. */
export async function replacePlaylistItems(
  deps: MusicDeps,
  userId: string,
  playlistId: string,
  token: string,
): Promise<PlaylistEdit> {
  const pending = await readCached(deps.cache, pendingKey(token), pendingSchema);
  if (pending === undefined || pending.userId !== userId || pending.playlistId !== playlistId)
    throw new StaleConfirmationError('This confirmation has expired. Run /music playlist replace again.');
  // A confirmation kept from before the limit: refused whole, never split over several requests.
  if (pending.uris.length > MAX_REPLACE) throw tooManyToReplace(pending.uris.length);
  const full = await requireEditable(deps, userId, playlistId);
  // The prompt said which items would go. A replacement takes no version to check against (the
  // service overwrites whatever is there), so a playlist changed since then (a collaborator's
  // additions) is checked here: the member confirms what they saw, or nothing.
  if (pending.snapshot !== undefined && full.snapshot_id !== pending.snapshot) {
    // Changed, to exactly the items this confirmation puts in: a press of Replace just before this
    // one made it (two presses in quick succession both find the confirmation). Said as done.
    const now = itemsOf(full);
    const madeAlready =
      now.total === pending.uris.length &&
      now.items.length === now.total &&
      now.items.every((entry, index) => entry.track?.uri === pending.uris[index]);
    if (madeAlready)
      return { kind: 'replace', count: now.total, position: 1, ...(await afterEdit(deps, userId, full, 0)) };
    const total = now.total;
    throw new StaleConfirmationError(
      `“${quoteText(full.name)}” changed since you asked (it now holds ${plural(total, 'item')}): nothing was replaced. Run /music playlist replace again to see what would go.`,
    );
  }
  await editing(full, () => deps.client.playlists.replaceItems(userId, full.id, pending.uris)).catch(
    (error: unknown) => {
      if (isUnknownItem(error)) {
        throw new RefusedConfirmationError(
          `One of the new items is not a track or episode the music service knows, so it refused the replacement: nothing was changed. ${unknownItemHint(deps)}`,
          { cause: error },
        );
      }
      throw error;
    },
  );
  // The confirmation is kept until it expires: a second press of the same button (a double click,
  // or a retry while the first was under way) then finds the playlist holding exactly its items and
  // says so, where without it the member would read "expired" under a replacement that was made.
  return {
    kind: 'replace',
    count: pending.uris.length,
    position: 1,
    ...(await afterEdit(deps, userId, full, 0)),
  };
}
