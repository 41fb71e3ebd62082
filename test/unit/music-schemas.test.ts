import { describe, expect, it } from 'vitest';
import {
  albumSchema,
  albumTracksSchema,
  artistSchema,
  severalArtistsSchema,
  topTracksSchema,
  trackSchema,
  apiErrorBodySchema,
  currentUserSchema,
  describeMusicError,
  oauthErrorBodySchema,
  rateLimitedErrorBodySchema,
  readErrorInfo,
  devicesSchema,
  myPlaylistsSchema,
  playlistItemsSchema,
  playlistSchema,
} from '../../src/services/music/index.js';
import { entryLine } from '../../src/bot/render/playlist.js';
import { renderAlbum } from '../../src/bot/render/music-catalog.js';
import { summarizeAlbum } from '../../src/domain/music/catalog.js';

const artist = (id: string) => ({
  id,
  name: `Artist ${id}`,
  type: 'artist',
  uri: `service:artist:${id}`,
  href: 'h',
  external_urls: { service: 'x' },
});
const track = (id: string, extra: Record<string, unknown> = {}) => ({
  artists: [artist('a')],
  disc_number: 1,
  duration_ms: 1000,
  explicit: false,
  id,
  name: `Track ${id}`,
  track_number: 1,
  type: 'track',
  uri: `service:track:${id}`,
  is_local: false,
  ...extra,
});
const page = (items: unknown[], extra: Record<string, unknown> = {}) => ({
  href: 'https://api.test/v1/x?offset=0&limit=50',
  items,
  limit: 50,
  offset: 0,
  total: items.length,
  next: null,
  previous: null,
  ...extra,
});
const album = (extra: Record<string, unknown> = {}) => ({
  album_type: 'album',
  total_tracks: 1,
  href: 'h',
  id: 'al',
  images: [],
  name: '',
  release_date: '1999',
  release_date_precision: 'year',
  type: 'album',
  uri: 'service:album:al',
  artists: [artist('a')],
  tracks: page([track('t')]),
  ...extra,
});
const entry = (item: unknown, extra: Record<string, unknown> = {}) => ({
  added_at: '2024-01-01T00:00:00Z',
  added_by: { id: 'alice', type: 'user', uri: 'service:user:alice', href: 'h', external_urls: {} },
  is_local: false,
  track: item,
  ...extra,
});
const playlist = (extra: Record<string, unknown> = {}) => ({
  collaborative: false,
  description: null,
  href: 'h',
  id: 'p',
  images: [],
  name: 'P',
  owner: { id: 'alice', display_name: null, type: 'user', uri: 'service:user:alice', href: 'h' },
  public: true,
  snapshot_id: 's',
  type: 'playlist',
  uri: 'service:playlist:p',
  ...extra,
});

