import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBotWorld, TEST_WEATHER_KEY, type BotWorld } from '../helpers/bot.js';

const BERLIN = 'geo:52.517,13.3889|Berlin, Berlin, DE';

describe('an unexpected error after a public defer', () => {
  let world: BotWorld;
  beforeAll(async () => {
    world = await startBotWorld({ weather: true });
  });
  afterAll(async () => {
    await world?.close();
  });

  it('removes the public "thinking" message and tells the member alone, with a reference in the logs', async () => {
    // Three 500s outlast the transport's retries: an internal error, not one the member can act on.
    for (let i = 0; i < 3; i++) world.weather!.failNext('/data/2.5/weather', 500);
    const handle = world.slash('weather', { subcommand: 'now', options: { place: BERLIN } });
    const message = await handle.waitForFollowUp();
    expect(message.flags! & 64).toBe(64);
    const reference = /reference `([0-9a-f]{6})`/.exec(message.content)?.[1];
    expect(reference).toBeDefined();
    expect(handle.original()).toBeUndefined();
    expect(world.logs.join('\n')).toContain(`"reference":"${reference}"`);
    expect(world.logs.join('\n')).not.toContain(TEST_WEATHER_KEY);
  });
});
