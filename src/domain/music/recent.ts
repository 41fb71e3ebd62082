/**
 * Each member's recently used albums and artists, newest first, for autocomplete: the service has
 * no search endpoint, so what a member looked at before is the best suggestion there is. A list
 * lasts {@link RECENT_TTL_MS} from its last change, so a member who stopped using the bot does not
 * leave one behind for good, and goes with `/music unlink` (see {@link forgetRecent}).
 */
import type Keyv from 'keyv';
import { z } from 'zod';
import { parseMusicRef } from '../../services/music/index.js';
import { byTypedName, nameContains } from '../text.js';
import { requireRef } from './refs.js';

export const MAX_RECENT = 25;
/** How long a member's lists are kept after their last change (each change starts it again). */
export const RECENT_TTL_MS = 90 * 24 * 3600_000;

const recentItemSchema = z.object({ id: z.string(), name: z.string(), detail: z.string().optional() });
const recentListsSchema = z.object({
  albums: z.array(recentItemSchema).catch([]),
  artists: z.array(recentItemSchema).catch([]),
});

export type RecentItem = z.output<typeof recentItemSchema>;
export type RecentKind = 'albums' | 'artists';
type RecentLists = z.output<typeof recentListsSchema>;

const keyOf = (userId: string) => `recent:${userId}`;

async function read(store: Keyv, userId: string): Promise<RecentLists> {
  const parsed = recentListsSchema.safeParse(await store.get(keyOf(userId)));
  return parsed.success ? parsed.data : { albums: [], artists: [] };
}

export async function getRecent(store: Keyv, userId: string, kind: RecentKind): Promise<RecentItem[]> {
  return (await read(store, userId))[kind];
}

/** Puts `items` first (in their order), drops older copies of them, keeps at most 25. */
export async function rememberRecent(
  store: Keyv,
  userId: string,
  kind: RecentKind,
  items: readonly RecentItem[],
): Promise<void> {
  if (items.length === 0) return;
  const lists = await read(store, userId);
  const ids = new Set(items.map((item) => item.id));
  lists[kind] = [...items, ...lists[kind].filter((item) => !ids.has(item.id))].slice(0, MAX_RECENT);
  await store.set(keyOf(userId), lists, RECENT_TTL_MS);
}

/** Deletes the member's lists (they unlinked: the bot forgets what they looked at too). */
export async function forgetRecent(store: Keyv, userId: string): Promise<void> {
  await store.delete(keyOf(userId));
}

/**
 * Items whose name or detail holds what the member typed, accents, curly apostrophes and emoji
 * aside (see `nameContains`), or whose id it is (all when nothing is typed).
 */
export function matchRecent(items: readonly RecentItem[], typed: string): RecentItem[] {
  const needle = typed.trim().toLowerCase();
  if (needle === '') return [...items];
  return items.filter(
    (item) =>
      nameContains(item.name, typed) ||
      (item.detail !== undefined && nameContains(item.detail, typed)) ||
      item.id.toLowerCase() === needle,
  );
}

/**
 * The id in a link, URI or id; else the id of the newest recent item of that name (what the member
 * typed without picking a suggestion: as typed, else folded alike, see `byTypedName`); else a
 * `MusicInputError`.
 */
export async function resolveRecent(
  store: Keyv,
  userId: string,
  kind: RecentKind,
  input: string,
): Promise<string> {
  const type = kind === 'albums' ? 'album' : 'artist';
  const id = parseMusicRef(input, type);
  if (id !== undefined) return id;
  const [known] = byTypedName(await getRecent(store, userId, kind), input, (item) => item.name);
  return known?.id ?? requireRef(input, type);
}
