import type { APIEmbed } from 'discord-api-types/v10';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBotWorld, TEST_WEATHER_KEY, type BotWorld } from '../helpers/bot.js';

const BERLIN = 'geo:52.517,13.3889|Berlin, Berlin, DE';

function fields(embed: APIEmbed | undefined): Record<string, string> {
  return Object.fromEntries((embed?.fields ?? []).map((field) => [field.name, field.value]));
}

describe('/weather in the member’s language and units', () => {
  let world: BotWorld;
  beforeAll(async () => {
    world = await startBotWorld({ weather: true });
    // One instant for the bot and for the direct requests below, so both see the same weather.
    world.weather!.setNow(Date.now());
  });
  afterAll(async () => {
    await world?.close();
  });

  /** What the service says of Berlin now, asked directly. */
  async function berlinDescription(lang: string): Promise<string> {
    const url = new URL(`${world.weather!.apiUrl}/data/2.5/weather`);
    for (const [key, value] of Object.entries({
      lat: '52.52',
      lon: '13.39',
      lang,
      appid: TEST_WEATHER_KEY,
    })) {
      url.searchParams.set(key, value);
    }
    const body = (await (await fetch(url)).json()) as { weather: { description: string }[] };
    return body.weather[0]!.description;
  }

  it('registers German names and descriptions for the command, its subcommands and options', () => {
    const command = world.discord.commands(world.guildId).find((c) => c.name === 'weather');
    expect(command?.name_localizations?.de).toBe('wetter');
    const now = command?.options?.find((option) => option.name === 'now');
    expect(now?.name_localizations?.de).toBe('jetzt');
    expect(now?.description_localizations?.de).toBe('Aktuelles Wetter an einem Ort');
  });

  it('gives en-US Fahrenheit and mph, and German Celsius and m/s, by default', async () => {
    const alice = await world.slash('weather', { subcommand: 'now', options: { place: BERLIN } }).reply();
    expect(fields(alice.embeds[0])['Temperature']).toMatch(/^-?[\d.]+\s°F$/);
    const bob = await world
      .slash('weather', { subcommand: 'now', options: { place: BERLIN }, userId: world.bob.id })
      .reply();
    expect(fields(bob.embeds[0])['Temperatur']).toMatch(/^-?[\d,]+\s°C$/);
    expect(fields(bob.embeds[0])['Wind']).toMatch(/m\/s|windstill/);
  });

  it('follows a saved preference over the language, and the language again on "auto"', async () => {
    const saved = await world.slash('weather', { subcommand: 'units', options: { units: 'metric' } }).reply();
    expect(saved.flags! & 64).toBe(64);
    expect(saved.content).toBe('Your weather replies now use these units: Metric (°C, m/s, mm, hPa).');
    const metric = await world.slash('weather', { subcommand: 'now', options: { place: BERLIN } }).reply();
    expect(fields(metric.embeds[0])['Temperature']).toMatch(/\s°C$/);

    await world
      .slash('weather', { subcommand: 'units', options: { units: 'standard' }, userId: world.bob.id })
      .reply();
    const kelvin = await world
      .slash('weather', { subcommand: 'now', options: { place: BERLIN }, userId: world.bob.id })
      .reply();
    expect(fields(kelvin.embeds[0])['Temperatur']).toMatch(/^[\d,]+\sK$/);

    await world.slash('weather', { subcommand: 'units', options: { units: 'auto' } }).reply();
    const back = await world.slash('weather', { subcommand: 'now', options: { place: BERLIN } }).reply();
    expect(fields(back.embeds[0])['Temperature']).toMatch(/\s°F$/);
  });

  it('answers a German member in German end to end, the condition asked of the service in German', async () => {
    const reply = await world
      .slash('weather', { subcommand: 'now', options: { place: BERLIN }, locale: 'de' })
      .reply();
    const embed = reply.embeds[0]!;
    const german = await berlinDescription('de');
    const english = await berlinDescription('en');
    expect(german).not.toBe(english);
    expect(embed.description?.toLowerCase()).toContain(german.toLowerCase());
    expect(Object.keys(fields(embed))).toEqual(
      expect.arrayContaining([
        'Temperatur',
        'Gefühlt',
        'Luftfeuchtigkeit',
        'Luftdruck',
        'Sichtweite',
        'Stand (Ortszeit)',
      ]),
    );
    expect(embed.footer?.text).toContain('Einheiten:');
    expect(world.weather!.requests({ path: '/data/2.5/weather' }).some((r) => r.query['lang'] === 'de')).toBe(
      true,
    );
  });

  it('writes the German daily forecast in German, asking the service in German', async () => {
    const reply = await world
      .slash('weather', { subcommand: 'daily', options: { place: BERLIN, days: 3 }, userId: world.bob.id })
      .reply(15_000);
    const embed = reply.embeds[0]!;
    expect(embed.title).toBe('Berlin, Berlin, DE: die nächsten 3 Tage');
    expect(embed.fields?.[0]?.value).toMatch(/Tag .* · Nacht /);
    expect(world.weather!.requests({ path: '/data/2.5/forecast/daily' }).at(-1)?.query['lang']).toBe('de');
  });
});
