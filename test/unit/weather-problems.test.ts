import { describe, expect, it } from 'vitest';
import { describeWeatherProblem } from '../../src/commands/weather/shared.js';
import { RateLimitError } from '../../src/services/http/errors.js';

const limited = (retryAfterMs: number | undefined) =>
  new RateLimitError('weather', 'GET', 'https://weather.example/data/2.5/weather', retryAfterMs);

describe('what a member reads when the weather service limits the bot', () => {
  it('names a wait the service asked for', () => {
    expect(describeWeatherProblem(limited(30_000), 'en')).toBe(
      'The weather service is receiving too many requests right now. Please try again in 30 seconds.',
    );
  });

  it('names no wait of nothing (Retry-After: 0) or of under a second, in either language', () => {
    for (const wait of [0, 400]) {
      expect(describeWeatherProblem(limited(wait), 'en')).toBe(
        'The weather service is receiving too many requests right now. Please try again in a little while.',
      );
      expect(describeWeatherProblem(limited(wait), 'de')).toBe(
        'Der Wetterdienst bekommt gerade zu viele Anfragen. Bitte versuche es etwas später noch einmal.',
      );
    }
  });
});
