/** The member's saved albums: one or many at once, batched by the client. */
import { HttpError } from '../../services/http/errors.js';
import type { MusicDeps } from './deps.js';
import { MusicInputError } from './errors.js';
import { parseRefList, requireAllValid } from './refs.js';
import { getRecent } from './recent.js';

export type LibraryAction = 'save' | 'remove';

export interface LibraryChange {
  action: LibraryAction;
  /** The albums changed, named when the member looked at them before. */
  albums: { id: string; name: string | undefined }[];
  /** Inputs that are not album links, URIs or ids (skipped). */
  invalid: string[];
}

async function changeLibrary(
  deps: MusicDeps,
  userId: string,
  action: LibraryAction,
  input: string,
): Promise<LibraryChange> {
  const { ids, invalid } = parseRefList(input, 'album');
  if (ids.length === 0) {
    // Nothing to save: say what was not an album rather than only that none was given. (With some
    // albums among them, the others are skipped and listed in the reply.)
    requireAllValid(invalid, 'album');
    throw new MusicInputError('Give at least one album link, URI or id.');
  }
  try {
    if (action === 'save') await deps.client.library.saveAlbums(userId, ids);
    else await deps.client.library.removeAlbums(userId, ids);
  } catch (error) {
    // The service refuses the whole batch when one id does not exist, and says which.
    if (error instanceof HttpError && error.status === 400) {
      const detail = error.detail ?? 'it refused the list';
      throw new MusicInputError(`The music service did not accept those albums: ${detail}.`, {
        cause: error,
      });
    }
    throw error;
  }
  const recent = await getRecent(deps.recent, userId, 'albums');
  const names = new Map(recent.map((item) => [item.id, item.name]));
  return { action, albums: ids.map((id) => ({ id, name: names.get(id) })), invalid };
}

/** `/music library save`, and the Save button of an album. */
export const saveAlbumsToLibrary = (deps: MusicDeps, userId: string, albums: string) =>
  changeLibrary(deps, userId, 'save', albums);

/** `/music library remove`, and the Remove button of an album. */
export const removeAlbumsFromLibrary = (deps: MusicDeps, userId: string, albums: string) =>
  changeLibrary(deps, userId, 'remove', albums);
