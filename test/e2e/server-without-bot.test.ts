import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerCommands } from '../../src/bot/register.js';
import { commands } from '../../src/commands/index.js';
import { encodePlace } from '../../src/domain/weather/places.js';
import { startBotWorld, TEST_BOT_TOKEN, type BotWorld } from '../helpers/bot.js';

const BERLIN = encodePlace({ lat: 52.52, lon: 13.405, label: 'Berlin, DE' });
const EPHEMERAL = 64;

/**
 * A server the app was added to without its bot (the invite's `applications.commands` scope alone,
 * an easy slip in the Developer Portal's install settings): its members can run the commands, which
 * are answered through the interaction, but the bot is no member, so it cannot post in a channel.
 */
describe('a server the app was added to without its bot', () => {
  let world: BotWorld;
  let guildId: string;
  let channelId: string;

  beforeAll(async () => {
    world = await startBotWorld({ weather: true });
    const guild = world.discord.createGuild({
      name: 'Commands only',
      ownerId: world.alice.id,
      botMember: false,
    });
    guildId = guild.id;
    channelId = world.discord.createChannel(guild.id, { name: 'weather' }).id;
    await registerCommands({
      token: TEST_BOT_TOKEN,
      applicationId: world.discord.applicationId,
      guildId,
      apiUrl: world.discord.restUrl,
      commands,
    });
  });
  afterAll(async () => {
    await world?.close();
  });

  const run = (options: Parameters<BotWorld['slash']>[1] & { name?: string }, locale?: 'de') =>
    world.discord
      .slash({
        guildId,
        channelId,
        userId: world.alice.id,
        name: options?.name ?? 'weather',
        ...options,
        ...(locale ? { locale } : {}),
      })
      .reply();
  const schedule = (subcommand: string, options: Record<string, string>, locale?: 'de') =>
    run({ subcommandGroup: 'schedule', subcommand, options }, locale);

  it('answers the commands that need no post of its own', async () => {
    const help = await run({ name: 'help' });
    expect(JSON.stringify(help.embeds[0])).toContain('/weather now');
    const now = await run({ subcommand: 'now', options: { place: BERLIN } });
    expect(now.embeds[0]?.title).toContain('Berlin');
  });

  it('refuses to schedule posts there, privately, with the link that adds the bot to this server, and stores nothing', async () => {
    const add = await schedule('add', { place: BERLIN, time: '07:00', timezone: 'Europe/Berlin' });
    expect(add.flags! & EPHEMERAL).toBe(EPHEMERAL);
    expect(add.content).toMatch(/^I cannot post on this server: I am not a member of it\./);
    const link = /\[this link\]\(<([^>]+)>\)/.exec(add.content ?? '')?.[1];
    const invite = new URL(link ?? 'about:blank');
    expect(`${invite.origin}${invite.pathname}`).toBe('https://discord.com/oauth2/authorize');
    expect(Object.fromEntries(invite.searchParams)).toEqual({
      client_id: world.discord.applicationId,
      scope: 'bot applications.commands',
      permissions: '52224',
      guild_id: guildId,
      disable_guild_select: 'true',
    });
    const list = await schedule('list', {});
    expect(JSON.stringify(list)).not.toContain('07:00');
    const test = await schedule('test', { id: 'anything' });
    expect(test.content).toMatch(/^I cannot post on this server/);
    const german = await schedule('add', { place: BERLIN, time: '07:00' }, 'de');
    expect(german.content).toMatch(/^Ich kann auf diesem Server nicht posten: Ich bin kein Mitglied\./);
  });

  it('schedules posts once the bot is added, and the first goes out; removed, its schedules are paused and not resumed', async () => {
    world.discord.addBot(guildId);
    await expect.poll(() => world.app.client.guilds.cache.has(guildId)).toBe(true);
    const add = await schedule('add', { place: BERLIN, time: '07:00', timezone: 'Europe/Berlin' });
    expect(add.embeds[0]?.title).toBe('Scheduled weather post saved');
    const id = /`([^`]+)`/.exec(add.embeds[0]?.description ?? '')?.[1];
    expect(id).toBeTruthy();
    const test = await schedule('test', { id: id! });
    expect(test.content).toBe(`Posted it in <#${channelId}>.`);
    const posted = world.discord.messages(channelId).at(-1);
    expect(posted?.interaction_metadata).toBeUndefined();
    expect(posted?.embeds[0]?.footer?.text).toContain(`Scheduled post ${id}`);

    // A second one, paused by a member: a pause of their own is kept as it is.
    const second = await schedule('add', { place: BERLIN, time: '09:00', timezone: 'Europe/Berlin' });
    const secondId = /`([^`]+)`/.exec(second.embeds[0]?.description ?? '')?.[1];
    await schedule('pause', { id: secondId! });

    // Removed from the server: its running schedule is paused at once, saying why, and cannot be
    // resumed there until the bot is back.
    world.discord.removeBot(guildId);
    await expect.poll(() => world.app.client.guilds.cache.has(guildId)).toBe(false);
    const listed = async () => JSON.stringify((await schedule('list', {})).embeds);
    await expect.poll(listed).toContain('paused: the bot was removed from this server');
    const list = await listed();
    expect(list.match(/the bot was removed from this server/g)).toHaveLength(1);
    expect(list).toContain(secondId!);
    const resume = await schedule('resume', { id: id! });
    expect(resume.content).toMatch(/^I cannot post on this server: I am not a member of it\./);
    const german = JSON.stringify((await schedule('list', {}, 'de')).embeds);
    expect(german).toContain('der Bot wurde von diesem Server entfernt');
  });
});
