/**
 * Schedules in Keyv: one list per guild and an index of guilds that have any. Every change to a
 * guild's list is made under a claim, so two processes editing one guild never lose a change.
 *
 * A guild whose list becomes empty has its row deleted and leaves the index, so `all()` reads no
 * list for a server that has none left. Only `add` makes a list non-empty: it takes the index's
 * lock and then the guild's, and under both puts the guild in the index (when it is not there) and
 * then writes the list. A guild leaves only under the same two locks, in the same order, and only
 * when its list is empty as read there, so no leave falls between an add's join and its write: a
 * leave before the add has seen the list empty and gone, and the add joins again; one after it sees
 * the schedule and keeps the guild. (Before, an add joined, released the index's lock, wrote the
 * list, and joined again when the list had been empty: a leave in between, then a second join that
 * could not be written, left a server's schedules out of every full read until its next add.)
 *
 * Every write of a list is followed by a new value in a version key (a guild joins the index before
 * its first list is written, so the version always comes last). `all()` reads the version first and
 * keeps what it read for as long as the version stays the same: the schedule runner reads every
 * schedule every minute, and with 10,000 schedules over 1,000 servers that was 1,000 reads and 25
 * MB of garbage a minute for nothing most minutes. A process that dies between writing a list and
 * writing the version leaves a change the others do not see; they read everything again at least
 * every {@link ALL_MAX_AGE_MS} anyway, well within the grace window of a scheduled post.
 */
import { randomUUID } from 'node:crypto';
import { LockBusyError, withLock, type Storage } from '../../storage/index.js';
import { storedScheduleSchema, type PauseReason, type Schedule } from './types.js';

const INDEX = 'guilds';
const VERSION = 'version';
const guildKey = (guildId: string) => `guild:${guildId}`;
/** The longest `all()` keeps its last read while the version key says nothing changed. */
export const ALL_MAX_AGE_MS = 5 * 60_000;
/**
 * The most index entries with no schedules behind them (left by versions that did not prune the
 * index) one `all()` drops, so a large backlog does not hold the index's lock for long at once.
 */
const PRUNE_BATCH = 100;
/**
 * Lists read at once by a full read (`all()`): with 1,000 servers, 4 reads of the backend (SQLite
 * queries, Redis MGETs) one after the other, instead of 1,000 at once.
 */
const LIST_BATCH = 250;

/**
 * A stored value is not in a form this version reads (a later version's layout, or damaged): it is
 * left as it is, and nothing is written over it.
 */
export class UnreadableStoreError extends Error {
  override readonly name = 'UnreadableStoreError';
  readonly userMessage =
    "The scheduled posts are stored in a form this version of the bot cannot read (saved by a newer version, or damaged), so it leaves them as they are. Ask the bot's owner to look at its log.";
  constructor(what: string) {
    super(`${what} is stored in a form this version cannot read; it was left as it is`);
  }
}

/** The server has as many schedules as allowed: `count` of them. */
export class ScheduleLimitError extends Error {
  override readonly name = 'ScheduleLimitError';
  constructor(readonly count: number) {
    super(
      `This server already has ${count === 1 ? '1 scheduled post' : `${count} scheduled posts`}, the most allowed. Remove one first.`,
    );
  }
  /** In English; the schedule commands say it in the member's language. */
  get userMessage(): string {
    return this.message;
  }
}

/**
 * The channel already gets this post: a schedule of the same place, time, zone, days, kind, units
 * and language (`existing`). Most often the same command sent twice, the first reply being slow.
 */
export class DuplicateScheduleError extends Error {
  override readonly name = 'DuplicateScheduleError';
  constructor(readonly existing: Schedule) {
    super(
      `Scheduled post ${existing.id} already posts this to the channel${existing.paused ? ' (it is paused: resume it)' : ''}.`,
    );
  }
  /** In English; the schedule commands say it in the member's language. */
  get userMessage(): string {
    return this.message;
  }
}

