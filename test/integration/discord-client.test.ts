import { once } from 'node:events';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ChannelType, DiscordAPIError, Events, PermissionFlagsBits, type Client } from 'discord.js';
import { pino } from 'pino';
import type { APIGuild, APIUser } from 'discord-api-types/v10';
import { startDiscordEmulator, type DiscordEmulator } from '../../emulators/discord/index.js';
import type { EmulatorChannel } from '../../emulators/discord/index.js';
import { createDiscordClient } from '../../src/bot/client.js';
import { startBot } from '../../src/bot/index.js';
import { createScheduledPoster } from '../../src/bot/scheduled-post.js';
import { permissionsOverRest } from '../../src/bot/post-permissions.js';
import { createLogger } from '../../src/logger.js';
import {
  BotTimedOutError,
  PostRefusedError,
  PostRejectedError,
} from '../../src/services/schedules/runner.js';
import { berlinSchedule } from '../fixtures/schedules.js';
import { currentReportFixture, dailyReportFixture, hourlyReportFixture } from '../fixtures/weather-render.js';
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
  /** Rewrites what the emulator answers, on its way back through the proxy; reset after each test. */
  let rewrite: ((body: string, requestLine: string) => string) | undefined;

  beforeAll(async () => {
    emu = await startDiscordEmulator();
    proxy = await startFaultProxy({ rewrite: (body, line) => (rewrite ? rewrite(body, line) : body) });
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

  afterEach(() => {
    proxy.clear();
    rewrite = undefined;
  });

  /** A poster whose logs (through the bot's own logger, with its redaction) are kept in `logs`. */
  function loggedPoster() {
    const logs: string[] = [];
    const logger = createLogger({
      level: 'debug',
      secrets: () => ['emulator-bot-token'],
      destination: new Writable({
        write(chunk: Buffer, _encoding, done) {
          logs.push(chunk.toString('utf8'));
          done();
        },
      }),
    });
    return { post: createScheduledPoster(client, 'https://weather.example', Date.now, logger), logs };
  }

  /** A server and channel as a process that does not hold the server's shard sees them: not at all. */
  async function uncachedChannel(name: string) {
    const elsewhere = emu.createGuild({ name });
    const room = emu.createChannel(elsewhere.id, { name: 'weather' });
    await expect.poll(() => client.channels.cache.has(room.id)).toBe(true);
    client.channels.cache.delete(room.id);
    client.guilds.cache.delete(elsewhere.id);
    return { guild: elsewhere, room };
  }

  /**
   * Two deferred commands, the second `gapMs` after the first; the first one's acknowledgement is
   * held at the proxy for `holdMs`.
   */
  async function twoDeferred(holdMs: number, gapMs: number) {
    const where = { guildId: guild.id, channelId: channel.id, userId: user.id, name: 'slow' };
    const first = emu.slash(where);
    proxy.fail({ match: new RegExp(`^POST /api/v10/interactions/${first.id}/`), stallMs: holdMs });
    await new Promise((wake) => setTimeout(wake, gapMs));
    const second = emu.slash(where);
    await Promise.all([first.waitForEdit(1, 5_000), second.waitForEdit(1, 5_000)]);
    const { requests } = emu;
    const at = (interactionId: string, what: 'callback' | 'edit') =>
      requests.findIndex(({ path }) =>
        what === 'callback'
          ? path.startsWith(`/interactions/${interactionId}/`)
          : path.startsWith('/webhooks/') && path.includes(second.token),
      );
    const secondAck = requests[at(second.id, 'callback')]!;
    const secondEdit = requests[at(second.id, 'edit')]!;
    return {
      firstAck: at(first.id, 'callback'),
      secondEdit: at(second.id, 'edit'),
      /** Milliseconds from the second's acknowledgement to its edit, as Discord received them. */
      editAfterAckMs: secondEdit.at - secondAck.at,
    };
  }

  it("holds a deferred command's edit until the acknowledgements sent before it are answered, once they back up", async () => {
    // The first acknowledgement has gone unanswered for 400 ms when the second command's edit is due.
    const { firstAck, secondEdit } = await twoDeferred(1_000, 400);
    expect(firstAck).toBeGreaterThanOrEqual(0);
    expect(secondEdit).toBeGreaterThan(firstAck);
  });

  it('holds an edit behind a burst of acknowledgements in flight, however young', async () => {
    // 31 commands whose acknowledgements are held for 600 ms, then one answered at once: its edit
    // is due while more than 30 acknowledgements are in flight, none of them 250 ms old yet.
    const where = { guildId: guild.id, channelId: channel.id, userId: user.id, name: 'slow' };
    const held = Array.from({ length: 31 }, () => {
      const handle = emu.slash(where);
      proxy.fail({ match: new RegExp(`^POST /api/v10/interactions/${handle.id}/`), stallMs: 600 });
      return handle;
    });
    const last = emu.slash(where);
    await Promise.all([...held, last].map((handle) => handle.waitForEdit(1, 5_000)));
    const paths = emu.requests.map((request) => request.path);
    const lastEdit = paths.findIndex((path) => path.startsWith('/webhooks/') && path.includes(last.token));
    const heldAcks = held.map((handle) =>
      paths.findIndex((path) => path.startsWith(`/interactions/${handle.id}/`)),
    );
    expect(Math.min(...heldAcks)).toBeGreaterThanOrEqual(0);
    expect(lastEdit).toBeGreaterThan(Math.max(...heldAcks));
  });

  it('sends an edit at once while the acknowledgements in flight are no burst', async () => {
    // Both commands at once: the first acknowledgement is only just sent when the second's edit is
    // due, so that edit does not wait for it (held, it would go a second later, at the most).
    const { firstAck, secondEdit, editAfterAckMs } = await twoDeferred(2_500, 0);
    expect(secondEdit).toBeLessThan(firstAck);
    expect(editAfterAckMs).toBeLessThan(500);
  });

  it('posts a scheduled message, and reports a post Discord refuses (400, or its own 403) as one not to try again', async () => {
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
    // What the schedule list and the test command show: Discord's words, without the status.
    expect((refused as PostRefusedError).detail).toBe('Cannot send messages in a non-text channel');
    /** The next post to the channel answered 403 with `error` as its JSON body. */
    const forbidNextPost = (error: { message: string; code: number }) =>
      proxy.fail({
        match: new RegExp(`^POST /api/v10/channels/${channel.id}/messages`),
        status: 403,
        body: JSON.stringify(error),
      });
    // Cloudflare's block of the host (403, 40333) lifts on its own: tried again, not refused.
    forbidNextPost({ message: 'internal network error', code: 40333 });
    const blocked = await post(schedule, fetched, 'nonce-3').catch((error: unknown) => error);
    expect(blocked).toBeInstanceOf(DiscordAPIError);
    expect(blocked).not.toBeInstanceOf(PostRefusedError);
    // Discord's own 403 for this post, other than the channel's 50001 and 50013 (an archived thread
    // the bot may not reopen): refused, not tried again every few seconds for the grace window.
    forbidNextPost({ message: 'Thread is archived', code: 50083 });
    const archived = await post(schedule, fetched, 'nonce-4').catch((error: unknown) => error);
    expect(archived).toBeInstanceOf(PostRefusedError);
    expect((archived as PostRefusedError).detail).toBe('Thread is archived');
  });

  it('pauses a post refused with Missing Access as the bot removed from the server when it is no member there, and as a hidden channel when it is', async () => {
    const post = createScheduledPoster(client, 'https://weather.example');
    const fetched = { kind: 'current' as const, report: currentReportFixture() };
    // Removed while this process was not watching: no GUILD_DELETE paused anything.
    const { guild: left, room: leftRoom } = await uncachedChannel('Left');
    emu.removeBot(left.id);
    const gone = { ...berlinSchedule({ guildId: left.id, channelId: leftRoom.id }), id: 'left' };
    const removed = await post(gone, fetched, 'nonce-left').catch((error: unknown) => error);
    expect(removed).toBeInstanceOf(PostRejectedError);
    expect((removed as PostRejectedError).code).toBe('bot-removed');
    expect((removed as PostRejectedError).message).toBe('the bot was removed from this server');
    // A Discord that answers the bot's own member lookup there with 10007 Unknown Member, as the
    // endpoint documents for one who is not a member, is read the same way.
    const { guild: other, room: otherRoom } = await uncachedChannel('Other');
    proxy.fail({
      match: new RegExp(`^POST /api/v10/channels/${otherRoom.id}/messages`),
      status: 403,
      body: JSON.stringify({ message: 'Missing Access', code: 50001 }),
    });
    proxy.fail({
      match: new RegExp(`^GET /api/v10/guilds/${other.id}/members/`),
      status: 404,
      body: JSON.stringify({ message: 'Unknown Member', code: 10007 }),
    });
    const elsewhere = { ...berlinSchedule({ guildId: other.id, channelId: otherRoom.id }), id: 'other' };
    const unknown = await post(elsewhere, fetched, 'nonce-other').catch((error: unknown) => error);
    expect((unknown as PostRejectedError).code).toBe('bot-removed');
    // In a server it is in, where this process holds nothing of it, a channel it may not view.
    const { guild: kept, room: hidden } = await uncachedChannel('Kept');
    emu.setBotPermissions(hidden.id, { deny: PermissionFlagsBits.ViewChannel });
    const unseen = { ...berlinSchedule({ guildId: kept.id, channelId: hidden.id }), id: 'hidden' };
    const refused = await post(unseen, fetched, 'nonce-hidden').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PostRejectedError);
    expect((refused as PostRejectedError).code).toBe('channel-hidden');
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

  it('pauses the schedule for the missing permission a 403 / 50013 names when the server refuses the lookup of the bot’s own member for good, trying the post once', async () => {
    const { post, logs } = loggedPoster();
    const fetched = { kind: 'current' as const, report: currentReportFixture() };
    const muted = emu.createGuild({ name: 'Muted, unasked' });
    const room = emu.createChannel(muted.id, { name: 'weather' });
    const schedule = { ...berlinSchedule({ guildId: muted.id, channelId: room.id }), id: 'unasked' };
    emu.timeoutMember(muted.id, emu.botUser.id, new Date(Date.now() + 3_600_000));
    await expect.poll(() => client.guilds.cache.has(muted.id)).toBe(true);
    client.guilds.cache.delete(muted.id);
    const lookup = new RegExp(`^GET /api/v10/guilds/${muted.id}/members/`);
    const failures = {
      // A server that does not have the route (Discord's own shape for an unknown route), or not
      // that method; Discord's own refusal.
      'no such route': { status: 404, body: JSON.stringify({ message: '404: Not Found', code: 0 }) },
      'wrong method': { status: 405, body: JSON.stringify({ message: '405: Method Not Allowed', code: 0 }) },
      'no access': { status: 403, body: JSON.stringify({ message: 'Missing Access', code: 50001 }) },
    };
    for (const [what, failure] of Object.entries(failures)) {
      proxy.clear();
      proxy.fail({ match: lookup, ...failure, times: Infinity });
      const posts = () => emu.requestCount({ method: 'POST', route: `/channels/${room.id}/messages` });
      const before = posts();
      const rejected = await post(schedule, fetched, `nonce-${what}`).catch((error: unknown) => error);
      expect(rejected, what).toBeInstanceOf(PostRejectedError);
      expect((rejected as PostRejectedError).code, what).toBe('missing-permission');
      expect(posts() - before, what).toBe(1);
    }
    expect(emu.messages(room.id)).toHaveLength(0);
    const told = logs.filter((line) => line.includes('could not be looked up'));
    expect(told).toHaveLength(Object.keys(failures).length);
    // Discord's own refusal at debug; a server without the route, at warn.
    expect(told.map((line) => (JSON.parse(line) as { level: number }).level)).toEqual([40, 40, 20]);
    expect(told.join('\n')).not.toContain('emulator-bot-token');
  });

  it('keeps a post answered without its embeds when the bot’s permissions in the channel are not known here, and says so', async () => {
    const { post, logs } = loggedPoster();
    const fetched = { kind: 'current' as const, report: currentReportFixture() };
    const { guild: elsewhere, room } = await uncachedChannel('Elsewhere');
    const schedule = { ...berlinSchedule({ guildId: elsewhere.id, channelId: room.id }), id: 'elsewhere' };
    const created = `POST /api/v10/channels/${room.id}/messages`;
    // Nor can Discord be asked about them just now.
    proxy.fail({ match: new RegExp(`^GET /api/v10/channels/${room.id}$`), status: 502, times: Infinity });
    // A server that echoes the message with its embeds empty, then one that leaves them out.
    rewrite = (body, line) => (line === created ? JSON.stringify({ ...JSON.parse(body), embeds: [] }) : body);
    await post(schedule, fetched, 'nonce-7');
    rewrite = (body, line) =>
      line === created ? JSON.stringify({ ...JSON.parse(body), embeds: undefined }) : body;
    await post(schedule, fetched, 'nonce-8');
    expect(emu.messages(room.id)).toHaveLength(2);
    expect(emu.requestCount({ method: 'DELETE' })).toBe(0);
    expect(logs.filter((line) => line.includes('without its embeds'))).toHaveLength(2);
    expect(logs.every((line) => (JSON.parse(line) as { level: number }).level === 40)).toBe(true);
    expect(logs.join('\n')).toContain('not known here');
    proxy.clear();
  });

  it('works out its permissions over REST as discord.js does from its cache, channel overwrites included', async () => {
    const room = emu.createChannel(guild.id, { name: 'overwrites' });
    const { ViewChannel, SendMessages, EmbedLinks, AttachFiles } = PermissionFlagsBits;
    type Overwrite = { allow?: bigint; deny?: bigint };
    // [what, @everyone's overwrite, the bot's own, what the bot then has of View, Send, Embed, Attach]
    // (the bot's own overwrite wins over @everyone's; by default the bot has all four).
    const cases: [string, Overwrite, Overwrite, [boolean, boolean, boolean, boolean]][] = [
      ['none', {}, {}, [true, true, true, true]],
      [
        'hidden from everyone, shown to the bot',
        { deny: ViewChannel },
        { allow: ViewChannel },
        [true, true, true, true],
      ],
      [
        'no embeds for everyone, shown to the bot',
        { deny: ViewChannel | EmbedLinks },
        { allow: ViewChannel },
        [true, true, false, true],
      ],
      ['read-only for everyone', { deny: SendMessages }, {}, [true, false, true, true]],
      [
        'read-only, sending allowed to the bot',
        { deny: SendMessages },
        { allow: SendMessages },
        [true, true, true, true],
      ],
      ['no embeds for the bot', {}, { deny: EmbedLinks }, [true, true, false, true]],
      [
        'everyone denied, the bot allowed',
        { deny: EmbedLinks | AttachFiles },
        { allow: EmbedLinks },
        [true, true, true, false],
      ],
    ];
    const sameOverwrite = (id: string, set: Overwrite) => {
      const cached = client.channels.cache.get(room.id);
      const overwrite =
        cached && 'permissionOverwrites' in cached ? cached.permissionOverwrites.cache.get(id) : undefined;
      return (
        (overwrite?.allow.bitfield ?? 0n) === (set.allow ?? 0n) &&
        (overwrite?.deny.bitfield ?? 0n) === (set.deny ?? 0n)
      );
    };
    for (const [what, everyone, bot, expected] of cases) {
      emu.setChannelOverwrite(room.id, guild.id, 'role', everyone);
      emu.setBotPermissions(room.id, bot);
      const overRest = await permissionsOverRest(client, guild.id, room.id);
      expect(
        [ViewChannel, SendMessages, EmbedLinks, AttachFiles].map((flag) => overRest?.has(flag)),
        what,
      ).toEqual(expected);
      // discord.js, once its cache holds both overwrites, computes the same.
      await expect
        .poll(() => sameOverwrite(guild.id, everyone) && sameOverwrite(emu.botUser.id, bot), {
          message: what,
          timeout: 10_000,
        })
        .toBe(true);
      const cached = client.channels.cache.get(room.id);
      const me = client.guilds.cache.get(guild.id)!.members.me!;
      expect(
        cached && 'permissionsFor' in cached ? cached.permissionsFor(me).bitfield : undefined,
        what,
      ).toBe(overRest?.bitfield);
    }
    // Discord does not show the bot a channel it cannot view: nothing to work out from.
    emu.setBotPermissions(room.id, { deny: ViewChannel });
    expect(await permissionsOverRest(client, guild.id, room.id)).toBeUndefined();
  });

  it('asks Discord for its permissions when it holds nothing of the server, and takes back a post stripped of its embeds', async () => {
    // As in a process that does not hold the server's shard: scheduled posts are made by any process.
    const { post } = loggedPoster();
    const fetched = { kind: 'week' as const, report: dailyReportFixture() };
    const { guild: elsewhere, room } = await uncachedChannel('Elsewhere, no embeds');
    emu.setBotPermissions(room.id, { deny: PermissionFlagsBits.EmbedLinks });
    const schedule = {
      ...berlinSchedule({ guildId: elsewhere.id, channelId: room.id }),
      id: 'far-no-embeds',
    };
    const deletes = () => emu.requestCount({ method: 'DELETE' });
    const before = deletes();
    const rejected = await post(schedule, fetched, 'nonce-far').catch((error: unknown) => error);
    // Discord took the post (for its chart) without its embeds: the bot asked, then took it back.
    expect(deletes() - before).toBe(1);
    expect(emu.requestCount({ method: 'GET', route: `/channels/${room.id}` })).toBeGreaterThan(0);
    expect(rejected).toBeInstanceOf(PostRejectedError);
    expect((rejected as PostRejectedError).code).toBe('missing-permission');
    expect((rejected as PostRejectedError).message).toBe('the bot lacks Embed Links in the channel');
    expect(emu.messages(room.id)).toEqual([]);
    // With Embed Links, the same post stays.
    emu.setBotPermissions(room.id, {});
    await post(schedule, fetched, 'nonce-far-2');
    expect(emu.messages(room.id)).toHaveLength(1);
    expect(emu.messages(room.id)[0]?.embeds).toHaveLength(1);
  });

  it('names the permission a refused post lacks from one lookup of its own member, when it holds nothing of the server', async () => {
    const post = createScheduledPoster(client, 'https://weather.example');
    const fetched = { kind: 'current' as const, report: currentReportFixture() };
    const { guild: elsewhere, room } = await uncachedChannel('Elsewhere, no sending');
    emu.setBotPermissions(room.id, { deny: PermissionFlagsBits.SendMessages });
    const schedule = { ...berlinSchedule({ guildId: elsewhere.id, channelId: room.id }), id: 'far-mute' };
    const lookups = () =>
      emu.requestCount({ method: 'GET', route: `/guilds/${elsewhere.id}/members/${emu.botUser.id}` });
    const rejected = await post(schedule, fetched, 'nonce-far-mute').catch((error: unknown) => error);
    expect(rejected).toBeInstanceOf(PostRejectedError);
    expect((rejected as PostRejectedError).code).toBe('missing-permission');
    expect((rejected as PostRejectedError).message).toBe('the bot lacks Send Messages in the channel');
    // Asked once, for the timeout and for the permissions alike.
    expect(lookups()).toBe(1);
    expect(emu.messages(room.id)).toEqual([]);
  });

  it('takes back a post stripped of its embeds, pausing the schedule, when the bot’s cached permissions lack Embed Links', async () => {
    const { post } = loggedPoster();
    const fetched = { kind: 'today' as const, report: hourlyReportFixture() };
    const room = emu.createChannel(guild.id, { name: 'no-embeds' });
    const schedule = { ...berlinSchedule({ guildId: guild.id, channelId: room.id }), id: 'no-embeds' };
    emu.setBotPermissions(room.id, { deny: PermissionFlagsBits.EmbedLinks });
    await expect
      .poll(() => {
        const cached = client.channels.cache.get(room.id);
        const me = client.guilds.cache.get(guild.id)?.members.me;
        return cached && me && 'permissionsFor' in cached
          ? cached.permissionsFor(me).has(PermissionFlagsBits.EmbedLinks)
          : undefined;
      })
      .toBe(false);
    // Discord takes the message, for its chart, and drops the embeds.
    const rejected = await post(schedule, fetched, 'nonce-9').catch((error: unknown) => error);
    expect(rejected).toBeInstanceOf(PostRejectedError);
    expect((rejected as PostRejectedError).code).toBe('missing-permission');
    expect(emu.messages(room.id)).toEqual([]);
  });

  it('sends the edit anyway when an earlier acknowledgement takes longer than a second', async () => {
    const { firstAck, secondEdit } = await twoDeferred(2_000, 400);
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

  it('says at error, with what to do, when Discord closes a shard for good', async () => {
    const emu = await startDiscordEmulator();
    const client = createDiscordClient({ apiUrl: emu.restUrl });
    const lines: string[] = [];
    const logger = pino(
      { level: 'info' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    );
    try {
      await startBot({ client, token: 'emulator-bot-token', route: () => Promise.resolve(), logger });
      // 4004, Authentication failed: discord.js does not reconnect after it.
      emu.disconnectAll(4004);
      await expect.poll(() => lines.some((line) => line.includes('closed a shard for good'))).toBe(true);
      const line = JSON.parse(lines.find((l) => l.includes('closed a shard for good'))!) as {
        level: number;
        code: number;
        shardId: number;
        fix: string;
      };
      expect([line.level, line.code, line.shardId]).toEqual([50, 4004, 0]);
      expect(line.fix).toMatch(/^DISCORD_TOKEN was refused/);
    } finally {
      await client.destroy();
      await emu.close();
    }
  });
});
