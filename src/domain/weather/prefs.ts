/**
 * Weather preferences: a member's units and home place, a server's default place. Stored as JSON in
 * the `prefs` namespace and validated when read, so a stale or foreign value is ignored, not trusted.
 */
import type Keyv from 'keyv';
import { z } from 'zod';
import { WEATHER_UNITS, type WeatherUnits } from '../../services/weather/index.js';
import { NoPlaceError } from './errors.js';
import type { Place } from './places.js';
import { defaultUnitsFor } from './units.js';

const placeSchema = z.object({
  lat: z.number().min(-90).max(90),
  lon: z.number().min(-180).max(180),
  label: z.string().min(1).max(200),
});

const memberPrefsSchema = z.object({
  units: z.enum(WEATHER_UNITS).optional().catch(undefined),
  home: placeSchema.optional().catch(undefined),
});

const serverPrefsSchema = z.object({ home: placeSchema.optional().catch(undefined) });

export interface MemberWeatherPrefs {
  units?: WeatherUnits;
  home?: Place;
}

export interface ServerWeatherPrefs {
  home?: Place;
}

const memberKey = (userId: string) => `weather:member:${userId}`;
const serverKey = (guildId: string) => `weather:server:${guildId}`;

function parsed<T>(schema: z.ZodType<T>, value: unknown): T | undefined {
  const result = schema.safeParse(value);
  return result.success ? result.data : undefined;
}

/** Drops `undefined` properties, which JSON would drop anyway and exactOptionalPropertyTypes rejects. */
function compact<T extends object>(value: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}

/** A member's preferences as this version reads them from the stored value. */
function memberPrefsOf(stored: unknown): MemberWeatherPrefs {
  return compact(parsed(memberPrefsSchema, stored) ?? {});
}

export async function getMemberPrefs(store: Keyv, userId: string): Promise<MemberWeatherPrefs> {
  return memberPrefsOf(await store.get(memberKey(userId)));
}

export async function getServerPrefs(store: Keyv, guildId: string): Promise<ServerWeatherPrefs> {
  return compact(parsed(serverPrefsSchema, await store.get(serverKey(guildId))) ?? {});
}

/**
 * Changes a member's preferences. Fields this version does not know (a newer version's) are kept
 * as stored, so going back to this version after an upgrade loses none of them.
 */
async function updateMember(
  store: Keyv,
  userId: string,
  change: (prefs: MemberWeatherPrefs) => { units?: WeatherUnits | undefined; home?: Place | undefined },
): Promise<void> {
  const raw: unknown = await store.get(memberKey(userId));
  const stored = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? raw : {};
  // The fields this version knows are what `change` says: one it leaves out is gone.
  const known = { units: undefined, home: undefined };
  const next = compact({ ...stored, ...known, ...change(memberPrefsOf(raw)) });
  if (Object.keys(next).length === 0) await store.delete(memberKey(userId));
  else await store.set(memberKey(userId), next);
}

/** Saves the member's units; `undefined` goes back to the default of their Discord language. */
export async function saveMemberUnits(
  store: Keyv,
  userId: string,
  units: WeatherUnits | undefined,
): Promise<void> {
  await updateMember(store, userId, ({ home }) => ({ home, units }));
}

export async function saveMemberHome(store: Keyv, userId: string, home: Place): Promise<void> {
  await updateMember(store, userId, ({ units }) => ({ units, home }));
}

/** Forgets the member's home place; false when there was none. */
export async function clearMemberHome(store: Keyv, userId: string): Promise<boolean> {
  const had = (await getMemberPrefs(store, userId)).home !== undefined;
  await updateMember(store, userId, ({ units }) => ({ units }));
  return had;
}

export async function saveServerHome(store: Keyv, guildId: string, home: Place): Promise<void> {
  await store.set(serverKey(guildId), { home });
}

/** Forgets the server's default place; false when there was none. */
export async function clearServerHome(store: Keyv, guildId: string): Promise<boolean> {
  const had = (await getServerPrefs(store, guildId)).home !== undefined;
  await store.delete(serverKey(guildId));
  return had;
}

/** The member's saved units, or the default of their Discord language. */
export function chooseUnits(prefs: MemberWeatherPrefs, locale: string | undefined): WeatherUnits {
  return prefs.units ?? defaultUnitsFor(locale);
}

/** Where to look when no place is given: the member's home, then the server's default. */
export async function getDefaultPlace(store: Keyv, userId: string, guildId: string | null): Promise<Place> {
  const member = await getMemberPrefs(store, userId);
  if (member.home) return member.home;
  const server = guildId === null ? undefined : (await getServerPrefs(store, guildId)).home;
  if (server) return server;
  throw new NoPlaceError();
}
