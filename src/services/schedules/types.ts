/** A scheduled weather post, as stored. */
import { z } from 'zod';

export const SCHEDULE_KINDS = ['current', 'today', 'week'] as const;
export type ScheduleKind = (typeof SCHEDULE_KINDS)[number];

export const scheduleSchema = z.object({
  id: z.string(),
  guildId: z.string(),
  channelId: z.string(),
  place: z.object({ lat: z.number(), lon: z.number(), label: z.string() }),
  /** Local wall-clock time, `HH:MM`, 24 h. */
  time: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/),
  /** IANA time zone name. */
  timezone: z.string(),
  /** Days of the week (0 = Sunday … 6 = Saturday); empty means every day. */
  days: z.array(z.number().int().min(0).max(6)),
  kind: z.enum(SCHEDULE_KINDS),
  units: z.enum(['standard', 'metric', 'imperial']),
  lang: z.string(),
  createdBy: z.string(),
  createdAt: z.number(),
  /** Set when the schedule is paused, by a member or because posting failed for good. */
  paused: z.object({ reason: z.string(), at: z.number(), byUser: z.boolean() }).optional(),
});
export type Schedule = z.infer<typeof scheduleSchema>;
