import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBotWorld, type BotWorld } from '../helpers/bot.js';

const BERLIN = 'geo:52.517,13.3889|Berlin, Berlin, DE';

describe('/weather problems, answered privately', () => {
  let world: BotWorld;
  beforeAll(async () => {
    world = await startBotWorld({ weather: true });
  });
  afterAll(async () => {
    await world?.close();
  });

  it('says the key is refused, not the plan, when current weather refuses it too', async () => {
    // A wrong or not yet active key gets the same 401 from a paid product as a plan without it.
    world.weather!.failNext('/data/2.5/forecast/hourly', 401);
    world.weather!.failNext('/data/2.5/weather', 401);
    const message = await world
      .slash('weather', {
        subcommand: 'hourly',
        options: { place: 'geo:53.5511,9.9937|Hamburg, Hamburg, DE' },
      })
      .waitForFollowUp();
    expect(message.flags! & 64).toBe(64);
    expect(message.content).toContain('The weather service does not accept this bot’s key.');
    expect(message.content).not.toContain('plan');
    // The owner's to fix: a warning in the log (whose default level hides debug lines).
    const warned = world.logs
      .join('')
      .split('\n')
      .filter((line) => line.includes('the weather service refuses the key'))
      .map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(warned.map((line) => line.level)).toEqual([40]);
    // A new key is refused until the service has activated it, which can take hours.
    expect(warned[0]!.msg).toMatch(/WEATHER_API_KEY.*new key can take a few hours/);
  });

  it('says the bot’s plan lacks a paid product when its host refuses the key', async () => {
    world.weather!.failNext('/data/2.5/history/city', 403);
    const german = await world
      .slash('weather', { subcommand: 'history', options: { place: BERLIN }, userId: world.bob.id })
      .waitForFollowUp();
    expect(german.content).toContain('Der Wettertarif dieses Bots umfasst historische Daten nicht.');
  });

  it('says the service does not accept the bot’s key when looking up a typed place is refused', async () => {
    world.weather!.failNext('/geo/1.0/direct', 401);
    const message = await world
      .slash('weather', { subcommand: 'now', options: { place: 'Hamburg' } })
      .waitForFollowUp();
    expect(message.flags! & 64).toBe(64);
    expect(message.content).toContain('The weather service does not accept this bot’s key.');
  });

  it('says the service has no data when it answers 404 for history, statistics or totals', async () => {
    const errorsLogged = () => world.logs.filter((chunk) => chunk.includes('"level":50')).length;
    const logged = errorsLogged();
    world.weather!.failNext('/data/2.5/history/city', 404);
    const history = await world
      .slash('weather', {
        subcommand: 'history',
        options: { place: 'geo:40.4168,-3.7038|Madrid, ES', start: '2025-01-01' },
      })
      .waitForFollowUp();
    expect(history.flags! & 64).toBe(64);
    expect(history.content).toBe(
      'The weather service has no data for this place and period. Try another place or another period.',
    );

    world.weather!.failNext('/data/2.5/aggregated/year', 404);
    const stats = await world
      .slash('weather', {
        subcommand: 'stats',
        options: { place: 'geo:41.9028,12.4964|Rome, IT', month: 3, day: 1 },
        userId: world.bob.id,
      })
      .waitForFollowUp();
    expect(stats.content).toBe(
      'Der Wetterdienst hat für diesen Ort und Zeitraum keine Daten. Versuche einen anderen Ort oder einen anderen Zeitraum.',
    );

    world.weather!.failNext('/data/2.5/history/accumulated_temperature', 404);
    const totals = await world
      .slash('weather', {
        subcommand: 'accumulated',
        options: { place: 'geo:59.3293,18.0686|Stockholm, SE', start: '2025-01-01', end: '2025-01-31' },
      })
      .waitForFollowUp();
    expect(totals.content).toContain('no data for this place and period');
    // An answer about the data, not a fault of the bot: nothing logged as an error.
    expect(errorsLogged()).toBe(logged);
  });

  it('says when the service is rate limited and when to try again', async () => {
    world.weather!.setRateLimit({ count: 1, retryAfterSeconds: 120 });
    const message = await world
      .slash('weather', { subcommand: 'now', options: { place: 'geo:48.1371,11.5754|Munich, Bavaria, DE' } })
      .waitForFollowUp();
    expect(message.flags! & 64).toBe(64);
    expect(message.content).toContain('too many requests');
    expect(message.content).toContain('in 2 minutes');
    // The owner reads it in the log too, once however many members meet it.
    const again = await world
      .slash('weather', { subcommand: 'now', options: { place: 'geo:48.1371,11.5754|Munich, Bavaria, DE' } })
      .waitForFollowUp();
    expect(again.content).toContain('too many requests');
    const warned = world.logs
      .join('')
      .split('\n')
      .filter((line) => line.includes('limiting this bot’s requests'))
      .map((line) => JSON.parse(line) as { level: number; guildId?: string });
    // The repeat at debug, below the level an owner's log shows by default (info).
    expect(warned.map((line) => [line.level, line.guildId])).toEqual([
      [40, world.guildId],
      [20, world.guildId],
    ]);
  });

  it('refuses unreadable dates and impossible ranges before asking the service', async () => {
    const before = world.weather!.requestCount();
    const unreadable = await world
      .slash('weather', { subcommand: 'history', options: { place: BERLIN, start: 'last tuesday' } })
      .reply();
    expect(unreadable.flags! & 64).toBe(64);
    expect(unreadable.content).toContain('“last tuesday” is not a date I can read for `start`');

    const noSuchDay = await world
      .slash('weather', { subcommand: 'stats', options: { place: BERLIN, month: 2, day: 30 } })
      .reply();
    expect(noSuchDay.content).toBe('There is no 30 February.');

    const backwards = await world
      .slash('weather', {
        subcommand: 'accumulated',
        options: { place: BERLIN, start: '2025-06-01', end: '2025-05-01' },
      })
      .reply();
    expect(backwards.content).toBe('The end comes before the start.');

    const tooLong = await world
      .slash('weather', {
        subcommand: 'accumulated',
        options: { place: BERLIN, start: '2023-01-01', end: '2025-01-01' },
      })
      .reply();
    expect(tooLong.content).toContain('at most 366 days');

    const future = await world
      .slash('weather', { subcommand: 'accumulated', options: { place: BERLIN, start: '2999-01-01' } })
      .reply();
    expect(future.content).toContain('in the future');
    expect(world.weather!.requestCount()).toBe(before);
  });

  it('refuses dates before the weather service’s records begin, in the member’s language', async () => {
    const before = world.weather!.requestCount();
    const history = await world
      .slash('weather', { subcommand: 'history', options: { place: BERLIN, start: '1900-01-01' } })
      .reply();
    expect(history.flags! & 64).toBe(64);
    expect(history.content).toBe(
      '“1900-01-01” is before the weather service’s records begin (1970-01-01): pick a later `start`.',
    );
    // A date, though no year the calendar of `Date.UTC` reads as such.
    const yearOne = await world
      .slash('weather', { subcommand: 'history', options: { place: BERLIN, end: '0001-01-01' } })
      .reply();
    expect(yearOne.content).toBe(
      '“0001-01-01” is before the weather service’s records begin (1970-01-01): pick a later `end`.',
    );
    const german = await world
      .slash('weather', {
        subcommand: 'accumulated',
        options: { place: BERLIN, start: '31.12.1969' },
        userId: world.bob.id,
      })
      .reply();
    expect(german.content).toBe(
      '„31.12.1969“ liegt vor dem Beginn der Aufzeichnungen des Wetterdienstes (01.01.1970): Wähle für `beginn` ein späteres Datum.',
    );
    expect(world.weather!.requestCount()).toBe(before);
  });

  it('refuses more than a week of history once the place’s time zone is known', async () => {
    const historyCalls = world.weather!.requestCount({ path: '/data/2.5/history/city' });
    const message = await world
      .slash('weather', {
        subcommand: 'history',
        options: { place: BERLIN, start: '2025-01-01', end: '2025-01-10' },
      })
      .waitForFollowUp();
    expect(message.flags! & 64).toBe(64);
    expect(message.content).toBe(
      'That is too long: history covers at most a week at a time ' +
        '(168 hours, as from 00:00 on a Monday to 23:00 on the Sunday).',
    );
    expect(world.weather!.requestCount({ path: '/data/2.5/history/city' })).toBe(historyCalls);
  });
});