/** Whether two schedules make the same post in the same channel (ids, authors and states aside). */
export function samePost(a: Omit<Schedule, 'id'>, b: Omit<Schedule, 'id'>): boolean {
  // Every day is `[]`, or all seven listed (a record written so).
  const days = (schedule: Omit<Schedule, 'id'>) => {
    const set = new Set(schedule.days);
    return set.size === 7 ? '' : [...set].sort().join(',');
  };
  return (
    a.guildId === b.guildId &&
    a.channelId === b.channelId &&
    a.place.lat === b.place.lat &&
    a.place.lon === b.place.lon &&
    a.time === b.time &&
    a.timezone === b.timezone &&
    days(a) === days(b) &&
    a.kind === b.kind &&
    a.units === b.units &&
    a.lang === b.lang
  );
}

/** A guild's list as stored: the records that read as schedules, and those that do not. */
interface StoredList {
  schedules: Schedule[];
  unread: unknown[];
}

/**
 * A guild's list as stored (see `ScheduleStore.records`): the records that read as schedules and
 * those that do not. Throws for a list that cannot be read at all.
 */
function recordsIn(raw: unknown, guildId: string): StoredList {
  const out: StoredList = { schedules: [], unread: [] };
  if (raw === undefined || raw === null) return out;
  if (!Array.isArray(raw)) throw new UnreadableStoreError(`the schedules of server ${guildId}`);
  for (const item of raw) {
    const parsed = storedScheduleSchema.safeParse(item);
    // The fields of a later version ride along (see `storedScheduleSchema`); this one reads its own.
    if (parsed.success) out.schedules.push(parsed.data);
    else out.unread.push(item);
  }
  return out;
}

export class ScheduleStore {
  private readonly keyv;
  /** What `all()` read last, under which version, and when. */
  private lastRead: { version: unknown; at: number; schedules: readonly Schedule[] } | undefined;
  /** This process's version bumps, one at a time (see {@link bumpVersion}). */
  private versioning: Promise<void> = Promise.resolve();
  #changesMade = 0;

  constructor(
    private readonly storage: Storage,
    private readonly perGuildLimit: number,
    private readonly now: () => number = Date.now,
    /** Told about a guild whose list `all()` could not read (its schedules are left out meanwhile). */
    private readonly onUnreadable: (guildId: string, error: unknown) => void = () => {},
  ) {
    this.keyv = storage.ns<unknown>('schedules');
  }

  /**
   * How many changes this process has made (adds, pauses, resumes, removes), each counted once its
   * version is written, so an `all()` after the count moved sees it. The schedule runner reads the
   * schedules again before a post when it moved, rather than only every second.
   */
  get changesMade(): number {
    return this.#changesMade;
  }

  /** A guild's schedules; a record that does not read as a schedule is left out (see `records`). */
  async list(guildId: string): Promise<Schedule[]> {
    return (await this.records(guildId)).schedules;
  }

  /**
   * A guild's list as stored: the records that read as schedules, and those that do not (written
   * by a newer version, or damaged), which every write keeps as they are instead of dropping them.
   * A list that cannot be read at all (the backend failed, the row is not JSON, or it is not a
   * list: a later version's layout) throws: it must not be taken for an empty list and written
   * back as one.
   */
  private async records(guildId: string): Promise<StoredList> {
    return recordsIn(await this.keyv.get(guildKey(guildId)), guildId);
  }

  /**
   * The stored lists of `guildIds` as {@link records} reads them, one result per guild: a list, or
   * the error that kept it from being read. {@link LIST_BATCH} lists per read of the backend (one
   * SQLite query, one Redis MGET) instead of a read each; a batch that fails as a whole (the backend,
   * or one row that is not JSON) is read again one list at a time, so only the guild at fault is
   * left out.
   */
  private async recordsOf(guildIds: readonly string[]): Promise<(StoredList | Error)[]> {
    const out: (StoredList | Error)[] = [];
    for (let start = 0; start < guildIds.length; start += LIST_BATCH) {
      const batch = guildIds.slice(start, start + LIST_BATCH);
      const raws = await this.keyv.getMany(batch.map(guildKey)).catch(() => undefined);
      for (const [i, guildId] of batch.entries()) {
        try {
          out.push(raws ? recordsIn(raws[i], guildId) : await this.records(guildId));
        } catch (error) {
          out.push(error instanceof Error ? error : new Error(String(error)));
        }
      }
    }
    return out;
  }

