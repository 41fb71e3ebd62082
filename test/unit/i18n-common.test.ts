import { describe, expect, it } from 'vitest';
import { describeForUser } from '../../src/bot/errors.js';
import { commonMessages, waitText } from '../../src/bot/i18n/common.js';
import { UnreadableStoreError } from '../../src/services/schedules/store.js';
import { LockBusyError } from '../../src/storage/index.js';

describe('waitText', () => {
  it('says how long to wait in words, one second in the singular', () => {
    expect(waitText(1_000, 'en')).toBe('1 second');
    expect(waitText(400, 'de')).toBe('1 Sekunde');
    expect(waitText(30_000, 'en')).toBe('30 seconds');
    expect(waitText(90_000, 'de')).toBe('2 Minuten');
    expect(waitText(3 * 3_600_000, 'en')).toBe('about 3 hours');
  });

  it('tells a member when to try again', () => {
    expect(commonMessages('en').tooManyRequests('music', 1_000)).toBe(
      'The music service is receiving too many requests right now. Please try again in 1 second.',
    );
  });

  it.each([0, 400])('names no wait when the service asks for %i ms (Retry-After: 0)', (waitMs) => {
    expect(commonMessages('en').tooManyRequests('music', waitMs)).toBe(
      'The music service is receiving too many requests right now. Please try again in a little while.',
    );
    expect(commonMessages('de').tooManyRequests('music', waitMs)).toBe(
      'Der Musikdienst bekommt gerade zu viele Anfragen. Bitte versuche es in Kürze noch einmal.',
    );
  });
});

describe('the router’s own answers', () => {
  it('says what to do after an error on the bot’s side, keeping the reference', () => {
    expect(commonMessages('en').internal('a1b2c3')).toBe(
      'Something went wrong on our side, sorry. It has been logged (reference `a1b2c3`). Please try again; ' +
        'if it keeps happening, tell the bot’s owner and quote the reference.',
    );
    expect(commonMessages('de').internal('a1b2c3')).toBe(
      'Auf unserer Seite ist etwas schiefgegangen, tut uns leid. Es wurde protokolliert (Referenz `a1b2c3`). ' +
        'Bitte versuche es noch einmal; wenn es immer wieder passiert, sag es dem Betreiber des Bots und nenne ' +
        'ihm die Referenz.',
    );
  });

  it('points to the current commands after one the bot no longer knows', () => {
    expect(commonMessages('en').unknownCommand).toBe(
      'This command is not known to the bot any more. It may have been removed. Type / or run /help to see ' +
        'the current commands.',
    );
    expect(commonMessages('de').unknownCommand).toBe(
      'Diesen Befehl kennt der Bot nicht mehr. Vielleicht wurde er entfernt. Tippe / oder führe /help aus, ' +
        'um die aktuellen Befehle zu sehen.',
    );
  });
});

describe('storage’s refusals, as a member reads them', () => {
  it('says a busy setting and unreadable schedules in the member’s language', () => {
    expect(describeForUser(new LockBusyError(), 'en')).toBe(
      'Another change to the same settings is still being saved. Please try again in a moment.',
    );
    expect(describeForUser(new LockBusyError(), 'de')).toBe(
      'Eine andere Änderung an denselben Einstellungen wird gerade noch gespeichert. Bitte versuche es gleich noch einmal.',
    );
    expect(describeForUser(new UnreadableStoreError('guild:1'), 'de')).toMatch(
      /^Die geplanten Beiträge sind in einer Form gespeichert, die diese Version des Bots nicht lesen kann/,
    );
    expect(describeForUser(new UnreadableStoreError('guild:1'), 'en')).toMatch(
      /^The scheduled posts are stored in a form this version of the bot cannot read/,
    );
  });
});
