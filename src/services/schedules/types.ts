/** A scheduled weather post, as stored. */
import { z } from 'zod';
import { isTimeZone } from './timing.js';

export const SCHEDULE_KINDS = ['current', 'today', 'week'] as const;
export type ScheduleKind = (typeof SCHEDULE_KINDS)[number];

const placeSchema = z.object({ lat: z.number(), lon: z.number(), label: z.string() });

/** Set when the schedule is paused, by a member or because posting failed for good. */
const pausedSchema = z.object({
  /** In English: for the logs, and for a version that does not know `code`. */
  reason: z.string(),
  at: z.number(),
  byUser: z.boolean(),
  /**
   * What the reason says, so the list can say it in the reader's language: one of
   * {@link PAUSE_CODES}, or a code of a later version, shown as `reason`. Absent in records
   * written before codes were stored.
   */
  code: z.string().optional(),
  /** The member who paused it (`code` 'member'). */
  by: z.string().optional(),
  /**
   * For `code` 'missing-permission': the permissions the bot's cache said it lacked there
   * (`SendMessages`…), when it knew. Named in the reader's language by the list.
   */
  missing: z.array(z.string()).optional(),
});

export const scheduleSchema = z.object({
  id: z.string(),
  guildId: z.string(),
  channelId: z.string(),
  place: placeSchema,
  /** Local wall-clock time, `HH:MM`, 24 h. */
  time: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/),
  /**
   * IANA time zone name. Read as any string, so a record with a zone this runtime does not know is
   * kept as it is (see {@link hasKnownZone}).
   */
  timezone: z.string(),
  /** Days of the week (0 = Sunday … 6 = Saturday); empty means every day. */
  days: z.array(z.number().int().min(0).max(6)),
  kind: z.enum(SCHEDULE_KINDS),
  units: z.enum(['standard', 'metric', 'imperial']),
  lang: z.string(),
  createdBy: z.string(),
  createdAt: z.number(),
  paused: pausedSchema.optional(),
  /** When it was last resumed (see {@link postsFrom}). Absent in records written before it was stored. */
  resumedAt: z.number().optional(),
  /**
   * The last post Discord refused as it was (a server's AutoMod blocking it, say), when no post has
   * gone out since: the list shows it, as nothing else would say why the channel got nothing.
   */
  lastRefused: z.object({ at: z.number(), reason: z.string() }).optional(),
});
export type Schedule = z.infer<typeof scheduleSchema>;

/**
 * The instant from which a schedule's runs are posted: when it was made, or when it was last
 * resumed, so a run that fell due while it was paused is not made up once it runs again.
 */
export function postsFrom(schedule: Pick<Schedule, 'createdAt' | 'resumedAt'>): number {
  return Math.max(schedule.createdAt, schedule.resumedAt ?? Number.NEGATIVE_INFINITY);
}

/** What {@link hasKnownZone} found for each zone name, so a look at every schedule costs no formatter each. */
const zoneVerdicts = new Map<string, boolean>();
const ZONE_VERDICTS_MAX = 1024;

/**
 * Whether this runtime knows the schedule's time zone. A record whose zone it does not know
 * (damaged, or stored by a runtime with other time zone data) still reads as a schedule, and is
 * kept as it is like every other, but it cannot be timed here: the runners skip it, and the list
 * says to remove it and add it again.
 */
export function hasKnownZone(schedule: Pick<Schedule, 'timezone'>): boolean {
  let known = zoneVerdicts.get(schedule.timezone);
  if (known === undefined) {
    known = isTimeZone(schedule.timezone);
    if (zoneVerdicts.size >= ZONE_VERDICTS_MAX) zoneVerdicts.clear();
    zoneVerdicts.set(schedule.timezone, known);
  }
  return known;
}

/**
 * A schedule as read from storage: the same fields, and any a later version added kept as they are
 * (where this version would drop them), so a list written back by this version (while several
 * versions run side by side during an upgrade, or after going back to this one) loses none of them.
 */
export const storedScheduleSchema = scheduleSchema
  .extend({ place: placeSchema.loose(), paused: pausedSchema.loose().optional() })
  .loose();

export const PAUSE_CODES = [
  'member',
  'channel-deleted',
  'channel-hidden',
  'bot-removed',
  'missing-permission',
  'plan-current',
  'plan-hourly',
  'plan-daily',
  'place-refused',
] as const;
export type PauseCode = (typeof PAUSE_CODES)[number];
/** The codes of pauses the bot makes itself. */
export type BotPauseCode = Exclude<PauseCode, 'member'>;

/** Why a schedule is paused, as `ScheduleStore.pause` takes it. */
export interface PauseReason {
  reason: string;
  code?: PauseCode;
  by?: string;
  missing?: string[];
}