  /**
   * Every schedule of every guild: read again only when the version key changed since the last
   * read, or that read is {@link ALL_MAX_AGE_MS} old (see the module comment). The schedules are
   * shared with later calls: read them, do not change them.
   */
  async all(): Promise<Schedule[]> {
    const version = await this.keyv.get(VERSION);
    const at = this.now();
    const last = this.lastRead;
    if (last && last.version === version && at - last.at < ALL_MAX_AGE_MS) return [...last.schedules];
    const guilds = await this.guilds();
    // One guild whose list cannot be read must not stop every other guild's posts.
    let complete = true;
    /** Guilds in the index with nothing stored for them: left by an older version, or a crash. */
    const empty: string[] = [];
    const lists = (await this.recordsOf(guilds)).map((read, i) => {
      const guildId = guilds[i]!;
      if (read instanceof Error) {
        complete = false;
        this.onUnreadable(guildId, read);
        return [];
      }
      const { schedules, unread } = read;
      if (schedules.length === 0 && unread.length === 0) empty.push(guildId);
      // Kept as they are (see `records`), but not posted by this version: said, not hidden.
      if (unread.length > 0) {
        this.onUnreadable(
          guildId,
          new UnreadableStoreError(
            `${unread.length === 1 ? '1 scheduled post' : `${unread.length} scheduled posts`} of server ${guildId}`,
          ),
        );
      }
      return schedules;
    });
    const schedules = lists.flat();
    // A read with a guild missing is not kept: the next call tries that guild again.
    this.lastRead = complete ? { version, at, schedules } : undefined;
    // Best effort: an entry left now is read again, and dropped, at the next full read.
    if (empty.length > 0) await this.leave(empty.slice(0, PRUNE_BATCH)).catch(() => {});
    return [...schedules];
  }

  /**
   * Adds a schedule. With `unique`, one that makes the same post as a schedule the server has
   * (see {@link samePost}) is refused with {@link DuplicateScheduleError}.
   */
  async add(schedule: Omit<Schedule, 'id'>, options: { unique?: boolean } = {}): Promise<Schedule> {
    // Ids are short, for typing in `/weather schedule pause id:…`, and they key the slot markers,
    // the nonce and the queue's job scheduler across every server: eight hex digits collide once
    // in about a hundred stores of 10,000 schedules, so one already in use is drawn again.
    const taken = new Set((await this.all()).map((existing) => existing.id));
    let id = randomUUID().slice(0, 8);
    while (taken.has(id)) id = randomUUID().slice(0, 8);
    const created: Schedule = { ...schedule, id };
    // The guild joins the index before its list is written, under the index's lock as well as its
    // own (see the module comment): a process that dies between the two leaves no schedule outside
    // the index, only an entry with no schedules, which the next full read drops.
    await this.update(schedule.guildId, { join: true }, (list) => {
      // Checked under the lock, so the same command sent twice at once makes one schedule.
      const existing = options.unique ? list.find((other) => samePost(other, schedule)) : undefined;
      if (existing) throw new DuplicateScheduleError(existing);
      if (list.length >= this.perGuildLimit) {
        throw new ScheduleLimitError(list.length);
      }
      return [...list, created];
    });
    return created;
  }

  /** Applies `change` to one schedule; returns the result, or undefined when there is no such schedule. */
  async change(
    guildId: string,
    id: string,
    change: (schedule: Schedule) => Schedule | undefined,
  ): Promise<Schedule | undefined> {
    let result: Schedule | undefined;
    await this.update(guildId, { join: false }, (list) =>
      list.flatMap((schedule) => {
        if (schedule.id !== id) return [schedule];
        result = change(schedule);
        return result ? [result] : [];
      }),
    );
    return result;
  }

