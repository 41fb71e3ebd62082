/**
 * What a member looked at is suggested in autocomplete until they ask the bot to forget their
 * music account with /music unlink.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBotWorld, type BotWorld } from '../helpers/bot.js';

describe('recent albums and artists after /music unlink', () => {
  let world: BotWorld;
  let fixtures: NonNullable<NonNullable<BotWorld['music']>['fixtures']>;

  beforeAll(async () => {
    world = await startBotWorld({ music: true });
    fixtures = world.music!.fixtures!;
  });
  afterAll(async () => {
    await world?.close();
  });

  const suggested = async (userId: string, subcommand: 'album' | 'artist') =>
    (
      await world.discord.autocomplete({
        guildId: world.guildId,
        channelId: world.channelId,
        userId,
        name: 'music',
        subcommand,
        options: { [subcommand]: '' },
        focused: subcommand,
      })
    ).map((choice) => choice.value);

  async function lookUp(userId: string) {
    const album = await world
      .slash('music', { subcommand: 'album', userId, options: { album: fixtures.catalog.longAlbumId } })
      .reply();
    expect(album.embeds[0]?.title).toBe('Complete Sessions');
    const artist = await world
      .slash('music', { subcommand: 'artist', userId, options: { artist: fixtures.catalog.artistId } })
      .reply();
    expect(artist.embeds).toHaveLength(1);
    expect(await suggested(userId, 'album')).toEqual([fixtures.catalog.longAlbumId]);
    expect(await suggested(userId, 'artist')).toEqual([fixtures.catalog.artistId]);
  }

  it('forgets a linked member’s recent albums and artists, and no one else’s', async () => {
    await world.linkMusic(world.alice.id, fixtures.users.premium);
    await lookUp(world.alice.id);
    await lookUp(world.bob.id);
    const reply = await world.slash('music', { subcommand: 'unlink', userId: world.alice.id }).reply();
    expect(reply.content).toContain('unlinked');
    expect(await suggested(world.alice.id, 'album')).toEqual([]);
    expect(await suggested(world.alice.id, 'artist')).toEqual([]);
    // Another process (a restart) finds nothing either: they are gone from storage.
    await world.restart();
    expect(await suggested(world.alice.id, 'album')).toEqual([]);
    expect(await suggested(world.bob.id, 'album')).toEqual([fixtures.catalog.longAlbumId]);
  });

  it('forgets them for a member who looked albums up without ever linking', async () => {
    // Lookups use the bot's own token: Bob never linked.
    await lookUp(world.bob.id);
    const reply = await world.slash('music', { subcommand: 'unlink', userId: world.bob.id }).reply();
    expect(reply.content).toBe('No music account was linked, so there was nothing to delete.');
    expect(await suggested(world.bob.id, 'album')).toEqual([]);
    expect(await suggested(world.bob.id, 'artist')).toEqual([]);
  });
});
