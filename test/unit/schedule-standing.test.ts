/**
 * Whether a schedule may post in a channel: a channel missing from a server the bot sees whole is
 * gone, but a server in an outage (unavailable) comes without its channels, and none of them is.
 */
import type { ChatInputCommandInteraction } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { scheduleMessages } from '../../src/bot/i18n/schedule-messages.js';
import { requirePostable } from '../../src/commands/weather/schedule-standing.js';

/** A command run in channel 1 of a server whose cached channels are `channels`. */
function commandIn(guild: { available: boolean; channels: string[] }) {
  return {
    channelId: '1',
    guild: {
      available: guild.available,
      channels: { cache: new Map(guild.channels.map((id) => [id, {}])) },
      members: { me: null, fetchMe: () => Promise.reject(new Error('unavailable')) },
    },
  } as unknown as ChatInputCommandInteraction;
}

const t = scheduleMessages('en');

describe('a channel to post in', () => {
  it('is refused as gone when the server, seen whole, no longer has it', async () => {
    await expect(
      requirePostable(commandIn({ available: true, channels: ['1'] }), '2', 'current', t, Date.now()),
    ).rejects.toThrow(t.channelGone('2'));
  });

  it('is not called gone while the server is unavailable and came without its channels', async () => {
    await expect(
      requirePostable(commandIn({ available: false, channels: [] }), '2', 'current', t, Date.now()),
    ).resolves.toBeUndefined();
  });
});
