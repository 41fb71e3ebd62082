import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpError } from '../../src/services/http/errors.js';
import {
  EndpointUnavailableError,
  IncompleteChangeError,
  pageOf,
  type PlaylistEntry,
} from '../../src/services/music/index.js';
import { createMusicWorld, trackUris, VARIANTS, type MusicWorld } from '../fixtures/music.js';

describe.each(VARIANTS)('playlists (%s API)', (variant) => {
  let world: MusicWorld;
  let big: string;
  const itemsPath = (id: string) => `/v1/playlists/${id}/${variant === '2026' ? 'items' : 'tracks'}`;

  beforeAll(async () => {
    world = await createMusicWorld({ variant });
    world.signIn('alice');
    world.signIn('bob');
    big = world.emulator.fixtures?.playlists.big ?? '';
  });
  afterAll(() => world.close());

  const newPlaylist = (uris: string[]) => world.emulator.createPlaylist('alice', { name: 'Scratch', uris });

  it('reads a playlist with its first page of items, keeping the odd ones marked', async () => {
    const playlist = await world.music.playlists.get(big, { userId: 'alice' });
    expect(playlist.name).toBe('Everything, Forever');
    expect(playlist.snapshot_id).toBe(world.emulator.playlist(big)?.snapshotId);
    const entries = playlist.tracks?.items ?? [];
    expect(playlist.tracks?.total).toBe(10_000);
    expect(entries.map((entry) => entry.kind).slice(0, 8)).toEqual([
      'track',
      'track',
      'unavailable',
      'track',
      'local',
      'track',
      'episode',
      'track',
    ]);
    // A local file: no id, and a URI of the form the public local-files guide gives.
    expect(entries[4]?.track).toMatchObject({
      id: null,
      uri: 'service:local:Alice:Voice+memos:Demo+(garage+take):187',
      is_local: true,
    });
    expect(entries[0]?.track?.is_playable).toBe(true);
  });

  it('reads page 150 of a 10,000-item playlist with exactly one request', async () => {
    world.emulator.resetCounters();
    const page = await world.music.playlists.items(big, pageOf(150), { userId: 'alice' });
    expect(world.emulator.requestCount({ path: itemsPath(big) })).toBe(1);
    expect(world.emulator.requestCount({ path: /^\/v1\// })).toBe(1);
    expect(page.offset).toBe(7_450);
    expect(page.items).toHaveLength(50);
    expect(page.items[1]?.kind).toBe('local');
    expect(page.previous).toContain('offset=7400');
    expect(page.next).toContain('offset=7500');
  });

  it('jumps from any page to another slice of the same list in one request', async () => {
    const first = await world.music.playlists.items(big, { offset: 0, limit: 10 }, { userId: 'alice' });
    world.emulator.resetCounters();
    const far = await world.music.paging.fetch(first, { offset: 9_990, limit: 10 });
    expect(world.emulator.requestCount()).toBe(1);
    expect(far.items.at(-1)?.kind).toBe('episode');
    expect(far.next).toBeNull();
  });

  it('iterates the whole playlist by following next to the end', async () => {
    const first = await world.music.playlists.items(big, { offset: 0, limit: 50 }, { userId: 'alice' });
    world.emulator.resetCounters();
    const kinds = new Map<PlaylistEntry['kind'], number>();
    let count = 0;
    for await (const entry of world.music.paging.iterate(first)) {
      count++;
      kinds.set(entry.kind, (kinds.get(entry.kind) ?? 0) + 1);
    }
    expect(count).toBe(10_000);
    expect(world.emulator.requestCount({ path: itemsPath(big) })).toBe(199);
    expect(kinds.get('local')).toBe(2);
    expect(kinds.get('episode')).toBe(2);
    expect(kinds.get('unavailable')).toBe(1);
  });

  it('iterates lazily and stops at the cap', async () => {
    const playlist = await world.music.playlists.get(big, { userId: 'alice' });
    world.emulator.resetCounters();
    const seen: PlaylistEntry[] = [];
    for await (const entry of world.music.paging.iterate(playlist.tracks ?? fail(), { max: 150 }))
      seen.push(entry);
    expect(seen).toHaveLength(150);
    // The embedded first page holds 100; one more page of 100 was needed, no more.
    expect(world.emulator.requestCount()).toBe(1);
  });

  it('adds 250 items at position 10 in three requests, in the asked order', async () => {
    const start = trackUris(world.emulator, 30, 0);
    const added = trackUris(world.emulator, 250, 100);
    const id = newPlaylist(start);
    world.emulator.resetCounters();
    const snapshot = await world.music.playlists.addItems('alice', id, added, { position: 10 });
    expect(world.emulator.requestCount({ method: 'POST', path: itemsPath(id) })).toBe(3);
    const after = world.emulator.playlist(id);
    expect(after?.uris).toEqual([...start.slice(0, 10), ...added, ...start.slice(10)]);
    expect(snapshot).toBe(after?.snapshotId);
  });

  it('appends in order when no position is given', async () => {
    const id = newPlaylist(trackUris(world.emulator, 3, 0));
    const added = trackUris(world.emulator, 120, 200);
    await world.music.playlists.addItems('alice', id, added);
    expect(world.emulator.playlist(id)?.uris.slice(3)).toEqual(added);
  });

  it('removes against a stale snapshot: positions checked in that version, removal applied to the current one', async () => {
    const [a, b, c, d, e, x, y] = trackUris(world.emulator, 7, 400) as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    const id = newPlaylist([a, b, c, d, e]);
    const stale = (await world.music.playlists.get(id, { userId: 'alice' })).snapshot_id;
    await world.music.playlists.addItems('alice', id, [x, y], { position: 0 });

    // `c` was at position 2 in the stale version; it is at 4 now.
    const snapshot = await world.music.playlists.removeItems(
      'alice',
      id,
      [{ uri: c, positions: [2] }],
      stale,
    );
    expect(world.emulator.playlist(id)?.uris).toEqual([x, y, a, b, d, e]);
    expect(snapshot).not.toBe(stale);

    // Positions that do not match the named version are refused.
    await expect(
      world.music.playlists.removeItems('alice', id, [{ uri: d, positions: [0] }], stale),
    ).rejects.toMatchObject({
      status: 400,
    });
    expect(world.emulator.playlist(id)?.uris).toEqual([x, y, a, b, d, e]);

    // By URI alone, every occurrence in that version goes.
    await world.music.playlists.removeItems('alice', id, [a], stale);
    expect(world.emulator.playlist(id)?.uris).toEqual([x, y, b, d, e]);
  });

  it('changes the snapshot on every edit', async () => {
    const uris = trackUris(world.emulator, 5, 500);
    const id = newPlaylist(uris);
    const seen = new Set([world.emulator.playlist(id)?.snapshotId]);
    seen.add(await world.music.playlists.addItems('alice', id, trackUris(world.emulator, 1, 600)));
    seen.add(await world.music.playlists.reorder('alice', id, { rangeStart: 0, insertBefore: 3 }));
    seen.add(await world.music.playlists.replaceItems('alice', id, uris));
    seen.add(
      await world.music.playlists.removeItems(
        'alice',
        id,
        [uris[0] ?? ''],
        world.emulator.playlist(id)?.snapshotId ?? '',
      ),
    );
    expect(seen.size).toBe(5);
  });

  it('reorders a range', async () => {
    const [a, b, c, d, e] = trackUris(world.emulator, 5, 700) as [string, string, string, string, string];
    const id = newPlaylist([a, b, c, d, e]);
    await world.music.playlists.reorder('alice', id, { rangeStart: 0, rangeLength: 2, insertBefore: 4 });
    expect(world.emulator.playlist(id)?.uris).toEqual([c, d, a, b, e]);
    await world.music.playlists.reorder('alice', id, { rangeStart: 4, insertBefore: 0 });
    expect(world.emulator.playlist(id)?.uris).toEqual([e, c, d, a, b]);
  });

  it('replaces 100 items in one request, and refuses 101 before sending anything', async () => {
    const start = trackUris(world.emulator, 10, 0);
    const id = newPlaylist(start);
    world.emulator.resetCounters();
    await expect(
      world.music.playlists.replaceItems('alice', id, trackUris(world.emulator, 101, 800)),
    ).rejects.toBeInstanceOf(RangeError);
    expect(world.emulator.requestCount()).toBe(0);
    expect(world.emulator.playlist(id)?.uris).toEqual(start);

    const wanted = trackUris(world.emulator, 100, 800);
    await world.music.playlists.replaceItems('alice', id, wanted);
    expect(world.emulator.requestCount({ method: 'PUT', path: itemsPath(id) })).toBe(1);
    expect(world.emulator.requestCount({ method: 'POST', path: itemsPath(id) })).toBe(0);
    expect(world.emulator.playlist(id)?.uris).toEqual(wanted);
  });

  it('a replacement the service refuses (an unknown id) leaves every item in place', async () => {
    const start = trackUris(world.emulator, 10, 0);
    const id = newPlaylist(start);
    const wanted = [...trackUris(world.emulator, 99, 800), 'service:track:AAAAAAAAAAAAAAAAAAAAAA'];
    await expect(world.music.playlists.replaceItems('alice', id, wanted)).rejects.toMatchObject({
      status: 400,
      detail: 'Payload contains a non-existing ID',
    });
    expect(world.emulator.playlist(id)?.uris).toEqual(start);
  });

  it('says how many items went in when a request after the first is refused', async () => {
    const start = trackUris(world.emulator, 5, 0);
    const id = newPlaylist(start);
    const added = trackUris(world.emulator, 150, 300);
    const sent = added.map((uri, index) => (index === 120 ? 'service:track:AAAAAAAAAAAAAAAAAAAAAA' : uri));
    const error: unknown = await world.music.playlists.addItems('alice', id, sent).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IncompleteChangeError);
    expect(error).toMatchObject({ applied: 100, total: 150, cause: { status: 400 } });
    expect((error as IncompleteChangeError).userMessage).toBe(
      'Only the first 100 of the 150 items were added: the music service then failed, so the other 50 ' +
        'were not. Add those again later.',
    );
    expect(world.emulator.playlist(id)?.uris).toEqual([...start, ...added.slice(0, 100)]);

    // Refused in the first request: nothing went in, and the error is the service's own.
    const first = await world.music.playlists.addItems('alice', id, sent.slice(100)).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(HttpError);
    expect(first).not.toBeInstanceOf(IncompleteChangeError);
    expect(world.emulator.playlist(id)?.length).toBe(105);
  });

  it('clears a playlist with an empty replacement', async () => {
    const id = newPlaylist(trackUris(world.emulator, 10, 0));
    await world.music.playlists.replaceItems('alice', id, []);
    expect(world.emulator.playlist(id)?.length).toBe(0);
  });

  it('lists the member’s playlists, one page at a time', async () => {
    const page = await world.music.playlists.mine('bob', { offset: 0, limit: 50 });
    expect(page.items.map((p) => p.name)).toEqual(['Bob’s picks', 'Shared with Bob', 'Everything, Forever']);
    expect(page.items[0]?.tracks?.total).toBe(12);
  });

  it('goes through the member’s playlists page by page on the path the bot is granted, wherever the service’s links point', async () => {
    world.emulator.resetCounters();
    const first = await world.music.playlists.mine('bob', { offset: 0, limit: 2 });
    // The service links the member's playlists to /v1/users/{id}/playlists, which 2026 took away.
    if (variant === 'classic') expect(new URL(first.next ?? '').pathname).toBe('/v1/users/bob/playlists');
    const names: string[] = [];
    for await (const playlist of world.music.paging.iterate(first)) names.push(playlist?.name ?? '');
    expect(names).toEqual(['Bob’s picks', 'Shared with Bob', 'Everything, Forever']);
    expect(world.emulator.requestCount({ path: '/v1/me/playlists' })).toBe(2);
    expect(world.emulator.requestCount({ path: /^\/v1\/users\// })).toBe(0);
    const again = await world.music.paging.fetch(first, { offset: 1, limit: 2 });
    expect(again.items.map((playlist) => playlist?.name)).toEqual(['Shared with Bob', 'Everything, Forever']);
    expect(world.emulator.requestCount({ path: /^\/v1\/users\// })).toBe(0);
  });

  it('refuses changes to someone else’s playlist', async () => {
    await expect(
      world.music.playlists.addItems('bob', big, trackUris(world.emulator, 1, 0)),
    ).rejects.toBeInstanceOf(HttpError);
  });
});

describe('playlists with the application token (classic API)', () => {
  let world: MusicWorld;
  beforeAll(async () => {
    world = await createMusicWorld({ variant: 'classic' });
  });
  afterAll(() => world.close());

  it('reads a public playlist in the default market', async () => {
    const id = world.emulator.fixtures?.playlists.bobPicks ?? '';
    const playlist = await world.music.playlists.get(`https://open.service.example/playlist/${id}?si=abc`);
    expect(playlist.tracks?.items.every((entry) => entry.track?.is_playable === true)).toBe(true);
    expect(world.emulator.requests({ path: `/v1/playlists/${id}` })[0]?.search).toContain('market=US');
  });
});

describe('playlists with the application token (2026 API)', () => {
  let world: MusicWorld;
  beforeAll(async () => {
    world = await createMusicWorld({ variant: '2026' });
  });
  afterAll(() => world.close());

  it('gets the playlist without its items, as for anyone who neither owns nor collaborates', async () => {
    const playlist = await world.music.playlists.get(world.emulator.fixtures?.playlists.bobPicks ?? '');
    expect(playlist.name).toBe('Bob’s picks');
    expect(playlist.tracks).toBeUndefined();
  });

  it('says items need the owner’s or a collaborator’s token, without a request', async () => {
    world.emulator.resetCounters();
    const id = world.emulator.fixtures?.playlists.bobPicks ?? '';
    await expect(world.music.playlists.items(id, { offset: 0, limit: 50 })).rejects.toBeInstanceOf(
      EndpointUnavailableError,
    );
    expect(world.emulator.requestCount()).toBe(0);
  });
});

function fail(): never {
  throw new Error('expected a value');
}
