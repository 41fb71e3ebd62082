import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBotWorld, TEST_WEATHER_KEY, type BotWorld } from '../helpers/bot.js';

const BERLIN = 'geo:52.517,13.3889|Berlin, Berlin, DE';
const PARIS = 'geo:48.8566,2.3522|Paris, FR';

/** The weather service's free plan: current weather, the 5-day/3-hour forecast, geocoding. */
describe('/weather on a free weather plan', () => {
  let world: BotWorld;
  beforeAll(async () => {
    world = await startBotWorld({ weather: true });
    world.weather!.setApiKeys([]);
    world.weather!.setFreeApiKeys([TEST_WEATHER_KEY]);
  });
  afterAll(async () => {
    await world?.close();
  });

  it('shows the 5-day forecast’s 3-hour steps for the hourly forecast, and says why', async () => {
    const reply = await world
      .slash('weather', { subcommand: 'hourly', options: { place: BERLIN } })
      .reply(15_000);
    const embed = reply.embeds[0];
    expect(embed?.title).toBe('Berlin, Berlin, DE: next 24 hours');
    expect(embed?.description).toContain(
      '*In 3-hour steps from the 5-day forecast: this bot’s weather plan has no hourly forecast.*',
    );
    // The coming hours: five steps, three hours apart.
    const hours = [...(embed?.fields?.[1]?.value ?? '').matchAll(/`(\d{1,2}):\d{2}[^`]*`/g)].map(([, h]) =>
      Number(h),
    );
    expect(hours).toHaveLength(5);
    for (let i = 1; i < hours.length; i++) expect((hours[i]! - hours[i - 1]! + 24) % 24).toBe(3);
  });

  it('makes up to five days from the 5-day forecast for the daily forecast, and says so', async () => {
    const reply = await world
      .slash('weather', { subcommand: 'daily', options: { place: PARIS, days: 7 } })
      .reply(15_000);
    const embed = reply.embeds[0];
    expect(embed?.description).toBe(
      '*From the 5-day forecast in 3-hour steps: this bot’s weather plan has no daily forecast.*',
    );
    // Five days of 3-hour steps: four or five local days with at least four steps each.
    expect(embed?.fields?.length).toBeGreaterThanOrEqual(4);
    expect(embed?.fields?.length).toBeLessThanOrEqual(5);
    expect(embed?.title).toBe(`Paris, FR: next ${embed?.fields?.length} days`);
    expect(embed?.fields?.[0]?.value).toMatch(/↑ -?[\d,.]+\s°F · ↓ -?[\d,.]+\s°F/);
    expect(embed?.image?.url).toMatch(/\/daily\.png$/);
  });

  it('asks for a product the plan lacks once, not on every command, while it remembers the refusal', async () => {
    const asked = () => world.weather!.requests({ path: '/data/2.5/forecast/daily' }).length;
    const before = asked();
    expect(before).toBe(1);
    await world.slash('weather', { subcommand: 'daily', options: { place: BERLIN } }).reply(15_000);
    expect(asked()).toBe(before);
    expect(world.weather!.requests({ path: '/data/2.5/forecast' }).at(-1)?.status).toBe(200);
  });
});
