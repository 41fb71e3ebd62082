import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { InteractionHandle } from '../../emulators/discord/index.js';
import type { EmulatedMessage } from '../../emulators/discord/world.js';
import { startBotWorld, type BotWorld } from '../helpers/bot.js';

const EPHEMERAL = 64;

function button(message: EmulatedMessage, label: string): { custom_id: string; disabled?: boolean } {
  for (const row of message.components ?? []) {
    for (const component of (
      row as { components?: { label?: string; custom_id?: string; disabled?: boolean }[] }
    ).components ?? []) {
      if (component.custom_id !== undefined && component.label?.includes(label))
        return { custom_id: component.custom_id, ...(component.disabled ? { disabled: true } : {}) };
    }
  }
  throw new Error(`no button "${label}" on the message`);
}

/** Whether an interaction was acknowledged in private (an ephemeral deferral). */
const ackedPrivately = async (handle: InteractionHandle) =>
  (((await handle.waitForCallback()).data as { flags?: number } | undefined)?.flags ?? 0) & EPHEMERAL;

/**
 * The answer only the member sees: the command's own reply when it was acknowledged in private, else
 * the follow-up.
 */
const privateAnswer = async (handle: InteractionHandle) =>
  (await ackedPrivately(handle)) ? handle.reply() : handle.waitForFollowUp();

/**
 * What the member sees of a command about a private playlist (Road trip is Alice's private one):
 * an answer only they can see, saying why; the channel keeps nothing of it. When the bot knew it
 * private beforehand, that is the command's own (ephemeral) reply; otherwise a private follow-up,
 * the public "thinking…" message deleted.
 */
const privately = async (handle: InteractionHandle) => {
  const known = await ackedPrivately(handle);
  const answer = await privateAnswer(handle);
  expect((answer.flags ?? 0) & EPHEMERAL).toBe(EPHEMERAL);
  expect(answer.content).toBe('🔒 This playlist is private, so I did not show it in the channel.');
  if (!known) await vi.waitFor(() => expect(handle.original()).toBeUndefined());
  return answer;
};

/** What `/music playlist <subcommand>` suggests to `userId` for `typed` in its playlist option. */
const suggestionsIn = (world: BotWorld, subcommand: string, typed: string, userId: string) =>
  world.discord.autocomplete({
    guildId: world.guildId,
    channelId: world.channelId,
    userId,
    name: 'music',
    subcommandGroup: 'playlist',
    subcommand,
    options: { playlist: typed },
    focused: 'playlist',
  });

/** What a member is told, privately, of an edit to a playlist that is not theirs to change. */
const notYours = (name: string) =>
  `“${name}” is not yours: you can only change playlists you own or collaborate on.`;
const refusedAsNotYours = async (handle: InteractionHandle, name: string) => {
  const answer = await handle.waitForFollowUp();
  expect(answer.flags! & EPHEMERAL).toBe(EPHEMERAL);
  expect(answer.content).toBe(notYours(name));
};

const itemLines = (message: EmulatedMessage) =>
  (message.embeds[0]?.description ?? '').split('\n').filter((line) => /^`[\d,]+\.`/.test(line));