describe('music schemas tolerate what real lists hold', () => {
  it('accepts unknown album types, restriction reasons and extra fields', () => {
    const parsed = albumSchema.parse(
      album({
        album_type: 'ep',
        restrictions: { reason: 'payment_required' },
        brand_new_field: { x: 1 },
        tracks: page([track('t', { restrictions: { reason: 'mystery' } })]),
      }),
    );
    expect(parsed.album_type).toBe('ep');
    expect(parsed.restrictions?.reason).toBe('payment_required');
    expect(parsed.tracks.items[0]?.restrictions?.reason).toBe('mystery');
  });

  it('reads the public page the real service keys with its own name', () => {
    const real = albumSchema.parse(
      album({ external_urls: { spotify: 'https://open.spotify.com/album/4aawyAB9vmqN3uQ7FjRGTy' } }),
    );
    expect(real.external_urls?.service).toBe('https://open.spotify.com/album/4aawyAB9vmqN3uQ7FjRGTy');
    const spec = albumSchema.parse(album({ external_urls: { service: 'https://open.example/album/1' } }));
    expect(spec.external_urls?.service).toBe('https://open.example/album/1');
    expect(albumSchema.parse(album({ external_urls: {} })).external_urls?.service).toBeUndefined();
  });

  it('accepts the fields development-mode apps lost being absent', () => {
    const parsed = albumSchema.parse(album());
    expect(parsed.label).toBeUndefined();
    expect(parsed.popularity).toBeUndefined();
    expect(parsed.available_markets).toBeUndefined();
  });

  it('reads an album recorded before the service sent its track count and release date', () => {
    const old = album({ tracks: page([track('t1'), track('t2', { track_number: 2 })]) }) as Record<
      string,
      unknown
    >;
    delete old.total_tracks;
    delete old.release_date;
    delete old.release_date_precision;
    const parsed = albumSchema.parse(old);
    const embed = renderAlbum(summarizeAlbum(parsed, parsed.tracks.items, undefined), { ownerId: '1' })
      .embeds[0];
    const field = (name: string) => embed?.fields?.find((f) => f.name === name)?.value;
    // The count comes from the tracks' own paging object.
    expect(field('Tracks')).toBe('2');
    expect(field('Released')).toBe('Not shown');
    expect(embed?.description).toContain('Track t2');
  });

  it('keeps an artist’s top tracks whose albums come without a track count or release date', () => {
    const inner = { ...album(), tracks: undefined } as Record<string, unknown>;
    delete inner.tracks;
    delete inner.total_tracks;
    delete inner.release_date;
    delete inner.release_date_precision;
    const parsed = topTracksSchema.parse({
      tracks: [track('t1', { album: inner }), track('t2', { album: inner })],
    });
    expect(parsed.tracks.map((t) => t.name)).toEqual(['Track t1', 'Track t2']);
  });

  it('reads a playlist that leaves out its description and visibility as one that has none', () => {
    const bare = playlist() as Record<string, unknown>;
    delete bare.description;
    delete bare.public;
    const parsed = playlistSchema.parse(bare) as { description: unknown; public: unknown };
    expect(parsed.description).toBeNull();
    expect(parsed.public).toBeNull();
  });

  it('accepts unknown device types, null ids and null volumes', () => {
    const parsed = devicesSchema.parse({
      devices: [
        {
          id: null,
          is_active: false,
          is_private_session: false,
          is_restricted: true,
          name: 'Car',
          type: 'Automobile',
          volume_percent: null,
          supports_volume: false,
        },
        { id: 'd', is_active: true, is_restricted: false, name: 'Thing', type: 'HOLOGRAM' },
      ],
    });
    expect(parsed.devices.map((d) => d.type)).toEqual(['Automobile', 'HOLOGRAM']);
    // A device that leaves its id out is one without an id, not a reason to drop the list.
    const withoutId = devicesSchema.parse({
      devices: [{ is_active: true, is_restricted: false, name: 'Radio', type: 'Speaker' }],
    });
    expect(withoutId.devices.map((d) => [d.name, d.id])).toEqual([['Radio', null]]);
  });

  it('keeps a track or a playlist that leaves out a field it usually sends: a restriction’s reason, a visibility', () => {
    const tracks = albumTracksSchema.parse(page([track('open'), track('held', { restrictions: {} })]));
    expect(tracks.items.map((t) => [t.id, t.restrictions?.reason])).toEqual([
      ['open', undefined],
      ['held', 'unknown'],
    ]);
    const bare = playlist({ id: 'quiet' }) as Record<string, unknown>;
    delete bare.public;
    expect(myPlaylistsSchema.parse(page([bare])).items.map((p) => [p.id, p.public])).toEqual([
      ['quiet', null],
    ]);
  });

  it('keeps and marks removed tracks, local files, episodes and unreadable entries', () => {
    const parsed = playlistItemsSchema.parse(
      page([
        entry(track('ok')),
        entry(null),
        entry(
          {
            ...track('x'),
            id: null,
            uri: null,
            is_local: true,
            album: { id: null, name: 'memos', album_type: null, uri: null },
          },
          { is_local: true },
        ),
        entry({
          type: 'episode',
          id: 'e',
          uri: 'service:episode:e',
          name: 'Ep',
          duration_ms: 5,
          show: { id: 's', name: 'Show' },
        }),
        entry({ type: 'audiobook_chapter', id: 'c', uri: 'service:chapter:c', name: 'Ch' }),
        { totally: 'broken' },
        entry({ id: 42 }),
      ]),
    );
    expect(parsed.items.map((e) => e.kind)).toEqual([
      'track',
      'unavailable',
      'local',
      'episode',
      'unsupported',
      'unavailable',
      'unsupported',
    ]);
    // An entry with no `track` key at all is a removed item in effect.
    expect(parsed.items[5]?.track).toBeNull();
  });

  it('names the show of an episode sent in the track format, as the service does by default', () => {
    // Without `additional_types=episode` the service sends episodes shaped as tracks: the show
    // is the `album` (type `show`), the artists may have no names, and there is no `show` key.
    const parsed = playlistItemsSchema.parse(
      page([
        entry({
          type: 'episode',
          episode: true,
          track: false,
          id: 'e',
          uri: 'service:episode:e',
          name: 'Episode 12',
          duration_ms: 61_000,
          explicit: false,
          album: { type: 'show', album_type: 'compilation', name: 'The Show', release_date: null },
          artists: [{ type: 'artist', name: null, id: null, uri: null }],
        }),
      ]),
    );
    expect(parsed.items[0]?.kind).toBe('episode');
    expect(entryLine(parsed.items[0]!, 1)).toContain('Episode 12 — The Show');
  });

  it('marks an explicit track, and one the service restricts, as the album view does', () => {
    const parsed = playlistItemsSchema.parse(
      page([
        entry({ ...track('x'), name: 'Loud', explicit: true }),
        entry({ ...track('r'), name: 'Elsewhere', restrictions: { reason: 'market' } }),
        entry({ ...track('p'), name: 'Plain', explicit: false }),
      ]),
    );
    expect(entryLine(parsed.items[0]!, 1)).toMatch(/Loud.* · explicit$/);
    expect(entryLine(parsed.items[1]!, 2)).toMatch(/Elsewhere.* · unavailable$/);
    expect(entryLine(parsed.items[2]!, 3)).not.toMatch(/explicit|unavailable/);
  });

  it('reads an entry whose fields come as null now and then, keeping its URI', () => {
    const parsed = playlistItemsSchema.parse(
      page([
        entry(
          { ...track('n'), explicit: null, popularity: null, is_playable: null, external_urls: null },
          { is_local: null },
        ),
      ]),
    );
    const [read] = parsed.items;
    expect(read?.kind).toBe('track');
    expect(read?.track?.uri).toBe('service:track:n');
    expect(read?.is_local).toBe(false);
  });

  it('normalises the 2026 names: items for tracks, item for track', () => {
    const parsed = playlistSchema.parse(
      playlist({ items: page([{ added_at: null, added_by: null, is_local: false, item: track('new') }]) }),
    );
    expect(parsed.tracks?.items[0]?.track?.id).toBe('new');
    expect(parsed.tracks?.items[0]?.kind).toBe('track');
    const simplified = myPlaylistsSchema.parse(page([playlist({ items: { href: 'h', total: 3 } })]));
    expect(simplified.items[0]?.tracks?.total).toBe(3);
  });

  it('accepts a 2026 playlist with no items at all', () => {
    expect(playlistSchema.parse(playlist()).tracks).toBeUndefined();
    expect(playlistSchema.parse(playlist({ items: null, tracks: null })).tracks).toBeUndefined();
    // Someone else's playlist: no `items`, the deprecated `tracks` only as a reference.
    expect(playlistSchema.parse(playlist({ tracks: { href: 'h', total: 7 } })).tracks).toBeUndefined();
  });

  it('reads the 2026 names when the deprecated ones come beside them, in their old shape', () => {
    const parsed = playlistSchema.parse(
      playlist({
        tracks: { href: 'h', total: 1 },
        items: page([{ added_at: null, added_by: null, is_local: false, track: null, item: track('new') }]),
      }),
    );
    expect(parsed.tracks?.items.map((e) => [e.kind, e.track?.id])).toEqual([['track', 'new']]);
    const simplified = myPlaylistsSchema.parse(
      page([playlist({ tracks: null, items: { href: 'h', total: 3 } })]),
    );
    expect(simplified.items[0]?.tracks?.total).toBe(3);
  });

  it('reads catalog answers that carry null where the contract has a value or nothing', () => {
    // Seen in real answers: an album's label (jpochyla/psst #112), a relinked track's
    // linked_from.id (Peter-Schorn/SpotifyAPI #62); and genres, popularity, followers.
    const relinked = track('t', {
      linked_from: { id: null, type: 'track', uri: null, href: null, external_urls: { service: 'x' } },
      preview_url: null,
      popularity: null,
    });
    const parsed = albumSchema.parse(
      album({ label: null, popularity: null, genres: null, tracks: page([relinked]) }),
    );
    expect(parsed.label).toBeUndefined();
    expect(parsed.genres).toEqual([]);
    expect(parsed.tracks.items[0]?.linked_from?.id).toBeUndefined();
    expect(parsed.tracks.items[0]?.preview_url).toBeNull();
    // One album track with a null `explicit` does not make the album unreadable.
    const withNull = albumSchema.parse(album({ tracks: page([track('t', { explicit: null }), track('u')]) }));
    expect(withNull.tracks.items.map((t) => [t.id, t.explicit])).toEqual([
      ['t', false],
      ['u', false],
    ]);
    const full = trackSchema.parse({ ...relinked, album: album({ label: null }) });
    expect(full.popularity).toBeUndefined();
    const artistRead = artistSchema.parse({
      ...artist('a'),
      genres: null,
      popularity: null,
      followers: null,
    });
    expect([artistRead.genres, artistRead.popularity, artistRead.followers]).toEqual([
      [],
      undefined,
      undefined,
    ]);
  });

  it('shows the rest of an album past a null track, a local one and one it cannot read', () => {
    const items = () => [
      track('first', { track_number: 1 }),
      null,
      track('local', { id: null, uri: null, is_local: true, track_number: 3 }),
      { id: 'broken', name: 42 },
      track('last', { track_number: 5 }),
    ];
    const parsed = albumSchema.parse(album({ total_tracks: 5, tracks: page(items()) }));
    expect(parsed.tracks.items.map((t) => [t.id, t.track_number])).toEqual([
      ['first', 1],
      ['last', 5],
    ]);
    // The counts stay the album's: five tracks, of which this page could show two.
    expect([parsed.total_tracks, parsed.tracks.total]).toEqual([5, 5]);

    const next = albumTracksSchema.parse(page(items(), { offset: 50, total: 55, next: null }));
    expect(next.items.map((t) => t.id)).toEqual(['first', 'last']);
    expect([next.offset, next.total]).toEqual([50, 55]);
  });

  it('reads an artist it cannot read in a batch as missing, and the others as they are', () => {
    const parsed = severalArtistsSchema.parse({
      artists: [artist('a'), null, { id: 'broken', name: null }, artist('d')],
    });
    expect(parsed.artists.map((a) => a?.id ?? null)).toEqual(['a', null, null, 'd']);
  });

  it('leaves an unreadable top track out instead of failing the list', () => {
    const good = { ...track('good'), album: album() };
    const parsed = topTracksSchema.parse({ tracks: [good, { id: 'broken' }] });
    expect(parsed.tracks.map((t) => t.id)).toEqual(['good']);
  });

  it('lists the member’s playlists past null entries and playlists the service describes only in part', () => {
    const parsed = myPlaylistsSchema.parse(
      page([
        playlist({ id: 'good', tracks: { href: 'h', total: 4 } }),
        // Since December 2024, playlists the service owns come as null.
        null,
        // Generated playlists: no track count; some have neither name, description nor snapshot
        // (spotify/web-api #828).
        playlist({ id: 'mix', tracks: { href: 'h', total: null } }),
        {
          ...playlist({ id: 'bare', tracks: { href: 'h', total: 2 } }),
          name: undefined,
          description: undefined,
          snapshot_id: undefined,
        },
        { id: 'unreadable' },
      ]),
    );
    expect(parsed.items.map((p) => [p.id, p.name === '', p.tracks?.total])).toEqual([
      ['good', false, 4],
      ['mix', false, null],
      ['bare', true, 2],
    ]);
  });

  it('accepts a profile without country, product and email', () => {
    const parsed = currentUserSchema.parse({
      id: 'u',
      display_name: null,
      type: 'user',
      uri: 'service:user:u',
      images: [],
    });
    expect([parsed.country, parsed.product, parsed.email]).toEqual([undefined, undefined, undefined]);
  });
});

