import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
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
    // A status the bot has no meaning for: an internal error, not one the member can act on.
    world.weather!.failNext('/data/2.5/weather', 409);
    const handle = world.slash('weather', { subcommand: 'now', options: { place: BERLIN } });
    const message = await handle.waitForFollowUp();
    expect(message.flags! & 64).toBe(64);
    const reference = /reference `([0-9a-f]{6})`/.exec(message.content)?.[1];
    expect(reference).toBeDefined();
    expect(message.content).toBe(
      `Something went wrong on our side, sorry. It has been logged (reference \`${reference}\`). Please try ` +
        'again; if it keeps happening, tell the bot’s owner and quote the reference.',
    );
    await vi.waitFor(() => expect(handle.original()).toBeUndefined());
    expect(world.logs.join('\n')).toContain(`"reference":"${reference}"`);
    expect(world.logs.join('\n')).not.toContain(TEST_WEATHER_KEY);
  });

  it('tells a German member in German, with the same reference in the logs', async () => {
    world.weather!.failNext('/data/2.5/weather', 409);
    const handle = world.slash('weather', {
      subcommand: 'now',
      options: { place: BERLIN },
      userId: world.bob.id,
      locale: 'de',
    });
    const message = await handle.waitForFollowUp();
    expect(message.flags! & 64).toBe(64);
    const reference = /^Auf unserer Seite ist etwas schiefgegangen.*\(Referenz `([0-9a-f]{6})`\)\. /.exec(
      message.content,
    )?.[1];
    expect(reference).toBeDefined();
    expect(message.content).toBe(
      `Auf unserer Seite ist etwas schiefgegangen, tut uns leid. Es wurde protokolliert (Referenz \`${reference}\`). ` +
        'Bitte versuche es noch einmal; wenn es immer wieder passiert, sag es dem Betreiber des Bots und nenne ' +
        'ihm die Referenz.',
    );
    expect(world.logs.join('\n')).toContain(`"reference":"${reference}"`);
  });

  it('says the service is not answering when its 5xx outlast the retries, to the member alone', async () => {
    for (let i = 0; i < 3; i++) world.weather!.failNext('/data/2.5/weather', 503);
    const handle = world.slash('weather', { subcommand: 'now', options: { place: BERLIN } });
    const message = await handle.waitForFollowUp();
    expect(message.flags! & 64).toBe(64);
    expect(message.content).toBe(
      'The weather service is not answering right now. Please try again in a minute.',
    );
    await vi.waitFor(() => expect(handle.original()).toBeUndefined());
  });
});

describe('a bot without the weather service', () => {
  let world: BotWorld;
  beforeAll(async () => {
    world = await startBotWorld({ music: true });
  });
  afterAll(async () => {
    await world?.close();
  });

  it('says the weather commands are switched off, in the member’s language', async () => {
    const english = await world.slash('weather', { subcommand: 'now', options: { place: BERLIN } }).reply();
    expect(english.flags! & 64).toBe(64);
    expect(english.content).toBe(
      'The weather commands are switched off on this bot: its owner has not configured the weather service yet.',
    );
    const german = await world
      .slash('weather', { subcommand: 'now', options: { place: BERLIN }, userId: world.bob.id, locale: 'de' })
      .reply();
    expect(german.flags! & 64).toBe(64);
    expect(german.content).toBe(
      'Die Wetterbefehle sind auf diesem Bot abgeschaltet: Sein Betreiber hat den Wetterdienst noch nicht eingerichtet.',
    );
  });

  it('tells a German member in German that the music service is not answering', async () => {
    const album = `service:album:${world.music!.fixtures!.catalog.longAlbumId}`;
    for (let i = 0; i < 3; i++) world.music!.failNext(/\/v1\/albums\//, 503);
    const handle = world.slash('music', {
      subcommand: 'album',
      options: { album },
      userId: world.bob.id,
      locale: 'de',
    });
    const reply = await handle.waitForFollowUp();
    expect(reply.flags! & 64).toBe(64);
    expect(reply.content).toBe(
      'Der Musikdienst antwortet gerade nicht. Bitte versuche es in einer Minute noch einmal.',
    );
  });
});

describe('the music app’s own credentials refused by the service', () => {
  let world: BotWorld;
  beforeAll(async () => {
    world = await startBotWorld({ music: true, env: { MUSIC_CLIENT_SECRET: 'not-the-app-secret-0001' } });
  });
  afterAll(async () => {
    await world?.close();
  });

  it('tells the member to reach the owner, with no link button, and tells the owner what to check', async () => {
    const album = `service:album:${world.music!.fixtures!.catalog.longAlbumId}`;
    const handle = world.slash('music', { subcommand: 'album', options: { album } });
    const reply = await handle.waitForFollowUp();
    expect(reply.flags! & 64).toBe(64);
    await vi.waitFor(() => expect(handle.original()).toBeUndefined());
    expect(reply.content).toBe(
      'This bot’s music app is not set up right: the music service refuses its credentials. Please tell the bot’s owner.',
    );
    expect(reply.components ?? []).toEqual([]);
    const logged = world.logs.find((line) => line.includes('"level":50') && line.includes(handle.id));
    expect(logged).toContain('check MUSIC_CLIENT_ID and MUSIC_CLIENT_SECRET');
    expect(logged).not.toContain('not-the-app-secret-0001');
    // Every member meets it alike: the owner reads it once a minute, not once a command.
    const again = await world.slash('music', { subcommand: 'album', options: { album } }).waitForFollowUp();
    expect(again.content).toBe(reply.content);
    const told = world.logs
      .join('')
      .split('\n')
      .filter((line) => line.includes('client credentials'))
      .map((line) => (JSON.parse(line) as { level: number }).level);
    // The repeat at debug, below the level an owner's log shows by default (info).
    expect(told).toEqual([50, 20]);
  });
});
