import { EmbedBuilder } from '@discordjs/builders';
import { nextRun } from '../../services/schedules/timing.js';
import { hasKnownZone, type BotPauseCode, type Schedule } from '../../services/schedules/types.js';
import type { ScheduleMessages } from '../i18n/schedule-messages.js';
import { md } from './music-text.js';
import { truncate } from './text.js';

/** `every day`, `Mon, Wed, Fri`, in the reader's language. */
export function scheduleDays(days: readonly number[], t: ScheduleMessages): string {
  return days.length === 0 ? t.everyDay : days.map((day) => t.weekdays[day]).join(', ');
}

/** Why a schedule is paused, in the reader's language where its code is known. */
function pausedState(paused: NonNullable<Schedule['paused']>, t: ScheduleMessages): string {
  // A member's name is theirs to choose: escaped, as is a reason shown as stored.
  if (paused.code === 'member' && paused.by !== undefined) return t.pausedBy(md(paused.by, 100));
  const code = paused.code;
  const known = code !== undefined && Object.hasOwn(t.pauseReasons, code);
  return t.pausedBecause(known ? t.pauseReasons[code as BotPauseCode] : md(paused.reason, 300));
}

/**
 * One line about a schedule: what, where, when, and its state (its next run, or why it is paused),
 * left out for a schedule that was just deleted.
 */
export function scheduleLine(schedule: Schedule, now: Date, t: ScheduleMessages, withState = true): string {
  const zoneKnown = hasKnownZone(schedule);
  // A zone this bot does not know may be a damaged value: escaped, as a label is.
  const zone = zoneKnown ? schedule.timezone : md(schedule.timezone, 60, 'no time zone');
  const when = `${schedule.time} ${zone}, ${scheduleDays(schedule.days, t)}`;
  const settings = `${when} · ${t.units[schedule.units]}`;
  // The label comes from geocoding or from what the member typed (`geo:lat,lon|label`).
  const what = t.what(t.kinds[schedule.kind], md(schedule.place.label, 100), schedule.channelId);
  if (!withState) return `\`${schedule.id}\` ${what}\n${settings}`;
  if (!zoneKnown) return `\`${schedule.id}\` ${what}\n${settings} · ${t.unknownZone}`;
  const next = schedule.paused ? undefined : nextRun(schedule, now);
  const state = schedule.paused
    ? pausedState(schedule.paused, t)
    : next
      ? t.nextRun(Math.floor(next.getTime() / 1000))
      : t.noNextRun;
  return `\`${schedule.id}\` ${what}\n${settings} · ${state}`;
}

/** `/weather schedule list`: every schedule of the server, fitting one embed. */
export function renderScheduleList(
  schedules: readonly Schedule[],
  limit: number,
  now: Date,
  t: ScheduleMessages,
): EmbedBuilder {
  const embed = new EmbedBuilder()
    .setColor(0x4ea8ff)
    .setTitle(t.titles.list)
    .setFooter({ text: t.listFooter(schedules.length, limit) });
  if (schedules.length === 0) {
    return embed.setDescription(t.listEmpty);
  }
  // 25 schedules by default; each line is short, but fit the 4096-character description regardless.
  const lines: string[] = [];
  let length = 0;
  for (const [index, schedule] of schedules.entries()) {
    const line = truncate(scheduleLine(schedule, now, t), 400);
    if (length + line.length + 2 > 4000) {
      lines.push(t.andMore(schedules.length - index));
      break;
    }
    lines.push(line);
    length += line.length + 2;
  }
  return embed.setDescription(lines.join('\n\n'));
}

export function renderScheduleSaved(
  schedule: Schedule,
  now: Date,
  t: ScheduleMessages,
  title = t.titles.saved,
  withState = true,
): EmbedBuilder {
  return new EmbedBuilder()
    .setColor(0x4ea8ff)
    .setTitle(title)
    .setDescription(truncate(scheduleLine(schedule, now, t, withState), 4096));
}
