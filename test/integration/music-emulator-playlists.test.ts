import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startMusicEmulator, type MusicEmulator } from '../../emulators/music/index.js';
import { trackUris } from '../fixtures/music.js';

const INSUFFICIENT = { error: { status: 403, message: 'Insufficient client scope' } };
const READ_ALL = ['playlist-read-private', 'playlist-read-collaborative'];

describe('music emulator: editing playlists', () => {
  let emulator: MusicEmulator;
  let playlists: { big: string; roadTrip: string; shared: string };
  // A fresh world per test: edits change the playlists.
  beforeEach(async () => {
    emulator = await startMusicEmulator();
    playlists = (emulator.fixtures ?? expect.fail('seeded')).playlists;
  });
  afterEach(() => emulator.close());

  async function call(method: string, path: string, token: string, body?: unknown) {
    const response = await fetch(`${emulator.apiUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: await response.json() };
  }

  it('links the member’s playlists to /v1/users/{id}/playlists, as the service does, and serves that list there', async () => {
    const token = emulator.issueUserToken('bob', READ_ALL).access_token;
    type Page = { href: string; next: string | null; items: { name: string }[]; total: number };
    const first = (await call('GET', '/v1/me/playlists?limit=2', token)).body as Page;
    expect(first.href).toBe(`${emulator.apiUrl}/v1/users/bob/playlists?offset=0&limit=2`);
    expect(first.next).toBe(`${emulator.apiUrl}/v1/users/bob/playlists?offset=2&limit=2`);
    const followed = await call('GET', new URL(first.next ?? '').pathname + '?offset=2&limit=2', token);
    const second = (await call('GET', '/v1/me/playlists?offset=2&limit=2', token)).body as Page;
    expect(followed).toEqual({ status: 200, body: second });
    // Someone else's list holds only the public playlists they own.
    const others = (await call('GET', '/v1/users/alice/playlists?limit=50', token)).body as Page;
    const alicesOwn = (
      (
        await call(
          'GET',
          '/v1/me/playlists?limit=50',
          emulator.issueUserToken('alice', ['playlist-read-private']).access_token,
        )
      ).body as { items: { name: string; public: boolean; owner: { id: string } }[] }
    ).items.filter((p) => p.public && p.owner.id === 'alice');
    expect(others.items.map((p) => p.name)).toEqual(alicesOwn.map((p) => p.name));
    expect(others.items.length).toBeGreaterThan(0);
    expect((await call('GET', '/v1/users/nobody-at-all/playlists', token)).status).toBe(404);
    // Without playlist-read-private, a member's own list is refused there as at /v1/me/playlists.
    const narrow = emulator.issueUserToken('bob', ['user-read-private']).access_token;
    expect(await call('GET', '/v1/users/bob/playlists', narrow)).toEqual({ status: 403, body: INSUFFICIENT });
  });

  it('refuses /v1/users/{id}/playlists to 2026 development-mode apps, and links the member’s playlists to /v1/me/playlists', async () => {
    const modern = await startMusicEmulator({ variant: '2026' });
    try {
      const token = modern.issueUserToken('bob', READ_ALL).access_token;
      const get = async (path: string) =>
        fetch(`${modern.apiUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
      const first = (await (await get('/v1/me/playlists?limit=2')).json()) as { next: string };
      expect(new URL(first.next).pathname).toBe('/v1/me/playlists');
      const refused = await get('/v1/users/bob/playlists');
      expect([refused.status, await refused.json()]).toEqual([
        403,
        { error: { status: 403, message: 'Forbidden' } },
      ]);
    } finally {
      await modern.close();
    }
  });

  it('sends episodes in the track format unless additional_types names episode', async () => {
    const token = emulator.issueUserToken('alice', ['playlist-read-private']).access_token;
    const path = `/v1/playlists/${playlists.big}/tracks?offset=0&limit=10`;
    type Page = { href: string; items: { track: Record<string, unknown> | null }[] };
    const episodeOf = (page: Page) => page.items.find((item) => item.track?.['type'] === 'episode')?.track;
    const asTrack = episodeOf((await call('GET', path, token)).body as Page);
    expect(asTrack).toMatchObject({
      type: 'episode',
      track: true,
      album: { type: 'show', album_type: 'compilation', name: 'The Long Listen', release_date: null },
      artists: [{ type: 'show', name: null }],
    });
    expect(asTrack).not.toHaveProperty('show');
    const full = (await call('GET', `${path}&additional_types=track,episode`, token)).body as Page;
    expect(episodeOf(full)).toMatchObject({ type: 'episode', show: { name: 'The Long Listen' } });
    expect(episodeOf(full)).not.toHaveProperty('album');
    expect(new URL(full.href).searchParams.get('additional_types')).toBe('track,episode');
  });

  describe('needs the modify scope that fits the playlist', () => {
    it('playlist-modify-public for a public playlist', async () => {
      const [uri] = trackUris(emulator, 1);
      const privateOnly = emulator.issueUserToken('alice', ['playlist-modify-private']).access_token;
      const publicOnly = emulator.issueUserToken('alice', ['playlist-modify-public']).access_token;
      const length = emulator.playlist(playlists.big)?.length;
      const path = `/v1/playlists/${playlists.big}/tracks`;
      expect(await call('POST', path, privateOnly, { uris: [uri] })).toEqual({
        status: 403,
        body: INSUFFICIENT,
      });
      expect(emulator.playlist(playlists.big)?.length).toBe(length);
      expect((await call('POST', path, publicOnly, { uris: [uri] })).status).toBe(201);
    });

    it('playlist-modify-private for a private playlist, on every kind of edit', async () => {
      const [uri] = trackUris(emulator, 1);
      const publicOnly = emulator.issueUserToken('alice', ['playlist-modify-public']).access_token;
      const privateOnly = emulator.issueUserToken('alice', ['playlist-modify-private']).access_token;
      const items = `/v1/playlists/${playlists.roadTrip}/items`;
      const before = emulator.playlist(playlists.roadTrip);
      const snapshot_id = before?.snapshotId;
      const edits = [
        ['POST', { uris: [uri] }],
        ['PUT', { uris: [uri] }],
        ['PUT', { range_start: 0, insert_before: 2 }],
        ['DELETE', { items: [{ uri: before?.uris[0] }], snapshot_id }],
      ] as const;
      for (const [method, body] of edits)
        expect([method, await call(method, items, publicOnly, body)]).toEqual([
          method,
          { status: 403, body: INSUFFICIENT },
        ]);
      expect(emulator.playlist(playlists.roadTrip)?.snapshotId).toBe(snapshot_id);
      expect((await call('POST', items, privateOnly, { uris: [uri] })).status).toBe(201);
    });

    it('playlist-modify-private for a collaborative playlist, for a collaborator too', async () => {
      const [uri] = trackUris(emulator, 1);
      const path = `/v1/playlists/${playlists.shared}/tracks`;
      const bobPublicOnly = emulator.issueUserToken('bob', ['playlist-modify-public']).access_token;
      const bobPrivate = emulator.issueUserToken('bob', ['playlist-modify-private']).access_token;
      expect(await call('POST', path, bobPublicOnly, { uris: [uri] })).toEqual({
        status: 403,
        body: INSUFFICIENT,
      });
      expect((await call('POST', path, bobPrivate, { uris: [uri] })).status).toBe(201);
    });
  });

  it('removes by URI exactly the entries that show it: a removed track’s entry, shown as null, stays', async () => {
    const token = emulator.issueUserToken('alice', [
      'playlist-read-private',
      'playlist-modify-public',
    ]).access_token;
    type Page = { items: { track: { uri?: string } | null }[]; next: string | null };
    const shown: (string | null)[] = [];
    for (let offset = 0; offset < 10_000; offset += 100) {
      const page = (
        await call('GET', `/v1/playlists/${playlists.big}/tracks?offset=${offset}&limit=100`, token)
      ).body as Page;
      shown.push(...page.items.map((item) => item.track?.uri ?? null));
    }
    expect(shown[2]).toBeNull();
    // The removed track's entry shares its URI with no entry that shows one: a removal by URI
    // (which takes every copy) of a track the member sees never takes an entry they were not shown.
    const hidden = emulator.playlist(playlists.big)!.uris[2];
    expect(hidden).toMatch(/^service:track:/);
    expect(shown).not.toContain(hidden);
    // The track at position 1: every entry showing its URI goes, and nothing else.
    const uri = shown[0]!;
    const copies = shown.filter((shownUri) => shownUri === uri).length;
    const snapshot = (
      (await call('GET', `/v1/playlists/${playlists.big}`, token)).body as { snapshot_id: string }
    ).snapshot_id;
    const removed = await call('DELETE', `/v1/playlists/${playlists.big}/tracks`, token, {
      tracks: [{ uri }],
      snapshot_id: snapshot,
    });
    expect(removed.status).toBe(200);
    expect(emulator.playlist(playlists.big)!.length).toBe(10_000 - copies);
  });

  it('adds the query’s uris and ignores the body’s when both are sent (POST)', async () => {
    const [fromQuery, fromBody] = trackUris(emulator, 2, 40);
    const token = emulator.issueUserToken('alice', ['playlist-modify-private']).access_token;
    const before = emulator.playlist(playlists.roadTrip)?.length ?? 0;
    const query = new URLSearchParams({ uris: fromQuery ?? '', position: '0' });
    const added = await call(
      'POST',
      `/v1/playlists/${playlists.roadTrip}/tracks?${query.toString()}`,
      token,
      {
        uris: [fromBody],
      },
    );
    expect(added.status).toBe(201);
    const after = emulator.playlist(playlists.roadTrip);
    expect(after?.length).toBe(before + 1);
    expect(after?.uris[0]).toBe(fromQuery);
    expect(after?.uris).not.toContain(fromBody);
  });

  it('still takes the body’s uris when the query has none (POST)', async () => {
    const [uri] = trackUris(emulator, 1, 41);
    const token = emulator.issueUserToken('alice', ['playlist-modify-private']).access_token;
    const added = await call('POST', `/v1/playlists/${playlists.roadTrip}/tracks?position=0`, token, {
      uris: [uri],
    });
    expect(added.status).toBe(201);
    expect(emulator.playlist(playlists.roadTrip)?.uris[0]).toBe(uri);
  });
});
