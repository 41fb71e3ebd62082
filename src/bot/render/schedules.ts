import { EmbedBuilder } from '@discordjs/builders';
import type { APIActionRowComponent, APIButtonComponent, APIEmbed } from 'discord-api-types/v10';
import type { UnpostedRun } from '../../services/schedules/runner.js';
import { nextRun } from '../../services/schedules/timing.js';
import { hasKnownZone, type BotPauseCode, type Schedule } from '../../services/schedules/types.js';
import type { ScheduleMessages } from '../i18n/schedule-messages.js';
import { customIdCodec, field } from '../custom-id.js';
import { buttonRows } from './music-components.js';
import { md } from './music-text.js';
import { truncate } from './text.js';

/**
 * `every day`, `Mon, Wed, Fri`, `Sat, Sun`, in the reader's language: the week from Monday, as ISO
 * 8601 and German calendars have it (the days are stored Sunday first, as `Date` numbers them).
 */
export function scheduleDays(days: readonly number[], t: ScheduleMessages): string {
  const fromMonday = [...days].sort((a, b) => ((a + 6) % 7) - ((b + 6) % 7));
  return days.length === 0 ? t.everyDay : fromMonday.map((day) => t.weekdays[day]).join(', ');
}

/**
 * Why the bot paused a schedule (or would), in the reader's language: for a missing permission,
 * the permissions it could tell it lacked (`missing`, as stored), else the code's sentence.
 */
export function botPauseReason(
  code: BotPauseCode,
  missing: readonly string[] | undefined,
  t: ScheduleMessages,
): string {
  const names = (missing ?? []).filter((name): name is keyof ScheduleMessages['permissionNames'] =>
    Object.hasOwn(t.permissionNames, name),
  );
  return code === 'missing-permission' && names.length > 0
    ? t.lacksPermissions(names.map((name) => t.permissionNames[name]))
    : t.pauseReasons[code];
}

/**
 * Discord's words of a refusal as stored, without the HTTP status older versions stored before them
 * (`400 Message was blocked by automatic moderation`): a status means nothing to a member.
 */
export function refusalWords(stored: string): string {
  return stored.replace(/^\d{3} /, '');
}

/** Why a schedule is paused, in the reader's language where its code is known. */
function pausedState(paused: NonNullable<Schedule['paused']>, t: ScheduleMessages): string {
  // A member's name is theirs to choose: escaped, as is a reason shown as stored.
  if (paused.code === 'member' && paused.by !== undefined) return t.pausedBy(md(paused.by, 100));
  const code = paused.code;
  const known = code !== undefined && Object.hasOwn(t.pauseReasons, code);
  const state = t.pausedBecause(
    known ? botPauseReason(code as BotPauseCode, paused.missing, t) : md(paused.reason, 300),
  );
  // A permission the bot lost: the server's to give back, and then the schedule's to resume.
  return code === 'missing-permission' || code === 'channel-hidden'
    ? `${state}. ${t.resumeWhenFixed}`
    : state;
}

/**
 * One line about a schedule: what, where, when, and its state (its next run, or why it is paused),
 * left out for a schedule that was just deleted.
 */
export function scheduleLine(
  schedule: Schedule,
  now: Date,
  t: ScheduleMessages,
  withState = true,
  unposted?: UnpostedRun,
): string {
  const zoneKnown = hasKnownZone(schedule);
  // A zone this bot does not know may be a damaged value: escaped, as a label is.
  const zone = zoneKnown ? schedule.timezone : md(schedule.timezone, 60, t.noTimeZone);
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
  // Discord's words, as it sent them: escaped, as a stored reason is.
  const refused =
    schedule.paused || !schedule.lastRefused
      ? ''
      : `\n${t.lastRefused(Math.floor(schedule.lastRefused.at / 1000), md(refusalWords(schedule.lastRefused.reason), 120))}`;
  // Its latest run, when that has not gone out (a refused one is marked done, and told above).
  const late =
    schedule.paused || !unposted
      ? ''
      : `\n${
          unposted.missed
            ? t.missedPost(Math.floor(unposted.run / 1000))
            : t.pendingPost(Math.floor(unposted.run / 1000), Math.floor(unposted.until / 1000))
        }`;
  return `\`${schedule.id}\` ${what}\n${settings} · ${state}${refused}${late}`;
}

