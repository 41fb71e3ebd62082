/**
 * Weather preferences: a member's units and home place, a server's default place. Stored as JSON in
 * the `prefs` namespace and validated when read, so a stale or foreign value is ignored, not trusted.
 */
import { z } from 'zod';
import { WEATHER_UNITS, type WeatherUnits } from '../../services/weather/index.js';
import { withLock, type Storage } from '../../storage/index.js';
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

export async function getMemberPrefs(storage: Storage, userId: string): Promise<MemberWeatherPrefs> {
  return memberPrefsOf(await storage.ns('prefs').get(memberKey(userId)));
}

export async function getServerPrefs(storage: Storage, guildId: string): Promise<ServerWeatherPrefs> {
  return compact(parsed(serverPrefsSchema, await storage.ns('prefs').get(serverKey(guildId))) ?? {});
}

/**
 * Changes a member's preferences, under a lock, so two changes made at once (units in one server,
 * home in another) both stay: each reads what the other wrote. Fields this version does not know
 * (a newer version's) are kept as stored, so going back to this version after an upgrade loses
 * none of them. Answers the preferences as they were before.
 */
async function updateMember(
  storage: Storage,
  userId: string,
  change: (prefs: MemberWeatherPrefs) => { units?: WeatherUnits | undefined; home?: Place | undefined },
): Promise<MemberWeatherPrefs> {
  const store = storage.ns('prefs');
  const key = memberKey(userId);
  return withLock(storage, `prefs:${key}`, async () => {
    const raw: unknown = await store.get(key);
    const stored = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? raw : {};
    const before = memberPrefsOf(raw);
    // The fields this version knows are what `change` says: one it leaves out is gone.
    const known = { units: undefined, home: undefined };
    const next = compact({ ...stored, ...known, ...change(before) });
    if (Object.keys(next).length === 0) await store.delete(key);
    else await store.set(key, next);
    return before;
  });
}

/** Saves the member's units; `undefined` goes back to the default of their Discord language. */
export async function saveMemberUnits(
  storage: Storage,
  userId: string,
  units: WeatherUnits | undefined,
): Promise<void> {
  await updateMember(storage, userId, ({ home }) => ({ home, units }));
}

export async function saveMemberHome(storage: Storage, userId: string, home: Place): Promise<void> {
  await updateMember(storage, userId, ({ units }) => ({ units, home }));
}

/** Forgets the member's home place; false when there was none. */
export async function clearMemberHome(storage: Storage, userId: string): Promise<boolean> {
  const before = await updateMember(storage, userId, ({ units }) => ({ units }));
  return before.home !== undefined;
}

/** A server's default place is its only preference: written whole, it needs no lock. */
export async function saveServerHome(storage: Storage, guildId: string, home: Place): Promise<void> {
  await storage.ns('prefs').set(serverKey(guildId), { home });
}

/** Forgets the server's default place; false when there was none. */
export async function clearServerHome(storage: Storage, guildId: string): Promise<boolean> {
  const had = (await getServerPrefs(storage, guildId)).home !== undefined;
  await storage.ns('prefs').delete(serverKey(guildId));
  return had;
}

/** The member's saved units, or the default of their Discord language. */
export function chooseUnits(prefs: MemberWeatherPrefs, locale: string | undefined): WeatherUnits {
  return prefs.units ?? defaultUnitsFor(locale);
}

/**
 * Where to look when no place is given: the member's home (from their preferences, already read),
 * then the server's default.
 */
export async function getDefaultPlace(
  storage: Storage,
  member: MemberWeatherPrefs,
  guildId: string | null,
): Promise<Place> {
  if (member.home) return member.home;
  const server = guildId === null ? undefined : (await getServerPrefs(storage, guildId)).home;
  if (server) return server;
  throw new NoPlaceError();
}
