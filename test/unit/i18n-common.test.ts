import { describe, expect, it } from 'vitest';
import { commonMessages, waitText } from '../../src/bot/i18n/common.js';

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