describe('music error bodies', () => {
  it('reads the API error body, with a player reason and extra fields', () => {
    const body = {
      error: {
        status: 403,
        message: 'Player command failed: Premium required',
        reason: 'PREMIUM_REQUIRED',
        x: 1,
      },
    };
    expect(apiErrorBodySchema.parse(body).error).toEqual({
      status: 403,
      message: 'Player command failed: Premium required',
      reason: 'PREMIUM_REQUIRED',
    });
    expect(readErrorInfo(body)).toEqual({
      message: 'Player command failed: Premium required',
      reason: 'PREMIUM_REQUIRED',
      oauthError: undefined,
    });
  });

  it('reads the spec’s 429 sample body', () => {
    const body = { error: { code: 'rate_limited', message: 'Too many requests', request_id: 'r-1' } };
    expect(rateLimitedErrorBodySchema.parse(body).error.code).toBe('rate_limited');
    expect(apiErrorBodySchema.safeParse(body).success).toBe(false);
    expect(describeMusicError(body)).toBe('Too many requests');
  });

  it('reads the token endpoint’s RFC 6749 §5.2 body', () => {
    const body = { error: 'invalid_grant', error_description: 'Invalid refresh token' };
    expect(oauthErrorBodySchema.parse(body)).toEqual(body);
    expect(describeMusicError(body)).toBe('invalid_grant: Invalid refresh token');
  });

  it('makes do with bodies that are empty, text, or missing fields', () => {
    for (const body of [
      undefined,
      '',
      '  ',
      '<html><body>502 Bad Gateway</body></html>',
      {},
      { error: {} },
      { error: { status: 'x' } },
    ]) {
      expect(readErrorInfo(body)).toEqual({ message: undefined, reason: undefined, oauthError: undefined });
    }
    expect(readErrorInfo({ error: { message: 'no status here' } }).message).toBe('no status here');
    // Plain text is the service's message (some of its 403s come so); an HTML page is not.
    expect(readErrorInfo(' Bad gateway\n').message).toBe('Bad gateway');
  });
});
