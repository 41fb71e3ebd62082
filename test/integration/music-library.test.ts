import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IncompleteChangeError, InsufficientScopeError } from '../../src/services/music/index.js';
import { createMusicWorld, VARIANTS, type MusicWorld } from '../fixtures/music.js';

describe.each(VARIANTS)('saved albums (%s API)', (variant) => {
  let world: MusicWorld;
  let albumIds: string[];
  const path = variant === '2026' ? '/v1/me/library' : '/v1/me/albums';
  // Classic: the spec's required query `ids` (20), not the optional body (50) beside it.
  const perRequest = variant === '2026' ? 40 : 20;
  const listParam = variant === '2026' ? 'uris' : 'ids';

  beforeAll(async () => {
    world = await createMusicWorld({ variant });
    world.signIn('alice');
    albumIds = world.emulator.fixtures?.albumIds.slice(0, 120) ?? [];
  });
  afterAll(() => world.close());

  it(`saves 120 albums in chunks of at most ${perRequest}`, async () => {
    world.emulator.resetCounters();
    await world.music.library.saveAlbums('alice', albumIds);
    const requests = world.emulator.requests({ method: 'PUT', path });
    expect(requests).toHaveLength(Math.ceil(120 / perRequest));
    for (const request of requests) {
      const listed = new URLSearchParams(request.search).get(listParam)?.split(',') ?? [];
      expect(listed.length).toBeGreaterThan(0);
      expect(listed.length).toBeLessThanOrEqual(perRequest);
    }
    expect(world.emulator.library('alice')).toEqual(albumIds.map((id) => `service:album:${id}`));
  });

  it('removes albums given as links and URIs', async () => {
    const [first = '', second = ''] = albumIds;
    await world.music.library.removeAlbums('alice', [
      `https://open.service.example/album/${first}`,
      `service:album:${second}`,
    ]);
    const saved = world.emulator.library('alice');
    expect(saved).not.toContain(`service:album:${first}`);
    expect(saved).not.toContain(`service:album:${second}`);
    expect(saved).toHaveLength(118);
  });

  it('says how many albums were saved when a request after the first is refused', async () => {
    world.emulator.createUser({ id: 'dora' });
    world.signIn('dora');
    // One unknown album in the second request: the first request's albums stay saved.
    const sent = albumIds.slice(0, perRequest + 5);
    sent.splice(perRequest + 2, 0, 'AAAAAAAAAAAAAAAAAAAAAA');
    const error = await world.music.library.saveAlbums('dora', sent).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IncompleteChangeError);
    expect(error).toMatchObject({ applied: perRequest, total: perRequest + 6, cause: { status: 400 } });
    expect((error as IncompleteChangeError).userMessage).toBe(
      `Only the first ${perRequest} of the ${perRequest + 6} albums were saved: the music service then ` +
        'failed, so the other 6 were not. Save those again later.',
    );
    expect(world.emulator.library('dora')).toEqual(
      albumIds.slice(0, perRequest).map((id) => `service:album:${id}`),
    );

    const removal = await world.music.library.removeAlbums('dora', sent).catch((e: unknown) => e);
    expect((removal as IncompleteChangeError).userMessage).toBe(
      `Only the first ${perRequest} of the ${perRequest + 6} albums were removed: the music service then ` +
        'failed, so the other 6 were not. Remove those again later.',
    );
    expect(world.emulator.library('dora')).toEqual([]);
  });

  it('needs the library scope', async () => {
    world.signIn('bob', ['user-read-private']);
    await expect(world.music.library.saveAlbums('bob', albumIds.slice(0, 1))).rejects.toBeInstanceOf(
      InsufficientScopeError,
    );
  });
});
