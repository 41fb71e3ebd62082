import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EndpointRemovedError,
  ForbiddenError,
  isFeatureUnavailable,
} from '../../src/services/music/index.js';
import { createMusicWorld, trackUris, type MusicWorld } from '../fixtures/music.js';

describe('a client on the spec’s paths against a service that removed them (2026)', () => {
  let world: MusicWorld;
  beforeAll(async () => {
    world = await createMusicWorld({ emulator: { variant: '2026' }, client: { variant: 'classic' } });
    world.signIn('alice');
  });
  afterAll(() => world.close());

  const cases: [string, (w: MusicWorld) => Promise<unknown>][] = [
    ['artists.several', (w) => w.music.artists.several(w.emulator.fixtures?.artistIds.slice(0, 3) ?? [])],
    [
      'artists.topTracks',
      (w) => w.music.artists.topTracks(w.emulator.fixtures?.catalog.artistId ?? '', { market: 'US' }),
    ],
    [
      'library.saveAlbums',
      (w) => w.music.library.saveAlbums('alice', w.emulator.fixtures?.albumIds.slice(0, 2) ?? []),
    ],
    [
      'playlists.items',
      (w) =>
        w.music.playlists.items(
          w.emulator.fixtures?.playlists.big ?? '',
          { offset: 0, limit: 10 },
          { userId: 'alice' },
        ),
    ],
    [
      'playlists.addItems',
      (w) =>
        w.music.playlists.addItems(
          'alice',
          w.emulator.fixtures?.playlists.roadTrip ?? '',
          trackUris(w.emulator, 2),
        ),
    ],
  ];

  it.each(cases)('%s says the endpoint was removed and which setting to change', async (_name, call) => {
    const error = await call(world).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EndpointRemovedError);
    expect(error).toBeInstanceOf(ForbiddenError);
    expect(isFeatureUnavailable(error)).toBe(true);
    const removed = error as EndpointRemovedError;
    expect(removed.status).toBe(403);
    expect(removed.message).toMatch(/failed: 403 Forbidden/);
    expect(removed.message).toContain('set MUSIC_API_VARIANT=2026');
    // The member is told to reach the owner; the setting to change is in the message, for the log.
    expect(removed.userMessage).toBe(
      'That isn’t available on this bot right now; please tell the bot’s owner.',
    );
    expect(removed.setting).toEqual({ name: 'MUSIC_API_VARIANT', value: '2026' });
  });

  it('keeps other refusals as they are', async () => {
    world.signIn('bob');
    const error = await world.music.player.pause('bob').catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'PremiumRequiredError' });
    expect(isFeatureUnavailable(error)).toBe(false);
  });
});

describe('a refusal on a spec path that is not the 2026 removal', () => {
  let world: MusicWorld;
  beforeAll(async () => {
    world = await createMusicWorld({ variant: 'classic' });
    world.signIn('bob');
  });
  afterAll(() => world.close());

  it('is a plain ForbiddenError with the service’s message, and no variant hint', async () => {
    const big = world.emulator.fixtures?.playlists.big ?? '';
    const error = await world.music.playlists
      .addItems('bob', big, trackUris(world.emulator, 1))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ForbiddenError);
    expect(error).not.toBeInstanceOf(EndpointRemovedError);
    expect((error as Error).message).toContain('You cannot add tracks to a playlist you don’t own.');
    expect((error as Error).message).not.toContain('MUSIC_API_VARIANT');
  });

  it('a bare 403 Forbidden on a path that was not removed stays a ForbiddenError', async () => {
    const id = world.emulator.fixtures?.catalog.artistId ?? '';
    world.emulator.failNext(`/v1/artists/${id}`, 403);
    const error = await world.music.artists.get(id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ForbiddenError);
    expect(error).not.toBeInstanceOf(EndpointRemovedError);
  });
});