describe('playlists: pages, autocomplete and edits', () => {
  let world: BotWorld;
  let big: string;
  let roadTrip: string;
  let bobPicks: string;
  let trackIds: string[];
  let episodeIds: string[];

  beforeAll(async () => {
    world = await startBotWorld({ music: true });
    const fixtures = world.music!.fixtures!;
    ({ big, roadTrip, bobPicks } = fixtures.playlists);
    ({ trackIds, episodeIds } = fixtures);
    await world.linkMusic(world.alice.id, fixtures.users.premium);
    await world.linkMusic(world.bob.id, fixtures.users.free);
  });
  afterAll(async () => {
    await world?.close();
  });

  const click = (message: EmulatedMessage, label: string, userId = world.alice.id) =>
    world.discord.clickButton({
      userId,
      message,
      customId: button(message, label).custom_id,
      guildId: world.guildId,
      channelId: world.channelId,
    });
  /** A member of their own, linked to a new premium music account `<username>-music`. */
  const linkedMember = async (username: string, displayName: string) => {
    world.music!.createUser({ id: `${username}-music`, displayName, product: 'premium' });
    const member = world.discord.createUser({ username, locale: 'en-US' });
    await world.linkMusic(member.id, `${username}-music`);
    return member;
  };
  const playlist = (subcommand: string, options: Record<string, string | number>, userId = world.alice.id) =>
    world.slash('music', { subcommandGroup: 'playlist', subcommand, options, userId });

  it('offers the member’s own playlists in autocomplete', async () => {
    const ask = (typed: string) =>
      world.discord.autocomplete({
        guildId: world.guildId,
        channelId: world.channelId,
        userId: world.alice.id,
        name: 'music',
        subcommandGroup: 'playlist',
        subcommand: 'view',
        options: { playlist: typed },
        focused: 'playlist',
      });
    const all = await ask('');
    expect(all.map((choice) => choice.value)).toEqual(expect.arrayContaining([big, roadTrip]));
    expect(all.find((choice) => choice.value === big)?.name).toBe(
      'Everything, Forever — 10,000 items · Alice',
    );
    expect(await ask('road')).toEqual([{ name: 'Road trip — 30 items · Alice', value: roadTrip }]);
    // A pasted id, URI or link finds its playlist (ids are case-sensitive).
    for (const pasted of [
      roadTrip,
      `service:playlist:${roadTrip}`,
      `https://open.service.example/playlist/${roadTrip}`,
    ])
      expect((await ask(pasted)).map((choice) => choice.value)).toEqual([roadTrip]);
  });

  it('suggests for the edits only the playlists the member may change', async () => {
    // Bob's music account follows Alice's big playlist, owns his picks and collaborates on one of
    // Alice's. (A member of its own, so the copy of the list it leaves does not answer other tests.)
    const member = world.discord.createUser({ username: 'bob-too' });
    await world.linkMusic(member.id, world.music!.fixtures!.users.free);
    const ask = (subcommand: string) =>
      world.discord.autocomplete({
        guildId: world.guildId,
        channelId: world.channelId,
        userId: member.id,
        name: 'music',
        subcommandGroup: 'playlist',
        subcommand,
        options: { playlist: '' },
        focused: 'playlist',
      });
    const { shared } = world.music!.fixtures!.playlists;
    const viewable = (await ask('view')).map((choice) => choice.value);
    expect(viewable).toEqual(expect.arrayContaining([big, bobPicks, shared]));
    for (const edit of ['add', 'remove', 'move', 'replace']) {
      const editable = (await ask(edit)).map((choice) => choice.value);
      expect(editable.sort()).toEqual([bobPicks, shared].sort());
    }
  });

  it('finds a playlist past the member’s first 50, by suggestion and by its typed name', async () => {
    const music = world.music!;
    const carol = await linkedMember('carol', 'Carol');
    const old = music.createPlaylist('carol-music', {
      name: 'Old favourites',
      uris: [`service:track:${trackIds[0]}`],
    });
    // Newer ones push it past the first page of 50, as the service lists the newest first.
    for (let i = 0; i < 55; i++) music.createPlaylist('carol-music', { name: `Filler ${i}` });
    const suggested = await world.discord.autocomplete({
      guildId: world.guildId,
      channelId: world.channelId,
      userId: carol.id,
      name: 'music',
      subcommandGroup: 'playlist',
      subcommand: 'view',
      options: { playlist: 'old fav' },
      focused: 'playlist',
    });
    expect(suggested.map((choice) => choice.value)).toEqual([old]);
    const page = await playlist('view', { playlist: 'Old favourites' }, carol.id).reply();
    expect(page.embeds[0]?.title).toBe('Old favourites');
  });

  it('shows 10 items a page, with null, local and episode items in their place', async () => {
    const page = await playlist('view', { playlist: big }).reply();
    expect(page.flags ?? 0).toBe(0);
    expect(page.embeds[0]?.title).toBe('Everything, Forever');
    expect(page.embeds[0]?.footer?.text).toBe('Page 1 of 1,000 · items 1–10 of 10,000');
    const lines = itemLines(page);
    expect(lines).toHaveLength(10);
    expect(lines[2]).toContain('Unavailable');
    expect(lines[4]).toMatch(/💾 Demo \(garage take\).*local file/);
    // The service sends the episode in the track format (the bot asks for no other): its show still shows.
    expect(lines[6]).toMatch(/🎙️ Episode 1.* — The Long Listen/);
    expect(button(page, 'First').disabled).toBe(true);
    expect(button(page, 'Previous').disabled).toBe(true);
  });

  it('pages to the last page of 10,000 items with exactly one music call per click', async () => {
    const first = await playlist('view', { playlist: big }).reply();
    world.music!.resetCounters();
    const last = await click(first, 'Last').waitForEdit();
    expect(world.music!.requestCount({ path: /^\/v1\// })).toBe(1);
    expect(world.music!.requestCount()).toBe(1);
    expect(last.embeds[0]?.footer?.text).toBe('Page 1,000 of 1,000 · items 9,991–10,000 of 10,000');
    expect(itemLines(last)[9]).toMatch(/^`10,000\.` 🎙️/);
    expect(button(last, 'Next').disabled).toBe(true);

    world.music!.resetCounters();
    const previous = await click(last, 'Previous').waitForEdit();
    expect(world.music!.requestCount()).toBe(1);
    expect(previous.embeds[0]?.footer?.text).toMatch(/^Page 999 of 1,000/);

    world.music!.resetCounters();
    const back = await click(previous, 'First').waitForEdit();
    expect(world.music!.requestCount()).toBe(1);
    expect(back.embeds[0]?.footer?.text).toMatch(/^Page 1 of 1,000/);

    world.music!.resetCounters();
    const second = await click(back, 'Next').waitForEdit();
    expect(world.music!.requestCount()).toBe(1);
    expect(second.embeds[0]?.footer?.text).toBe('Page 2 of 1,000 · items 11–20 of 10,000');
  });

  it('says a playlist it can no longer open is gone, and takes the page buttons off its message', async () => {
    const music = world.music!;
    const uris = trackIds.slice(0, 25).map((id) => `service:track:${id}`);
    const id = music.createPlaylist('alice', { name: 'Soon gone', uris });
    const page = await playlist('view', { playlist: id }).reply();
    music.failNext(`/v1/playlists/${id}/tracks`, 404);
    const press = click(page, 'Next');
    const answer = await press.waitForFollowUp();
    expect(answer.flags! & EPHEMERAL).toBe(EPHEMERAL);
    expect(answer.content).toBe('This playlist no longer exists: its pages cannot be turned any more.');
    // The message keeps what it showed, without buttons that would fail each time.
    const kept = await press.waitForEdit();
    expect(kept.components ?? []).toEqual([]);
    expect(kept.embeds[0]?.title).toBe('Soon gone');
  });

  it('goes from Last to the true last page of a playlist that has grown since it was shown', async () => {
    const id = world.music!.createPlaylist('alice', {
      name: 'Growing',
      uris: trackIds.slice(0, 25).map((track) => `service:track:${track}`),
    });
    const page = await playlist('view', { playlist: id }).reply();
    expect(page.embeds[0]?.footer?.text).toBe('Page 1 of 3 · items 1–10 of 25');
    const more = trackIds.slice(25, 55).map((track) => `service:track:${track}`);
    await playlist('add', { playlist: id, items: more.join(' ') }).reply();
    const last = await click(page, 'Last').waitForEdit();
    expect(last.embeds[0]?.footer?.text).toBe('Page 6 of 6 · items 51–55 of 55');
    expect(button(last, 'Next').disabled).toBe(true);
  });

  it('takes the name of one of the member’s playlists typed without picking a suggestion', async () => {
    const page = await privately(playlist('view', { playlist: '  road TRIP ' }));
    expect(page.embeds[0]?.title).toBe('Road trip');
  });

  it('refuses a typed name two of the member’s playlists share, for every command, and changes neither', async () => {
    const music = world.music!;
    const gina = await linkedMember('gina', 'Gina');
    const older = music.createPlaylist('gina-music', {
      name: 'Chill',
      uris: [`service:track:${trackIds[0]}`],
    });
    const newer = music.createPlaylist('gina-music', {
      name: 'Chill',
      uris: trackIds.slice(1, 3).map((id) => `service:track:${id}`),
    });
    const refusal =
      'You have 2 playlists called “Chill” (2 items, 1 item): pick one from the suggestions, or give its link.';
    for (const [subcommand, options] of [
      ['view', {}],
      ['add', { items: trackIds[3]! }],
      ['move', { from: 1, to: 2 }],
      ['remove', { position: 1 }],
      ['replace', { items: trackIds[3]! }],
    ] as const) {
      const answer = await privateAnswer(
        playlist(subcommand, { playlist: subcommand === 'add' ? 'chill' : 'Chill', ...options }, gina.id),
      );
      expect(answer.flags! & EPHEMERAL).toBe(EPHEMERAL);
      expect(answer.content).toBe(refusal);
    }
    expect(music.playlist(older)!.uris).toEqual([`service:track:${trackIds[0]}`]);
    expect(music.playlist(newer)!.uris).toEqual(trackIds.slice(1, 3).map((id) => `service:track:${id}`));
    // Picked from the suggestions, each is the one meant.
    const added = await playlist('add', { playlist: older, items: trackIds[3]! }, gina.id).reply();
    expect(added.embeds[0]?.description).toContain('Added 1 item at position 2.');
  });

  it('finds a playlist by a name typed without its accents, curly apostrophe or emoji', async () => {
    const music = world.music!;
    const hana = await linkedMember('hana', 'Hana');
    const curly = music.createPlaylist('hana-music', { name: 'Alice’s mix' });
    music.createPlaylist('hana-music', { name: 'Café Vibes' });
    music.createPlaylist('hana-music', { name: '🚗 Road Songs' });
    const titleFor = async (typed: string) =>
      (await playlist('view', { playlist: typed }, hana.id).reply()).embeds[0]?.title;
    expect(await titleFor("Alice's mix")).toBe('Alice’s mix');
    expect(await titleFor('cafe vibes')).toBe('Café Vibes');
    expect(await titleFor('Road Songs')).toBe('🚗 Road Songs');
    expect(await suggestFor('view', 'cafe', hana.id)).toEqual(['Café Vibes — 0 items · Hana']);
    expect(await suggestFor('add', "alice's", hana.id)).toEqual(['Alice’s mix — 0 items · Hana']);
    expect(await suggestFor('add', 'road songs', hana.id)).toEqual(['🚗 Road Songs — 0 items · Hana']);
    await playlist('add', { playlist: "alice's mix", items: trackIds[0]! }, hana.id).reply();
    expect(music.playlist(curly)!.uris).toEqual([`service:track:${trackIds[0]}`]);

    // Of two names that fold alike, the one named exactly as typed is taken, not refused as two.
    const ivan = await linkedMember('ivan', 'Ivan');
    const ivanCurly = music.createPlaylist('ivan-music', { name: 'Alice’s mix' });
    const ivanStraight = music.createPlaylist('ivan-music', { name: "Alice's mix" });
    await playlist('add', { playlist: "alice's mix", items: trackIds[1]! }, ivan.id).reply();
    await playlist('add', { playlist: 'Alice’s mix', items: trackIds[2]! }, ivan.id).reply();
    expect(music.playlist(ivanStraight)!.uris).toEqual([`service:track:${trackIds[1]}`]);
    expect(music.playlist(ivanCurly)!.uris).toEqual([`service:track:${trackIds[2]}`]);
  });

  it('shows a private playlist to the member alone, and leaves nothing of it in the channel', async () => {
    // The suggestions read the member's playlists, so the bot knows Road trip is private before it
    // acknowledges: not even "thinking…" shows in the channel.
    expect(await suggestFor('view', 'road')).toEqual(['Road trip — 30 items · Alice']);
    const handle = playlist('view', { playlist: roadTrip });
    expect(await ackedPrivately(handle)).toBe(EPHEMERAL);
    const page = await privately(handle);
    expect(handle.followUps).toEqual([]);
    expect(page.embeds[0]?.title).toBe('Road trip');
    expect(itemLines(page)).toHaveLength(10);
    // Its pages turn in the private answer.
    const next = await click(page, 'Next').waitForEdit();
    expect(next.embeds[0]?.footer?.text).toMatch(/^Page 2 of \d+ · items 11–20 of /);
    expect(next.content).toBe(page.content);
    const seen = JSON.stringify(world.discord.messages(world.channelId));
    expect(seen).not.toContain('Road trip');
    expect(seen).not.toContain(world.music!.playlist(roadTrip)!.uris[0]!.split(':').at(-1));
  });

  it('answers privately about a private playlist the bot has not seen yet, then acknowledges its next command in private', async () => {
    const music = world.music!;
    const erin = await linkedMember('erin', 'Erin');
    const diary = music.createPlaylist('erin-music', {
      name: 'Diary',
      public: false,
      uris: [`service:track:${trackIds[0]}`],
    });
    // Given by its id, no suggestion asked for: the bot learns it is private only by reading it.
    const first = playlist('view', { playlist: diary }, erin.id);
    expect(await ackedPrivately(first)).toBe(0);
    const page = await privately(first);
    expect(page.embeds[0]?.title).toBe('Diary');
    expect(JSON.stringify(world.discord.messages(world.channelId))).not.toContain('Diary');
    // Now it knows.
    const again = playlist('add', { playlist: diary, items: trackIds[1]! }, erin.id);
    expect(await ackedPrivately(again)).toBe(EPHEMERAL);
    expect((await privately(again)).embeds[0]?.description).toContain('Added 1 item at position 2.');
  });

  it('jumps to a page given in the command, showing a local file deep in the list', async () => {
    const page = await playlist('view', { playlist: big, page: 746 }).reply();
    expect(itemLines(page)[1]).toMatch(/^`7,452\.` 💾 Untitled 12/);
  });

  it('shows the last page, and says so, for a page past the end', async () => {
    const page = await privately(playlist('view', { playlist: roadTrip, page: 9_999 }));
    expect(page.embeds[0]?.description).toContain('**There is no page 9,999: this is the last.**');
    expect(page.embeds[0]?.footer?.text).toMatch(/^Page (\d+) of \1 · /);
  });

  it('lets only the member who opened a page turn it', async () => {
    const page = await playlist('view', { playlist: big }).reply();
    world.music!.resetCounters();
    const note = await click(page, 'Next', world.bob.id).reply();
    expect(note.flags! & EPHEMERAL).toBe(EPHEMERAL);
    expect(note.content).toBe(
      `This is <@${world.alice.id}>’s playlist view: only they can use its buttons. Run the command yourself to get your own.`,
    );
    expect(world.music!.requestCount()).toBe(0);
  });

  const suggestFor = async (subcommand: string, typed: string, userId = world.alice.id) =>
    (await suggestionsIn(world, subcommand, typed, userId)).map((choice) => choice.name);

  it('adds items at a position and shows the page where they landed', async () => {
    const uris = [`service:track:${trackIds[0]}`, `https://open.service.example/episode/${episodeIds[2]}`];
    expect(await suggestFor('add', 'road')).toEqual(['Road trip — 30 items · Alice']);
    const result = await privately(
      playlist('add', { playlist: roadTrip, items: uris.join(', '), position: 12 }),
    );
    expect(result.embeds[0]?.description).toContain('Added 2 items at position 12.');
    expect(result.embeds[0]?.footer?.text).toBe('Page 2 of 4 · items 11–20 of 32');
    const view = world.music!.playlist(roadTrip)!;
    expect(view.length).toBe(32);
    expect(view.uris.slice(11, 13)).toEqual([
      `service:track:${trackIds[0]}`,
      `service:episode:${episodeIds[2]}`,
    ]);
    // The suggestions, answered from a copy of the member's playlists under a minute old, show the
    // count after the member's own change, not the one from before.
    expect(await suggestFor('move', 'road')).toEqual(['Road trip — 32 items · Alice']);
  });

  it('reads playlist and item links wrapped in <> or brackets, or ending a sentence', async () => {
    const id = world.music!.createPlaylist('alice', {
      name: 'Wrapped',
      uris: [`service:track:${trackIds[0]}`],
    });
    const page = await playlist('view', {
      playlist: `<https://open.service.example/playlist/${id}?si=AbC123>.`,
    }).reply();
    expect(page.embeds[0]?.title).toBe('Wrapped');
    const added = await playlist('add', {
      playlist: `(service:playlist:${id})`,
      items: `<https://open.service.example/track/${trackIds[1]}>, “${trackIds[2]}”.`,
    }).reply();
    expect(added.embeds[0]?.description).toContain('Added 2 items at position 2.');
    expect(world.music!.playlist(id)!.uris).toEqual(
      trackIds.slice(0, 3).map((track) => `service:track:${track}`),
    );
  });

  it('shows in the suggestions the count a view has just read, after a change made in the music app', async () => {
    const music = world.music!;
    const dana = await linkedMember('dana', 'Dana');
    const radio = music.createPlaylist('dana-music', {
      name: 'Kitchen radio',
      uris: [`service:track:${trackIds[0]}`],
    });
    expect(await suggestFor('view', 'kitchen', dana.id)).toEqual(['Kitchen radio — 1 item · Dana']);
    // Dana adds a track in the music app, not through the bot.
    const token = music.issueUserToken('dana-music', ['playlist-modify-private', 'playlist-modify-public']);
    const added = await fetch(`${music.apiUrl}/v1/playlists/${radio}/tracks`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token.access_token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ uris: [`service:track:${trackIds[1]}`] }),
    });
    expect(added.status).toBe(201);
    // The suggestions come from a copy of Dana's playlists for a minute; a view reads the playlist.
    expect(await suggestFor('view', 'kitchen', dana.id)).toEqual(['Kitchen radio — 1 item · Dana']);
    const page = await playlist('view', { playlist: radio }, dana.id).reply();
    expect(page.embeds[0]?.footer?.text).toBe('Page 1 of 1 · items 1–2 of 2');
    expect(await suggestFor('view', 'kitchen', dana.id)).toEqual(['Kitchen radio — 2 items · Dana']);
  });

  it('moves items and shows the result', async () => {
    const before = world.music!.playlist(roadTrip)!.uris;
    const result = await privately(playlist('move', { playlist: roadTrip, from: 1, to: 3, count: 2 }));
    expect(result.embeds[0]?.description).toContain('Moved 2 items from position 1 to 3.');
    const after = world.music!.playlist(roadTrip)!.uris;
    expect(after.slice(2, 4)).toEqual(before.slice(0, 2));
    expect(after[0]).toBe(before[2]);
  });

  it('asks before removing, lets only the invoker confirm, then removes and shows the result', async () => {
    // A public playlist, so the prompt is in the channel for anyone to press.
    const gym = world.music!.createPlaylist('alice', {
      name: 'Gym',
      uris: trackIds.slice(20, 45).map((id) => `service:track:${id}`),
    });
    const before = world.music!.playlist(gym)!.uris;
    const prompt = await playlist('remove', { playlist: gym, position: 2, count: 3 }).reply();
    expect(prompt.flags ?? 0).toBe(0);
    expect(prompt.embeds[0]?.title).toBe('Remove from “Gym”?');
    expect(prompt.embeds[0]?.description).toMatch(/^These 3 items of \d+ would be removed:/);
    expect(itemLines(prompt).map((line) => line.split(' ')[0])).toEqual(['`2.`', '`3.`', '`4.`']);
    expect(world.music!.playlist(gym)!.length).toBe(before.length);

    const refused = await click(prompt, 'Remove 3 items', world.bob.id).reply();
    expect(refused.flags! & EPHEMERAL).toBe(EPHEMERAL);
    expect(world.music!.playlist(gym)!.length).toBe(before.length);

    const done = await click(prompt, 'Remove 3 items').waitForEdit();
    expect(done.embeds[0]?.description).toContain('Removed 3 items from position 2.');
    expect(done.components?.flatMap((row) => (row as { components: unknown[] }).components)).toHaveLength(4);
    expect(world.music!.playlist(gym)!.uris).toEqual([before[0], ...before.slice(4)]);
  });

  it('shows every copy of a track that a removal takes, since the service removes them all, and removes them', async () => {
    // Put a second copy of item 1 at the end; the playlist may hold more already.
    const first = world.music!.playlist(roadTrip)!.uris[0]!;
    await privately(playlist('add', { playlist: roadTrip, items: first }));
    const before = world.music!.playlist(roadTrip)!.uris;
    const copies = before.flatMap((uri, index) => (index > 0 && uri === first ? [index + 1] : []));
    expect(copies.at(-1)).toBe(before.length);

    const prompt = await privately(playlist('remove', { playlist: roadTrip, position: 1 }));
    expect(prompt.embeds[0]?.description).toMatch(/^This item of \d+ would be removed:/);
    const where = copies.length === 1 ? 'the copy at position' : 'the copies at positions';
    expect(prompt.embeds[0]?.description).toContain(
      `The service removes every copy of a track, so ${where} ${copies.join(' · ')} would go too.`,
    );
    expect(world.music!.playlist(roadTrip)!.length).toBe(before.length);

    const done = await click(prompt, `Remove ${copies.length + 1} items`).waitForEdit();
    const other = copies.length === 1 ? '1 other copy' : `${copies.length} other copies`;
    expect(done.embeds[0]?.description).toContain(`Removed 1 item from position 1, and ${other} of it.`);
    expect(world.music!.playlist(roadTrip)!.uris).toEqual(before.filter((uri) => uri !== first));
  });

  it('refuses a removal whose items moved since the prompt', async () => {
    const prompt = await privately(playlist('remove', { playlist: roadTrip, position: 1 }));
    await privately(playlist('move', { playlist: roadTrip, from: 1, to: 5 }));
    const length = world.music!.playlist(roadTrip)!.length;
    // The prompt itself says so, and its buttons go: pressing again would fail the same way.
    const ended = await click(prompt, 'Remove 1 item').waitForEdit();
    expect(ended.content).toBe(
      'The playlist changed since you asked: nothing was removed. Run /music playlist remove again.',
    );
    expect(ended.embeds).toEqual([]);
    expect(ended.components).toEqual([]);
    expect(world.music!.playlist(roadTrip)!.length).toBe(length);
  });

  it('refuses, before asking, to remove a local file or a removed track, and changes nothing', async () => {
    // Item 5 is a local file: the service lists it with a `…:local:…` URI of its own form, which it
    // refuses in every request; item 3 is a track the service no longer has.
    const length = world.music!.playlist(big)!.length;
    const local = await playlist('remove', { playlist: big, position: 4, count: 2 }).waitForFollowUp();
    expect(local.flags! & EPHEMERAL).toBe(EPHEMERAL);
    expect(local.content).toMatch(
      /^Item 5 cannot be removed by the bot: .*local files.*Remove it in the app\.$/,
    );
    const both = await playlist('remove', { playlist: big, position: 3, count: 3 }).waitForFollowUp();
    expect(both.content).toMatch(/^Items 3 and 5 cannot be removed by the bot: .*Remove them in the app\.$/);
    expect(world.music!.playlist(big)!.length).toBe(length);
  });

  it('after removing every item of the last page, shows the new last page, not an empty one past the end', async () => {
    const before = world.music!.playlist(roadTrip)!.uris;
    const length = before.length;
    expect(length).toBeGreaterThan(10);
    const lastPageStart = Math.floor((length - 1) / 10) * 10 + 1;
    const count = length - lastPageStart + 1;
    // Copies of the last page's tracks further up go too (the service removes every copy).
    const last = new Set(before.slice(lastPageStart - 1));
    const left = before.slice(0, lastPageStart - 1).filter((uri) => !last.has(uri)).length;
    const prompt = await privately(
      playlist('remove', { playlist: roadTrip, position: lastPageStart, count }),
    );
    const done = await click(prompt, `Remove ${length - left} item`).waitForEdit();
    const pages = Math.ceil(left / 10);
    expect(done.embeds[0]?.description).toContain(`Removed ${count} item`);
    expect(done.embeds[0]?.footer?.text).toBe(
      `Page ${pages} of ${pages} · items ${(pages - 1) * 10 + 1}–${left} of ${left}`,
    );
    expect(itemLines(done)).toHaveLength(left - (pages - 1) * 10);
    if (pages > 1) expect(button(done, 'Previous').disabled).toBeUndefined();
  });

  it('cancels a confirmation without changing anything', async () => {
    const length = world.music!.playlist(roadTrip)!.length;
    const prompt = await privately(playlist('remove', { playlist: roadTrip, position: 1 }));
    const cancelled = await click(prompt, 'Cancel').reply();
    expect(cancelled.content).toBe('Cancelled: nothing was removed.');
    expect(cancelled.components).toEqual([]);
    expect(world.music!.playlist(roadTrip)!.length).toBe(length);
  });

  it('asks before replacing every item, then replaces them (even after a restart)', async () => {
    // A public playlist, so the prompt is in the channel for anyone to press.
    const mix = world.music!.createPlaylist('alice', {
      name: 'Mix',
      uris: trackIds.slice(40, 45).map((id) => `service:track:${id}`),
    });
    const items = trackIds.slice(5, 8).join(' ');
    const prompt = await playlist('replace', { playlist: mix, items }).reply();
    expect(prompt.flags ?? 0).toBe(0);
    expect(prompt.embeds[0]?.title).toBe('Replace every item of “Mix”?');
    await world.restart();
    const refused = await click(prompt, 'Replace with 3 items', world.bob.id).reply();
    expect(refused.flags! & EPHEMERAL).toBe(EPHEMERAL);
    const done = await click(prompt, 'Replace with 3 items').waitForEdit();
    expect(done.embeds[0]?.description).toContain('Replaced every item: the playlist now holds 3 items.');
    expect(world.music!.playlist(mix)!.uris).toEqual(trackIds.slice(5, 8).map((id) => `service:track:${id}`));
    expect(done.components).toEqual([]);
  });

  it('replaces nothing when the playlist changed between the prompt and the confirmation', async () => {
    const prompt = await privately(playlist('replace', { playlist: roadTrip, items: trackIds[9]! }));
    // Someone (a collaborator, another device) adds an item meanwhile.
    await privately(playlist('add', { playlist: roadTrip, items: trackIds[10]! }));
    const changed = world.music!.playlist(roadTrip)!.uris;
    const refused = await click(prompt, 'Replace with 1 item').waitForEdit();
    expect(refused.content).toBe(
      `“Road trip” changed since you asked (it now holds ${changed.length} items): nothing was replaced. ` +
        'Run /music playlist replace again to see what would go.',
    );
    expect(refused.components).toEqual([]);
    expect(world.music!.playlist(roadTrip)!.uris).toEqual(changed);
  });

  it('says a replacement is done when a press of Replace just before made it, rather than that nothing was replaced', async () => {
    // Two presses in quick succession both find the confirmation; the second reads the playlist
    // once the first has replaced it. The same state, made in order: the same replacement asked
    // for twice, and the second confirmed first.
    const items = trackIds.slice(11, 13).join(' ');
    const first = await privately(playlist('replace', { playlist: roadTrip, items }));
    const second = await privately(playlist('replace', { playlist: roadTrip, items }));
    await click(second, 'Replace with 2 items').waitForEdit();
    const replaced = trackIds.slice(11, 13).map((id) => `service:track:${id}`);
    expect(world.music!.playlist(roadTrip)!.uris).toEqual(replaced);
    const done = await click(first, 'Replace with 2 items').waitForEdit();
    expect(done.embeds[0]?.description).toContain('Replaced every item: the playlist now holds 2 items.');
    expect(world.music!.playlist(roadTrip)!.uris).toEqual(replaced);
  });

  const UNKNOWN_ID = 'AAAAAAAAAAAAAAAAAAAAAA';
  const changesSent = () =>
    ['PUT', 'POST', 'DELETE']
      .map((method) =>
        world.music!.requestCount({ method, path: /^\/v1\/playlists\/[^/]+\/(tracks|items)$/ }),
      )
      .reduce((sum, count) => sum + count, 0);
  const unknownHint =
    'Check the links and ids: a bare id is read as a track, so give an episode as its full `service:episode:<id>` URI or its link.';

  it('refuses, before asking, a replacement of over 100 items, which could not happen at once, and changes nothing', async () => {
    const before = world.music!.playlist(roadTrip)!.uris;
    world.music!.resetCounters();
    const items = [...trackIds.slice(0, 100), UNKNOWN_ID].join(' ');
    const refused = await playlist('replace', { playlist: roadTrip, items }).reply();
    expect(refused.flags! & EPHEMERAL).toBe(EPHEMERAL);
    expect(refused.content).toBe(
      'A replacement takes at most 100 items, so that it happens all at once; you gave 101. Nothing was changed. ' +
        'To put in more, replace with the first 100, then add the rest with /music playlist add.',
    );
    expect(refused.components ?? []).toEqual([]);
    expect(changesSent()).toBe(0);
    expect(world.music!.playlist(roadTrip)!.uris).toEqual(before);
  });

  it('ends a replacement prompt the service refused for an unknown item, and the playlist keeps its items', async () => {
    const before = world.music!.playlist(roadTrip)!.uris;
    const items = [...trackIds.slice(0, 99), UNKNOWN_ID].join(' ');
    const prompt = await privately(playlist('replace', { playlist: roadTrip, items }));
    // The prompt says so itself, and loses its buttons: pressing again would be refused the same way.
    const ended = await click(prompt, 'Replace with 100 items').waitForEdit();
    expect(ended.content).toBe(
      `One of the new items is not a track or episode the music service knows, so it refused the replacement: nothing was changed. ${unknownHint}`,
    );
    expect(ended.embeds).toEqual([]);
    expect(ended.components).toEqual([]);
    expect(world.music!.playlist(roadTrip)!.uris).toEqual(before);
  });

  it('says an album or a playlist cannot be added whole, and an artist is no item, and changes nothing', async () => {
    const before = world.music!.playlist(roadTrip)!.uris;
    const { albumIds, artistIds } = world.music!.fixtures!;
    const album = `https://open.service.example/album/${albumIds[0]}`;
    const added = await playlist('add', { playlist: roadTrip, items: `${trackIds[0]} <${album}>` }).reply();
    expect(added.flags! & EPHEMERAL).toBe(EPHEMERAL);
    expect(added.content).toBe(
      `\`<${album}>\` is an album: albums cannot be added to a playlist whole. Give its tracks’ links, URIs or ids.`,
    );
    const replaced = await playlist('replace', {
      playlist: roadTrip,
      items: `service:playlist:${bobPicks} service:artist:${artistIds[0]}`,
    }).reply();
    expect(replaced.flags! & EPHEMERAL).toBe(EPHEMERAL);
    expect(replaced.content).toBe(
      `\`service:playlist:${bobPicks}\` is a playlist: playlists cannot be added to a playlist whole. ` +
        'Give its tracks’ links, URIs or ids. ' +
        `\`service:artist:${artistIds[0]}\` points to an artist, not a track or episode.`,
    );
    expect(world.music!.playlist(roadTrip)!.uris).toEqual(before);
  });

  it('says an added item is unknown to the service, an episode given by its bare id included, and adds nothing', async () => {
    const before = world.music!.playlist(roadTrip)!.uris;
    const expected = `One of those items is not a track or episode the music service knows, so it refused them: nothing was changed. ${unknownHint}`;
    for (const items of [`${trackIds[0]} ${UNKNOWN_ID}`, episodeIds[0]!]) {
      const error = await privateAnswer(playlist('add', { playlist: roadTrip, items }));
      expect(error.flags! & EPHEMERAL).toBe(EPHEMERAL);
      expect(error.content).toBe(expected);
      expect(world.music!.playlist(roadTrip)!.uris).toEqual(before);
    }
  });

  it('says exactly which items went in when a long addition is refused part-way', async () => {
    const before = world.music!.playlist(roadTrip)!.uris;
    const items = trackIds.slice(200, 350);
    const refused = items.map((id, index) => (index === 119 ? UNKNOWN_ID : id));
    const error = await privateAnswer(playlist('add', { playlist: roadTrip, items: refused.join(' ') }));
    expect(error.flags! & EPHEMERAL).toBe(EPHEMERAL);
    const start = before.length + 1;
    expect(error.content).toBe(
      `Only the first 100 of your 150 items were added, at positions ${start}–${start + 99}. ` +
        'The music service refused items 101–150, as one of them is not a track or episode it knows. ' +
        `${unknownHint} Then add items 101–150 again.`,
    );
    expect(world.music!.playlist(roadTrip)!.uris).toEqual([
      ...before,
      ...items.slice(0, 100).map((id) => `service:track:${id}`),
    ]);
  });

  it('says where a long addition went, and where the rest belong, when the service fails part-way', async () => {
    const items = trackIds.slice(200, 350);
    /** Adds the 150 items at position 5 of a playlist of 20, the second of the two requests failing so. */
    const addFailingSecond = async (status: number) => {
      const id = world.music!.createPlaylist('alice', {
        name: `Long add ${status}`,
        uris: trackIds.slice(0, 20).map((track) => `service:track:${track}`),
      });
      // The second request to the items path, counted as it arrives (the first is the first
      // hundred; an addition is never sent twice, so nothing else reaches that path).
      const itemsPath = `/v1/playlists/${id}/tracks`;
      const secondAdd = Object.assign(new RegExp(`^${itemsPath}$`), {
        test: (path: string) => path === itemsPath && world.music!.requestCount({ path: itemsPath }) === 2,
      });
      world.music!.failNext(secondAdd, status);
      const error = await playlist('add', {
        playlist: id,
        items: items.join(' '),
        position: 5,
      }).waitForFollowUp();
      expect(error.flags! & EPHEMERAL).toBe(EPHEMERAL);
      const uris = world.music!.playlist(id)!.uris;
      expect(uris).toHaveLength(120);
      expect(uris.slice(4, 104)).toEqual(items.slice(0, 100).map((track) => `service:track:${track}`));
      return error.content;
    };
    // A 500 may have been applied: the member looks before adding again.
    expect(await addFailingSecond(500)).toBe(
      'Only the first 100 of your 150 items were added for sure, at positions 5–104: the music service then ' +
        'failed, and items 101–150 may or may not have gone in. Look at the playlist from position 105 ' +
        '(`/music playlist view`) before adding them again there.',
    );
  });

  it('refuses to edit someone else’s playlist, privately', async () => {
    await refusedAsNotYours(playlist('add', { playlist: bobPicks, items: trackIds[0]! }), 'Bob’s picks');
    expect(world.music!.playlist(bobPicks)!.length).toBe(12);
  });

  it('quotes a playlist name that looks like a link as typed, so the bot’s message holds no link', async () => {
    // Someone names a playlist as a masked link and shares it; the refusal quotes the name.
    const bait = world.music!.createPlaylist('bob', {
      name: '[Re-link your account](https://evil.example) **now**',
      uris: [`service:track:${trackIds[0]!}`],
    });
    const error = await playlist('add', { playlist: bait, items: trackIds[1]! }).waitForFollowUp();
    expect(error.flags! & EPHEMERAL).toBe(EPHEMERAL);
    expect(error.content).toBe(
      '“\\[Re-link your account\\](https\\://evil.example) \\*\\*now\\*\\*” is not yours: ' +
        'you can only change playlists you own or collaborate on.',
    );
  });

  it('refuses an edit the service forbids on a collaborative playlist the member is not part of', async () => {
    const carol = world.discord.createUser({ username: 'carol' });
    await world.linkMusic(carol.id, world.music!.fixtures!.users.noActiveDevice);
    const { shared } = world.music!.fixtures!.playlists;
    await refusedAsNotYours(
      playlist('add', { playlist: shared, items: trackIds[0]! }, carol.id),
      'Shared with Bob',
    );
    expect(world.music!.playlist(shared)!.length).toBe(15);
  });

  it('ends a removal prompt on a collaborative playlist the member is not part of, when the service refuses it', async () => {
    const dave = world.discord.createUser({ username: 'dave' });
    await world.linkMusic(dave.id, world.music!.fixtures!.users.noActiveDevice);
    const { shared } = world.music!.fixtures!.playlists;
    // Collaborative: offered, as the bot cannot tell who its collaborators are; the service refuses.
    const prompt = await privateAnswer(playlist('remove', { playlist: shared, position: 1 }, dave.id));
    const ended = await click(prompt, 'Remove', dave.id).waitForEdit();
    expect(ended.content).toBe(notYours('Shared with Bob'));
    expect(ended.components ?? []).toEqual([]);
    expect(world.music!.playlist(shared)!.length).toBe(15);
  });

  it('says a playlist was not found, and what is not a playlist', async () => {
    const missing = await playlist('view', { playlist: 'AAAAAAAAAAAAAAAAAAAAAA' }).waitForFollowUp();
    expect(missing.flags! & EPHEMERAL).toBe(EPHEMERAL);
    expect(missing.content).toBe('No playlist with this id: check that it is a playlist’s link, URI or id.');
    // The service's own playlists (Discover Weekly here) answer 404 to apps: the link is not wrong.
    const serviceMade = await playlist('view', {
      playlist: 'https://open.spotify.com/playlist/37i9dQZEVXcJZyENOWUFo7?si=abc',
    }).waitForFollowUp();
    expect(serviceMade.flags! & EPHEMERAL).toBe(EPHEMERAL);
    expect(serviceMade.content).toBe(
      'The music service does not let apps open the playlists it makes itself (editorial ones, Discover Weekly, daily mixes). Open it in the app.',
    );
    const short = await playlist('view', { playlist: 'https://spotify.link/AbCdEf123' }).waitForFollowUp();
    expect(short.content).toMatch(
      /A short share link must be opened first: copy the full link it leads to\.$/,
    );
    // An album's link is not taken for a playlist's name.
    const album = await playlist('view', {
      playlist: 'https://open.spotify.com/intl-de/album/4aawyAB9vmqN3uQ7FjRGTy?si=abc',
    }).waitForFollowUp();
    expect(album.flags! & EPHEMERAL).toBe(EPHEMERAL);
    expect(album.content).toBe(
      'That points to an album, not a playlist: give a playlist’s link, URI or id, or pick one of yours from the suggestions.',
    );
    // A local file's URI is well formed, but no one else can play the file.
    const local = await playlist('add', {
      playlist: roadTrip,
      items: 'spotify:local:Some+Artist:Some+Album:A+Song:180',
    }).reply();
    expect(local.flags! & EPHEMERAL).toBe(EPHEMERAL);
    expect(local.content).toMatch(
      /Local files cannot be added: they exist only on the device that plays them\.$/,
    );
    const unknown = await playlist('view', { playlist: 'my favourite songs' }).waitForFollowUp();
    expect(unknown.flags! & EPHEMERAL).toBe(EPHEMERAL);
    expect(unknown.content).toBe(
      'None of your playlists is called “my favourite songs”. Pick one from the suggestions, or give its link, URI or id.',
    );
  });

  it('reads a long playlist for copies once: the Remove button reuses what its prompt read', async () => {
    const items = { method: 'GET', path: new RegExp(`^/v1/playlists/${big}/(tracks|items)$`) };
    const length = world.music!.playlist(big)!.length;
    const before = world.music!.requestCount(items);
    // The last item, an episode the playlist holds once.
    const prompt = await playlist('remove', { playlist: big, position: length }).reply(15_000);
    // Every page after the first 100 items the playlist came with, to look for copies.
    const pages = world.music!.requestCount(items) - before;
    expect(pages).toBeGreaterThanOrEqual(Math.ceil((length - 100) / 100));
    const pressedAt = world.music!.requestCount(items);
    const done = await click(prompt, 'Remove 1 item').waitForEdit(1, 15_000);
    expect(done.embeds[0]?.description).toContain(
      `Removed 1 item from position ${length.toLocaleString('en-US')}.`,
    );
    // The item itself, and the page shown after: not every page again.
    expect(world.music!.requestCount(items) - pressedAt).toBeLessThanOrEqual(2);
    expect(world.music!.playlist(big)!.length).toBe(length - 1);
  });

  // Last: the 429 pauses every music call of the bot for a few seconds.
  it('answers autocomplete with nothing, in time, for a member without a link or when the service is slow', async () => {
    const ask = (userId: string) => suggestionsIn(world, 'view', '', userId);
    const dave = world.discord.createUser({ username: 'dave' });
    expect(await ask(dave.id)).toEqual([]);
    world.music!.setRateLimit({ retryAfterSeconds: 3, count: 1, path: '/v1/me/playlists' });
    const started = performance.now();
    expect(await ask(world.bob.id)).toEqual([]);
    expect(performance.now() - started).toBeLessThan(2_500);
  });
});

