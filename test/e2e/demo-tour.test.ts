import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoWorld, tourWorldOf, type DemoWorld } from '../../scripts/lib/demo-world.js';
import { runTour } from '../../scripts/lib/tour.js';
import { completeLink } from '../../emulators/music/walk.js';

/** What the bot suggests to `userId` for `/music <sub>`'s `focused` option, typed `typed`. */
function suggestions(world: DemoWorld, userId: string, sub: string, focused: string, typed = '') {
  return world.offline.discord.autocomplete({
    guildId: world.guildId,
    channelId: world.channelId,
    userId,
    name: 'music',
    subcommand: sub,
    options: { [focused]: typed },
    focused,
  });
}

describe('the demo world after the tour, as a newcomer finds it', () => {
  let world: DemoWorld;
  let failed: number;

  beforeAll(async () => {
    world = await startDemoWorld({ fixedPorts: false, playground: false });
    failed = await runTour(tourWorldOf(world), () => undefined);
  }, 90_000);

  afterAll(async () => {
    await world?.close();
  });

  it('passes every step', () => {
    expect(failed).toBe(0);
  });

  it('leaves the premium account’s music playing, so the first Pause pressed pauses it', () => {
    const premium = world.offline.music.fixtures!.users.premium;
    expect(world.offline.music.player(premium)?.isPlaying).toBe(true);
  });

  it('offers albums and artists of the seeded catalog in the album and artist options, to both members', async () => {
    const { catalog } = world.offline.music.fixtures!;
    const offered = await world.suggestMusic();
    expect(offered.album.id).toBe(catalog.longAlbumId);
    expect(offered.artist.id).toBe(catalog.artistId);
    for (const member of [world.alice, world.bob]) {
      const albums = await suggestions(world, member.id, 'album', 'album');
      expect(albums.map((choice) => choice.value)).toEqual(
        expect.arrayContaining([catalog.longAlbumId, catalog.epAlbumId]),
      );
      expect(albums.length).toBeGreaterThanOrEqual(3);
      const artists = await suggestions(world, member.id, 'artist', 'artist');
      expect(artists.map((choice) => choice.value)).toContain(catalog.artistId);
      expect(artists.length).toBeGreaterThanOrEqual(3);
    }
    // Typing part of a name narrows the list, as with albums the member viewed.
    const typed = await suggestions(world, world.alice.id, 'album', 'album', offered.album.name.slice(0, 6));
    expect(typed.map((choice) => choice.value)).toContain(offered.album.id);
  });

  it('lets Alice, linked again, open the suggested album and artist', async () => {
    const { discord, music } = world.offline;
    const command = (sub: string, options: Record<string, string> = {}) =>
      discord.slash({
        guildId: world.guildId,
        channelId: world.channelId,
        userId: world.alice.id,
        name: 'music',
        subcommand: sub,
        options,
      });
    const link = command('link');
    const prompt = await link.reply();
    const url = (prompt.components ?? [])
      .flatMap((row) => (row as { components?: { url?: string }[] }).components ?? [])
      .find((button) => typeof button.url === 'string')?.url;
    await completeLink(music, url ?? '', music.fixtures!.users.premium);
    expect((await link.waitForEdit()).embeds[0]?.title).toBe('Music account linked');

    const [album] = await suggestions(world, world.alice.id, 'album', 'album', 'Complete');
    const shown = await command('album', { album: String(album?.value) }).reply(15_000);
    expect(shown.embeds[0]?.title).toContain('Complete Sessions');
    const artist = (await suggestions(world, world.alice.id, 'artist', 'artist')).find(
      (choice) => choice.value === music.fixtures!.catalog.artistId,
    );
    const artistShown = await command('artist', { artist: String(artist?.value) }).reply(15_000);
    expect(artist?.name.startsWith(`${artistShown.embeds[0]?.title ?? '?'}`)).toBe(true);
  }, 30_000);
});
