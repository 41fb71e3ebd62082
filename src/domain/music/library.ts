/** The member's saved albums: one or many at once, batched by the client. */
import { HttpError } from '../../services/http/errors.js';
import { IncompleteChangeError, onlyTheFirst } from '../../services/music/errors.js';
import { formatCount } from '../text.js';
import { withinMs } from '../../services/time-limit.js';
import type { MusicDeps } from './deps.js';
import { MusicInputError, shorten } from './errors.js';
import { parseRefList, requireAllValid } from './refs.js';
import { getRecent, rememberRecent, type RecentItem } from './recent.js';

export type LibraryAction = 'save' | 'remove';

/**
 * Albums the reply names by looking them up (one catalog call each, alongside the change) when the
 * member has not looked at them before: a save of one or a few albums by link reads back as their
 * names; a bulk change of dozens names the first few and lists the rest by id.
 */
export const MAX_NAME_LOOKUPS = 5;
/** How long the reply waits for those lookups (the change itself is not held to it). */
const NAME_LOOKUP_MS = 2_000;

export interface LibraryChange {
  action: LibraryAction;
  /** The albums changed, named when known (looked at before, shown, or looked up). */
  albums: { id: string; name: string | undefined }[];
  /** Inputs that are not album links, URIs or ids (skipped). */
  invalid: string[];
}

/** What the reply knows of the albums: their names, and those it looked up just now (with artists). */
interface AlbumNames {
  names: Map<string, string>;
  lookedUp: RecentItem[];
}

/**
 * Names for `ids`: from `known` (what the member was shown), then the member's recent albums, then
 * a lookup of the first few others. A lookup that fails, or is not back within 2 s, leaves its
 * album unnamed: the change is what matters, and it is made whatever the names.
 */
async function albumNames(
  deps: MusicDeps,
  userId: string,
  ids: readonly string[],
  known: ReadonlyMap<string, string>,
): Promise<AlbumNames> {
  const names = new Map(known);
  for (const item of await getRecent(deps.recent, userId, 'albums'))
    if (!names.has(item.id)) names.set(item.id, item.name);
  const unknown = ids.filter((id) => !names.has(id)).slice(0, MAX_NAME_LOOKUPS);
  // Each lookup on its own time limit: one that stalls does not cost the others their names.
  const settled = await Promise.all(
    unknown.map((id) =>
      withinMs(deps.client.albums.get(id), NAME_LOOKUP_MS, 'album name').then(
        (album): RecentItem => ({
          id,
          name: album.name,
          detail: album.artists.map((artist) => artist.name).join(', '),
        }),
        () => undefined,
      ),
    ),
  );
  const found = settled.filter((item): item is RecentItem => item !== undefined && item.name !== '');
  for (const item of found) names.set(item.id, item.name);
  return { names, lookedUp: found };
}

const refusal = (error: unknown): HttpError | undefined =>
  error instanceof HttpError && error.status === 400 ? error : undefined;

/**
 * What a member is told when the change failed. The service refuses a whole request when one id in
 * it does not exist, and says which; a long list goes in several requests, and those before the
 * refused (or failed) one stay applied, which the member must be told.
 */
function libraryFailure(action: LibraryAction, error: unknown, count: number): unknown {
  const refused = refusal(error);
  if (refused !== undefined) {
    // Refused whole: nothing was changed, which the member must know before anything else.
    const nothing = `Nothing was ${action === 'save' ? 'saved' : 'removed'}`;
    const unknown = /non[- ]existing id: '([^']*)'/i.exec(refused.detail ?? '')?.[1];
    if (unknown === undefined) {
      return new MusicInputError(
        `${nothing}: the music service refused the list (${refused.detail ?? 'it gave no reason'}).`,
        { cause: error },
      );
    }
    const which = `\`${shorten(unknown)}\``;
    return new MusicInputError(
      count === 1
        ? `${nothing}: the music service does not know that album (${which}). Check its link or id.`
        : `${nothing}: the music service does not know one of those albums (${which}). Leave it out and ${action} again.`,
      { cause: error },
    );
  }
  if (error instanceof IncompleteChangeError) {
    const refusedLater = refusal(error.cause);
    if (refusedLater !== undefined) {
      const done = action === 'save' ? 'saved' : 'removed';
      const left = error.total - error.applied;
      const why = refusedLater.detail ?? 'it refused the list';
      return new MusicInputError(
        `${onlyTheFirst(error.applied, error.total, 'albums', done, 'your')}. The music service did not ` +
          (left === 1
            ? `accept the last one (${why}), so it was not ${done}: check it, then ${action} it again.`
            : `accept the next ones (${why}), so the other ${formatCount(left)} were not ${done}: check ` +
              `those, then ${action} them again.`),
        { cause: error },
      );
    }
  }
  return error;
}

async function changeLibrary(
  deps: MusicDeps,
  userId: string,
  action: LibraryAction,
  input: string,
  known: ReadonlyMap<string, string>,
): Promise<LibraryChange> {
  const { ids, invalid } = parseRefList(input, 'album');
  if (ids.length === 0) {
    // Nothing to save: say what was not an album rather than only that none was given. (With some
    // albums among them, the others are skipped and listed in the reply.)
    requireAllValid(invalid, 'album');
    throw new MusicInputError('Give at least one album link, URI or id.');
  }
  // Names are looked up alongside the change, not after it: the reply waits for the slower one.
  const names = albumNames(deps, userId, ids, known).catch((): AlbumNames => ({
    names: new Map(known),
    lookedUp: [],
  }));
  try {
    if (action === 'save') await deps.client.library.saveAlbums(userId, ids);
    else await deps.client.library.removeAlbums(userId, ids);
  } catch (error) {
    throw libraryFailure(action, error, ids.length);
  }
  const { names: named, lookedUp } = await names;
  // Albums named by a lookup join the member's recent ones, so autocomplete offers them next time
  // (to remove one saved by link, say). Not remembering them does not undo the change.
  await rememberRecent(deps.recent, userId, 'albums', lookedUp).catch(() => undefined);
  return { action, albums: ids.map((id) => ({ id, name: named.get(id) })), invalid };
}

const libraryChange =
  (action: LibraryAction) =>
  (deps: MusicDeps, userId: string, albums: string, known: ReadonlyMap<string, string> = new Map()) =>
    changeLibrary(deps, userId, action, albums, known);

/** `/music library save`, and the Save button of an album (`known`: the name it showed). */
export const saveAlbumsToLibrary = libraryChange('save');

/** `/music library remove`, and the Remove button of an album (`known`: the name it showed). */
export const removeAlbumsFromLibrary = libraryChange('remove');