describe('playlists on the 2026 API, where items are shown to owners and collaborators only', () => {
  let world: BotWorld;
  beforeAll(async () => {
    world = await startBotWorld({ music: { variant: '2026' } });
    await world.linkMusic(world.alice.id, world.music!.fixtures!.users.premium);
    await world.linkMusic(world.bob.id, world.music!.fixtures!.users.free);
  });
  afterAll(async () => {
    await world?.close();
  });

  const suggest = async (subcommand: string, userId: string) =>
    (await suggestionsIn(world, subcommand, '', userId)).map((choice) => choice.value);

  it('suggests for viewing only the playlists it can show: not one the member only follows', async () => {
    // Bob follows Alice's big playlist, owns his picks and collaborates on one of Alice's.
    const { big, bobPicks, shared } = world.music!.fixtures!.playlists;
    const viewable = await suggest('view', world.bob.id);
    expect(viewable.sort()).toEqual([bobPicks, shared].sort());
    expect(viewable).not.toContain(big);
    expect((await suggest('add', world.bob.id)).sort()).toEqual([bobPicks, shared].sort());
  });

  it('says a collaborative playlist the member is not part of is not theirs to change', async () => {
    const carol = world.discord.createUser({ username: 'carol' });
    await world.linkMusic(carol.id, world.music!.fixtures!.users.noActiveDevice);
    const { shared } = world.music!.fixtures!.playlists;
    const trackId = world.music!.fixtures!.trackIds[0]!;
    for (const [subcommand, options] of [
      ['add', { items: `service:track:${trackId}` }],
      ['remove', { position: 1 }],
    ] as const) {
      const handle = world.slash('music', {
        subcommandGroup: 'playlist',
        subcommand,
        options: { playlist: shared, ...options },
        userId: carol.id,
      });
      await refusedAsNotYours(handle, 'Shared with Bob');
    }
    expect(world.music!.playlist(shared)!.length).toBe(15);
  });

  it('says so when the member can no longer see a playlist’s items, and takes the page buttons off', async () => {
    const { shared } = world.music!.fixtures!.playlists;
    // Collaborative, so shown to Bob alone.
    const page = await privateAnswer(
      world.slash('music', {
        subcommandGroup: 'playlist',
        subcommand: 'view',
        options: { playlist: shared },
        userId: world.bob.id,
      }),
    );
    // As the service answers once Bob is no longer one of its collaborators.
    world.music!.failNext(`/v1/playlists/${shared}/items`, 403, { message: 'Forbidden' });
    const press = world.discord.clickButton({
      userId: world.bob.id,
      message: page,
      customId: button(page, 'Next').custom_id,
      guildId: world.guildId,
      channelId: world.channelId,
    });
    const answer = await press.waitForFollowUp();
    expect(answer.flags! & EPHEMERAL).toBe(EPHEMERAL);
    expect(answer.content).toBe(
      'You can no longer see this playlist’s items: the music service shows them only to its owner and collaborators.',
    );
    expect((await press.waitForEdit()).components ?? []).toEqual([]);
  });
});

