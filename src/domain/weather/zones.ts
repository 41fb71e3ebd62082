/**
 * A place's wall clock at other times than now. The service tells a place's shift from UTC only as
 * `timezone`, valid when it answers: Berlin says 7200 in July, and a January date read with it is an
 * hour off. The history answer carries UTC timestamps and no zone at all.
 *
 * So the bot finds the place's IANA zone itself, and keeps it only where it shows the service's
 * present offset (the service has the last word on the place's now):
 * 1. The zone at the place's coordinates, from @photostructure/tz-lookup (a compact map of the zone
 *    borders, CC0): Los Angeles and Phoenix, both UTC−7 in July, an hour apart in January.
 * 2. Else (a place near a border the compact map draws differently, a service that reads its zones
 *    another way) the zones of the place's country (`sys.country` of current weather, else the `DE`
 *    that ends a place's label), from the runtime's CLDR data, that show the present offset: where
 *    they all agree at an instant, that is the place's offset then (every zone of Germany, of India).
 *    Where they disagree, the present offset is all there is, and the renderers that show a range
 *    say which offset they applied.
 *
 * Schedules store an IANA zone, but it is the zone of the time a member wants posts at, not
 * necessarily that of the place reported on, so it is not used here.
 */
import tzLookup from '@photostructure/tz-lookup';

export const HOUR = 3600;
const DAY = 86_400;

/** How a place's wall clock relates to UTC. */
export interface PlaceClock {
  /** The shift from UTC (seconds) the service gave: the place's now, and the fallback. */
  timezone: number;
  /** IANA zones the place may be in; their common offset at an instant is the place's. */
  zones?: readonly string[] | undefined;
}

const formats = new Map<string, Intl.DateTimeFormat>();
const offsets = new Map<string, number>();

function formatFor(zone: string): Intl.DateTimeFormat {
  let format = formats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formats.set(zone, format);
  }
  return format;
}

