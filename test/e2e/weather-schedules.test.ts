import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ChannelType, MessageFlags, PermissionFlagsBits } from 'discord.js';
import { encodePlace } from '../../src/domain/weather/places.js';
import { startBotWorld, type BotWorld } from '../helpers/bot.js';

const BERLIN = encodePlace({ lat: 52.52, lon: 13.405, label: 'Berlin, DE' });
const VIEW_SEND = (1n << 10n) | (1n << 11n);

describe('scheduled weather posts, managed from Discord', () => {
  let world: BotWorld;
  beforeAll(async () => {
    world = await startBotWorld({ weather: true });
  });
  afterAll(async () => {
    await world?.close();
  });

  const schedule = (
    subcommand: string,
    options: Record<string, string> = {},
    userId?: string,
    locale?: 'de' | 'en-US',
  ) =>
    world.slash('weather', {
      subcommandGroup: 'schedule',
      subcommand,
      options,
      ...(userId ? { userId } : {}),
      ...(locale ? { locale } : {}),
    });

  /** `/weather schedule add` for Berlin at 08:00 UTC, run in `channelId` (not the world's channel). */
  const addIn = (channelId: string) =>
    world.discord
      .slash({
        guildId: world.guildId,
        channelId,
        userId: world.alice.id,
        name: 'weather',
        subcommandGroup: 'schedule',
        subcommand: 'add',
        options: { place: BERLIN, time: '08:00', timezone: 'UTC' },
      })
      .reply();

  /**
   * A new channel where the bot may not embed links or attach files, once the bot's cache holds its
   * overwrites.
   */
  const channelWithoutEmbeds = async (name: string) => {
    const channel = world.discord.createChannel(world.guildId, { name });
    world.discord.setBotPermissions(channel.id, { deny: (1n << 14n) | (1n << 15n) });
    const guild = world.app.client.guilds.cache.get(world.guildId)!;
    await vi.waitFor(() => {
      const known = guild.channels.cache.get(channel.id);
      expect(known && 'permissionOverwrites' in known && known.permissionOverwrites.cache.size).toBe(1);
    });
    return channel;
  };

  /** The time zones `/weather schedule add` offers for `typed`, with `place` in its place option. */
  const offered = async (typed: string, place = BERLIN) =>
    (
      await world.discord.autocomplete({
        guildId: world.guildId,
        channelId: world.channelId,
        userId: world.alice.id,
        name: 'weather',
        subcommandGroup: 'schedule',
        subcommand: 'add',
        options: { place, time: '07:00', timezone: typed },
        focused: 'timezone',
      })
    ).map((c) => c.value);

  it('offers IANA time zones in autocomplete', async () => {
    expect(await offered('berl')).toContain('Europe/Berlin');
  });

  it('offers current time zone names, found by their old names too, and UTC', async () => {
    expect(await offered('utc')).toEqual(['UTC']);
    expect(await offered('kolkata')).toEqual(['Asia/Kolkata']);
    expect(await offered('calcutta')).toEqual(['Asia/Kolkata']);
    expect(await offered('kiev')).toEqual(['Europe/Kyiv']);
    expect(await offered('Kyiv')).toEqual(['Europe/Kyiv']);
  });

  it('adds a schedule and lists it with its next run', async () => {
    const saved = await schedule('add', {
      place: BERLIN,
      time: '7:00',
      timezone: 'Europe/Berlin',
      days: 'weekdays',
    }).reply();
    expect(saved.embeds[0]?.title).toBe('Scheduled weather post saved');
    expect(saved.embeds[0]?.description).toContain('07:00 Europe/Berlin, Mon, Tue, Wed, Thu, Fri');
    const list = await schedule('list').reply();
    expect(list.embeds[0]?.description).toContain('Berlin, DE');
    expect(list.embeds[0]?.description).toMatch(/next <t:\d+:F>/);
    expect(list.embeds[0]?.footer?.text).toContain('1 of 25 allowed');
  });

  it('refuses members without Manage Server, in their language', async () => {
    const reply = await schedule('list', {}, world.bob.id, 'en-US').reply();
    expect(reply.content).toContain('Manage Server');
    expect(reply.flags! & 64).toBe(64);
    const german = await schedule('list', {}, world.bob.id).reply();
    expect(german.content).toBe(
      'Zum Verwalten geplanter Posts brauchst du die Berechtigung „Server verwalten“.',
    );
  });

  it('answers a German member in German: list, a bad time and test', async () => {
    const list = await schedule('list', {}, undefined, 'de').reply();
    expect(list.embeds[0]?.title).toBe('Geplante Wetterposts');
    expect(list.embeds[0]?.footer?.text).toBe(
      '1 von 25 erlaubt · nächste Termine in deiner Zeitzone angezeigt',
    );
    expect(list.embeds[0]?.description).toContain('Vorhersage für heute für **Berlin, DE**');
    expect(list.embeds[0]?.description).toContain(
      '07:00 Europe/Berlin, Mo, Di, Mi, Do, Fr · imperial · nächster Termin <t:',
    );
    expect(list.embeds[0]?.description).toMatch(/nächster Termin <t:\d+:F>/);

    const badTime = await schedule(
      'add',
      { place: BERLIN, time: '25:00', timezone: 'UTC' },
      undefined,
      'de',
    ).reply();
    expect(badTime.content).toBe('Die Uhrzeit muss wie 07:00, 19:30 oder 19 Uhr aussehen.');
    expect(badTime.flags! & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    // A bare hour that could be morning or evening is refused for that reason, in the member's language.
    const bareHour = await schedule(
      'add',
      { place: BERLIN, time: '7', timezone: 'UTC' },
      undefined,
      'de',
    ).reply();
    expect(bareHour.content).toBe(
      '„7“ kann morgens oder abends sein: Schreib 07:00 oder 19:00 (oder 7 Uhr, 19 Uhr).',
    );
    const noon = await schedule('add', { place: BERLIN, time: '12', timezone: 'UTC' }).reply();
    expect(noon.content).toBe('“12” could be noon or midnight: write 12:00 or 00:00 (or 12 pm, 12 am).');

    const [first] = (await world.app.storage.ns('schedules').get(`guild:${world.guildId}`)) as {
      id: string;
    }[];
    const tested = await schedule('test', { id: first!.id }, undefined, 'de').reply();
    expect(tested.content).toBe(`In <#${world.channelId}> gepostet.`);
    const unknown = await schedule('test', { id: 'nope' }, undefined, 'de').reply();
    expect(unknown.content).toBe(
      'Auf diesem Server gibt es keinen geplanten Post „nope“. Siehe /wetter zeitplan liste.',
    );
  });

  it('refuses to post in the voice channel it was asked from, naming the channel option', async () => {
    const voice = world.discord.createChannel(world.guildId, {
      name: 'lounge',
      type: ChannelType.GuildVoice,
    });
    world.discord.setBotPermissions(voice.id, { allow: VIEW_SEND | (1n << 14n) | (1n << 15n) });
    const store = world.app.storage.ns('schedules');
    const before = (await store.get(`guild:${world.guildId}`)) as unknown[];
    const reply = await addIn(voice.id);
    expect(reply.flags! & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    expect(reply.content).toBe(
      'Scheduled weather can only be posted in a text or announcement channel: pick one with the `channel` option.',
    );
    expect(await store.get(`guild:${world.guildId}`)).toEqual(before);
  });

  it('names the permissions the bot lacks in the target channel', async () => {
    const closed = world.discord.createChannel(world.guildId, { name: 'closed' });
    world.discord.setBotPermissions(closed.id, { deny: (1n << 14n) | (1n << 15n) });
    const reply = await schedule('add', {
      place: BERLIN,
      time: '08:00',
      timezone: 'UTC',
      channel: closed.id,
    }).reply();
    expect(reply.content).toBe(
      `I cannot post in <#${closed.id}>: I am missing Embed Links and Attach Files there. ` +
        'Give me these permissions in that channel, or pick another channel.',
    );
  });

  it('asks for Attach Files only for the posts that carry a chart', async () => {
    const noFiles = world.discord.createChannel(world.guildId, { name: 'no-files' });
    world.discord.setBotPermissions(noFiles.id, { deny: 1n << 15n });
    const add = (kind: string) =>
      schedule('add', { place: BERLIN, time: '08:15', timezone: 'UTC', channel: noFiles.id, kind }).reply();
    const refused = await add('today');
    expect(refused.content).toBe(
      `I cannot post in <#${noFiles.id}>: I am missing Attach Files there. ` +
        'Give me this permission in that channel, or pick another channel.',
    );
    // The current weather is an embed alone: it needs no file.
    const saved = await add('current');
    expect(saved.embeds[0]?.title).toBe('Scheduled weather post saved');
    const list = (await world.app.storage.ns('schedules').get(`guild:${world.guildId}`)) as {
      id: string;
      channelId: string;
    }[];
    await schedule('remove', { id: list.find((entry) => entry.channelId === noFiles.id)!.id }).reply();
  });

  it('checks the permissions of the channel it is used in as Discord sends them, whatever the cache holds', async () => {
    const quiet = await channelWithoutEmbeds('quiet');
    // A bot whose gateway never told it about the channel (a missed event, a guild sent without
    // it): discord.js knows the channel only from the interaction, without its overwrites.
    const guild = world.app.client.guilds.cache.get(world.guildId)!;
    guild.channels.cache.delete(quiet.id);
    world.app.client.channels.cache.delete(quiet.id);
    const store = world.app.storage.ns('schedules');
    const before = (await store.get(`guild:${world.guildId}`)) as unknown[];
    const reply = await addIn(quiet.id);
    expect(reply.content).toBe(
      `I cannot post in <#${quiet.id}>: I am missing Embed Links and Attach Files there. ` +
        'Give me these permissions in that channel, or pick another channel.',
    );
    expect(await store.get(`guild:${world.guildId}`)).toEqual(before);
  });

  it('works the permissions out from the cache when an interaction comes without app_permissions', async () => {
    const open = world.discord.createChannel(world.guildId, { name: 'older-payload-open' });
    const quiet = await channelWithoutEmbeds('older-payload-quiet');
    // An older payload: discord.js reads the missing field as no permission at all.
    const strip = (packet: { t?: string | null; d?: unknown }) => {
      if (packet.t === 'INTERACTION_CREATE')
        delete (packet.d as { app_permissions?: string }).app_permissions;
    };
    world.app.client.on('raw', strip);
    try {
      const saved = await addIn(open.id);
      expect(saved.content ?? '').toBe('');
      expect(saved.embeds[0]?.title).toBe('Scheduled weather post saved');
      const refused = await addIn(quiet.id);
      expect(refused.content).toBe(
        `I cannot post in <#${quiet.id}>: I am missing Embed Links and Attach Files there. ` +
          'Give me these permissions in that channel, or pick another channel.',
      );
    } finally {
      world.app.client.off('raw', strip);
    }
    const list = (await world.app.storage.ns('schedules').get(`guild:${world.guildId}`)) as {
      id: string;
      channelId: string;
    }[];
    await schedule('remove', { id: list.find((entry) => entry.channelId === open.id)!.id }).reply();
  });

  it('answers in time, saving unchecked, when Discord is slow to say who the bot is on the server', async () => {
    const other = world.discord.createChannel(world.guildId, { name: 'slow-member' });
    const guild = world.app.client.guilds.cache.get(world.guildId)!;
    const me = guild.members.me!;
    // A guild sent without the bot's member, and Discord holding the request for it for 5 s.
    guild.members.cache.delete(me.id);
    world.discord.setRateLimit({ route: /^\/guilds\/\d+\/members\//, remaining: 0, resetAfterMs: 5_000 });
    try {
      const reply = await schedule('add', {
        place: BERLIN,
        time: '08:00',
        timezone: 'UTC',
        channel: other.id,
      }).reply();
      expect(reply.content).toBe(
        `I could not check my permissions in <#${other.id}>: run \`/weather schedule test\` to see that a post arrives there.`,
      );
      expect(reply.embeds[0]?.title).toBe('Scheduled weather post saved');
    } finally {
      world.discord.setRateLimit(null);
      guild.members.cache.set(me.id, me);
    }
    const list = (await world.app.storage.ns('schedules').get(`guild:${world.guildId}`)) as {
      id: string;
      channelId: string;
    }[];
    await schedule('remove', { id: list.find((entry) => entry.channelId === other.id)!.id }).reply();
  });

  it('refuses a time zone that does not exist and a time that is not a time', async () => {
    expect(
      (await schedule('add', { place: BERLIN, time: '08:00', timezone: 'Mars/Base' }).reply()).content,
    ).toContain('is not a time zone');
    expect(
      (await schedule('add', { place: BERLIN, time: '25:00', timezone: 'UTC' }).reply()).content,
    ).toContain('The time must look like');
  });

  it('refuses a time-zone abbreviation, naming the zones it may stand for, and saves nothing', async () => {
    const before = await world.app.storage.ns('schedules').get(`guild:${world.guildId}`);
    // Taken as the runtime resolves it, EST is Panama's clock: no summer time, an hour late all
    // summer in New York.
    const est = await schedule('add', { place: BERLIN, time: '08:00', timezone: 'EST' }).reply();
    expect(est.content).toBe(
      '“EST” is an abbreviation, not a time zone: it does not say where, nor whether summer time ' +
        'applies. Pick the zone by its place, e.g. America/New_York or America/Toronto.',
    );
    expect(est.flags! & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    const ist = await schedule(
      'add',
      { place: BERLIN, time: '08:00', timezone: 'ist' },
      undefined,
      'de',
    ).reply();
    expect(ist.content).toContain('„ist“ ist eine Abkürzung, keine Zeitzone');
    expect(ist.content).toContain('Asia/Kolkata, Europe/Dublin oder Asia/Jerusalem');
    const unknown = await schedule('add', { place: BERLIN, time: '08:00', timezone: 'XYZ' }).reply();
    expect(unknown.content).toContain('“XYZ” is not a time zone');
    expect(await world.app.storage.ns('schedules').get(`guild:${world.guildId}`)).toEqual(before);
  });

  it('offers the zones an abbreviation stands for, first', async () => {
    expect((await offered('EST')).slice(0, 2)).toEqual(['America/New_York', 'America/Toronto']);
  });

  it('takes the place’s own time zone when none is given, and offers it first', async () => {
    const sydney = encodePlace({ lat: -33.87, lon: 151.21, label: 'Sydney, AU' });
    expect((await offered('', sydney))[0]).toBe('Australia/Sydney');
    expect((await offered('syd', sydney))[0]).toBe('Australia/Sydney');
    expect((await offered('berl', sydney))[0]).toBe('Europe/Berlin');

    const saved = await schedule('add', { place: sydney, time: '06:30' }).reply();
    expect(saved.embeds[0]?.description).toContain('06:30 Australia/Sydney');
    const stored = (await world.app.storage.ns('schedules').get(`guild:${world.guildId}`)) as {
      id: string;
      timezone: string;
      place: { label: string };
    }[];
    const added = stored.find((entry) => entry.place.label === 'Sydney, AU');
    expect(added?.timezone).toBe('Australia/Sydney');
    await schedule('remove', { id: added!.id }).reply();
  });

  it('takes nautical time for a place at sea when no zone is given', async () => {
    // 140° W: UTC−9, which IANA spells Etc/GMT+9.
    const atSea = encodePlace({ lat: 0, lon: -140, label: 'Mid-Pacific' });
    const saved = await schedule('add', { place: atSea, time: '06:30' }).reply();
    expect(saved.embeds[0]?.description).toContain('06:30 Etc/GMT+9');
    const stored = (await world.app.storage.ns('schedules').get(`guild:${world.guildId}`)) as {
      id: string;
      place: { label: string };
    }[];
    await schedule('remove', { id: stored.find((entry) => entry.place.label === 'Mid-Pacific')!.id }).reply();
  });

  it('shows a typed time zone or id back as typed, never as a clickable link', async () => {
    const zone = await schedule('add', {
      place: BERLIN,
      time: '08:00',
      timezone: '[x](http://evil.example)',
    }).reply();
    expect(zone.content).toBe(
      '“\\[x\\](http\\://evil.example)” is not a time zone. Pick one from the list, e.g. Europe/Berlin.',
    );
    const testing = schedule('test', { id: '`[x](http://e.x)' });
    // Acknowledged privately before the storage read, which may wait on locks or Redis.
    expect(await testing.waitForCallback()).toMatchObject({ type: 5, data: { flags: 64 } });
    const id = await testing.reply();
    expect(id.content).toBe(
      'There is no scheduled post “\\`\\[x\\](http\\://e.x)” on this server. See /weather schedule list.',
    );
  });

  it('posts once now with test, in the channel, with the embed', async () => {
    const list = await world.app.storage.ns('schedules').get(`guild:${world.guildId}`);
    const [first] = list as { id: string }[];
    const before = world.discord.messages(world.channelId).length;
    const reply = await schedule('test', { id: first!.id }).reply();
    expect(reply.content).toContain('Posted it');
    const posted = world.discord.messages(world.channelId).slice(before);
    expect(posted).toHaveLength(1);
    expect(posted[0]?.embeds[0]?.title).toContain('Berlin');
    // Names the schedule and its units, rather than sending readers to their own /weather units.
    expect(posted[0]?.embeds[0]?.footer?.text).toBe(`Scheduled post ${first!.id} · units: imperial`);
  });

  it('says why test could not post, privately, when the bot lost its permission in the channel', async () => {
    const channel = world.discord.createChannel(world.guildId, { name: 'closed-later' });
    await schedule('add', { place: BERLIN, time: '07:00', timezone: 'UTC', channel: channel.id }).reply();
    const list = (await world.app.storage.ns('schedules').get(`guild:${world.guildId}`)) as {
      id: string;
      channelId: string;
    }[];
    const added = list.find((entry) => entry.channelId === channel.id)!;
    world.discord.setBotPermissions(channel.id, { deny: PermissionFlagsBits.SendMessages });
    const reply = await schedule('test', { id: added.id }).reply();
    expect(reply.flags! & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    expect(reply.content).toBe(
      `Could not post in <#${channel.id}>: the bot lacks Send Messages in the channel.`,
    );
    await schedule('remove', { id: added.id }).reply();
  });

  it('takes back a post Discord stripped of its embeds (Embed Links taken away) and says why', async () => {
    const channel = world.discord.createChannel(world.guildId, { name: 'no-embeds-later' });
    world.discord.setBotPermissions(channel.id, { allow: VIEW_SEND });
    await schedule('add', { place: BERLIN, time: '07:00', timezone: 'UTC', channel: channel.id }).reply();
    const list = (await world.app.storage.ns('schedules').get(`guild:${world.guildId}`)) as {
      id: string;
      channelId: string;
    }[];
    const added = list.find((entry) => entry.channelId === channel.id)!;
    // Discord still takes the message, for its chart, and drops the embeds.
    world.discord.setBotPermissions(channel.id, { allow: VIEW_SEND, deny: PermissionFlagsBits.EmbedLinks });
    const reply = await schedule('test', { id: added.id }).reply();
    expect(reply.content).toBe(
      `Could not post in <#${channel.id}>: the bot lacks Embed Links in the channel.`,
    );
    expect(world.discord.messages(channel.id)).toEqual([]);
    await schedule('remove', { id: added.id }).reply();
  });

  it('pauses, resumes and removes a schedule', async () => {
    const [first] = (await world.app.storage.ns('schedules').get(`guild:${world.guildId}`)) as {
      id: string;
    }[];
    const pausing = schedule('pause', { id: first!.id });
    // Acknowledged privately before the storage work, which may wait on locks or Redis.
    expect(await pausing.waitForCallback()).toMatchObject({ type: 5, data: { flags: 64 } });
    expect((await pausing.reply()).embeds[0]?.description).toContain('⏸ paused by alice');
    expect((await schedule('list', {}, undefined, 'de').reply()).embeds[0]?.description).toContain(
      '⏸ pausiert von alice',
    );
    // An id typed in capitals, with a space pasted around it, is the same schedule (as suggested).
    expect(
      (await schedule('resume', { id: ` ${first!.id.toUpperCase()} ` }).reply()).embeds[0]?.description,
    ).toMatch(/next <t:/);
    const removed = (await schedule('remove', { id: first!.id }).reply()).embeds[0];
    expect(removed?.title).toBe('Scheduled weather post deleted');
    expect(removed?.description).toContain(first!.id);
    expect(removed?.description).not.toMatch(/next|paused/);
    expect((await schedule('list').reply()).embeds[0]?.description).toContain('None yet');
  });

  it('stores and shows a renamed time zone by its current name, as typed or by its old name', async () => {
    const store = world.app.storage.ns('schedules');
    for (const typed of ['Europe/Kyiv', 'europe/kiev']) {
      const saved = await schedule('add', { place: BERLIN, time: '07:00', timezone: typed }).reply();
      const [stored] = (await store.get(`guild:${world.guildId}`)) as { id: string; timezone: string }[];
      await schedule('remove', { id: stored!.id }).reply();
      expect(saved.embeds[0]?.description, typed).toContain('07:00 Europe/Kyiv, every day');
      expect(stored?.timezone, typed).toBe('Europe/Kyiv');
    }
  });

  it('offers schedule ids in autocomplete only to members with Manage Server', async () => {
    await schedule('add', { place: BERLIN, time: '06:00', timezone: 'UTC' }).reply();
    const [{ id }] = (await world.app.storage.ns('schedules').get(`guild:${world.guildId}`)) as [
      { id: string },
    ];
    const ids = async (subcommand: string, userId: string) =>
      (
        await world.discord.autocomplete({
          guildId: world.guildId,
          channelId: world.channelId,
          userId,
          name: 'weather',
          subcommandGroup: 'schedule',
          subcommand,
          options: { id: '' },
          focused: 'id',
        })
      ).map((c) => c.value);
    try {
      for (const subcommand of ['remove', 'pause', 'resume', 'test']) {
        expect(await ids(subcommand, world.alice.id), subcommand).toEqual([id]);
        expect(await ids(subcommand, world.bob.id), subcommand).toEqual([]);
      }
    } finally {
      await schedule('remove', { id }).reply();
    }
  });

  it('stores and shows a time zone typed in another case as IANA spells it', async () => {
    const saved = await schedule('add', {
      place: BERLIN,
      time: '07:00',
      timezone: ' america/chicago ',
    }).reply();
    expect(saved.embeds[0]?.description).toContain('07:00 America/Chicago, every day');
    const [stored] = (await world.app.storage.ns('schedules').get(`guild:${world.guildId}`)) as {
      id: string;
      timezone: string;
    }[];
    expect(stored?.timezone).toBe('America/Chicago');
    await schedule('remove', { id: stored!.id }).reply();
  });

  it('says a schedule is already paused, or not paused, and changes nothing', async () => {
    const store = world.app.storage.ns('schedules');
    await schedule('add', { place: BERLIN, time: '09:00', timezone: 'UTC' }).reply();
    const [{ id }] = (await store.get(`guild:${world.guildId}`)) as [{ id: string }];
    const running = await store.get(`guild:${world.guildId}`);
    const notPaused = await schedule('resume', { id }).reply();
    expect(notPaused.flags! & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    expect(notPaused.content).toBe(`The scheduled post “${id}” is not paused: nothing changed.`);
    expect(notPaused.embeds).toEqual([]);
    expect(await store.get(`guild:${world.guildId}`)).toEqual(running);

    await schedule('pause', { id }).reply();
    const paused = await store.get(`guild:${world.guildId}`);
    const again = await schedule('pause', { id }, undefined, 'de').reply();
    expect(again.content).toBe(
      `Der geplante Post „${id}“ ist bereits pausiert: Es wurde nichts geändert. \`/wetter zeitplan fortsetzen\` setzt ihn fort.`,
    );
    const inEnglish = await schedule('pause', { id }).reply();
    expect(inEnglish.content).toBe(
      `The scheduled post “${id}” is already paused: nothing changed. \`/weather schedule resume\` starts it again.`,
    );
    expect(await store.get(`guild:${world.guildId}`)).toEqual(paused);
    await schedule('remove', { id }).reply();
  });

  it('refuses a place of only spaces, saving and looking up nothing', async () => {
    const store = world.app.storage.ns('schedules');
    const before = await store.get(`guild:${world.guildId}`);
    const geocoded = world.weather!.requestCount({ path: '/geo/1.0/direct' });
    const reply = await schedule('add', { place: '   ', time: '07:00', timezone: 'UTC' }).reply();
    expect(reply.flags! & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    expect(reply.content).toBe(
      'The place is empty: type a place name, a postal code or coordinates, or pick a suggestion.',
    );
    expect(await store.get(`guild:${world.guildId}`)).toEqual(before);
    expect(world.weather!.requestCount({ path: '/geo/1.0/direct' })).toBe(geocoded);
  });

  it('pauses a schedule whose channel was deleted, and shows why in list', async () => {
    const doomed = world.discord.createChannel(world.guildId, { name: 'doomed' });
    world.discord.setBotPermissions(doomed.id, { allow: VIEW_SEND });
    const now = new Date();
    const hhmm = `${String(now.getUTCHours()).padStart(2, '0')}:${String(now.getUTCMinutes()).padStart(2, '0')}`;
    // Due this very minute, so the runner posts it at once (within the grace window).
    const store = world.app.storage.ns('schedules');
    await schedule('add', {
      place: BERLIN,
      time: hhmm,
      timezone: 'UTC',
      channel: doomed.id,
      kind: 'current',
    }).reply();
    const list = (await store.get(`guild:${world.guildId}`)) as { id: string; createdAt: number }[];
    // Created "an hour ago", so this minute's slot counts.
    await store.set(
      `guild:${world.guildId}`,
      list.map((s) => ({ ...s, createdAt: s.createdAt - 3_600_000 })),
    );
    world.discord.deleteChannel(doomed.id);
    await world.restart();
    await expect
      .poll(async () => (await schedule('list').reply()).embeds[0]?.description, { timeout: 10_000 })
      .toContain('paused: the channel was deleted');
    // Said in the reader's language, although the runner that paused it had no reader.
    expect((await schedule('list', {}, undefined, 'de').reply()).embeds[0]?.description).toContain(
      'pausiert: der Kanal wurde gelöscht',
    );
  });

  it('says in the list that the latest post was not made when the bot was down through its grace window', async () => {
    const channel = world.discord.createChannel(world.guildId, { name: 'missed-posts' });
    world.discord.setBotPermissions(channel.id, { allow: VIEW_SEND });
    // Due two hours ago, made three hours ago: its grace window (30 minutes) ended while the bot
    // was down.
    const due = new Date(Date.now() - 2 * 3_600_000);
    due.setUTCSeconds(0, 0);
    const hhmm = `${String(due.getUTCHours()).padStart(2, '0')}:${String(due.getUTCMinutes()).padStart(2, '0')}`;
    const saved = await schedule('add', {
      place: BERLIN,
      time: hhmm,
      timezone: 'UTC',
      channel: channel.id,
    }).reply();
    const id = /`([0-9a-f]{8})`/.exec(saved.embeds[0]?.description ?? '')?.[1];
    expect(id).toBeDefined();
    // Nothing to say while the schedule is newer than its latest run.
    expect((await schedule('list').reply()).embeds[0]?.description).not.toContain('was not made');
    const store = world.app.storage.ns<{ id: string; createdAt: number }[]>('schedules');
    await store.set(
      `guild:${world.guildId}`,
      (await store.get(`guild:${world.guildId}`))!.map((s) =>
        s.id === id ? { ...s, createdAt: s.createdAt - 3 * 3_600_000 } : s,
      ),
    );
    await world.restart();
    const run = due.getTime() / 1000;
    expect((await schedule('list').reply()).embeds[0]?.description).toMatch(
      new RegExp(
        `\`${id}\`[^\n]*\n[^\n]*\n⚠ The post of <t:${run}:f> was not made: the bot was not running then, or the weather service or Discord failed\\. The bot’s log says why\\.`,
      ),
    );
    expect(world.discord.messages(channel.id)).toHaveLength(0);
    // Paused, the schedule shows why it is paused instead.
    await schedule('pause', { id: id! }).reply();
    expect((await schedule('list').reply()).embeds[0]?.description).not.toContain('was not made');
    await schedule('remove', { id: id! }).reply();
  });

  it('pauses the schedules of a channel as soon as Discord says it was deleted, keeping them', async () => {
    const gone = world.discord.createChannel(world.guildId, { name: 'soon-gone' });
    world.discord.setBotPermissions(gone.id, { allow: VIEW_SEND });
    // Not due for hours: only the deletion can pause it.
    const later = new Date(Date.now() + 6 * 3_600_000);
    const hhmm = `${String(later.getUTCHours()).padStart(2, '0')}:${String(later.getUTCMinutes()).padStart(2, '0')}`;
    const saved = await schedule('add', {
      place: BERLIN,
      time: hhmm,
      timezone: 'UTC',
      channel: gone.id,
    }).reply();
    const id = /`([^`]+)`/.exec(saved.embeds[0]?.description ?? '')?.[1];
    expect(id).toBeDefined();
    world.discord.deleteChannel(gone.id);
    await expect
      .poll(async () => (await schedule('list').reply()).embeds[0]?.description, { timeout: 10_000 })
      .toMatch(new RegExp(`\`${id}\`[^\n]*\n[^\n]*paused: the channel was deleted`));
    const stored = (await world.app.storage.ns('schedules').get(`guild:${world.guildId}`)) as {
      id: string;
      channelId: string;
    }[];
    expect(stored.find((entry) => entry.id === id)?.channelId).toBe(gone.id);
    // Resumed, it would only be paused again at its next post.
    expect((await schedule('resume', { id: id! }).reply()).content).toBe(
      `The channel of this scheduled post, <#${gone.id}>, no longer exists: remove the post with ` +
        '`/weather schedule remove` and add it again for another channel with `/weather schedule add`.',
    );
    expect((await schedule('list').reply()).embeds[0]?.description).toMatch(
      new RegExp(`\`${id}\`[^\n]*\n[^\n]*paused: the channel was deleted`),
    );
    await schedule('remove', { id: id! }).reply();
  });

  it('will not resume a schedule where the bot still lacks a permission, and names it', async () => {
    const channel = world.discord.createChannel(world.guildId, { name: 'muted-later' });
    world.discord.setBotPermissions(channel.id, { allow: VIEW_SEND });
    const saved = await schedule('add', {
      place: BERLIN,
      time: '07:00',
      timezone: 'UTC',
      channel: channel.id,
    }).reply();
    const id = /`([^`]+)`/.exec(saved.embeds[0]?.description ?? '')?.[1];
    await schedule('pause', { id: id! }).reply();
    world.discord.setBotPermissions(channel.id, {
      allow: PermissionFlagsBits.ViewChannel,
      deny: PermissionFlagsBits.SendMessages,
    });
    const guild = world.app.client.guilds.cache.get(world.guildId)!;
    const me = () => guild.members.me!;
    await vi.waitFor(() =>
      expect(
        guild.channels.cache.get(channel.id)?.permissionsFor(me())?.has(PermissionFlagsBits.SendMessages),
      ).toBe(false),
    );
    const refused = await schedule('resume', { id: id! }).reply();
    expect(refused.content).toBe(
      `I cannot post in <#${channel.id}>: I am missing Send Messages there. ` +
        'Give me this permission in that channel, or pick another channel.',
    );
    expect(refused.flags! & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    expect((await schedule('list').reply()).embeds[0]?.description).toMatch(
      new RegExp(`\`${id}\`[^\n]*\n[^\n]*paused by alice`),
    );

    world.discord.setBotPermissions(channel.id, { allow: VIEW_SEND });
    await vi.waitFor(() =>
      expect(
        guild.channels.cache.get(channel.id)?.permissionsFor(me())?.has(PermissionFlagsBits.SendMessages),
      ).toBe(true),
    );
    expect((await schedule('resume', { id: id! }).reply()).embeds[0]?.description).toMatch(/next <t:/);
    await schedule('remove', { id: id! }).reply();
  });

  it('while the bot is timed out: saves with the time posting starts again, skips due posts without pausing, posts after', async () => {
    const channel = world.discord.createChannel(world.guildId, { name: 'muted' });
    const until = new Date(Date.now() + 3_600_000);
    const untilNote = `I am timed out on this server until <t:${Math.floor(until.getTime() / 1000)}:f>`;
    world.discord.timeoutMember(world.guildId, world.discord.botUser.id, until);
    const me = () => world.app.client.guilds.cache.get(world.guildId)?.members.me;
    await vi.waitFor(() => expect(me()?.communicationDisabledUntilTimestamp).toBe(until.getTime()));
    // The storage of the bot running now (a restart below opens it again).
    const store = () => world.app.storage.ns<Record<string, unknown>[]>('schedules');
    const list = async () => (await store().get(`guild:${world.guildId}`)) ?? [];
    const before = (await list()).length;

    // Asked for another channel, and from the channel itself (whose permissions the emulator sends
    // masked by the timeout; Discord does not document either way): saved, not refused for
    // permissions the timeout takes away for a while.
    const elsewhere = await schedule('add', {
      place: BERLIN,
      // Another time than `addIn`'s: the same post in the same channel is refused as a duplicate.
      time: '07:45',
      timezone: 'UTC',
      channel: channel.id,
    }).reply();
    expect(elsewhere.embeds[0]?.title).toBe('Scheduled weather post saved');
    expect(elsewhere.content).toContain(untilNote);
    const here = await addIn(channel.id);
    expect(here.embeds[0]?.title).toBe('Scheduled weather post saved');
    expect(here.content).toContain(untilNote);
    const added = (await list()).slice(before) as { id: string; createdAt: number; time: string }[];
    expect(added).toHaveLength(2);
    const test = await schedule('test', { id: added[0]!.id }).reply();
    expect(test.content).toBe(
      `Could not post in <#${channel.id}>: ${untilNote}: posts due before then are skipped, and they start again by themselves after it.`,
    );

    // Due this minute (created an hour ago): Discord refuses the post for a missing permission, and
    // the runner skips that run rather than pausing the schedule for good.
    const now = new Date();
    const hhmm = `${String(now.getUTCHours()).padStart(2, '0')}:${String(now.getUTCMinutes()).padStart(2, '0')}`;
    await store().set(
      `guild:${world.guildId}`,
      (await list()).map((s) =>
        s['id'] === added[0]!.id
          ? { ...s, time: hhmm, createdAt: (s['createdAt'] as number) - 3_600_000 }
          : s,
      ),
    );
    await world.restart();
    await vi.waitFor(() => expect(world.logs.join('')).toContain('the bot is timed out on the server'), {
      timeout: 10_000,
    });
    expect((await list()).find((s) => s['id'] === added[0]!.id)?.['paused']).toBeUndefined();
    expect(world.discord.messages(channel.id)).toHaveLength(0);

    world.discord.timeoutMember(world.guildId, world.discord.botUser.id, null);
    expect((await schedule('test', { id: added[0]!.id }).reply()).content).toBe(
      `Posted it in <#${channel.id}>.`,
    );
    expect(world.discord.messages(channel.id)).toHaveLength(1);
    for (const { id } of added) await schedule('remove', { id }).reply();
  });
  it('posts in the units the member chose with /weather units when the schedule names none', async () => {
    await world.slash('weather', { subcommand: 'units', options: { units: 'metric' } }).reply();
    try {
      const saved = await schedule('add', {
        place: BERLIN,
        time: '06:15',
        timezone: 'Europe/Berlin',
      }).reply();
      const id = /`([0-9a-f]{8})`/.exec(saved.embeds[0]?.description ?? '')?.[1];
      const stored = (
        (await world.app.storage.ns('schedules').get(`guild:${world.guildId}`)) as {
          id: string;
          units: string;
        }[]
      ).find((s) => s.id === id);
      expect(stored?.units).toBe('metric');
      await schedule('remove', { id: id! }).reply();
    } finally {
      await world.slash('weather', { subcommand: 'units', options: { units: 'auto' } }).reply();
    }
  });
});
