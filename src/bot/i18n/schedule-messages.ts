/**
 * The words of the `/weather schedule …` replies, in English and German. German must have every
 * English key (the type says so). A paused schedule is shown with its reason's code in the reader's
 * language; a reason without a code this version knows is shown as stored (in English).
 */
import type { BotPauseCode } from '../../services/schedules/types.js';
import { joinList } from '../../domain/text.js';
import type { Lang } from './index.js';

/** `07`: an hour as a clock writes it. */
const pad = (hour: number) => String(hour).padStart(2, '0');
/** Discord's words as a sentence: a full stop added unless they end with one (or are cut off). */
const sentence = (said: string) => (/[.!?…]$/.test(said) ? said : `${said}.`);

/** `A, B or C`: a few zone names, the last joined with `or` (`oder`). */
function orList(items: readonly string[], or: string): string {
  return items.length < 2 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} ${or} ${items.at(-1)}`;
}

/** After a post Discord refused: most often the server's AutoMod, which the server can mend. */
const AUTOMOD_EN = 'If AutoMod blocked it, exempt the bot’s role from that rule.';
const AUTOMOD_DE = 'Wenn AutoMod ihn blockiert hat, nimm die Rolle des Bots von dieser Regel aus.';

const en = {
  // Refusals
  notInServer: 'Scheduled posts belong to a server: use this command in one.',
  needsManager: 'Managing scheduled posts needs the Manage Server permission.',
  noSuchSchedule: (id: string) =>
    `There is no scheduled post “${id}” on this server. See /weather schedule list.`,
  badTime: 'The time must look like 07:00, 19:30 or 7:30 pm.',
  ambiguousTime: (hour: number) =>
    hour === 12
      ? '“12” could be noon or midnight: write 12:00 or 00:00 (or 12 pm, 12 am).'
      : `“${hour}” could be morning or evening: write ${pad(hour)}:00 or ${hour + 12}:00 (or ${hour} am, ${hour} pm).`,
  badTimeZone: (zone: string) => `“${zone}” is not a time zone. Pick one from the list, e.g. Europe/Berlin.`,
  abbreviatedTimeZone: (typed: string, zones: readonly string[]) =>
    `“${typed}” is an abbreviation, not a time zone: it does not say where, nor whether summer time applies. ` +
    `Pick the zone by its place, e.g. ${orList(zones, 'or')}.`,
  noZoneAtPlace: (place: string) =>
    `I do not know the time zone at ${place}: give one with the \`timezone\` option, e.g. Europe/Berlin.`,
  badDays: (reason: string, _typed: string) => `${reason}. Write days like mon,wed,fri, weekdays or sat-sun.`,
  tooManySchedules: (count: number) =>
    `This server already has ${count === 1 ? '1 scheduled post' : `${count} scheduled posts`}, the most allowed. Remove one first.`,
  duplicateSchedule: (id: string, channelId: string, paused: boolean) =>
    `<#${channelId}> already gets this post: scheduled post \`${id}\` has the same place, time, days and kind.` +
    (paused
      ? ` It is paused: \`/weather schedule resume id:${id}\` starts it again.`
      : ' Nothing was added.'),
  pickTextChannel: 'Pick a text channel of this server.',
  notTextChannel:
    'Scheduled weather can only be posted in a text or announcement channel: pick one with the `channel` option.',
  missingPermissions: (channelId: string, names: readonly string[]) =>
    `I cannot post in <#${channelId}>: I am missing ${joinList(names)} there. ` +
    `Give me ${names.length === 1 ? 'this permission' : 'these permissions'} in that channel, or pick another channel.`,
  channelGone: (channelId: string) =>
    `The channel of this scheduled post, <#${channelId}>, no longer exists: remove the post with ` +
    '`/weather schedule remove` and add it again for another channel with `/weather schedule add`.',
  permissionsUnchecked: (channelId: string) =>
    `I could not check my permissions in <#${channelId}>: run \`/weather schedule test\` to see that a post arrives there.`,
  botNotInServer: (inviteUrl: string) =>
    'I cannot post on this server: I am not a member of it. The app was added without its bot (or the bot ' +
    'was removed), so I can answer commands here but not post in channels. Someone with Manage Server ' +
    `can add me with [this link](<${inviteUrl}>), then run this command again.`,
  timedOut: (untilSeconds: number) =>
    `I am timed out on this server until <t:${untilSeconds}:f>: posts due before then are skipped, and they start again by themselves after it.`,
  permissionNames: {
    ViewChannel: 'View Channel',
    SendMessages: 'Send Messages',
    EmbedLinks: 'Embed Links',
    AttachFiles: 'Attach Files',
  },

  // Test post
  posted: (channelId: string) => `Posted it in <#${channelId}>.`,
  couldNotPost: (channelId: string, reason: string) => `Could not post in <#${channelId}>: ${reason}`,

  // Embeds
  titles: {
    list: 'Scheduled weather posts',
    saved: 'Scheduled weather post saved',
    remove: 'Scheduled weather post deleted',
    pause: 'Scheduled weather post paused',
    resume: 'Scheduled weather post resumed',
  },
  listFooter: (count: number, limit: number) =>
    `${count} of ${limit} allowed · next posts are shown in your own time zone`,
  listEmpty: 'None yet. Add one with `/weather schedule add`.',
  page: (page: number, pages: number) => `page ${page} of ${pages}`,
  previousPage: '◀ Previous',
  nextPage: 'Next ▶',
  kinds: {
    current: 'current conditions',
    today: 'today’s forecast',
    week: 'the week ahead',
  },
  units: {
    metric: 'metric',
    imperial: 'imperial',
    standard: 'standard',
  },
  /** Sunday first, as `Date#getDay` counts. */
  weekdays: ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'],
  everyDay: 'every day',
  what: (kind: string, place: string, channelId: string) => `${kind} for **${place}** in <#${channelId}>`,
  pausedBecause: (reason: string) => `⏸ paused: ${reason}`,
  /** After a pause for a permission the bot lost in the channel. */
  resumeWhenFixed: 'Fix that, then run `/weather schedule resume`.',
  pausedBy: (name: string) => `⏸ paused by ${name}`,
  /** A schedule stored with a time zone this bot does not know: it does not post. */
  unknownZone:
    '⚠ its time zone is not known to this bot: remove this schedule with `/weather schedule remove` and add it again with `/weather schedule add`',
  /** Why the bot paused a schedule; also what `/weather schedule test` says. English: the stored reason. */
  pauseReasons: {
    'channel-deleted': 'the channel was deleted',
    'channel-hidden': 'the bot can no longer see the channel',
    'bot-removed': 'the bot was removed from this server',
    'missing-permission': 'the bot lost a permission it needs in the channel',
    'plan-current': 'the bot’s weather plan does not include current weather',
    'plan-hourly': 'the bot’s weather plan does not include the hourly forecast',
    'plan-daily': 'the bot’s weather plan does not include the daily forecast',
    'place-refused': 'the weather service refuses this place',
  } satisfies Record<BotPauseCode, string>,
  lacksPermissions: (names: readonly string[]) => `the bot lacks ${joinList(names)} in the channel`,
  nextRun: (unixSeconds: number) => `next <t:${unixSeconds}:F> (<t:${unixSeconds}:R>)`,
  lastRefused: (unixSeconds: number, said: string) =>
    `⚠ Discord refused the last post (<t:${unixSeconds}:R>): ${sentence(said)} ${AUTOMOD_EN}`,
  /** The schedule's latest run has not gone out yet; it may until `until` (its grace window's end). */
  pendingPost: (run: number, until: number) =>
    `⏳ The post of <t:${run}:f> has not gone out yet (it still can until <t:${until}:t>).`,
  /** The schedule's latest run was given up at the end of its grace window. */
  missedPost: (run: number) =>
    `⚠ The post of <t:${run}:f> was not made: the bot was not running then, or the weather service or Discord failed. The bot’s log says why.`,
  noNextRun: 'no next run',
  /** In autocomplete choices, after a paused schedule. */
  pausedMark: 'paused',
  /** `/weather schedule test`: Discord refused the message itself (`said`: its words). */
  postRefused: (said: string) => `Discord refused the post: ${sentence(said)} ${AUTOMOD_EN}`,
  /** In the list, for a schedule whose stored zone is empty. */
  noTimeZone: 'no time zone',
};

