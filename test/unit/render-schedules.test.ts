import { describe, expect, it } from 'vitest';
import { scheduleMessages } from '../../src/bot/i18n/schedule-messages.js';
import {
  renderScheduleListMessage,
  renderScheduleSaved,
  scheduleDays,
} from '../../src/bot/render/schedules.js';
import type { Schedule } from '../../src/services/schedules/types.js';

const HOSTILE = 'Evil [x](http://evil.example) `code` **bold** <@123>';
/** A masked link Discord would make clickable: brackets and parenthesis not escaped. */
const MASKED_LINK = /(?<!\\)\[[^\]]*(?<!\\)\]\(/;

function scheduleFactory(overrides: Partial<Schedule> = {}): Schedule {
  return {
    id: 'a1b2c3d4',
    guildId: 'g1',
    channelId: 'c1',
    place: { lat: 52.52, lon: 13.405, label: 'Berlin, DE' },
    time: '07:00',
    timezone: 'Europe/Berlin',
    days: [1, 3, 5],
    kind: 'today',
    units: 'metric',
    lang: 'en',
    createdBy: 'u1',
    createdAt: Date.UTC(2025, 0, 1),
    ...overrides,
  };
}

const NOW = new Date(Date.UTC(2025, 5, 2, 12));
const en = scheduleMessages('en');
const de = scheduleMessages('de');
/** The list's embed, as `/weather schedule list` sends it. */
const listEmbed = (...args: Parameters<typeof renderScheduleListMessage>) =>
  renderScheduleListMessage(...args).embeds[0]!;

describe('schedule renderers', () => {
  it('lists the days of a schedule from Monday, so a weekend reads Sat, Sun (Sa, So)', () => {
    expect(scheduleDays([0, 6], scheduleMessages('en'))).toBe('Sat, Sun');
    expect(scheduleDays([0, 6], scheduleMessages('de'))).toBe('Sa, So');
    expect(scheduleDays([0, 1, 3, 5], scheduleMessages('en'))).toBe('Mon, Wed, Fri, Sun');
    expect(scheduleDays([], scheduleMessages('de'))).toBe('jeden Tag');
  });

  it('escapes a place label typed or geocoded with markdown, so it shows as typed and links nowhere', () => {
    const schedule = scheduleFactory({ place: { lat: 1, lon: 2, label: HOSTILE } });
    for (const description of [
      listEmbed([schedule], 25, NOW, en).description!,
      renderScheduleSaved(schedule, NOW, en).toJSON().description!,
    ]) {
      expect(description).not.toMatch(MASKED_LINK);
      expect(description).toContain(
        '**Evil \\[x\\](http\\://evil.example) \\`code\\` \\*\\*bold\\*\\* \\<@123\\>**',
      );
    }
  });

  it('escapes the name of the member who paused a schedule', () => {
    const name = '[x](http://evil.example)';
    for (const paused of [
      { reason: `paused by ${name}`, at: 0, byUser: true, code: 'member', by: name },
      // Stored before pauses had codes: the reason as stored.
      { reason: `paused by ${name}`, at: 0, byUser: true },
    ]) {
      const description = listEmbed([scheduleFactory({ paused })], 25, NOW, en).description!;
      expect(description).not.toMatch(MASKED_LINK);
      expect(description).toMatch(/⏸ paused(: paused)? by \\\[x\\\]\(http\\:\/\/evil\.example\)/);
    }
  });

  it('names the permissions a schedule was paused for, in the reader’s language, where the bot knew them', () => {
    const paused = (missing?: string[]) =>
      scheduleFactory({
        paused: {
          reason: 'the bot lacks Send Messages, Attach Files in the channel',
          at: 0,
          byUser: false,
          code: 'missing-permission',
          ...(missing ? { missing } : {}),
        },
      });
    const named = paused(['SendMessages', 'AttachFiles']);
    expect(listEmbed([named], 25, NOW, en).description).toContain(
      '⏸ paused: the bot lacks Send Messages and Attach Files in the channel. ' +
        'Fix that, then run `/weather schedule resume`.',
    );
    expect(listEmbed([named], 25, NOW, de).description).toContain(
      '⏸ pausiert: dem Bot fehlt im Kanal: Nachrichten senden und Dateien anhängen. ' +
        'Behebe das und führe dann `/wetter zeitplan fortsetzen` aus.',
    );
    // Three of them: the last joined with "and" ("und"), after a comma in English only.
    const three = paused(['ViewChannel', 'SendMessages', 'AttachFiles']);
    expect(listEmbed([three], 25, NOW, en).description).toContain(
      '⏸ paused: the bot lacks View Channel, Send Messages, and Attach Files in the channel.',
    );
    expect(listEmbed([three], 25, NOW, de).description).toContain(
      '⏸ pausiert: dem Bot fehlt im Kanal: Kanal ansehen, Nachrichten senden und Dateien anhängen.',
    );
    // Not known (or paused by an older version): the general reason.
    expect(listEmbed([paused()], 25, NOW, de).description).toContain(
      '⏸ pausiert: dem Bot fehlt eine Berechtigung, die er im Kanal braucht. ' +
        'Behebe das und führe dann `/wetter zeitplan fortsetzen` aus.',
    );
    // The channel hidden from the bot is a permission lost too; a deleted channel is not.
    const hidden = scheduleFactory({
      paused: { reason: 'x', at: 0, byUser: false, code: 'channel-hidden' },
    });
    expect(listEmbed([hidden], 25, NOW, en).description).toContain(
      '⏸ paused: the bot can no longer see the channel. Fix that, then run `/weather schedule resume`.',
    );
    const deleted = scheduleFactory({
      paused: { reason: 'x', at: 0, byUser: false, code: 'channel-deleted' },
    });
    expect(listEmbed([deleted], 25, NOW, en).description).not.toContain('schedule resume');
  });

  it('says in the list when Discord refused the last post, in the reader’s language, until one goes out', () => {
    const at = Date.UTC(2025, 5, 2, 5);
    // As stored now (Discord's words), and as older versions stored it (the status first).
    for (const reason of [
      'Message was blocked by automatic moderation',
      '400 Message was blocked by automatic moderation',
    ]) {
      const refused = scheduleFactory({ lastRefused: { at, reason } });
      expect(listEmbed([refused], 25, NOW, en).description).toContain(
        `⚠ Discord refused the last post (<t:${at / 1000}:R>): Message was blocked by automatic moderation. ` +
          'If AutoMod blocked it, exempt the bot’s role from that rule.',
      );
      expect(listEmbed([refused], 25, NOW, de).description).toContain(
        `⚠ Discord hat den letzten Post abgelehnt (<t:${at / 1000}:R>): Message was blocked by automatic ` +
          'moderation. Wenn AutoMod ihn blockiert hat, nimm die Rolle des Bots von dieser Regel aus.',
      );
    }
    // Words that end a sentence themselves get no second full stop.
    const ended = scheduleFactory({ lastRefused: { at, reason: '400 Cannot send an empty message.' } });
    expect(listEmbed([ended], 25, NOW, en).description).toContain(
      `(<t:${at / 1000}:R>): Cannot send an empty message. If AutoMod`,
    );
    expect(listEmbed([scheduleFactory()], 25, NOW, en).description).not.toContain('⚠');
    // A long place and a long reason: the note is still there, its reason clipped, not cut off.
    const long = scheduleFactory({
      place: { lat: 1, lon: 2, label: `${'Llanfair*'.repeat(11)}` },
      lastRefused: { at, reason: `400 ${'*blocked* '.repeat(60)}` },
    });
    const line = listEmbed([long], 25, NOW, en).description!;
    expect(line).toMatch(
      /⚠ Discord refused the last post \(<t:\d+:R>\): (\\\*blocked\\\* )+.*… If AutoMod blocked it, exempt the bot’s role from that rule\.$/,
    );
  });

  it('says in the list when the latest post has not gone out, or was missed, in the reader’s language', () => {
    const run = Date.UTC(2025, 5, 2, 5);
    const until = run + 30 * 60_000;
    const schedule = scheduleFactory();
    const pending = new Map([[schedule.id, { run, until, missed: false }]]);
    const missed = new Map([[schedule.id, { run, until, missed: true }]]);
    expect(listEmbed([schedule], 25, NOW, en, 0, pending).description).toContain(
      `\n⏳ The post of <t:${run / 1000}:f> has not gone out yet (it still can until <t:${until / 1000}:t>).`,
    );
    expect(listEmbed([schedule], 25, NOW, de, 0, pending).description).toContain(
      `\n⏳ Der Post von <t:${run / 1000}:f> ist noch nicht erschienen (das kann er noch bis <t:${until / 1000}:t>).`,
    );
    expect(listEmbed([schedule], 25, NOW, en, 0, missed).description).toContain(
      `\n⚠ The post of <t:${run / 1000}:f> was not made: the bot was not running then, or the weather service ` +
        'or Discord failed. The bot’s log says why.',
    );
    expect(listEmbed([schedule], 25, NOW, de, 0, missed).description).toContain(
      `\n⚠ Der Post von <t:${run / 1000}:f> wurde nicht gesendet: Der Bot lief da nicht, oder beim ` +
        'Wetterdienst oder bei Discord ging etwas schief. Das Log des Bots sagt, was.',
    );
    // Only for the schedule it is about, and not under a paused one (its pause is what counts).
    const other = scheduleFactory({ id: 'e5f6a7b8' });
    expect(listEmbed([other], 25, NOW, en, 0, missed).description).not.toMatch(/⚠|⏳/);
    const paused = scheduleFactory({ paused: { reason: 'paused by alice', at: run, byUser: true } });
    expect(listEmbed([paused], 25, NOW, en, 0, missed).description).not.toMatch(/⚠|⏳/);
    // A long place: the note is still there, whole.
    const long = scheduleFactory({ place: { lat: 1, lon: 2, label: `${'Llanfair*'.repeat(11)}` } });
    expect(listEmbed([long], 25, NOW, en, 0, missed).description).toMatch(/The bot’s log says why\.$/);
  });

  it('says what Discord refused of a test post, without a status, and what to do about AutoMod', () => {
    expect(en.postRefused('Message was blocked by automatic moderation')).toBe(
      'Discord refused the post: Message was blocked by automatic moderation. If AutoMod blocked it, ' +
        'exempt the bot’s role from that rule.',
    );
    expect(de.postRefused('Message was blocked by automatic moderation')).toBe(
      'Discord hat den Post abgelehnt: Message was blocked by automatic moderation. Wenn AutoMod ihn ' +
        'blockiert hat, nimm die Rolle des Bots von dieser Regel aus.',
    );
  });

  it('lists a schedule whose time zone this bot does not know, saying to remove and add it again', () => {
    const healthy = scheduleFactory({ id: 'b1b2b3b4' });
    for (const timezone of ['Mars/Olympus', 'Evil/[x](http://evil.example)', '']) {
      const damaged = scheduleFactory({ timezone });
      const description = listEmbed([damaged, healthy], 25, NOW, en).description!;
      expect(description).not.toMatch(MASKED_LINK);
      expect(description).toMatch(
        /`a1b2c3d4` .*\n07:00 .*· ⚠ its time zone is not known to this bot: remove this schedule with `\/weather schedule remove` and add it again with `\/weather schedule add`$/m,
      );
      // The others are listed as usual.
      expect(description).toMatch(
        /`b1b2b3b4` .*\n07:00 Europe\/Berlin, Mon, Wed, Fri · metric · next <t:\d+:F>/,
      );
      expect(renderScheduleSaved(damaged, NOW, de).toJSON().description).toContain(
        'seine Zeitzone kennt dieser Bot nicht',
      );
    }
  });

  it("says why a schedule is paused in the reader's language, and an unknown reason as stored", () => {
    const line = (paused: Schedule['paused'], t = de) =>
      listEmbed([scheduleFactory({ paused })], 25, NOW, t).description!;
    const at = 0;
    expect(line({ reason: 'paused by alice', at, byUser: true, code: 'member', by: 'alice' })).toContain(
      '⏸ pausiert von alice',
    );
    expect(line({ reason: 'the channel was deleted', at, byUser: false, code: 'channel-deleted' })).toContain(
      '⏸ pausiert: der Kanal wurde gelöscht',
    );
    expect(
      line({
        reason: "the bot's weather plan does not include the hourly forecast",
        at,
        byUser: false,
        code: 'plan-hourly',
      }),
    ).toContain('⏸ pausiert: der Wettertarif des Bots enthält keine stündliche Vorhersage');
    // A code from a later version, or a record without one: the English reason, escaped.
    for (const code of ['moon-phase', undefined, 'toString', '__proto__']) {
      const paused = { reason: 'the *moon* is full', at, byUser: false, ...(code ? { code } : {}) };
      expect(line(paused)).toContain('⏸ pausiert: the \\*moon\\* is full');
    }
    expect(
      line({ reason: 'the channel was deleted', at, byUser: false, code: 'channel-deleted' }, en),
    ).toContain('⏸ paused: the channel was deleted');
  });

  it('writes a schedule in German for a German member, keeping the English layout for English', () => {
    const schedule = scheduleFactory();
    const english = listEmbed([schedule], 25, NOW, en);
    expect(english.title).toBe('Scheduled weather posts');
    expect(english.footer?.text).toBe('1 of 25 allowed · next posts are shown in your own time zone');
    expect(english.description).toMatch(
      /^`a1b2c3d4` today’s forecast for \*\*Berlin, DE\*\* in <#c1>\n07:00 Europe\/Berlin, Mon, Wed, Fri · metric · next <t:\d+:F>/,
    );
    const german = listEmbed([schedule], 25, NOW, de);
    expect(german.title).toBe('Geplante Wetterposts');
    expect(german.footer?.text).toBe('1 von 25 erlaubt · nächste Termine in deiner Zeitzone angezeigt');
    expect(german.description).toMatch(
      /^`a1b2c3d4` Vorhersage für heute für \*\*Berlin, DE\*\* in <#c1>\n07:00 Europe\/Berlin, Mo, Mi, Fr · metrisch · nächster Termin <t:\d+:F>/,
    );
    expect(listEmbed([], 25, NOW, de).description).toBe(
      'Noch keine. Lege einen mit `/wetter zeitplan hinzufügen` an.',
    );
    const saved = renderScheduleSaved(scheduleFactory({ days: [] }), NOW, de).toJSON();
    expect(saved.title).toBe('Geplanter Wetterpost gespeichert');
    expect(saved.description).toContain('07:00 Europe/Berlin, jeden Tag');
  });
});
