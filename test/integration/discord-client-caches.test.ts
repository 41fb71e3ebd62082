/**
 * What the bot's discord.js client keeps in memory as it answers: not the replies it edits nor the
 * messages buttons are pressed on (discord.js would keep 200 a channel), and not, for long, the DM
 * channel of every member who used the bot in DMs.
 */
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ButtonStyle, ComponentType, Events, type Client } from 'discord.js';
import type { APIGuild, APIUser } from 'discord-api-types/v10';
import { startDiscordEmulator, type DiscordEmulator } from '../../emulators/discord/index.js';
import type { EmulatorChannel } from '../../emulators/discord/index.js';
import { createDiscordClient } from '../../src/bot/client.js';

describe("the bot's Discord client caches", () => {
  let emu: DiscordEmulator;
  let client: Client;
  let guild: APIGuild;
  let channel: EmulatorChannel;
  let users: APIUser[];
  /** DM channels the cache held when their interaction came (the Channel partial adds them). */
  const dmCachedOnArrival = new Set<string>();

  beforeAll(async () => {
    emu = await startDiscordEmulator();
    guild = emu.createGuild({ name: 'Skybeat HQ' });
    channel = emu.createChannel(guild.id, { name: 'general' });
    users = Array.from({ length: 5 }, (_, i) => emu.createUser({ username: `member${i}` }));
    client = createDiscordClient({ apiUrl: emu.restUrl, dmChannelSweepMs: 300 });
    // As the bot's commands do: defer, then edit in a reply with a button; the button updates it.
    client.on(Events.InteractionCreate, (interaction) => {
      if (interaction.channel?.isDMBased() && client.channels.cache.has(interaction.channel.id)) {
        dmCachedOnArrival.add(interaction.channel.id);
      }
      const button = {
        type: ComponentType.ActionRow as const,
        components: [
          {
            type: ComponentType.Button as const,
            style: ButtonStyle.Secondary,
            label: 'Next',
            custom_id: 'next',
          },
        ],
      };
      if (interaction.isChatInputCommand()) {
        void interaction
          .deferReply()
          .then(() => interaction.editReply({ content: `done ${interaction.id}`, components: [button] }))
          .catch(() => undefined);
      } else if (interaction.isButton()) {
        void interaction
          .update({ content: `pressed ${interaction.id}`, components: [button] })
          .catch(() => undefined);
      }
    });
    const ready = once(client, Events.ClientReady);
    await client.login('emulator-bot-token');
    await ready;
    await client.application!.commands.set([{ name: 'slow', description: 'defer, then edit' }]);
  });

  afterAll(async () => {
    await client?.destroy();
    await emu?.close();
  });

  it('keeps none of the replies it edits, nor the messages its buttons are on', async () => {
    const where = { guildId: guild.id, channelId: channel.id, name: 'slow' };
    const replies: { id: string }[] = [];
    for (let i = 0; i < 30; i++) {
      const command = emu.slash({ ...where, userId: users[i % users.length]!.id });
      replies.push(await command.waitForEdit(1, 5_000));
    }
    for (const reply of replies.slice(0, 10)) {
      const press = emu.clickButton({
        userId: users[0]!.id,
        message: reply,
        customId: 'next',
        guildId: guild.id,
        channelId: channel.id,
      });
      await press.waitForCallback(5_000);
    }
    expect(emu.messages(channel.id).filter((m) => m.content?.startsWith('pressed'))).toHaveLength(10);
    const cached = client.channels.cache.get(channel.id);
    expect(cached?.isTextBased()).toBe(true);
    expect(cached && 'messages' in cached ? cached.messages.cache.size : -1).toBe(0);
  });

  it('lets go of DM channels after a while, and keeps the server channels', async () => {
    const dmChannels: string[] = [];
    for (const user of users) {
      const command = emu.slash({ dm: true, userId: user.id, name: 'slow' });
      const reply = await command.waitForEdit(1, 5_000);
      dmChannels.push(reply.channel_id);
    }
    // The DM channels came into the cache with their interactions (the Channel partial)...
    expect([...dmCachedOnArrival].sort()).toEqual([...dmChannels].sort());
    // ...and are gone after the sweep; the server's channel stays.
    await expect
      .poll(() => dmChannels.filter((id) => client.channels.cache.has(id)), { timeout: 5_000 })
      .toEqual([]);
    expect(client.channels.cache.has(channel.id)).toBe(true);
  });
});
