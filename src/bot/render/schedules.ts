import { EmbedBuilder } from '@discordjs/builders';
import { describeDays } from '../../services/schedules/input.js';
import { nextRun } from '../../services/schedules/timing.js';
import type { Schedule } from '../../services/schedules/types.js';
import { truncate } from './text.js';

const KIND_TEXT: Record<Schedule['kind'], string> = {
  current: 'current conditions',
  today: "today's forecast",
  week: 'the week ahead',
};

/** One line about a schedule: what, where, when, and its state. */
export function scheduleLine(schedule: Schedule, now: Date): string {
  const next = schedule.paused ? undefined : nextRun(schedule, now);
  const when = `${schedule.time} ${schedule.timezone}, ${describeDays(schedule.days)}`;
  const state = schedule.paused
    ? `⏸ paused: ${schedule.paused.reason}`
    : next
      ? `next <t:${Math.floor(next.getTime() / 1000)}:F> (<t:${Math.floor(next.getTime() / 1000)}:R>)`
      : 'no next run';
  return `\`${schedule.id}\` ${KIND_TEXT[schedule.kind]} for **${schedule.place.label}** in <#${schedule.channelId}>\n${when} · ${schedule.units} · ${state}`;
}

/** `/weather schedule list`: every schedule of the server, fitting one embed. */
export function renderScheduleList(schedules: readonly Schedule[], limit: number, now: Date): EmbedBuilder {
  const embed = new EmbedBuilder()
    .setColor(0x4ea8ff)
    .setTitle('Scheduled weather posts')
    .setFooter({ text: `${schedules.length} of ${limit} allowed · times are shown in your own time zone` });
  if (schedules.length === 0) {
    return embed.setDescription('None yet. Add one with `/weather schedule add`.');
  }
  // 25 schedules by default; each line is short, but fit the 4096-character description regardless.
  const lines: string[] = [];
  let length = 0;
  for (const [index, schedule] of schedules.entries()) {
    const line = truncate(scheduleLine(schedule, now), 400);
    if (length + line.length + 2 > 4000) {
      lines.push(`…and ${schedules.length - index} more`);
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
  title = 'Scheduled weather post saved',
): EmbedBuilder {
  return new EmbedBuilder()
    .setColor(0x4ea8ff)
    .setTitle(title)
    .setDescription(truncate(scheduleLine(schedule, now), 4096));
}
