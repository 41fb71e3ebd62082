import { PermissionFlagsBits } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { getServerPrefs, saveMemberHome } from '../../src/domain/weather/prefs.js';
import { startBotWorld, type BotWorld } from '../helpers/bot.js';

const WEATHER_PATH = '/data/2.5/weather';

describe('/weather places: autocomplete, typed names, homes', () => {
  let world: BotWorld;
  beforeAll(async () => {
    world = await startBotWorld({ weather: true });
  });
  afterAll(async () => {
    await world?.close();
  });

  const autocomplete = (typed: string, userId = world.alice.id, subcommand = 'now') =>
    world.discord.autocomplete({
      guildId: world.guildId,
      channelId: world.channelId,
      userId,
      name: 'weather',
      subcommand,
      options: { place: typed },
      focused: 'place',
    });

  const lastWeatherQuery = () => world.weather!.requests({ path: WEATHER_PATH }).at(-1)?.query;

  it('tells the Springfields apart by state and gives the weather of the one picked', async () => {
    const choices = await autocomplete('Springfield');
    expect(choices.length).toBeGreaterThan(1);
    expect(choices.length).toBeLessThanOrEqual(25);
    const names = choices.map((choice) => choice.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toContain('Springfield, Missouri, US');
    for (const choice of choices) {
      expect(choice.name.length).toBeLessThanOrEqual(100);
      expect(String(choice.value).length).toBeLessThanOrEqual(100);
    }

    const missouri = choices.find((choice) => choice.name === 'Springfield, Missouri, US')!;
    const reply = await world
      .slash('weather', { subcommand: 'now', options: { place: missouri.value } })
      .reply();
    expect(reply.embeds[0]?.title).toBe('Springfield, Missouri, US');
    expect(lastWeatherQuery()).toMatchObject({ lat: '37.22', lon: '-93.3' });
  });

  it('geocodes a typed name that was not picked from the list (first match)', async () => {
    const reply = await world
      .slash('weather', { subcommand: 'now', options: { place: 'Springfield, IL' } })
      .reply();
    expect(reply.embeds[0]?.title).toBe('Springfield, Illinois, US');
    expect(lastWeatherQuery()).toMatchObject({ lat: '39.8', lon: '-89.64' });
  });

  it('takes typed coordinates as they are, named after the nearest place, or by themselves at sea', async () => {
    const paris = await world
      .slash('weather', { subcommand: 'now', options: { place: '48.8566, 2.3522' } })
      .reply();
    expect(paris.embeds[0]?.title).toMatch(/^Paris\b.*, FR$/);
    expect(lastWeatherQuery()).toMatchObject({ lat: '48.86', lon: '2.35' });
    const atSea = await world
      .slash('weather', { subcommand: 'now', options: { place: '-30.5 -140' } })
      .reply();
    expect(atSea.embeds[0]?.title).toBe('-30.5, -140');
    expect(lastWeatherQuery()).toMatchObject({ lat: '-30.5', lon: '-140' });
    // Named by the coordinates too when naming them fails: they are all the command needs.
    // The first try and its two retries.
    for (let i = 0; i < 3; i++) world.weather!.failNext('/geo/1.0/reverse', 503);
    const unnamed = await world
      .slash('weather', { subcommand: 'now', options: { place: '35.68, 139.69' } })
      .reply();
    expect(unnamed.embeds[0]?.title).toBe('35.68, 139.69');
    expect(
      world
        .weather!.requests({ path: '/geo/1.0/reverse' })
        .map((r) => r.status)
        .slice(-3),
    ).toEqual([503, 503, 503]);
  });

  it('says which coordinates are off the Earth rather than look them up as a name', async () => {
    const geocoded = world.weather!.requestCount({ path: '/geo/1.0/direct' });
    const message = await world
      .slash('weather', { subcommand: 'now', options: { place: '148.85, 2.35' } })
      .waitForFollowUp();
    expect(message.flags! & 64).toBe(64);
    expect(message.content).toMatch(
      /^“148\.85, 2\.35” is no point on Earth: the latitude comes first, from -90 to 90/,
    );
    expect(await autocomplete('95 200')).toEqual([]);
    expect(world.weather!.requestCount({ path: '/geo/1.0/direct' })).toBe(geocoded);
  });

  it('reads coordinates written with hemisphere letters and degree signs, south below zero', async () => {
    const berlin = await world
      .slash('weather', { subcommand: 'now', options: { place: '52.52 N 13.40 E' } })
      .reply();
    expect(berlin.embeds[0]?.title).toBe('Berlin, Berlin, DE');
    expect(lastWeatherQuery()).toMatchObject({ lat: '52.52', lon: '13.4' });

    const choices = await autocomplete('33.9° S 18.4° E');
    expect(choices.map((choice) => choice.name)).toEqual(['Cape Town, Western Cape, ZA']);
    const capeTown = await world
      .slash('weather', { subcommand: 'now', options: { place: '33.9°S, 18.4°E' } })
      .reply();
    expect(capeTown.embeds[0]?.title).toBe('Cape Town, Western Cape, ZA');
    expect(lastWeatherQuery()).toMatchObject({ lat: '-33.9', lon: '18.4' });

    const contradictory = await world
      .slash('weather', { subcommand: 'now', options: { place: '-52 S, 13 E' } })
      .waitForFollowUp();
    expect(contradictory.flags! & 64).toBe(64);
    expect(contradictory.content).toMatch(/^“-52 S, 13 E” is no point on Earth: the latitude comes first/);
    const offEarth = await world
      .slash('weather', { subcommand: 'now', options: { place: '95°N, 13°E' }, locale: 'de' })
      .waitForFollowUp();
    expect(offEarth.content).toMatch(/^„95°N, 13°E“ ist kein Punkt auf der Erde/);
  });

  it('finds a place by its postal code, a US ZIP code when no country follows', async () => {
    const direct = world.weather!.requestCount({ path: '/geo/1.0/direct' });
    const zip = await world.slash('weather', { subcommand: 'now', options: { place: '62701' } }).reply();
    expect(zip.embeds[0]?.title).toBe('Springfield (62701), US');
    expect(world.weather!.requests({ path: '/geo/1.0/zip' }).at(-1)?.query).toMatchObject({ zip: '62701' });

    const choices = await autocomplete('sw1a  1aa, gb');
    expect(choices.map((choice) => choice.name)).toEqual(['London (SW1A 1AA), GB']);
    const london = await world
      .slash('weather', { subcommand: 'now', options: { place: choices[0]!.value } })
      .reply();
    expect(london.embeds[0]?.title).toBe('London (SW1A 1AA), GB');
    expect(lastWeatherQuery()).toMatchObject({ lat: '51.51', lon: '-0.13' });
    // A postal code is never asked for as a name.
    expect(world.weather!.requestCount({ path: '/geo/1.0/direct' })).toBe(direct);
  });

  it('says which country a postal code was looked for in, and how to give another', async () => {
    // 10117 is Berlin's: without a country, the service looks for a US ZIP code.
    const us = await world
      .slash('weather', { subcommand: 'now', options: { place: '10117' } })
      .waitForFollowUp();
    expect(us.flags! & 64).toBe(64);
    expect(us.content).toBe(
      'No US ZIP code “10117” was found. For a postal code in another country, add the country’s two-letter code after a comma, as in `10117, DE`.',
    );
    const fr = await world
      .slash('weather', { subcommand: 'now', options: { place: '10117, fr' } })
      .waitForFollowUp();
    expect(fr.content).toBe('No place with the postal code “10117” was found in FR.');
    const berlin = await world
      .slash('weather', { subcommand: 'now', options: { place: '10117, de' } })
      .reply();
    expect(berlin.embeds[0]?.title).toBe('Berlin (10117), DE');
  });

  it('takes a country code after a postal code without a comma, in autocomplete too', async () => {
    const springfield = await world
      .slash('weather', { subcommand: 'now', options: { place: '62701 US' } })
      .reply();
    expect(springfield.embeds[0]?.title).toBe('Springfield (62701), US');

    const choices = await autocomplete('10117 de');
    expect(choices.map((choice) => choice.name)).toEqual(['Berlin (10117), DE']);
    const berlin = await world
      .slash('weather', { subcommand: 'now', options: { place: '10117 DE' }, locale: 'de' })
      .reply();
    expect(berlin.embeds[0]?.title).toBe('Berlin (10117), DE');

    const nowhere = await world
      .slash('weather', { subcommand: 'now', options: { place: '10117 FR' }, locale: 'de' })
      .waitForFollowUp();
    expect(nowhere.flags! & 64).toBe(64);
    expect(nowhere.content).toBe('Kein Ort mit der Postleitzahl „10117“ in FR gefunden.');
  });

  it('finds a postal code followed by its town, as German addresses are written', async () => {
    const berlin = await world
      .slash('weather', { subcommand: 'now', options: { place: '10117 Berlin' }, locale: 'de' })
      .reply();
    expect(berlin.embeds[0]?.title).toBe('Berlin (10117), DE');
    // Of the eight Springfields, the one with that code: Illinois, not the largest (Missouri).
    const springfield = await world
      .slash('weather', { subcommand: 'now', options: { place: '62701 Springfield' } })
      .reply();
    expect(springfield.embeds[0]?.title).toBe('Springfield (62701), US');

    const choices = await autocomplete('75001 Paris');
    expect(choices.map((choice) => choice.name)).toEqual(['Paris (75001), FR']);
  });

  it('reads a country or US state after a name without a comma', async () => {
    const berlin = await world
      .slash('weather', { subcommand: 'now', options: { place: 'Berlin Germany' } })
      .reply();
    expect(berlin.embeds[0]?.title).toBe('Berlin, Berlin, DE');
    const choices = await autocomplete('Paris Frankreich');
    expect(choices.map((choice) => choice.name)).toEqual(['Paris, Ile-de-France, FR']);
    const illinois = await autocomplete('Springfield il');
    expect(illinois.map((choice) => choice.name)).toEqual(['Springfield, Illinois, US']);
    const portland = await autocomplete('Portland United States');
    expect(portland.map((choice) => choice.name)).toEqual(['Portland, Oregon, US', 'Portland, Maine, US']);
  });

  it('asks for the country of a postal code that cannot be a US ZIP code, without calling it one', async () => {
    const london = await world
      .slash('weather', { subcommand: 'now', options: { place: 'SW1A 1AA' } })
      .waitForFollowUp();
    expect(london.flags! & 64).toBe(64);
    expect(london.content).toBe(
      'No place with the postal code “SW1A 1AA” was found. Add the country’s two-letter code after a comma, as in `10117, DE`.',
    );
    // Vienna's: four digits are no ZIP code either.
    const wien = await world
      .slash('weather', { subcommand: 'now', options: { place: '1010' }, locale: 'de' })
      .waitForFollowUp();
    expect(wien.content).toBe(
      'Kein Ort mit der Postleitzahl „1010“ gefunden. Ergänze nach einem Komma das Länderkürzel, etwa `10117, DE`.',
    );
  });

  it('says privately when no place matches, with the places of that name as suggestions', async () => {
    const handle = world.slash('weather', { subcommand: 'now', options: { place: 'Springfield, Narnia' } });
    const message = await handle.waitForFollowUp();
    expect(message.flags! & 64).toBe(64);
    expect(message.content).toContain('No place called “Springfield, Narnia” was found.');
    expect(message.content).toContain('• Springfield, Missouri, US');
    expect(world.discord.messages(world.channelId).some((m) => m.id === message.id)).toBe(false);
    await vi.waitFor(() => expect(handle.original()).toBeUndefined());
  });

  it('pings no one with what a member typed', async () => {
    const typed = `@everyone <@${world.bob.id}> <@&${world.guildId}>`;
    const message = await world
      .slash('weather', { subcommand: 'now', options: { place: typed } })
      .waitForFollowUp();
    expect(message.content).toContain('@everyone');
    expect(message).toMatchObject({ mention_everyone: false, mentions: [], mention_roles: [] });
  });

  it('offers spelling tips when nothing of the name exists at all', async () => {
    const message = await world
      .slash('weather', { subcommand: 'now', options: { place: 'Atlantis' } })
      .waitForFollowUp();
    expect(message.content).toContain('No place called “Atlantis” was found.');
    expect(message.content).toContain('`Paris, FR`');
  });

  it('answers autocomplete with an empty list when geocoding fails', async () => {
    world.weather!.failNext('/geo/1.0/direct', 500);
    world.weather!.failNext('/geo/1.0/direct', 500);
    world.weather!.failNext('/geo/1.0/direct', 500);
    expect(await autocomplete('Hamburg')).toEqual([]);
  });

  it('asks for a place when none is given and no home is saved', async () => {
    const reply = await world.slash('weather', { subcommand: 'now', userId: world.bob.id }).reply();
    expect(reply.flags! & 64).toBe(64);
    expect(reply.content).toContain('/wetter zuhause festlegen');
  });

  it('shows a typed place value’s label as a place name, never as markdown, a mention or a link', async () => {
    const forged = 'geo:0,0|@everyone **pwn** <@123> [Free nitro](https://evil.example)';
    const now = await world.slash('weather', { subcommand: 'now', options: { place: forged } }).reply();
    expect(now.flags ?? 0).toBe(0);
    expect(now.embeds[0]?.title).toBe('everyone pwn 123 Free nitro (https //evil.example)');
    expect(lastWeatherQuery()).toMatchObject({ lat: '0', lon: '0' });

    const saved = await world
      .slash('weather', { subcommandGroup: 'home', subcommand: 'set', options: { place: forged } })
      .reply();
    expect(saved.content).toContain('**everyone pwn 123 Free nitro (https //evil.example)**');
    await world.slash('weather', { subcommandGroup: 'home', subcommand: 'clear' }).reply();
  });

  it('shows a home saved with markdown in its name (before names were cleaned) as typed', async () => {
    await saveMemberHome(world.app.storage, world.alice.id, {
      lat: 52.52,
      lon: 13.405,
      label: '[Free nitro](https://evil.example) **x**',
    });
    const shown = await world.slash('weather', { subcommandGroup: 'home', subcommand: 'show' }).reply();
    expect(shown.embeds[0]?.fields?.[0]?.value).toBe(
      '\\[Free nitro\\](https\\://evil.example) \\*\\*x\\*\\*',
    );
    expect(shown.embeds[0]?.fields?.find((field) => field.name === 'Your units')?.value).toBe(
      'Imperial (°F, mph, in, inHg) (from your Discord language)',
    );
    await world.slash('weather', { subcommandGroup: 'home', subcommand: 'clear' }).reply();
  });

  it('uses a saved home place when the place is left out, and offers it in an empty autocomplete', async () => {
    const [tokyo] = await autocomplete('Tokyo');
    const saved = await world
      .slash('weather', { subcommandGroup: 'home', subcommand: 'set', options: { place: tokyo!.value } })
      .reply();
    expect(saved.flags! & 64).toBe(64);
    expect(saved.content).toContain('**Tokyo, JP**');

    const reply = await world.slash('weather', { subcommand: 'now' }).reply();
    expect(reply.embeds[0]?.title).toBe('Tokyo, JP');
    expect(await autocomplete('')).toEqual([{ name: 'Tokyo, JP', value: tokyo!.value }]);
    // The first two characters are not geocoded (Discord asks again at each one): the saved places
    // they begin.
    const geocoded = world.weather!.requestCount({ path: '/geo/1.0/direct' });
    expect(await autocomplete('to')).toEqual([{ name: 'Tokyo, JP', value: tokyo!.value }]);
    expect(await autocomplete('Sa')).toEqual([]);
    expect(world.weather!.requestCount({ path: '/geo/1.0/direct' })).toBe(geocoded);

    const shown = await world.slash('weather', { subcommandGroup: 'home', subcommand: 'show' }).reply();
    expect(shown.embeds[0]?.fields?.[0]).toMatchObject({ name: 'Your home place', value: 'Tokyo, JP' });

    const cleared = await world.slash('weather', { subcommandGroup: 'home', subcommand: 'clear' }).reply();
    expect(cleared.content).toBe('Your home place is forgotten.');
    const after = await world.slash('weather', { subcommand: 'now' }).reply();
    expect(after.content).toContain('Which place?');
  });

  it('refuses a place of spaces only where a place is required, rather than take a saved one', async () => {
    const [tokyo] = await autocomplete('Tokyo');
    await world
      .slash('weather', { subcommandGroup: 'home', subcommand: 'set', options: { place: tokyo!.value } })
      .reply();
    const blank = await world
      .slash('weather', { subcommandGroup: 'home', subcommand: 'server', options: { place: '   ' } })
      .reply();
    expect(blank.flags! & 64).toBe(64);
    expect(blank.content).toBe(
      'The place is empty: type a place name, a postal code or coordinates, or pick a suggestion.',
    );
    const leer = await world
      .slash('weather', { subcommandGroup: 'home', subcommand: 'set', options: { place: ' ' }, locale: 'de' })
      .reply();
    expect(leer.content).toBe(
      'Der Ort ist leer: Gib einen Ortsnamen, eine Postleitzahl oder Koordinaten ein, oder wähle einen Vorschlag.',
    );
    // Before, the member's home (Tokyo) became the server's default.
    expect(await getServerPrefs(world.app.storage, world.guildId)).toEqual({});
    await world.slash('weather', { subcommandGroup: 'home', subcommand: 'clear' }).reply();
  });

  it('lets only members who manage the server set its default place, which members without a home get', async () => {
    // Bob is a plain member; Alice owns the server.
    const refused = await world
      .slash('weather', {
        subcommandGroup: 'home',
        subcommand: 'server',
        options: { place: 'Madrid' },
        userId: world.bob.id,
      })
      .reply();
    expect(refused.flags! & 64).toBe(64);
    expect(refused.content).toMatch(/manage this server|diesen Server zu verwalten|Server verwalten/i);

    world.discord.setChannelOverwrite(world.channelId, world.bob.id, 'member', {
      allow: PermissionFlagsBits.ManageGuild,
    });
    const saved = await world
      .slash('weather', {
        subcommandGroup: 'home',
        subcommand: 'server',
        options: { place: 'Madrid' },
        userId: world.bob.id,
        locale: 'en-US',
      })
      .reply();
    expect(saved.content).toContain('**Madrid, Community of Madrid, ES**');

    const bobs = await world.slash('weather', { subcommand: 'now', userId: world.bob.id }).reply();
    expect(bobs.embeds[0]?.title).toBe('Madrid, Community of Madrid, ES');

    const removed = await world
      .slash('weather', { subcommandGroup: 'home', subcommand: 'server-clear' })
      .reply();
    expect(removed.content).toBe('This server’s default place is removed.');
  });

  it('offers a place once when it is both the member’s home and the server’s default', async () => {
    const [madrid] = await autocomplete('Madrid');
    await world
      .slash('weather', { subcommandGroup: 'home', subcommand: 'set', options: { place: madrid!.value } })
      .reply();
    await world
      .slash('weather', { subcommandGroup: 'home', subcommand: 'server', options: { place: madrid!.value } })
      .reply();
    try {
      expect(await autocomplete('')).toEqual([{ name: madrid!.name, value: madrid!.value }]);
    } finally {
      await world.slash('weather', { subcommandGroup: 'home', subcommand: 'clear' }).reply();
      await world.slash('weather', { subcommandGroup: 'home', subcommand: 'server-clear' }).reply();
    }
  });
});