/** What one page of the list may hold: an embed's description is at most 4,096 characters. */
const PAGE_CHARACTERS = 4_000;

/**
 * The list's lines, page by page: as many schedules as fit one embed's description (25 short
 * ones, about 18 of the longest), then the next page. Pages are cut the same way from the same
 * list, so a page number in a button finds the same schedules while the list is unchanged.
 */
function schedulePages(
  schedules: readonly Schedule[],
  now: Date,
  t: ScheduleMessages,
  unposted: ReadonlyMap<string, UnpostedRun>,
): string[][] {
  const pages: string[][] = [];
  let lines: string[] = [];
  let length = 0;
  for (const schedule of schedules) {
    // 400 for the schedule, and room for a note under it: a refusal's (its reason clipped to 120,
    // and what to do about it), and one about its latest run if that has not gone out.
    const late = unposted.get(schedule.id);
    const line = truncate(
      scheduleLine(schedule, now, t, true, late),
      400 + (schedule.lastRefused ? 320 : 0) + (late ? 240 : 0),
    );
    if (lines.length > 0 && length + line.length + 2 > PAGE_CHARACTERS) {
      pages.push(lines);
      lines = [];
      length = 0;
    }
    lines.push(line);
    length += line.length + 2;
  }
  if (lines.length > 0) pages.push(lines);
  return pages;
}

/** One page of the server's schedules (the last when `page` is past it). */
function scheduleListPage(
  schedules: readonly Schedule[],
  limit: number,
  now: Date,
  t: ScheduleMessages,
  page: number,
  unposted: ReadonlyMap<string, UnpostedRun>,
): { embed: EmbedBuilder; page: number; pageCount: number } {
  const embed = new EmbedBuilder().setColor(0x4ea8ff).setTitle(t.titles.list);
  const pages = schedulePages(schedules, now, t, unposted);
  const shown = Math.max(0, Math.min(page, pages.length - 1));
  const footer = t.listFooter(schedules.length, limit);
  embed.setFooter({ text: pages.length > 1 ? `${footer} · ${t.page(shown + 1, pages.length)}` : footer });
  embed.setDescription(pages.length === 0 ? t.listEmpty : pages[shown]!.join('\n\n'));
  return { embed, page: shown, pageCount: pages.length };
}

/** `wslist:<page>:<nav>`: the page to show (0-based); `nav` keeps the two buttons' ids apart. */
export const scheduleListButton = customIdCodec('wslist', {
  page: field.int(),
  nav: field.oneOf('prev', 'next'),
});

/**
 * `/weather schedule list`: a page of the list, with Previous and Next when it has more than one.
 * `unposted`: the schedules whose latest run has not gone out (see `unpostedRuns`).
 */
export function renderScheduleListMessage(
  schedules: readonly Schedule[],
  limit: number,
  now: Date,
  t: ScheduleMessages,
  page = 0,
  unposted: ReadonlyMap<string, UnpostedRun> = new Map(),
): { embeds: APIEmbed[]; components: APIActionRowComponent<APIButtonComponent>[] } {
  const shown = scheduleListPage(schedules, limit, now, t, page, unposted);
  const last = shown.pageCount - 1;
  const components =
    shown.pageCount < 2
      ? []
      : buttonRows([
          [
            {
              customId: scheduleListButton.encode({ page: Math.max(0, shown.page - 1), nav: 'prev' }),
              label: t.previousPage,
              disabled: shown.page === 0,
            },
            {
              customId: scheduleListButton.encode({ page: Math.min(last, shown.page + 1), nav: 'next' }),
              label: t.nextPage,
              disabled: shown.page >= last,
            },
          ],
        ]);
  return { embeds: [shown.embed.toJSON()], components };
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