  async remove(guildId: string, id: string): Promise<Schedule | undefined> {
    let removed: Schedule | undefined;
    await this.change(guildId, id, (schedule) => {
      removed = schedule;
      return undefined;
    });
    return removed;
  }

  async pause(
    guildId: string,
    id: string,
    why: PauseReason,
    byUser: boolean,
    at: number,
  ): Promise<Schedule | undefined> {
    return this.change(guildId, id, (schedule) =>
      // The bot's pause (a refusal met while posting) never replaces one made meanwhile: a member's
      // pause keeps its "paused by" in the list.
      !byUser && schedule.paused !== undefined ? schedule : { ...schedule, paused: { ...why, at, byUser } },
    );
  }

  /**
   * Resumes a schedule from `at` on: a run that fell due while it was paused is not posted (see
   * `postsFrom`), as the job scheduler a resume makes with `SCHEDULER=queue` does not post it either.
   */
  async resume(guildId: string, id: string, at: number = this.now()): Promise<Schedule | undefined> {
    return this.change(guildId, id, ({ paused: _paused, ...schedule }) => ({ ...schedule, resumedAt: at }));
  }

  /**
   * Runs `work` with a server's schedules as stored now, and the ids of records this version cannot
   * read, under the server's lock, so no change to them lands meanwhile. For what is kept beside a
   * schedule (the queue's job scheduler): applied from the stored state under the lock, it ends up
   * matching the store whatever order two members' changes come in.
   */
  async withCurrent(
    guildId: string,
    work: (schedules: Schedule[], unreadIds: ReadonlySet<string>) => Promise<void>,
  ): Promise<void> {
    await this.withLock(guildKey(guildId), async () => {
      const { schedules, unread } = await this.records(guildId);
      await work(schedules, new Set(unread.flatMap(idOf)));
    });
  }

  private async guilds(): Promise<string[]> {
    return (await this.index()).filter((id): id is string => typeof id === 'string');
  }

  /** Puts a guild in the index; the caller holds the index's lock. */
  private async join(guildId: string): Promise<void> {
    const index = await this.index();
    if (!index.includes(guildId)) await this.keyv.set(INDEX, [...index, guildId]);
  }

  /**
   * Drops from the index the guilds of `guildIds` that have no schedules, deleting an empty row an
   * older version left. Under the index's lock, then each guild's: the list is read where no add
   * can join the guild and no change can write its list meanwhile (see the module comment).
   * Entries of the index this version does not read are kept.
   */
  private async leave(guildIds: readonly string[]): Promise<void> {
    await this.withLock(INDEX, async () => {
      const gone = new Set<string>();
      for (const guildId of guildIds) {
        await this.withLock(guildKey(guildId), async () => {
          const raw = await this.keyv.get(guildKey(guildId));
          const absent = raw === undefined || raw === null;
          if (!absent && !(Array.isArray(raw) && raw.length === 0)) return;
          if (!absent) await this.keyv.delete(guildKey(guildId));
          gone.add(guildId);
        });
      }
      if (gone.size === 0) return;
      const index = await this.index();
      const kept = index.filter((entry) => typeof entry !== 'string' || !gone.has(entry));
      if (kept.length === index.length) return;
      if (kept.length > 0) await this.keyv.set(INDEX, kept);
      else await this.keyv.delete(INDEX);
    });
  }

  /** The index as stored, entries this version does not read included, so a write keeps them. */
  private async index(): Promise<unknown[]> {
    const raw = await this.keyv.get(INDEX);
    if (raw === undefined || raw === null) return [];
    if (!Array.isArray(raw)) throw new UnreadableStoreError('the list of servers with schedules');
    return raw as unknown[];
  }