export type ScheduleMessages = typeof en;

const de: ScheduleMessages = {
  notInServer: 'Geplante Posts gehören zu einem Server: Verwende diesen Befehl auf einem Server.',
  needsManager: 'Zum Verwalten geplanter Posts brauchst du die Berechtigung „Server verwalten“.',
  noSuchSchedule: (id) =>
    `Auf diesem Server gibt es keinen geplanten Post „${id}“. Siehe /wetter zeitplan liste.`,
  badTime: 'Die Uhrzeit muss wie 07:00, 19:30 oder 19 Uhr aussehen.',
  ambiguousTime: (hour) =>
    hour === 12
      ? '„12“ kann mittags oder um Mitternacht sein: Schreib 12:00 oder 00:00 (oder 12 Uhr, 0 Uhr).'
      : `„${hour}“ kann morgens oder abends sein: Schreib ${pad(hour)}:00 oder ${hour + 12}:00 (oder ${hour} Uhr, ${hour + 12} Uhr).`,
  badTimeZone: (zone) => `„${zone}“ ist keine Zeitzone. Wähle eine aus der Liste, z. B. Europe/Berlin.`,
  abbreviatedTimeZone: (typed, zones) =>
    `„${typed}“ ist eine Abkürzung, keine Zeitzone: Sie verrät weder den Ort noch, ob Sommerzeit gilt. ` +
    `Wähle die Zeitzone nach ihrem Ort, z. B. ${orList(zones, 'oder')}.`,
  noZoneAtPlace: (place) =>
    `Die Zeitzone von ${place} kenne ich nicht: Gib eine mit der Option \`zeitzone\` an, z. B. Europe/Berlin.`,
  // The reason comes from the parser in English; the German text names what was typed instead.
  badDays: (_reason, typed) =>
    `„${typed}“ kann ich nicht als Wochentage lesen. Schreibe Tage wie mo,mi,fr, mo-fr oder sa-so.`,
  tooManySchedules: (count) =>
    `Dieser Server hat schon ${count === 1 ? 'einen geplanten Post' : `${count} geplante Posts`}, mehr sind nicht erlaubt. Entferne zuerst einen.`,
  duplicateSchedule: (id, channelId, paused) =>
    `<#${channelId}> bekommt diesen Post schon: Der geplante Post \`${id}\` hat denselben Ort, dieselbe Zeit, dieselben Tage und dieselbe Art.` +
    (paused
      ? ` Er ist pausiert: \`/wetter zeitplan fortsetzen id:${id}\` setzt ihn fort.`
      : ' Es wurde nichts hinzugefügt.'),
  pickTextChannel: 'Wähle einen Textkanal dieses Servers.',
  notTextChannel:
    'Geplantes Wetter kann nur in einem Text- oder Ankündigungskanal gepostet werden: Wähle einen mit der Option `kanal`.',
  missingPermissions: (channelId, names) =>
    `Ich kann in <#${channelId}> nicht posten, dort fehlt mir: ${joinList(names, { locale: 'de' })}. ` +
    `Gib mir ${names.length === 1 ? 'diese Berechtigung' : 'diese Berechtigungen'} dort oder wähle einen anderen Kanal.`,
  channelGone: (channelId) =>
    `Den Kanal dieses geplanten Posts, <#${channelId}>, gibt es nicht mehr: Entferne den Post mit ` +
    '`/wetter zeitplan entfernen` und lege ihn mit `/wetter zeitplan hinzufügen` für einen anderen Kanal neu an.',
  permissionsUnchecked: (channelId) =>
    `Ich konnte meine Berechtigungen in <#${channelId}> nicht prüfen: Mit \`/wetter zeitplan testen\` siehst du, ob ein Post dort ankommt.`,
  botNotInServer: (inviteUrl) =>
    'Ich kann auf diesem Server nicht posten: Ich bin kein Mitglied. Die App wurde ohne ihren Bot ' +
    'hinzugefügt (oder der Bot wurde entfernt), daher beantworte ich hier Befehle, kann aber nicht in ' +
    'Kanälen posten. Jemand mit „Server verwalten“ kann mich über ' +
    `[diesen Link](<${inviteUrl}>) hinzufügen; führe den Befehl danach noch einmal aus.`,
  timedOut: (untilSeconds) =>
    `Ich bin auf diesem Server bis <t:${untilSeconds}:f> im Timeout: Posts, die vorher fällig sind, fallen aus, danach geht es von selbst weiter.`,
  permissionNames: {
    ViewChannel: 'Kanal ansehen',
    SendMessages: 'Nachrichten senden',
    EmbedLinks: 'Links einbetten',
    AttachFiles: 'Dateien anhängen',
  },

  posted: (channelId) => `In <#${channelId}> gepostet.`,
  couldNotPost: (channelId, reason) => `Ich konnte nicht in <#${channelId}> posten: ${reason}`,

  titles: {
    list: 'Geplante Wetterposts',
    saved: 'Geplanter Wetterpost gespeichert',
    remove: 'Geplanter Wetterpost gelöscht',
    pause: 'Geplanter Wetterpost pausiert',
    resume: 'Geplanter Wetterpost fortgesetzt',
  },
  listFooter: (count, limit) =>
    `${count} von ${limit} erlaubt · nächste Termine in deiner Zeitzone angezeigt`,
  listEmpty: 'Noch keine. Lege einen mit `/wetter zeitplan hinzufügen` an.',
  page: (page, pages) => `Seite ${page} von ${pages}`,
  previousPage: '◀ Zurück',
  nextPage: 'Weiter ▶',
  kinds: {
    current: 'aktuelles Wetter',
    today: 'Vorhersage für heute',
    week: 'die kommende Woche',
  },
  units: {
    metric: 'metrisch',
    imperial: 'imperial',
    standard: 'Standard',
  },
  weekdays: ['So', 'Mo', 'Di', 'Mi', 'Do', 'Fr', 'Sa'],
  everyDay: 'jeden Tag',
  what: (kind, place, channelId) => `${kind} für **${place}** in <#${channelId}>`,
  pausedBecause: (reason) => `⏸ pausiert: ${reason}`,
  resumeWhenFixed: 'Behebe das und führe dann `/wetter zeitplan fortsetzen` aus.',
  pausedBy: (name) => `⏸ pausiert von ${name}`,
  unknownZone:
    '⚠ seine Zeitzone kennt dieser Bot nicht: Entferne diesen geplanten Post mit `/wetter zeitplan entfernen` und lege ihn mit `/wetter zeitplan hinzufügen` neu an',
  pauseReasons: {
    'channel-deleted': 'der Kanal wurde gelöscht',
    'channel-hidden': 'der Bot kann den Kanal nicht mehr sehen',
    'bot-removed': 'der Bot wurde von diesem Server entfernt',
    'missing-permission': 'dem Bot fehlt eine Berechtigung, die er im Kanal braucht',
    'plan-current': 'der Wettertarif des Bots enthält kein aktuelles Wetter',
    'plan-hourly': 'der Wettertarif des Bots enthält keine stündliche Vorhersage',
    'plan-daily': 'der Wettertarif des Bots enthält keine Tagesvorhersage',
    'place-refused': 'der Wetterdienst lehnt diesen Ort ab',
  },
  lacksPermissions: (names) => `dem Bot fehlt im Kanal: ${joinList(names, { locale: 'de' })}`,
  nextRun: (unixSeconds) => `nächster Termin <t:${unixSeconds}:F> (<t:${unixSeconds}:R>)`,
  lastRefused: (unixSeconds, said) =>
    `⚠ Discord hat den letzten Post abgelehnt (<t:${unixSeconds}:R>): ${sentence(said)} ${AUTOMOD_DE}`,
  pendingPost: (run, until) =>
    `⏳ Der Post von <t:${run}:f> ist noch nicht erschienen (das kann er noch bis <t:${until}:t>).`,
  missedPost: (run) =>
    `⚠ Der Post von <t:${run}:f> wurde nicht gesendet: Der Bot lief da nicht, oder beim Wetterdienst oder bei Discord ging etwas schief. Das Log des Bots sagt, was.`,
  noNextRun: 'kein nächster Termin',
  pausedMark: 'pausiert',
  postRefused: (said) => `Discord hat den Post abgelehnt: ${sentence(said)} ${AUTOMOD_DE}`,
  noTimeZone: 'keine Zeitzone',
};

const CATALOGUES: Readonly<Record<Lang, ScheduleMessages>> = { en, de };

export function scheduleMessages(lang: Lang): ScheduleMessages {
  return CATALOGUES[lang];
}