/** The shift from UTC, in seconds, of IANA zone `zone` at Unix time `unix`. */
export function zoneOffset(zone: string, unix: number): number {
  // Offsets change only at transitions, all on a quarter hour (UTC): a week of hours, checked
  // against a country's zones, then formats a few hundred dates rather than thousands.
  const key = `${zone}|${Math.floor(unix / 900)}`;
  const known = offsets.get(key);
  if (known !== undefined) return known;
  const parts: Record<string, number> = {};
  for (const part of formatFor(zone).formatToParts(new Date(unix * 1000))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const wall = Date.UTC(
    parts['year'] ?? 1970,
    (parts['month'] ?? 1) - 1,
    parts['day'] ?? 1,
    parts['hour'] ?? 0,
    parts['minute'] ?? 0,
    parts['second'] ?? 0,
  );
  const offset = wall / 1000 - Math.floor(unix);
  if (offsets.size >= 10_000) offsets.clear();
  offsets.set(key, offset);
  return offset;
}

/**
 * Zones IANA renamed, current name then old, that Node 20 lists only by the old name:
 * `Intl.supportedValuesOf` gives CLDR's ids, which never change, and `resolvedOptions` turns a
 * current name into one of them (`Europe/Kyiv` into `Europe/Kiev`). Kept short and explicit rather
 * than taken from a tz database package; a name this runtime does not accept is left out.
 */
const RENAMED_ZONES = [
  ['Africa/Asmara', 'Africa/Asmera'],
  ['America/Argentina/Buenos_Aires', 'America/Buenos_Aires'],
  ['America/Argentina/Catamarca', 'America/Catamarca'],
  ['America/Argentina/Cordoba', 'America/Cordoba'],
  ['America/Argentina/Jujuy', 'America/Jujuy'],
  ['America/Argentina/Mendoza', 'America/Mendoza'],
  ['America/Atikokan', 'America/Coral_Harbour'],
  ['America/Indiana/Indianapolis', 'America/Indianapolis'],
  ['America/Kentucky/Louisville', 'America/Louisville'],
  ['America/Nuuk', 'America/Godthab'],
  ['Asia/Ho_Chi_Minh', 'Asia/Saigon'],
  ['Asia/Kathmandu', 'Asia/Katmandu'],
  ['Asia/Kolkata', 'Asia/Calcutta'],
  ['Asia/Yangon', 'Asia/Rangoon'],
  ['Atlantic/Faroe', 'Atlantic/Faeroe'],
  ['Europe/Kyiv', 'Europe/Kiev'],
  ['Pacific/Chuuk', 'Pacific/Truk'],
  ['Pacific/Kanton', 'Pacific/Enderbury'],
  ['Pacific/Pohnpei', 'Pacific/Ponape'],
] as const;

/** An IANA time zone members may pick, by its current name, with the old names it is also found by. */
export interface TimeZoneName {
  name: string;
  aliases: readonly string[];
}

/** What `timeZoneNames` and `canonicalTimeZone` look names up in; derived once from the runtime. */
interface ZoneIndex {
  names: readonly TimeZoneName[];
  /** Current name by any name (current or old) in lower case. */
  byLowerName: ReadonlyMap<string, string>;
}

let zoneIndex: ZoneIndex | undefined;

/** Whether this runtime knows `zone` as an IANA time zone (in any case). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return zone.length > 0;
  } catch {
    return false;
  }
}

function indexZones(): ZoneIndex {
  if (zoneIndex) return zoneIndex;
  const currentOf = new Map<string, string>(
    RENAMED_ZONES.filter(([current]) => isTimeZone(current)).map(([current, old]) => [old, current]),
  );
  const aliases = new Map<string, Set<string>>();
  // The runtime leaves out `UTC` itself (it lists no `Etc/` zone).
  for (const listed of ['UTC', ...Intl.supportedValuesOf('timeZone')]) {
    const name = currentOf.get(listed) ?? listed;
    const known = aliases.get(name) ?? new Set<string>();
    if (listed !== name) known.add(listed);
    aliases.set(name, known);
  }
  const names = [...aliases]
    .map(([name, old]) => ({ name, aliases: [...old] }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const byLowerName = new Map<string, string>();
  for (const { name, aliases: old } of names) {
    for (const spelling of [name, ...old]) byLowerName.set(spelling.toLowerCase(), name);
  }
  zoneIndex = { names, byLowerName };
  return zoneIndex;
}

/**
 * The IANA time zones members may pick, by current name (`Asia/Kolkata`, `Europe/Kyiv`, `UTC`),
 * each with the old names the runtime lists instead (`Asia/Calcutta`), in alphabetical order.
 */
export function timeZoneNames(): readonly TimeZoneName[] {
  return indexZones().names;
}

/**
 * The time zones whose current or old name contains `typed` (any case, spaces read as `_`), by
 * current name: `kiev` finds `Europe/Kyiv`.
 */
export function timeZonesMatching(typed: string): string[] {
  const wanted = typed.trim().toLowerCase().replace(/\s+/g, '_');
  // The index holds every spelling in lower case, current names in alphabetical order, each zone's
  // old names after its current one: the first match of a zone keeps that order.
  const found = new Set<string>();
  for (const [spelling, name] of indexZones().byLowerName) if (spelling.includes(wanted)) found.add(name);
  return [...found];
}

/**
 * The IANA name of a time zone as a member typed it, spelled as IANA spells it now:
 * `America/Chicago` for `america/chicago`, which `Intl` accepts in any case (and which was otherwise
 * stored and shown as typed), and `Asia/Kolkata` for the old `Asia/Calcutta`. A current name stays
 * current: Node 20's `resolvedOptions` would turn `Europe/Kyiv` into `Europe/Kiev`. A name not
 * offered (`Etc/GMT+5`, `US/Eastern`) is spelled as the runtime resolves it. Spaces are read as `_`
 * (`America/New York`). `undefined` when the runtime knows no such zone.
 */
export function canonicalTimeZone(typed: string): string | undefined {
  // `America/New York`: spaces read as `_`, as the suggestions read them (no zone name has a space).
  const zone = typed.trim().replace(/\s+/g, '_');
  if (zone === '') return undefined;
  const { byLowerName } = indexZones();
  const offered = byLowerName.get(zone.toLowerCase());
  if (offered !== undefined) return offered;
  // An abbreviation (`EST`, `CST`, `IST`, `GMT`) names half a year or several places, and the runtime
  // resolves it to a zone the member rarely means: `EST` is Panama's clock (no summer time, so an
  // hour late all summer on the US east coast), `IST` India's, `BST` Bangladesh's. Refused, with
  // the zones it may stand for (see `zonesForAbbreviation`). Legacy names that are one place's
  // (`Japan`, `EST5EDT`) are read as the runtime reads them.
  if (isAbbreviation(zone)) return undefined;
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
  return byLowerName.get(resolved.toLowerCase()) ?? resolved;
}

/**
 * Zones people commonly mean by a time-zone abbreviation, most likely first. An abbreviation names
 * a half of the year (EST, EDT) or several places (CST: the US, China, Cuba; IST: India, Ireland,
 * Israel), so it is never taken as a zone: the member is offered these instead.
 */
const ABBREVIATIONS: Readonly<Record<string, readonly string[]>> = {
  et: ['America/New_York', 'America/Toronto'],
  est: ['America/New_York', 'America/Toronto'],
  edt: ['America/New_York', 'America/Toronto'],
  ct: ['America/Chicago', 'America/Mexico_City'],
  cst: ['America/Chicago', 'America/Mexico_City', 'Asia/Shanghai'],
  cdt: ['America/Chicago'],
  mt: ['America/Denver', 'America/Phoenix'],
  mst: ['America/Denver', 'America/Phoenix'],
  mdt: ['America/Denver'],
  pt: ['America/Los_Angeles', 'America/Vancouver'],
  pst: ['America/Los_Angeles', 'America/Vancouver'],
  pdt: ['America/Los_Angeles', 'America/Vancouver'],
  akst: ['America/Anchorage'],
  akdt: ['America/Anchorage'],
  hst: ['Pacific/Honolulu'],
  ast: ['America/Halifax', 'America/Puerto_Rico', 'Asia/Riyadh'],
  adt: ['America/Halifax'],
  nst: ['America/St_Johns'],
  gmt: ['Europe/London', 'UTC'],
  bst: ['Europe/London'],
  ist: ['Asia/Kolkata', 'Europe/Dublin', 'Asia/Jerusalem'],
  wet: ['Europe/Lisbon'],
  west: ['Europe/Lisbon'],
  cet: ['Europe/Berlin', 'Europe/Paris', 'Europe/Rome'],
  cest: ['Europe/Berlin', 'Europe/Paris', 'Europe/Rome'],
  met: ['Europe/Berlin', 'Europe/Paris'],
  eet: ['Europe/Athens', 'Europe/Helsinki', 'Europe/Kyiv'],
  eest: ['Europe/Athens', 'Europe/Helsinki', 'Europe/Kyiv'],
  msk: ['Europe/Moscow'],
  sast: ['Africa/Johannesburg'],
  cat: ['Africa/Maputo'],
  eat: ['Africa/Nairobi'],
  wat: ['Africa/Lagos'],
  pkt: ['Asia/Karachi'],
  ict: ['Asia/Bangkok', 'Asia/Ho_Chi_Minh'],
  wib: ['Asia/Jakarta'],
  sgt: ['Asia/Singapore'],
  hkt: ['Asia/Hong_Kong'],
  pht: ['Asia/Manila'],
  kst: ['Asia/Seoul'],
  jst: ['Asia/Tokyo'],
  awst: ['Australia/Perth'],
  acst: ['Australia/Adelaide', 'Australia/Darwin'],
  acdt: ['Australia/Adelaide'],
  aest: ['Australia/Sydney', 'Australia/Brisbane', 'Australia/Melbourne'],
  aedt: ['Australia/Sydney', 'Australia/Melbourne'],
  nzst: ['Pacific/Auckland'],
  nzdt: ['Pacific/Auckland'],
  brt: ['America/Sao_Paulo'],
  art: ['America/Argentina/Buenos_Aires'],
};

/**
 * The zones an abbreviation typed as a time zone (`EST`, `cest`) commonly stands for, most likely
 * first; none when it is not one this knows.
 */
export function zonesForAbbreviation(typed: string): readonly string[] {
  const key = typed.trim().toLowerCase();
  const zones = isAbbreviation(key) ? (ABBREVIATIONS[key] ?? []) : [];
  // Spelled as the zone list offers them (`Asia/Kolkata` where the runtime lists `Asia/Calcutta`).
  return zones.flatMap((zone) => canonicalTimeZone(zone) ?? []);
}

/** Whether `typed` is a time-zone abbreviation this knows (any case). */
function isAbbreviation(typed: string): boolean {
  return Object.hasOwn(ABBREVIATIONS, typed.trim().toLowerCase());
}

/** The IANA zones of a country (`DE`), from the runtime's CLDR data; none for an unknown code. */
export function countryZones(country: string): string[] {
  if (!/^[A-Z]{2}$/.test(country)) return [];
  // Node 20 has the `timeZones` getter; newer engines replace it with `getTimeZones()`.
  const locale = new Intl.Locale('und', { region: country }) as Intl.Locale & {
    timeZones?: string[] | undefined;
    getTimeZones?: () => string[] | undefined;
  };
  return locale.getTimeZones?.() ?? locale.timeZones ?? [];
}

/** `DE` from `Berlin, Berlin, DE`: the country code `placeLabel` ends a label with, if it is there. */
export function countryOfLabel(label: string): string | undefined {
  return /(?:^|,\s*)([A-Z]{2})$/.exec(label.trim())?.[1];
}

/** The IANA zone at a place's coordinates, if the map has one this runtime knows (none at sea). */
export function zoneAt(coords: { lat: number; lon: number }): string | undefined {
  try {
    const zone = tzLookup(coords.lat, coords.lon);
    zoneOffset(zone, 0);
    return zone;
  } catch {
    return undefined;
  }
}

/**
 * The place's calendar day at `unix`: by the zone at its coordinates, or at sea, where the map has
 * none, by nautical time (an hour per 15° of longitude).
 */
export function localCalendarDay(
  coords: { lat: number; lon: number },
  unix: number,
): { month: number; day: number } {
  const local = new Date((unix + offsetAtCoords(coords, unix)) * 1000);
  return { month: local.getUTCMonth() + 1, day: local.getUTCDate() };
}

/** The shift from UTC at `coords` at `unix`: the zone there, or nautical time at sea. */
function offsetAtCoords(coords: { lat: number; lon: number }, unix: number): number {
  const zone = zoneAt(coords);
  return zone === undefined ? Math.round(coords.lon / 15) * HOUR : zoneOffset(zone, unix);
}

/**
 * The place's shift from UTC when the service answered about `at`: the answer's `timezone`, which
 * the real service always sends; without it (the contract's field list for current weather has
 * none), the zone at the place's coordinates rather than UTC.
 */
export function answeredOffset(
  timezone: number | undefined,
  at: number,
  coords: { lat: number; lon: number },
): number {
  return timezone ?? offsetAtCoords(coords, at);
}

/**
 * The clock of a place whose shift from UTC was `timezone` when the service answered about the hour
 * starting at `at` (current weather's `dt`), at `coords`, in `country` (see the module comment).
 * `answered` is when the answer may have been given, around `at`: by default the hour after it; a
 * zone that shows `timezone` at some moment of that span is the place's (a change within it may
 * show either offset).
 */
export function placeClock(
  timezone: number,
  at: number,
  country: string | undefined,
  coords?: { lat: number; lon: number },
  answered: { before: number; after: number } = { before: 0, after: HOUR },
): PlaceClock {
  const moments: number[] = [];
  for (let t = at - answered.before; t < at + answered.after; t += HOUR) moments.push(t);
  moments.push(at + answered.after);
  const shows = (zone: string) => moments.some((moment) => zoneOffset(zone, moment) === timezone);
  const mapped = coords === undefined ? undefined : zoneAt(coords);
  if (mapped !== undefined && shows(mapped)) return { timezone, zones: [mapped] };
  const zones = countryZones(country ?? '').filter(shows);
  return zones.length === 0 ? { timezone } : { timezone, zones };
}

/** The place's shift from UTC (seconds) at Unix time `unix`. */
export function offsetAt(clock: PlaceClock, unix: number): number {
  const [first, ...rest] = clock.zones ?? [];
  if (first === undefined) return clock.timezone;
  const offset = zoneOffset(first, unix);
  return rest.every((zone) => zoneOffset(zone, unix) === offset) ? offset : clock.timezone;
}

/** The place's local date at `unix`, as days since 1970-01-01. */
export function localDayNumber(clock: PlaceClock, unix: number): number {
  return Math.floor((unix + offsetAt(clock, unix)) / DAY);
}

/** Entries grouped by the place's local date of each, in order. */
export function byLocalDay<T extends { dt: number }>(entries: readonly T[], clock: PlaceClock): T[][] {
  const groups: T[][] = [];
  let key: number | undefined;
  for (const entry of entries) {
    const day = localDayNumber(clock, entry.dt);
    if (day !== key) {
      groups.push([]);
      key = day;
    }
    groups.at(-1)?.push(entry);
  }
  return groups;
}

/** The hour of the place's clock at `unix`, from 0 to 24 (fractions for minutes). */
export function localHour(clock: PlaceClock, unix: number): number {
  const local = unix + offsetAt(clock, unix);
  return (((local % DAY) + DAY) % DAY) / 3_600;
}

/**
 * The Unix time at which the place's wall clock shows `wall` (seconds since the epoch as if local
 * time were UTC). A repeated wall time (autumn) is its first occurrence; one skipped by a change
 * (spring) is read with the offset before it, so it lands just after the gap.
 */
export function wallToUnix(clock: PlaceClock, wall: number): number {
  const before = offsetAt(clock, wall - DAY);
  const after = offsetAt(clock, wall + DAY);
  const valid = [wall - before, wall - after].filter((t) => offsetAt(clock, t) === wall - t);
  return valid.length > 0 ? Math.min(...valid) : wall - before;
}
