/**
 * Interactions the bot cannot serve as Discord sends them: a button it cannot read, a subcommand it
 * no longer has, and a command whose registered options are not those this version declares (left
 * registered by another version). Each is answered privately, in the member's language, and none
 * reads as an error on the bot's side.
 */
import { MessageFlags } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBotWorld, TEST_BOT_TOKEN, type BotWorld } from '../helpers/bot.js';

interface RegisteredOption {
  type: number;
  name: string;
  options?: RegisteredOption[];
  [key: string]: unknown;
}

describe('interactions registered or sent by another version of the bot', () => {
  let world: BotWorld;
  beforeAll(async () => {
    // A late answer is not refused here, so the test sees when it comes rather than a failure.
    world = await startBotWorld({ weather: true, discord: { interactionDeadlineMs: 10_000 } });
  });
  afterAll(async () => {
    await world?.close();
  });

  const api = (path: string, init: { method?: string; body?: unknown } = {}) =>
    fetch(`${world.discord.restUrl}/v10${path}`, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bot ${TEST_BOT_TOKEN}`, 'content-type': 'application/json' },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });

  it('says a button it cannot read is not valid any more, in German for a German member', async () => {
    // A bot message carrying a button of a shape no version made (a forged or truncated id).
    const posted = await api(`/channels/${world.channelId}/messages`, {
      method: 'POST',
      body: {
        content: 'list',
        components: [
          { type: 1, components: [{ type: 2, style: 1, label: 'Next', custom_id: 'wslist:!!:sideways' }] },
        ],
      },
    });
    expect(posted.ok).toBe(true);
    const { id: messageId } = (await posted.json()) as { id: string };
    const click = (locale: 'de' | 'en-US') =>
      world.discord
        .clickButton({
          channelId: world.channelId,
          message: { id: messageId },
          customId: 'wslist:!!:sideways',
          userId: world.alice.id,
          locale,
        })
        .reply();
    const german = await click('de');
    expect(german.content).toBe('Dieser Knopf gilt nicht mehr. Führe den Befehl noch einmal aus.');
    expect(german.flags! & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    expect((await click('en-US')).content).toBe('This button is not valid any more. Run the command again.');
  });

  it('offers no suggestions when what an autocomplete reads does not answer, rather than none at all', async () => {
    const prefs = world.app.storage.ns('prefs');
    const get = prefs.get.bind(prefs);
    // Storage that stalls (a Redis that stopped answering): the saved places are never read.
    prefs.get = (() => new Promise(() => {})) as typeof prefs.get;
    const logged = world.logs.length;
    try {
      const choices = await world.discord.autocomplete({
        guildId: world.guildId,
        channelId: world.channelId,
        userId: world.alice.id,
        name: 'weather',
        subcommand: 'now',
        options: { place: '' },
        focused: 'place',
      });
      // Answered at all: the stalled read never ends, so only the router's budget answers.
      expect(choices).toEqual([]);
    } finally {
      prefs.get = get;
    }
    const since = world.logs.slice(logged).join('\n');
    expect(since).toContain('autocomplete took too long for Discord');
    expect(since).not.toContain('interaction failed');
  });

  it('says a subcommand it no longer has is not known, and a command whose options changed that it changed', async () => {
    const path = `/applications/${world.discord.applicationId}/guilds/${world.guildId}/commands`;
    const registered = (await (await api(path)).json()) as { name: string; options?: RegisteredOption[] }[];
    const weather = registered.find((command) => command.name === 'weather')!;
    // As an older version might have registered it: `place` of /weather now as a number, and a
    // subcommand this version does not have.
    const changed = {
      ...weather,
      options: [
        ...(weather.options ?? []).map((option) =>
          option.name === 'now'
            ? {
                ...option,
                options: (option.options ?? []).map((inner) =>
                  inner.name === 'place' ? { type: 4, name: 'place', description: 'Place number' } : inner,
                ),
              }
            : option,
        ),
        { type: 1, name: 'radar', description: 'Rain radar' },
      ],
    };
    const put = await api(path, {
      method: 'PUT',
      body: registered.map((command) => (command.name === 'weather' ? changed : command)),
    });
    expect(put.ok).toBe(true);

    const gone = await world.slash('weather', { subcommand: 'radar', locale: 'de' }).reply();
    expect(gone.content).toBe(
      'Diesen Befehl kennt der Bot nicht mehr. Vielleicht wurde er entfernt. Tippe / oder führe /help aus, ' +
        'um die aktuellen Befehle zu sehen.',
    );
    expect(gone.flags! & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);

    const logged = world.logs.length;
    const typed = await world
      .slash('weather', { subcommand: 'now', options: { place: 5 }, locale: 'en-US' })
      .reply();
    expect(typed.content).toBe(
      'This command has changed since Discord was last told about it. Try again in a minute; if it ' +
        'keeps happening, tell the bot’s owner (its commands need registering again).',
    );
    expect(typed.flags! & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    // The owner reads what to do; nothing is reported as the bot's own failure.
    const since = world.logs.slice(logged).join('\n');
    expect(since).toContain('run `npm run register`');
    expect(since).not.toContain('interaction failed');
  });
});
