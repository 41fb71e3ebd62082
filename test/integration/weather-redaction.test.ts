import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWeatherEmulator, type WeatherEmulator } from '../../emulators/weather/index.js';
import { createWeatherClient, type WeatherClient } from '../../src/services/weather/index.js';
import { weatherClientFor } from '../fixtures/weather.js';

/** Distinctive enough that any appearance anywhere is a leak. */
const CANARY = 'canary-9f27c4e1d86b40a5b3e7';
const WRONG_CANARY = 'canary-wrong-0d5e8a3f6c1b';
const FREE_CANARY = 'canary-free-7b3e91c0a4d2';
const BERLIN = { lat: 52.52, lon: 13.41 };

let emulator: WeatherEmulator;
const lines: string[] = [];
const logger = pino({ level: 'trace' }, { write: (line: string) => void lines.push(line) });

function clientWith(apiKey: string, emulatorUrls: WeatherEmulator = emulator): WeatherClient {
  return weatherClientFor(emulatorUrls, {
    apiKey,
    transport: {
      sleep: () => Promise.resolve(),
      onExchange: (exchange) => logger.debug({ exchange }, 'weather exchange'),
    },
  });
}

beforeAll(async () => {
  emulator = await startWeatherEmulator({ apiKeys: [CANARY], freeApiKeys: [FREE_CANARY], bulkRecords: 20 });
});
afterAll(() => emulator.close());

describe('the weather key never leaks', () => {
  it('appears in no log line, error message or stack, whatever goes wrong', async () => {
    const client = clientWith(CANARY);
    const stranger = clientWith(WRONG_CANARY);
    const free = clientWith(FREE_CANARY);
    const errors: unknown[] = [];
    const attempt = async (run: () => Promise<unknown>) => {
      try {
        await run();
      } catch (error) {
        errors.push(error);
        logger.error({ err: error }, 'weather request failed');
      }
    };

    // Successes on every host.
    await attempt(() => client.current.byCoords(BERLIN));
    await attempt(() => client.forecast.hourly({ ...BERLIN, cnt: 2 }));
    await attempt(() => client.history.yearly(BERLIN));
    await attempt(async () => {
      for await (const _ of client.bulk.snapshot('weather_14.csv.gz')) {
        // drain
      }
    });
    // Failures of every kind.
    await attempt(() => stranger.current.byCoords(BERLIN)); // 401
    await attempt(() => stranger.bulk.snapshot('weather_14.json.gz').next()); // 401 on the bulk host
    await attempt(() => free.forecast.hourly(BERLIN)); // 401: the plan lacks the product
    await attempt(() => free.bulk.snapshot('weather_16.json.gz').next()); // the same on the bulk host
    await attempt(() => client.current.byName({ q: 'Atlantis' })); // 404
    await attempt(() => client.bulk.snapshot('weather_99.json.gz').next()); // 404
    await attempt(() => client.history.hourly({ ...BERLIN, start: 1_700_000_000, end: 1_701_000_000 })); // 400
    emulator.failNext('/data/2.5/forecast/daily', 403);
    await attempt(() => client.forecast.daily(BERLIN)); // 403
    emulator.setRateLimit({ count: 10 });
    await attempt(() => client.forecast.threeHourly(BERLIN)); // 429 to the end
    emulator.setRateLimit({ count: 0 });
    for (let i = 0; i < 3; i++) emulator.failNext('/geo/1.0/direct', 500);
    await attempt(() => client.geocoding.direct({ q: 'Springfield' })); // 500 after retries
    emulator.failNext('/geo/1.0/reverse', 200, { not: 'a list' });
    await attempt(() => client.geocoding.reverse(BERLIN)); // validation
    // A service that echoes the key back in its error message.
    emulator.failNext('/data/2.5/weather', 400, {
      cod: '400',
      message: `bad request for appid=${CANARY} (${CANARY})`,
    });
    await attempt(() => client.current.byCoords({ lat: 1, lon: 1 }));
    // Dropped connections, to the end.
    for (let i = 0; i < 3; i++) emulator.failNext('/data/2.5/weather', 'reset');
    await attempt(() => client.current.byCoords({ lat: 2, lon: 2 }));
    // Too slow.
    const slow = weatherClientFor(emulator, {
      apiKey: CANARY,
      transport: {
        timeoutMs: 50,
        retries: 0,
        onExchange: (exchange) => logger.debug({ exchange }, 'weather exchange'),
      },
    });
    emulator.delayNext('/data/2.5/forecast/daily', 200);
    await attempt(() => slow.forecast.daily({ lat: 3, lon: 3 }));
    // Nobody listening.
    const closed = await startWeatherEmulator({ apiKeys: [CANARY] });
    await closed.close();
    const unreachable = createWeatherClient({
      apiUrl: closed.apiUrl,
      proUrl: closed.proUrl,
      historyUrl: closed.historyUrl,
      bulkUrl: closed.bulkUrl,
      apiKey: CANARY,
      transport: { sleep: () => Promise.resolve(), onExchange: (exchange) => logger.debug({ exchange }) },
    });
    await attempt(() => unreachable.current.byCoords(BERLIN));
    await attempt(() => unreachable.bulk.snapshot('weather_14.json.gz').next());

    expect(errors.length).toBeGreaterThanOrEqual(15);
    expect(new Set(errors.map((e) => (e as Error).name))).toEqual(
      new Set([
        'WeatherInvalidKeyError',
        'WeatherNotFoundError',
        'WeatherBadRequestError',
        'WeatherForbiddenError',
        'RateLimitError',
        'HttpError',
        'ResponseValidationError',
        'NetworkError',
        'TimeoutError',
      ]),
    );
    const texts = [
      ...lines,
      ...errors.flatMap((error) => {
        const e = error as Error;
        const cause =
          e.cause instanceof Error ? `${e.cause.message}\n${e.cause.stack ?? ''}` : JSON.stringify(e.cause);
        return [String(e), e.message, e.stack ?? '', JSON.stringify(e), cause ?? ''];
      }),
    ];
    for (const text of texts) {
      expect(text).not.toContain(CANARY);
      expect(text).not.toContain(WRONG_CANARY);
      expect(text).not.toContain(FREE_CANARY);
    }
    // Not vacuous: the URLs were logged, with the key's place marked.
    expect(lines.join('\n')).toContain('appid=[REDACTED]');
    expect(lines.filter((l) => l.includes('weather exchange')).length).toBeGreaterThan(10);

    await Promise.all([client.close(), stranger.close(), free.close(), slow.close(), unreachable.close()]);
  });
});
