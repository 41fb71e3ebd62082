/** Dates as members type them for /weather history, accumulated and stats, and what they read back. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBotWorld, type BotWorld } from '../helpers/bot.js';

const BERLIN = 'geo:52.517,13.3889|Berlin, Berlin, DE';

describe('/weather typed dates', () => {
  let world: BotWorld;
  beforeAll(async () => {
    world = await startBotWorld({ weather: true });
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
});
