import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBotWorld, TEST_BOT_TOKEN, type BotWorld } from '../helpers/bot.js';

describe('the bot against the Discord emulator', () => {
  let world: BotWorld;
  let readyMs: number;
  beforeAll(async () => {
    const started = performance.now();
    world = await startBotWorld();
    readyMs = performance.now() - started;
  });
  afterAll(async () => {
    await world?.close();
  });

  it('registers its commands in the guild and is ready without waiting out missing guilds', () => {
    // discord.js waits 15 s for a guild whose GUILD_CREATE never comes.
    expect(readyMs).toBeLessThan(15_000);
    expect(world.discord.commands(world.guildId).map((c) => c.name)).toContain('help');
    expect(world.app.client.isReady()).toBe(true);
  });

  it('answers /help with an embed listing every registered command', async () => {
    const reply = await world.slash('help').reply();
    const embed = reply.embeds[0];
    expect(embed?.title).toBe('What I can do');
    const listed = [...new Set((embed?.fields ?? []).map((field) => field.name.split(' ')[0]))];
    expect(listed).toEqual(world.discord.commands(world.guildId).map((c) => `/${c.name}`));
    expect(reply.flags! & 64).toBe(64);
  });

  it('answers a German member’s /help in German, with the command names their picker shows', async () => {
    const reply = await world.slash('help', { userId: world.bob.id }).reply();
    const embed = reply.embeds[0];
    expect(embed?.title).toBe('Was ich kann');
    const listed = [...new Set((embed?.fields ?? []).map((field) => field.name.split(' ')[0]))];
    expect(listed).toEqual(
      world.discord.commands(world.guildId).map((c) => `/${c.name_localizations?.de ?? c.name}`),
    );
    expect(listed).toContain('/wetter');
  });

  it('never writes the bot token to its logs', () => {
    expect(world.logs.length).toBeGreaterThan(0);
    expect(world.logs.join('\n')).not.toContain(TEST_BOT_TOKEN);
  });
});
