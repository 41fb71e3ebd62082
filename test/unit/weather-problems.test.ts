import { describe, expect, it } from 'vitest';
import { describeWeatherProblem } from '../../src/commands/weather/shared.js';
import { HttpError, RateLimitError } from '../../src/services/http/errors.js';
import { WeatherBadRequestError, WeatherParameterError } from '../../src/services/weather/index.js';

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

describe('what a member reads when a weather request is refused', () => {
  const badRequest = (detail: string | undefined) =>
    new WeatherBadRequestError(
      new HttpError(
        'weather',
        'GET',
        'https://weather.example/data/2.5/forecast',
        400,
        'Bad Request',
        detail === undefined ? 'Bad Request' : { cod: '400', message: detail },
        detail,
        {},
      ),
    );

  it('says what to do, not the service’s words nor a bare status text', () => {
    for (const error of [badRequest('cnt can not be less than 1'), badRequest(undefined)]) {
      expect(describeWeatherProblem(error, 'en')).toBe(
        'The weather service refused this request. Check the place and any dates you gave, then try again.',
      );
      expect(describeWeatherProblem(error, 'de')).toBe(
        'Der Wetterdienst hat diese Anfrage abgelehnt. Prüfe den Ort und den Zeitraum, falls du einen ' +
          'angegeben hast, und versuche es dann noch einmal.',
      );
    }
  });

  it('does not blame the service for the bot’s own check, nor name its parameters', () => {
    const error = new WeatherParameterError('cnt', 'cnt must be a whole number from 1 to 96');
    const said = describeWeatherProblem(error, 'en');
    expect(said).toBe(
      'The bot could not make a weather request from what you gave. Check the place and any dates you ' +
        'gave, then try again.',
    );
    expect(describeWeatherProblem(error, 'de')).toBe(
      'Aus deinen Angaben konnte der Bot keine Wetteranfrage machen. Prüfe den Ort und den Zeitraum, ' +
        'falls du einen angegeben hast, und versuche es dann noch einmal.',
    );
  });
});
