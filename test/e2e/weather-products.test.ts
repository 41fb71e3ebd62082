import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { APIEmbed } from 'discord-api-types/v10';
import { startBotWorld, type BotWorld } from '../helpers/bot.js';

const BERLIN = 'geo:52.517,13.3889|Berlin, Berlin, DE';

/** Width and height from a PNG's IHDR chunk, after checking the signature. */
function pngSize(data: Buffer): { width: number; height: number } {
  expect(data.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  expect(data.subarray(12, 16).toString('ascii')).toBe('IHDR');
  return { width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
}

/**
 * The chart an embed shows, fetched from where the Discord emulator serves it. Discord lists a file
 * an embed uses in the embed (`attachment://name` becomes the file's url), not in `attachments`.
 */
async function chartOf(embed: APIEmbed | undefined, name: string): Promise<Buffer> {
  const url = embed?.image?.url ?? 'missing:';
  expect(new URL(url).pathname).toMatch(/^\/attachments\/\d+\/\d+\/[^/]+$/);
  expect(url.endsWith(`/${name}`)).toBe(true);
  const response = await fetch(url);
  expect(response.headers.get('content-type')).toBe('image/png');
  return Buffer.from(await response.arrayBuffer());
}

function fields(embed: APIEmbed | undefined): Record<string, string> {
  return Object.fromEntries((embed?.fields ?? []).map((field) => [field.name, field.value]));
}

describe('/weather products end to end', () => {
  let world: BotWorld;
  beforeAll(async () => {
    world = await startBotWorld({ weather: true });
  });
  afterAll(async () => {
    await world?.close();
  });

  it('shows current conditions with icon, wind, humidity, pressure, visibility and local time', async () => {
    const reply = await world.slash('weather', { subcommand: 'now', options: { place: BERLIN } }).reply();
    const embed = reply.embeds[0];
    expect(embed?.title).toBe('Berlin, Berlin, DE');
    expect(embed?.thumbnail?.url).toMatch(/\/img\/wn\/\d\d[dn]@2x\.png$/);
    const values = fields(embed);
    expect(values['Temperature']).toMatch(/°F$/);
    expect(values['Feels like']).toMatch(/°F$/);
    expect(values['Wind']).toMatch(/mph|calm/);
    expect(values['Humidity']).toMatch(/%$/);
    expect(values['Pressure']).toMatch(/^\d+\.\d\d\sinHg$/);
    expect(values['Visibility']).toMatch(/mi$/);
    // The offset itself depends on the season: see the fixed clocks below.
    expect(values['As of (local time)']).toMatch(/^\w{3} \d\d:\d\d \(UTC\+[12]\)$/);
    expect(reply.flags ?? 0).not.toBe(64);
  });

  it('charts 96 hours as an 800x400 PNG within Discord limits', async () => {
    const reply = await world
      .slash('weather', { subcommand: 'hourly', options: { place: BERLIN, hours: 96 } })
      .reply(15_000);
    const embed = reply.embeds[0];
    expect(embed?.title).toBe('Berlin, Berlin, DE: next 96 hours');
    expect(pngSize(await chartOf(embed, 'hourly.png'))).toEqual({ width: 800, height: 400 });
    expect(embed?.image).toMatchObject({ width: 800, height: 400 });
    expect(world.weather!.requests({ path: '/data/2.5/forecast/hourly' }).at(-1)?.query['cnt']).toBe('96');
  });

  it('forecasts 16 days, one field a day, with a chart', async () => {
    const reply = await world
      .slash('weather', { subcommand: 'daily', options: { place: BERLIN, days: 16 } })
      .reply(15_000);
    const embed = reply.embeds[0];
    expect(embed?.fields).toHaveLength(16);
    expect(embed?.fields?.[0]?.value).toMatch(/↑ -?[\d,.]+\s°F · ↓ -?[\d,.]+\s°F/);
    expect(pngSize(await chartOf(embed, 'daily.png'))).toEqual({ width: 800, height: 400 });
  });

  it('shows the past 24 hours with a chart', async () => {
    const reply = await world
      .slash('weather', { subcommand: 'history', options: { place: BERLIN } })
      .reply(15_000);
    const embed = reply.embeds[0];
    expect(embed?.title).toMatch(/^Berlin, Berlin, DE: 24 hours of history$/);
    expect(fields(embed)['Precipitation, total']).toMatch(/^(<\s)?[\d.]+\sin$/);
    expect(pngSize(await chartOf(embed, 'history.png'))).toEqual({ width: 800, height: 400 });
  });

  it('shows the yearly statistics of a calendar day, converted from Kelvin', async () => {
    const reply = await world
      .slash('weather', { subcommand: 'stats', options: { place: BERLIN, month: 7, day: 20 } })
      .reply(15_000);
    const embed = reply.embeds[0];
    expect(embed?.title).toBe('Berlin, Berlin, DE: the climate on July 20');
    const values = fields(embed);
    expect(values['Records']).toMatch(/^lowest [\d.]+\s°F, highest [\d.]+\s°F$/);
    expect(values['Middle half (25th–75th percentile)']).toMatch(/°F – [\d.]+\s°F$/);
  });

  it('sums warmth and precipitation between two dates and says what they mean', async () => {
    const reply = await world
      .slash('weather', {
        subcommand: 'accumulated',
        options: { place: BERLIN, start: '2025-04-01', end: '2025-06-30' },
      })
      .reply();
    const embed = reply.embeds[0];
    expect(embed?.description).toContain('growing degree days');
    const values = fields(embed);
    expect(values['Period']).toContain('(91 days)');
    expect(values['Warmth above 50\u00a0°F']).toMatch(/°F·d over \d+ days/);
    expect(values['Precipitation']).toMatch(/^(<\s)?[\d.]+\sin over 91 days$/);
  });
});

/**
 * The service gives Berlin's offset of the moment (UTC+1 in winter, UTC+2 in summer): with its clock
 * fixed in each season, what the bot shows and asks for must not depend on when the tests run.
 */
describe.each([
  { season: 'winter', now: Date.UTC(2026, 0, 15, 12), localTime: 'Thu 13:00 (UTC+1)' },
  { season: 'summer', now: Date.UTC(2026, 6, 15, 12), localTime: 'Wed 14:00 (UTC+2)' },
])('/weather in Berlin with the service’s clock in $season', ({ now, localTime }) => {
  let world: BotWorld;
  beforeAll(async () => {
    world = await startBotWorld({ weather: { now: () => now } });
  });
  afterAll(async () => {
    await world?.close();
  });

  const history = async (options: Record<string, string | number>) => {
    const reply = await world
      .slash('weather', { subcommand: 'history', options: { place: BERLIN, ...options } })
      .reply(15_000);
    return { reply, query: world.weather!.requests({ path: '/data/2.5/history/city' }).at(-1)?.query };
  };

  it('shows when the service worked the weather out, in local time with the offset of that moment', async () => {
    const reply = await world.slash('weather', { subcommand: 'now', options: { place: BERLIN } }).reply();
    expect(fields(reply.embeds[0])['As of (local time)']).toBe(localTime);
  });

  it('reads a typed January range in winter time (UTC+1)', async () => {
    const { reply, query } = await history({ start: '2025-01-10 00:00', hours: 12 });
    expect(reply.embeds[0]?.title).toBe('Berlin, Berlin, DE: 12 hours of history');
    expect(reply.embeds[0]?.description).toBe('From Fri, Jan 10, 2025 00:00 to 11:00 (UTC+1), local time.');
    expect(query).toMatchObject({
      start: String(Date.UTC(2025, 0, 9, 23) / 1000),
      end: String(Date.UTC(2025, 0, 10, 10) / 1000),
    });
  });

  it('reads a typed July range in summer time (UTC+2)', async () => {
    const { reply, query } = await history({ start: '2025-07-10 00:00', hours: 12 });
    expect(reply.embeds[0]?.description).toBe('From Thu, Jul 10, 2025 00:00 to 11:00 (UTC+2), local time.');
    expect(query).toMatchObject({
      start: String(Date.UTC(2025, 6, 9, 22) / 1000),
      end: String(Date.UTC(2025, 6, 10, 9) / 1000),
    });
  });

  it('reads a range across the spring change with the offset of each end, and says both', async () => {
    const { reply, query } = await history({ start: '2025-03-30 00:00', end: '2025-03-30 06:00' });
    expect(reply.embeds[0]?.title).toBe('Berlin, Berlin, DE: 6 hours of history');
    expect(reply.embeds[0]?.description).toBe(
      'From Sun, Mar 30, 2025 00:00 (UTC+1) to 06:00 (UTC+2), local time.',
    );
    expect(query).toMatchObject({
      start: String(Date.UTC(2025, 2, 29, 23) / 1000),
      end: String(Date.UTC(2025, 2, 30, 4) / 1000),
    });
  });
});
