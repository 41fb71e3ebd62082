/**
 * The bot used in a member's direct messages with it: the commands are registered globally for
 * servers and the bot's DMs, and each answers there, in the DM, without a server. What belongs to a
 * server (scheduled posts, the server's default place) says so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completeLink } from '../../emulators/music/walk.js';
import { registerCommands } from '../../src/bot/register.js';
import { commands } from '../../src/commands/index.js';
import { linkButtonUrl, startBotWorld, TEST_BOT_TOKEN, type BotWorld } from '../helpers/bot.js';

const BERLIN = 'geo:52.517,13.3889|Berlin, Berlin, DE';

describe('the bot in a member’s DMs', () => {
  let world: BotWorld;
  beforeAll(async () => {
    world = await startBotWorld({ music: true, weather: true });
    // As `npm run register` does without DISCORD_GUILD_ID: guild commands are never offered in DMs.
    await registerCommands({
      token: TEST_BOT_TOKEN,
      applicationId: world.discord.applicationId,
      apiUrl: world.discord.restUrl,
      commands,
    });
  });
  afterAll(async () => {
    await world?.close();
  });

  const dm = (
    name: string,
    options: { subcommandGroup?: string; subcommand?: string; options?: Record<string, string> } = {},
  ) => world.discord.slash({ dm: true, userId: world.alice.id, name, ...options });

  it('registers every command for servers and the bot’s DMs, as an app installed to servers', () => {
    const registered = world.discord.commands();
    expect(registered.map((command) => command.name).sort()).toEqual(['help', 'music', 'weather']);
    for (const command of registered) {
      expect(command.contexts).toEqual([0, 1]);
      expect(command.integration_types).toEqual([0]);
    }
  });

  it('answers /help and /weather now in the DM', async () => {
    const help = await dm('help').reply();
    expect(help.channel_id).toBe(world.discord.dmChannel(world.alice.id).id);
    expect(JSON.stringify(help.embeds[0])).toContain('/weather now');
    const now = await dm('weather', { subcommand: 'now', options: { place: BERLIN } }).reply();
    expect(now.embeds[0]?.title).toContain('Berlin');
  });

  it('keeps a home place set in the DM, and uses it there', async () => {
    const saved = await dm('weather', {
      subcommandGroup: 'home',
      subcommand: 'set',
      options: { place: BERLIN },
    }).reply();
    expect(saved.content ?? '').not.toMatch(/only in a server|went wrong/i);
    const now = await dm('weather', { subcommand: 'now' }).reply();
    expect(now.embeds[0]?.title).toContain('Berlin');
  });

  it('says that scheduled posts and the server’s place belong to a server, privately', async () => {
    const add = await dm('weather', {
      subcommandGroup: 'schedule',
      subcommand: 'add',
      options: { place: BERLIN, time: '07:00', timezone: 'Europe/Berlin' },
    }).reply();
    expect(add.content).toBe('Scheduled posts belong to a server: use this command in one.');
    expect(add.flags! & 64).toBe(64);
    const list = await dm('weather', { subcommandGroup: 'schedule', subcommand: 'list' }).reply();
    expect(list.content).toBe('Scheduled posts belong to a server: use this command in one.');
    const server = await dm('weather', {
      subcommandGroup: 'home',
      subcommand: 'server',
      options: { place: BERLIN },
    }).reply();
    expect(server.content).toBe('This works only in a server.');
  });

  it('offers nothing to complete for a scheduled post in the DM, where it cannot be made', async () => {
    const zones = await world.discord.autocomplete({
      dm: true,
      userId: world.alice.id,
      name: 'weather',
      subcommandGroup: 'schedule',
      subcommand: 'add',
      options: { place: BERLIN, time: '07:00', timezone: 'Europe/Ber' },
      focused: 'timezone',
    });
    expect(zones).toEqual([]);
    const places = await world.discord.autocomplete({
      dm: true,
      userId: world.alice.id,
      name: 'weather',
      subcommand: 'now',
      options: { place: 'Berlin' },
      focused: 'place',
    });
    expect(places.length).toBeGreaterThan(0);
  });

  it('links a music account from the DM, and shows it there', async () => {
    const handle = dm('music', { subcommand: 'link' });
    const prompt = await handle.reply();
    expect(prompt.embeds[0]?.title).toBe('Link your music account');
    const musicUser = world.music!.fixtures!.users.premium;
    const page = await completeLink(world.music!, linkButtonUrl(prompt), musicUser);
    expect(page.body).toContain('You can close this tab and go back to Discord.');
    expect((await handle.waitForEdit()).embeds[0]?.title).toBe('Music account linked');
    const status = await dm('music', { subcommand: 'status' }).reply();
    expect(status.embeds[0]?.fields?.find((field) => field.name === 'Linked as')?.value).toContain(musicUser);
  });
});