describe('a playlist edit whose page cannot be read just after it', () => {
  let world: BotWorld;
  beforeAll(async () => {
    world = await startBotWorld({ music: true });
    await world.linkMusic(world.alice.id, world.music!.fixtures!.users.premium);
  });
  afterAll(async () => {
    await world?.close();
  });

  it('says what was done, not that it failed, so the member does not do it twice', async () => {
    const { roadTrip } = world.music!.fixtures!.playlists;
    const before = world.music!.playlist(roadTrip)!.uris;
    // The edit's own three requests (the playlist, the member's profile, the move) go through; the
    // page that would show the result meets a rate limit with a wait too long to hold the reply for.
    world.music!.setRollingRateLimit({ requests: 3, windowMs: 20_000 });
    const reply = await privately(
      world.slash('music', {
        subcommandGroup: 'playlist',
        subcommand: 'move',
        options: { playlist: roadTrip, from: 1, to: 5 },
        userId: world.alice.id,
      }),
    );
    world.music!.setRollingRateLimit(null);
    expect(world.music!.playlist(roadTrip)!.uris).toEqual([
      ...before.slice(1, 5),
      before[0],
      ...before.slice(5),
    ]);
    expect(reply.embeds[0]?.title).toBe('Road trip');
    expect(reply.embeds[0]?.description).toContain('**Moved 1 item from position 1 to 5.**');
    expect(reply.embeds[0]?.description).toContain('the change is made, so do not run it again');
    expect(button(reply, 'Show').disabled).toBeUndefined();
  });
});
