import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatedMessage } from '../../emulators/discord/world.js';
import { buttonId, startBotWorld, type BotWorld } from '../helpers/bot.js';

const EPHEMERAL = 64;

const fieldsOf = (message: EmulatedMessage) =>
  Object.fromEntries((message.embeds[0]?.fields ?? []).map((field) => [field.name, field.value]));

describe('albums, artists and the library', () => {
  let world: BotWorld;
  let fixtures: NonNullable<NonNullable<BotWorld['music']>['fixtures']>;
  let alice: string;
  let bob: string;

  beforeAll(async () => {
    world = await startBotWorld({ music: true });
    fixtures = world.music!.fixtures!;
    ({ premium: alice, free: bob } = fixtures.users);
    await world.linkMusic(world.alice.id, alice);
    await world.linkMusic(world.bob.id, bob);
  });
  afterAll(async () => {
    await world?.close();
  });

  const click = (message: EmulatedMessage, label: string, userId = world.alice.id) =>
    world.discord.clickButton({
      userId,
      message,
      customId: buttonId(message, label),
      guildId: world.guildId,
      channelId: world.channelId,
    });
  const autocomplete = (subcommand: string, option: string, typed: string, subcommandGroup?: string) =>
    world.discord.autocomplete({
      guildId: world.guildId,
      channelId: world.channelId,
      userId: world.alice.id,
      name: 'music',
      ...(subcommandGroup === undefined ? {} : { subcommandGroup }),
      subcommand,
      options: { [option]: typed },
      focused: option,
    });

  it('shows an album with cover, artists, facts and the first page of its 120 tracks', async () => {
    const reply = await world
      .slash('music', {
        subcommand: 'album',
        options: { album: `service:album:${fixtures.catalog.longAlbumId}` },
      })
      .reply();
    const embed = reply.embeds[0]!;
    expect(reply.flags ?? 0).toBe(0);
    expect(embed.title).toBe('Complete Sessions');
    expect(embed.thumbnail?.url).toMatch(/^https:\/\/images\./);
    expect(embed.description).toMatch(/^by \*\*.+\*\*/);
    expect(embed.description).toContain('…and 100 more tracks');
    expect(embed.footer?.text).toMatch(/^Tracks 1–20 of 120 · page 1 of 6/);
    const fields = fieldsOf(reply);
    expect(fields['Tracks']).toBe('120 on 2 discs');
    expect(fields['Length']).toMatch(/^\d+ h \d+ min$/);
    expect(fields['Availability']).toBe('Available in US');
    expect(fields['Label']).toBeTruthy();
  });

  it('pages through an album’s tracks, for the member who asked only', async () => {
    const album = await world
      .slash('music', { subcommand: 'album', options: { album: fixtures.catalog.longAlbumId } })
      .reply();
    const refused = await click(album, 'Tracks ▶', world.bob.id).reply();
    expect(refused.flags! & EPHEMERAL).toBe(EPHEMERAL);
    // Save and Remove work for anyone: only the pages are the invoker's.
    expect(refused.content).toBe(
      `This is <@${world.alice.id}>’s album view: only they can turn its pages. ` +
        'Run `/music album` with this album to page through it yourself.',
    );

    world.music!.resetCounters();
    const second = await click(album, 'Tracks ▶').waitForEdit();
    expect(second.embeds[0]?.footer?.text).toMatch(/^Tracks 21–40 of 120 · page 2 of 6/);
    // 120 tracks on two discs of 60: disc and number on the album.
    expect(second.embeds[0]?.description).toMatch(/^`1-21\.` /m);
    expect(second.embeds[0]?.description).toMatch(/^`1-40\.` /m);
    // The album was looked at a moment ago: the page comes from the cache.
    expect(world.music!.requestCount({ path: /^\/v1\// })).toBe(0);
    const first = await click(second, '◀ Tracks').waitForEdit();
    expect(first.embeds[0]?.footer?.text).toMatch(/^Tracks 1–20 of 120 · page 1 of 6/);
  });

  it('saves the album to the library of whoever presses Save, and removes it again', async () => {
    const album = await world
      .slash('music', { subcommand: 'album', options: { album: fixtures.catalog.epAlbumId } })
      .reply();
    expect(fieldsOf(album)['Type']).toBe('Single');
    const uri = `service:album:${fixtures.catalog.epAlbumId}`;

    const saved = await click(album, 'Save to library', world.bob.id).reply();
    expect(saved.flags! & EPHEMERAL).toBe(EPHEMERAL);
    expect(saved.embeds[0]?.title).toBe('Saved 1 album to your library');
    expect(saved.embeds[0]?.description).toContain('Four Rooms');
    expect(world.music!.library(bob)).toContain(uri);
    expect(world.music!.library(alice)).not.toContain(uri);

    const removed = await click(album, 'Remove from library', world.bob.id).reply();
    expect(removed.embeds[0]?.title).toBe('1 album is out of your library');
    expect(world.music!.library(bob)).not.toContain(uri);
    // Pressed again, with the album no longer saved: the service accepts it all the same, and the
    // reply claims no removal, only where the album is.
    const again = await click(album, 'Remove from library', world.bob.id).reply();
    expect(again.embeds[0]?.title).toBe('1 album is out of your library');
  });

  it('offers the link button to a member without a link who presses Save', async () => {
    const album = await world
      .slash('music', { subcommand: 'album', options: { album: fixtures.catalog.epAlbumId } })
      .reply();
    const dave = world.discord.createUser({ username: 'dave' });
    const prompt = await click(album, 'Save to library', dave.id).reply();
    expect(prompt.flags! & EPHEMERAL).toBe(EPHEMERAL);
    expect(prompt.embeds[0]?.title).toBe('Link your music account first');
    expect(world.discord.message(album.id)?.embeds).toEqual(album.embeds);
  });

  it('marks an album that is not available in the member’s market, and one without a name', async () => {
    const restricted = await world
      .slash('music', { subcommand: 'album', options: { album: fixtures.catalog.restrictedAlbumId } })
      .reply();
    expect(fieldsOf(restricted)['Availability']).toBe('Not available in US (not released there)');
    expect(restricted.embeds[0]?.description).toContain('unavailable');

    // The seeded catalog's album with an empty name (the spec allows it): after the 5 special albums
    // come an album and a single per artist, and this one right after artist 40's.
    const unnamed = await world
      .slash('music', { subcommand: 'album', options: { album: fixtures.albumIds[87]! } })
      .reply();
    expect(unnamed.embeds[0]?.title).toBe('Untitled album');
  });

  it('suggests the member’s recent albums in autocomplete', async () => {
    const choices = await autocomplete('album', 'album', 'sess');
    expect(choices.map((choice) => choice.value)).toEqual([fixtures.catalog.longAlbumId]);
    expect(choices[0]?.name).toMatch(/^Complete Sessions — /);
    const all = await autocomplete('album', 'album', '');
    expect(all.map((choice) => choice.value)).toEqual([
      fixtures.albumIds[87],
      fixtures.catalog.restrictedAlbumId,
      fixtures.catalog.epAlbumId,
      fixtures.catalog.longAlbumId,
    ]);
  });

  it('takes the name of a recent album typed without picking a suggestion', async () => {
    const reply = await world
      .slash('music', { subcommand: 'album', options: { album: 'complete sessions' } })
      .reply();
    expect(reply.embeds[0]?.title).toBe('Complete Sessions');
    const unknown = await world
      .slash('music', { subcommand: 'album', options: { album: 'no such album' } })
      .reply();
    expect(unknown.flags! & EPHEMERAL).toBe(EPHEMERAL);
    expect(unknown.content).toBe('That is not an album link, URI or id: `no such album`.');
    const short = await world
      .slash('music', { subcommand: 'album', options: { album: 'https://spotify.link/AbCdEf123' } })
      .reply();
    expect(short.content).toBe(
      'That is not an album link, URI or id: `https://spotify.link/AbCdEf123`. A short share link must be opened first: copy the full link it leads to.',
    );
  });

  it('shows an artist with followers, genres, popularity and top tracks in the member’s market', async () => {
    const reply = await world
      .slash('music', {
        subcommand: 'artist',
        options: { artist: `https://open.service.example/artist/${fixtures.catalog.artistId}?si=x` },
      })
      .reply();
    const fields = fieldsOf(reply);
    expect(fields['Followers']).toMatch(/^[\d,]+$/);
    expect(fields['Popularity']).toMatch(/^\d+\/100$/);
    expect(fields['Genres']).toBeTruthy();
    expect(fields['Top tracks in US']?.split('\n')).toHaveLength(10);
    const choices = await autocomplete('artist', 'artist', '');
    expect(choices[0]?.value).toBe(fixtures.catalog.artistId);
  });

  it('shows several artists at once, in one batched request, and lists the unknown ones', async () => {
    const ids = fixtures.artistIds.slice(0, 60);
    world.music!.resetCounters();
    const reply = await world
      .slash('music', {
        subcommand: 'artists',
        options: { artists: [...ids, 'AAAAAAAAAAAAAAAAAAAAAA'].join(', ') },
      })
      .reply();
    expect(world.music!.requestCount({ path: '/v1/artists' })).toBe(2);
    expect(reply.embeds[0]?.title).toBe('60 artists');
    expect(fieldsOf(reply)['Not found']).toBe('`AAAAAAAAAAAAAAAAAAAAAA`');
  });

  it('names a link of another kind among the artists, rather than calling it no link', async () => {
    const album = `https://open.service.example/album/${fixtures.catalog.longAlbumId}`;
    const reply = await world
      .slash('music', {
        subcommand: 'artists',
        options: { artists: `${fixtures.artistIds[0]}, ${album}, not-an-artist` },
      })
      .reply();
    expect(reply.flags! & EPHEMERAL).toBe(EPHEMERAL);
    expect(reply.content).toBe(
      'This is not an artist link, URI or id: `not-an-artist`. ' +
        `\`${album}\` points to an album, not an artist.`,
    );
  });

  it('completes the last entry of a list of artists from the recent ones', async () => {
    const [first] = await autocomplete('artists', 'artists', `${fixtures.artistIds[0]}, `);
    expect(first?.value).toMatch(new RegExp(`^${fixtures.artistIds[0]}, [0-9A-Za-z]{22}$`));
  });

  it('searches a name of several words as one, so a picked suggestion holds only ids', async () => {
    // The artist viewed above is among the recent ones; its name has a space in it.
    const [viewed] = await autocomplete('artist', 'artist', '');
    const name = viewed?.name.split(' — ')[0] ?? '';
    expect(name).toContain(' ');
    const alone = await autocomplete('artists', 'artists', name);
    expect(alone.map((choice) => choice.value)).toEqual([fixtures.catalog.artistId]);
    // An id pasted alone is completed to itself, not followed by another artist.
    const pasted = await autocomplete('artists', 'artists', fixtures.catalog.artistId);
    expect(pasted.map((choice) => choice.value)).toEqual([fixtures.catalog.artistId]);
    const other = fixtures.artistIds.find((id) => id !== fixtures.catalog.artistId)!;
    const after = await autocomplete('artists', 'artists', `${other}, ${name}`);
    expect(after.map((choice) => choice.value)).toEqual([`${other}, ${fixtures.catalog.artistId}`]);
  });

  it('saves and removes many albums at once, in batches, with a summary', async () => {
    const ids = fixtures.albumIds.slice(10, 70);
    world.music!.resetCounters();
    const saved = await world
      .slash('music', {
        subcommandGroup: 'library',
        subcommand: 'save',
        options: { albums: `${ids.join(' ')}, not-an-album` },
      })
      .reply();
    expect(saved.flags! & EPHEMERAL).toBe(EPHEMERAL);
    expect(saved.embeds[0]?.title).toBe('Saved 60 albums to your library');
    expect(fieldsOf(saved)['Skipped: not album links, URIs or ids']).toBe('• `not-an-album`');
    // At most 20 ids in each request's query (spec §8).
    expect(world.music!.requestCount({ method: 'PUT', path: '/v1/me/albums' })).toBe(3);
    expect(world.music!.library(alice)).toHaveLength(60);

    const removed = await world
      .slash('music', {
        subcommandGroup: 'library',
        subcommand: 'remove',
        options: { albums: ids.join(',') },
      })
      .reply();
    expect(removed.embeds[0]?.title).toBe('60 albums are out of your library');
    expect(world.music!.library(alice)).toHaveLength(0);

    const none = await world
      .slash('music', {
        subcommandGroup: 'library',
        subcommand: 'save',
        options: { albums: 'abba, not-an-album' },
      })
      .reply();
    expect(none.flags! & EPHEMERAL).toBe(EPHEMERAL);
    expect(none.content).toBe('These are not album links, URIs or ids: `abba` and `not-an-album`.');
  });

  it('reads links members wrap in <> to hide the preview, or end a sentence with', async () => {
    const link = (kind: string, id: string) => `https://open.service.example/${kind}/${id}?si=AbC123`;
    const album = await world
      .slash('music', {
        subcommand: 'album',
        options: { album: `<${link('album', fixtures.catalog.longAlbumId)}>` },
      })
      .reply();
    expect(album.embeds[0]?.title).toBe('Complete Sessions');

    const [first, second] = fixtures.artistIds as [string, string];
    const artists = await world
      .slash('music', {
        subcommand: 'artists',
        options: { artists: `<${link('artist', first)}>, (${link('artist', second)}).` },
      })
      .reply();
    expect(artists.embeds[0]?.title).toBe('2 artists');

    const [one, two] = fixtures.albumIds.slice(200, 202) as [string, string];
    const saved = await world
      .slash('music', {
        subcommandGroup: 'library',
        subcommand: 'save',
        options: { albums: `<${link('album', one)}> ; ${link('album', two)}!` },
      })
      .reply();
    expect(saved.embeds[0]?.title).toBe('Saved 2 albums to your library');
    expect(fieldsOf(saved)).not.toHaveProperty(['Skipped: not album links, URIs or ids']);
    expect(world.music!.library(alice)).toEqual(
      expect.arrayContaining([`service:album:${one}`, `service:album:${two}`]),
    );
  });

  it('says nothing was saved when the music service refuses the list for an album it does not know', async () => {
    const [known, other] = fixtures.albumIds.slice(210, 212) as [string, string];
    const before = world.music!.library(alice);
    const save = (albums: string) =>
      world.slash('music', { subcommandGroup: 'library', subcommand: 'save', options: { albums } }).reply();
    const several = await save(`${known} 0000000000000000000000`);
    expect(several.flags! & EPHEMERAL).toBe(EPHEMERAL);
    expect(several.content).toBe(
      'Nothing was saved: the music service does not know one of those albums (`0000000000000000000000`). ' +
        'Leave it out and save again.',
    );
    const one = await save(`https://open.service.example/album/0000000000000000000000`);
    expect(one.content).toBe(
      'Nothing was saved: the music service does not know that album (`0000000000000000000000`). ' +
        'Check its link or id.',
    );
    expect(world.music!.library(alice)).toEqual(before);
    const removed = await world
      .slash('music', {
        subcommandGroup: 'library',
        subcommand: 'remove',
        options: { albums: `${other} 0000000000000000000000` },
      })
      .reply();
    expect(removed.content).toBe(
      'Nothing was removed: the music service does not know one of those albums (`0000000000000000000000`). ' +
        'Leave it out and remove again.',
    );
  });

  it('says how many albums were saved when the music service refuses a later batch', async () => {
    const ids = fixtures.albumIds.slice(70, 95);
    world.music!.createUser({ id: 'erin' });
    const erin = world.discord.createUser({ username: 'erin' });
    await world.linkMusic(erin.id, 'erin');
    // The 23rd album is unknown: the first request (20 ids) goes in, the second is refused.
    const sent = [...ids.slice(0, 22), 'AAAAAAAAAAAAAAAAAAAAAA', ...ids.slice(22)];
    const reply = await world
      .slash('music', {
        userId: erin.id,
        subcommandGroup: 'library',
        subcommand: 'save',
        options: { albums: sent.join(' ') },
      })
      .reply();
    expect(reply.flags! & EPHEMERAL).toBe(EPHEMERAL);
    expect(reply.content).toBe(
      'Only the first 20 of your 26 albums were saved. The music service did not accept the next ones ' +
        "(Non existing id: 'AAAAAAAAAAAAAAAAAAAAAA'), so the other 6 were not saved: check those, then save them again.",
    );
    expect(world.music!.library('erin')).toEqual(ids.slice(0, 20).map((id) => `service:album:${id}`));
  });

  it('names albums saved by id that the member never looked at: the first few, looked up alongside the save', async () => {
    const ids = fixtures.albumIds.slice(100, 107);
    const [other, slow, beside] = fixtures.albumIds.slice(107, 110) as [string, string, string];
    const { access_token } = world.music!.issueUserToken(bob, []);
    const names = await Promise.all(
      [...ids, beside].map(async (id) => {
        const response = await fetch(`${world.music!.apiUrl}/v1/albums/${id}`, {
          headers: { authorization: `Bearer ${access_token}` },
        });
        return ((await response.json()) as { name: string }).name;
      }),
    );
    const bobSaves = (albums: string) =>
      world
        .slash('music', {
          userId: world.bob.id,
          subcommandGroup: 'library',
          subcommand: 'save',
          options: { albums },
        })
        .reply();
    world.music!.resetCounters();
    const saved = await bobSaves(ids.map((id) => `service:album:${id}`).join(' '));
    expect(saved.embeds[0]?.title).toBe('Saved 7 albums to your library');
    expect(saved.embeds[0]?.description?.split('\n')).toEqual([
      ...ids.slice(0, 5).map((id, index) => `• **${names[index]}** (\`${id}\`)`),
      ...ids.slice(5).map((id) => `• \`${id}\``),
    ]);
    expect(world.music!.requestCount({ method: 'GET', path: /^\/v1\/albums\// })).toBe(5);
    expect(world.music!.library(bob)).toEqual(expect.arrayContaining(ids.map((id) => `service:album:${id}`)));

    // A lookup that fails leaves its album unnamed; the save stands.
    world.music!.failNext(`/v1/albums/${other}`, 404);
    const unnamed = await bobSaves(other);
    expect(unnamed.embeds[0]?.description).toBe(`• \`${other}\``);
    expect(world.music!.library(bob)).toContain(`service:album:${other}`);

    // Nor does a lookup that stalls hold the reply (it comes within the driver's 5 s) or cost the
    // album beside it its name.
    world.music!.stallNext(`/v1/albums/${slow}`, 10_000);
    const held = await bobSaves(`${slow} ${beside}`);
    expect(held.embeds[0]?.description?.split('\n')).toEqual([
      `• \`${slow}\``,
      `• **${names[7]}** (\`${beside}\`)`,
    ]);
    expect(world.music!.library(bob)).toEqual(
      expect.arrayContaining([`service:album:${slow}`, `service:album:${beside}`]),
    );

    // The albums named by a lookup are offered next time, e.g. to remove one of them.
    const offered = await world.discord.autocomplete({
      guildId: world.guildId,
      channelId: world.channelId,
      userId: world.bob.id,
      name: 'music',
      subcommandGroup: 'library',
      subcommand: 'remove',
      options: { albums: '' },
      focused: 'albums',
    });
    expect(offered.map((choice) => choice.value)).toEqual([beside, ...ids.slice(0, 5)]);
    expect(offered[1]?.name.startsWith(`${names[0]} — `)).toBe(true);
  });

  it('answers privately when an album does not exist or the input is not an album', async () => {
    const logsBefore = world.logs.length;
    const missing = await world
      .slash('music', { subcommand: 'album', options: { album: 'AAAAAAAAAAAAAAAAAAAAAA' } })
      .waitForFollowUp();
    expect(missing.flags! & EPHEMERAL).toBe(EPHEMERAL);
    expect(missing.content).toBe('No album with this id: check that it is an album’s link, URI or id.');
    expect(world.discord.messages(world.channelId).some((m) => m.content?.startsWith('No album'))).toBe(
      false,
    );
    // A member's mistyped id is not trouble with the service: nothing at warn level for the owner.
    const logged = world.logs.slice(logsBefore).join('');
    expect(logged).toContain('music user error');
    expect(logged).not.toContain('music service trouble');

    const invalid = await world
      .slash('music', {
        subcommand: 'album',
        options: { album: `service:artist:${fixtures.catalog.artistId}` },
      })
      .reply();
    expect(invalid.flags! & EPHEMERAL).toBe(EPHEMERAL);
    expect(invalid.content).toBe('That points to an artist, not an album: give an album’s link, URI or id.');
  });

  it('names the album market it looked in for a member whose country it does not know', async () => {
    // Not linked, so no country: the album is asked for in the default market, and says which.
    const stranger = world.discord.createUser({ username: 'stranger' });
    const reply = await world
      .slash('music', {
        subcommand: 'album',
        options: { album: fixtures.catalog.longAlbumId },
        userId: stranger.id,
      })
      .reply();
    expect(fieldsOf(reply)['Availability']).toBe('Available in US');
  });

  it('says what kind of id was expected when a bare id of another kind is given', async () => {
    const trackAsAlbum = await world
      .slash('music', { subcommand: 'album', options: { album: fixtures.trackIds[0]! } })
      .waitForFollowUp();
    expect(trackAsAlbum.flags! & EPHEMERAL).toBe(EPHEMERAL);
    expect(trackAsAlbum.content).toBe('No album with this id: check that it is an album’s link, URI or id.');
    const albumAsArtist = await world
      .slash('music', { subcommand: 'artist', options: { artist: fixtures.catalog.longAlbumId } })
      .waitForFollowUp();
    expect(albumAsArtist.flags! & EPHEMERAL).toBe(EPHEMERAL);
    expect(albumAsArtist.content).toBe(
      'No artist with this id: check that it is an artist’s link, URI or id.',
    );
  });

  // Last: the 429 pauses every music call of the bot for the hour it asks for.
  it('says when to try again when the service is rate limiting', async () => {
    world.music!.setRateLimit({ retryAfterSeconds: 3600, count: 1, path: /^\/v1\/albums\// });
    const reply = await world
      .slash('music', { subcommand: 'album', options: { album: fixtures.catalog.liveAlbumId } })
      .waitForFollowUp();
    expect(reply.flags! & EPHEMERAL).toBe(EPHEMERAL);
    expect(reply.content).toMatch(/try again in 60 minutes/);
  });
});
