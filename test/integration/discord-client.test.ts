import { once } from 'node:events';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ChannelType, DiscordAPIError, Events, type Client } from 'discord.js';
import { pino } from 'pino';
import type { APIGuild, APIUser } from 'discord-api-types/v10';
import { startDiscordEmulator, type DiscordEmulator } from '../../emulators/discord/index.js';
import type { EmulatorChannel } from '../../emulators/discord/index.js';
import { createDiscordClient } from '../../src/bot/client.js';
import { startBot } from '../../src/bot/index.js';
import { createScheduledPoster } from '../../src/bot/scheduled-post.js';
import {
  BotTimedOutError,
  PostRefusedError,
  PostRejectedError,
} from '../../src/services/schedules/runner.js';
import { berlinSchedule } from '../fixtures/schedules.js';
import { currentReportFixture } from '../fixtures/weather-render.js';
import { startFaultProxy, type FaultProxy } from '../helpers/reliability-proxy.js';

/**
 * The bot's discord.js client (src/bot/client.ts), its REST through a proxy that can hold one
 * request back: acknowledgements go before edits, but an edit never waits long for another
 * interaction's acknowledgement.
 */
describe("the bot's Discord client", () => {
  let emu: DiscordEmulator;
  let proxy: FaultProxy;
  let client: Client;
  let guild: APIGuild;
  let channel: EmulatorChannel;
  let user: APIUser;

  beforeAll(async () => {
    emu = await startDiscordEmulator();
    proxy = await startFaultProxy();
    const emulatorOrigin = new URL(emu.restUrl).origin;
    proxy.setTarget(emulatorOrigin);
    guild = emu.createGuild({ name: 'Skybeat HQ' });
    channel = emu.createChannel(guild.id, { name: 'general' });
    user = emu.createUser({ username: 'ada' });
    client = createDiscordClient({ apiUrl: emu.restUrl.replace(emulatorOrigin, proxy.origin) });
    client.on(Events.InteractionCreate, (interaction) => {
      if (!interaction.isChatInputCommand()) return;
      void interaction
        .deferReply()
        .then(() => interaction.editReply({ content: `done ${interaction.id}` }))
        .catch(() => undefined);
    });
    const ready = once(client, Events.ClientReady);
    await client.login('emulator-bot-token');
    await ready;
    await client.application!.commands.set([{ name: 'slow', description: 'defer, then edit' }], guild.id);
  });

  afterAll(async () => {
    await client.destroy();
    await proxy.close();
    await emu.close();
  });

  afterEach(() => proxy.clear());

  /** Two deferred commands; the first one's acknowledgement is held at the proxy for `holdMs`. */
  async function twoDeferred(holdMs: number) {
    const where = { guildId: guild.id, channelId: channel.id, userId: user.id, name: 'slow' };
    const first = emu.slash(where);
    proxy.fail({ match: new RegExp(`^POST /api/v10/interactions/${first.id}/`), stallMs: holdMs });
    const second = emu.slash(where);
    await Promise.all([first.waitForEdit(1, 5_000), second.waitForEdit(1, 5_000)]);
    const order = emu.requests.map((request) => request.path);
    const at = (interactionId: string, what: 'callback' | 'edit') =>
      order.findIndex((path) =>
        what === 'callback'
          ? path.startsWith(`/interactions/${interactionId}/`)
          : path.startsWith('/webhooks/') && path.includes(second.token),
      );
    return { firstAck: at(first.id, 'callback'), secondEdit: at(second.id, 'edit') };
  }

  it("holds a deferred command's edit until the acknowledgements sent before it are answered", async () => {
    const { firstAck, secondEdit } = await twoDeferred(400);
    expect(firstAck).toBeGreaterThanOrEqual(0);
    expect(secondEdit).toBeGreaterThan(firstAck);
  });

  it('posts a scheduled message, and reports a post Discord refuses as one not to try again', async () => {
    const post = createScheduledPoster(client, 'https://weather.example');
    const fetched = { kind: 'current' as const, report: currentReportFixture() };
    const schedule = { ...berlinSchedule({ guildId: guild.id, channelId: channel.id }), id: 'sched' };
    await post(schedule, fetched, 'nonce-1');
    expect(emu.messages(channel.id).at(-1)?.embeds[0]?.title).toContain('Berlin');
    // Discord answers 400 "Cannot send messages in a non-text channel" for a category.
    const category = emu.createChannel(guild.id, { name: 'Weather', type: ChannelType.GuildCategory });
    const refused = await post({ ...schedule, channelId: category.id }, fetched, 'nonce-2').catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(PostRefusedError);
    expect((refused as Error).message).toBe(
      'Discord refused the post: 400 Cannot send messages in a non-text channel',
    );
    // Cloudflare's block of the host (403, 40333) lifts on its own: tried again, not refused.
    proxy.fail({
      match: new RegExp(`^POST /api/v10/channels/${channel.id}/messages`),
      status: 403,
      body: JSON.stringify({ message: 'internal network error', code: 40333 }),
    });
    const blocked = await post(schedule, fetched, 'nonce-3').catch((error: unknown) => error);
    expect(blocked).toBeInstanceOf(DiscordAPIError);
    expect(blocked).not.toBeInstanceOf(PostRefusedError);
  });

  it('skips a post refused while the bot is timed out, asking Discord when the server is not in the cache, and tries again when it cannot ask', async () => {
    const post = createScheduledPoster(client, 'https://weather.example');
    const fetched = { kind: 'current' as const, report: currentReportFixture() };
    const muted = emu.createGuild({ name: 'Muted' });
    const room = emu.createChannel(muted.id, { name: 'weather' });
    const schedule = { ...berlinSchedule({ guildId: muted.id, channelId: room.id }), id: 'muted' };
    const until = new Date(Date.now() + 3_600_000);
    emu.timeoutMember(muted.id, emu.botUser.id, until);
    // As in a process that does not hold the server's shard: nothing about it in the cache.
    await expect.poll(() => client.guilds.cache.has(muted.id)).toBe(true);
    client.guilds.cache.delete(muted.id);
    const skipped = await post(schedule, fetched, 'nonce-4').catch((error: unknown) => error);
    expect(skipped).toBeInstanceOf(BotTimedOutError);
    expect((skipped as BotTimedOutError).until).toBe(until.getTime());
    // Discord cannot be asked: not a refusal that pauses the schedule, but a post to try again.
    proxy.fail({
      match: new RegExp(`^GET /api/v10/guilds/${muted.id}/members/`),
      status: 502,
      times: Infinity,
    });
    const unsure = await post(schedule, fetched, 'nonce-5').catch((error: unknown) => error);
    expect(unsure).toBeInstanceOf(Error);
    expect(unsure).not.toBeInstanceOf(PostRejectedError);
    expect(unsure).not.toBeInstanceOf(PostRefusedError);
    // Nor when Cloudflare blocks the host for a while (403 with its own code).
    proxy.clear();
    proxy.fail({
      match: new RegExp(`^GET /api/v10/guilds/${muted.id}/members/`),
      status: 403,
      body: JSON.stringify({ message: 'internal network error', code: 40333 }),
      times: Infinity,
    });
    const blocked = await post(schedule, fetched, 'nonce-6').catch((error: unknown) => error);
    expect(blocked).toBeInstanceOf(Error);
    expect(blocked).not.toBeInstanceOf(PostRejectedError);
    expect(emu.messages(room.id)).toHaveLength(0);
  });

  it('sends the edit anyway when an earlier acknowledgement takes longer than a second', async () => {
    const { firstAck, secondEdit } = await twoDeferred(2_000);
    expect(secondEdit).toBeGreaterThanOrEqual(0);
    expect(secondEdit).toBeLessThan(firstAck);
  });
});

describe('starting the bot', () => {
  it('waits for every shard of a process that identifies them one per 5 s, however long they take in all', async () => {
    // Three shards with max_concurrency 1: discord.js identifies one every 5 s, so the last is ready
    // about 10 s after login, longer than the wait for any one of them.
    const emu = await startDiscordEmulator({ shardCount: 3, maxConcurrency: 1 });
    const client = createDiscordClient({ apiUrl: emu.restUrl, shards: [0, 1, 2], shardCount: 3 });
    try {
      await startBot({
        client,
        token: 'emulator-bot-token',
        route: () => Promise.resolve(),
        logger: pino({ level: 'silent' }),
        readyTimeoutMs: 7_000,
      });
      expect(client.ws.shards.size).toBe(3);
      expect(client.isReady()).toBe(true);
    } finally {
      await client.destroy();
      await emu.close();
    }
  }, 30_000);
});
