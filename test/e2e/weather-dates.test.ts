/** Dates as members type them for /weather history, accumulated and stats, and what they read back. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBotWorld, type BotWorld } from '../helpers/bot.js';

const BERLIN = 'geo:52.517,13.3889|Berlin, Berlin, DE';

/** The bot's and the weather service's clock: from 15 November 2026, 12:00 UTC, on. */
const started = Date.now();
const now = () => Date.UTC(2026, 10, 15, 12) + (Date.now() - started);

describe('/weather typed dates', () => {
  let world: BotWorld;
  beforeAll(async () => {
    world = await startBotWorld({ weather: { now }, now });
  });
  afterAll(async () => {
    await world?.close();
  });

  it('reads a time written as schedules take it: 14 Uhr, 2:30 pm', async () => {
    const german = await world
      .slash('weather', {
        subcommand: 'history',
        options: { place: BERLIN, start: '01.03.2025 14 Uhr', hours: 3 },
        userId: world.bob.id,
      })
      .reply(15_000);
    expect(german.embeds[0]?.description).toBe('Von Sa., 1. März 2025 14:00 bis 16:00 (UTC+1), Ortszeit.');
    const english = await world
      .slash('weather', {
        subcommand: 'history',
        options: { place: BERLIN, start: '2025-03-01 2:30 pm', hours: 3 },
      })
      .reply(15_000);
    expect(english.embeds[0]?.description).toBe('From Sat, Mar 1, 2025 14:30 to 17:00 (UTC+1), local time.');
  });

  it('says which day or hour does not exist, where it said it could not read the date', async () => {
    const before = world.weather!.requestCount();
    const answer = async (subcommand: string, options: Record<string, string>, userId = world.alice.id) =>
      world.slash('weather', { subcommand, options: { place: BERLIN, ...options }, userId }).reply();
    const november = await answer('history', { start: '2026-11-31' });
    expect(november.flags! & 64).toBe(64);
    expect(november.content).toBe('There is no 31 November 2026.');
    expect((await answer('accumulated', { start: '2025-02-29' })).content).toBe(
      'There is no 29 February 2025.',
    );
    expect((await answer('history', { end: '31.11.2026' }, world.bob.id)).content).toBe(
      'Den 31.11.2026 gibt es nicht.',
    );
    expect((await answer('history', { start: '2026-03-01 24:00' })).content).toBe(
      'There is no 24:00 in a day: its hours run from 00:00 to 23:59.',
    );
    expect((await answer('history', { start: '01.03.2026 25:00' }, world.bob.id)).content).toBe(
      'Die Uhrzeit 25:00 gibt es nicht: Ein Tag geht von 00:00 bis 23:59.',
    );
    expect(world.weather!.requestCount()).toBe(before);
  });

  it('says the month of today lacks the day when the member gave no month, and writes a day in words', async () => {
    const before = world.weather!.requestCount({ path: '/data/2.5/aggregated/year' });
    // 15 November: the member typed no month.
    const november = await world
      .slash('weather', { subcommand: 'stats', options: { place: BERLIN, day: 31 } })
      .waitForFollowUp();
    expect(november.flags! & 64).toBe(64);
    expect(november.content).toBe('November has no 31st: choose a month with `month`.');
    const german = await world
      .slash('weather', { subcommand: 'stats', options: { place: BERLIN, day: 31 }, userId: world.bob.id })
      .waitForFollowUp();
    expect(german.content).toBe('Der November hat keinen 31.: Wähle einen Monat mit `monat`.');
    const april = await world
      .slash('weather', { subcommand: 'stats', options: { place: BERLIN, month: 4, day: 31 } })
      .reply();
    expect(april.content).toBe('There is no 31 April.');
    expect(world.weather!.requestCount({ path: '/data/2.5/aggregated/year' })).toBe(before);
  });

  it('counts totals up to today when the end asked for is still to come', async () => {
    const period = async (options: Record<string, string>, userId = world.alice.id) => {
      const reply = await world
        .slash('weather', { subcommand: 'accumulated', options: { place: BERLIN, ...options }, userId })
        .reply(15_000);
      return reply.embeds[0]?.fields?.find((field) => ['Period', 'Zeitraum'].includes(field.name))?.value;
    };
    // 15 November 2026: the days up to yesterday are summed, today is not over yet.
    expect(await period({ start: '2026-11-01', end: '2026-12-31' })).toBe(
      'Nov 1, 2026 – Nov 15, 2026 (15 days, 14 of them counted so far)',
    );
    expect(await period({ start: '01.11.2026', end: '16.11.2026' }, world.bob.id)).toBe(
      '1. Nov. 2026 – 15. Nov. 2026 (15 Tage, davon bisher 14 erfasst)',
    );
    const future = await world
      .slash('weather', {
        subcommand: 'accumulated',
        options: { place: BERLIN, start: '2026-12-01', end: '2026-12-31' },
      })
      .reply();
    expect(future.content).toBe('That range lies in the future; history and totals only cover the past.');
  });

  it('shows a Monday-to-Sunday week that holds the autumn clock change, all 169 hours of it', async () => {
    const calls = world.weather!.requestCount({ path: '/data/2.5/history/city' });
    const reply = await world
      .slash('weather', {
        subcommand: 'history',
        options: { place: BERLIN, start: '19.10.2026', end: '25.10.2026' },
      })
      .reply(15_000);
    const embed = reply.embeds[0];
    expect(embed?.title).toBe('Berlin, Berlin, DE: 169 hours of history');
    expect(embed?.description).toBe(
      'From Mon, Oct 19, 2026 00:00 (UTC+2) to Sun, Oct 25, 2026 23:00 (UTC+1), local time.',
    );
    // The service answers at most 168 hours a call.
    expect(world.weather!.requestCount({ path: '/data/2.5/history/city' })).toBe(calls + 2);
  });
});