  /**
   * The one way a list is written: under the guild's lock, then a new version for every `all()`.
   * A list left empty is deleted and its guild leaves the index. With `join` (an add), the index's
   * lock is taken first and the guild put in the index before its list is written (see the module
   * comment). Once the list is written the change is made, and is not reported as failed: a member
   * told so would make it again (a second schedule). A version that cannot be written costs other
   * processes at most {@link ALL_MAX_AGE_MS} before they see the change; this one reads anew. An
   * index that cannot be written after a last remove keeps a guild with no schedules (one read more
   * for `all()`, dropped at its next full read).
   */
  private async update(
    guildId: string,
    { join }: { join: boolean },
    change: (list: Schedule[]) => Schedule[],
  ): Promise<void> {
    let written: Schedule[] = [];
    let after = 0;
    const write = async () => {
      const { schedules, unread } = await this.records(guildId);
      written = change(schedules);
      const kept = [...written, ...unread];
      after = kept.length;
      if (kept.length === 0) {
        await this.keyv.delete(guildKey(guildId));
        return;
      }
      if (join) await this.join(guildId);
      await this.keyv.set(guildKey(guildId), kept);
    };
    try {
      if (join) await this.withLock(INDEX, () => this.withLock(guildKey(guildId), write));
      else await this.withLock(guildKey(guildId), write);
    } catch (error) {
      // The list may not be what the last read holds (unreadable now, or half written): read anew.
      this.lastRead = undefined;
      throw error;
    }
    if (after === 0) await this.leave([guildId]).catch(() => {});
    const bump = () => this.bumpVersion(guildId, written);
    this.versioning = this.versioning.then(bump, bump);
    await this.versioning.finally(() => this.#changesMade++);
  }

  /**
   * Writes a new version after a list. When the version stored just before is the one this
   * process's last `all()` read, nothing else changed since that read, so the read is kept, with
   * the list just written in place of the guild's old one: the next `all()` (the next `add`, which
   * reads every schedule for its id) reads nothing again. Without this, adding 10,000 schedules
   * one after another read every list 10,000 times. The read and the write of the version are made
   * under a lock: two processes bumping at once both read the same version and each kept its read,
   * the one whose write came last missing the other's change for up to {@link ALL_MAX_AGE_MS} (a
   * schedule removed there went on posting here).
   */
  private async bumpVersion(guildId: string, written: Schedule[]): Promise<void> {
    const last = this.lastRead;
    this.lastRead = undefined;
    try {
      await this.withLock(VERSION, async () => {
        const before = await this.keyv.get(VERSION);
        const version = randomUUID();
        await this.keyv.set(VERSION, version);
        if (last && before === last.version) {
          this.lastRead = { version, at: last.at, schedules: replaceGuild(last.schedules, guildId, written) };
        }
      });
    } catch (error) {
      // The lock held elsewhere too long: the version is written all the same, so the others see
      // the change at their next look; this process reads anew.
      if (error instanceof LockBusyError) await this.keyv.set(VERSION, randomUUID()).catch(() => {});
      // Otherwise the change is made; other processes see it within ALL_MAX_AGE_MS, this one reads anew.
    }
  }

  private async withLock(name: string, work: () => Promise<void>): Promise<void> {
    await withLock(this.storage, `schedules:${name}`, work);
  }
}

/** The id of a stored record this version does not read, when it has one. */
function idOf(record: unknown): string[] {
  const id = typeof record === 'object' && record !== null ? (record as { id?: unknown }).id : undefined;
  return typeof id === 'string' ? [id] : [];
}

/** `schedules` with `guildId`'s replaced by `list`, where they were (a guild's come together), else last. */
function replaceGuild(
  schedules: readonly Schedule[],
  guildId: string,
  list: readonly Schedule[],
): Schedule[] {
  const at = schedules.findIndex((schedule) => schedule.guildId === guildId);
  const others = schedules.filter((schedule) => schedule.guildId !== guildId);
  if (at === -1) return [...others, ...list];
  return [...others.slice(0, at), ...list, ...others.slice(at)];
}
