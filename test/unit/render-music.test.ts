import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ALBUM_PAGE_SIZE,
  renderAlbum,
  renderArtist,
  renderArtists,
} from '../../src/bot/render/music-catalog.js';
import { albumButton, playerButton, playlistPageButton } from '../../src/bot/render/music-ids.js';
import { renderLibraryChange } from '../../src/bot/render/music-library.js';
import { renderLinkNeeded } from '../../src/bot/render/music-prompts.js';
import { renderDevices, renderPlayerOutcome, renderPlayerPanel } from '../../src/bot/render/player.js';
import {
  renderCancelled,
  renderPlaylistEdit,
  renderPlaylistPage,
  renderRemovalPrompt,
  renderReplacementPrompt,
} from '../../src/bot/render/playlist.js';
import type { MusicMessage } from '../../src/bot/render/music-components.js';
import {
  albumSummary,
  ALBUM_ID,
  anyText,
  artist,
  device,
  expectDiscordAccepts,
  frozen,
  OWNER,
  playlistEntry,
  playlistHead,
  playlistPage,
  PLAYLIST_ID,
  track,
  trackLine,
} from '../fixtures/music-render.js';

const customIds = (message: MusicMessage) =>
  message.components.flatMap((row) => row.components.map((c) => ('custom_id' in c ? c.custom_id : '')));
const labels = (message: MusicMessage) =>
  message.components.flatMap((row) => row.components.map((c) => ('label' in c ? (c.label ?? '') : '')));

/** Renders twice from a deeply frozen input: the same JSON both times, and the input untouched. */
function pure<T>(render: (input: T) => MusicMessage, input: T): MusicMessage {
  const first = render(frozen(input));
  expect(render(input)).toEqual(first);
  expectDiscordAccepts(first);
  return first;
}

const LONG = 'Ü'.repeat(5_000);
const SNOWFLAKE_MAX = '18446744073709551615';

describe('album renderer', () => {
  it('lists a page of tracks with "and N more", facts and paging buttons for a 1,000-track album', () => {
    const tracks = Array.from({ length: 1_000 }, (_, i) =>
      trackLine({ name: `${LONG} ${i}`, artists: ['Guest *star*', 'Noah Moreau'], explicit: i % 2 === 0 }),
    );
    const message = pure(
      (a) => renderAlbum(a, { ownerId: SNOWFLAKE_MAX, page: 3 }),
      albumSummary({ tracks }),
    );
    const embed = message.embeds[0]!;
    expect(embed.footer?.text).toMatch(/^Tracks 61–80 of 1,000 · page 4 of 50/);
    const more = /…and ([\d,]+) more tracks$/.exec(embed.description ?? '');
    const listed = (embed.description ?? '').split('\n').filter((line) => line.startsWith('`')).length;
    expect(Number(more?.[1]?.replace(/,/g, ''))).toBe(1_000 - 60 - listed);
    expect(labels(message)).toEqual(['Save to library', 'Remove from library', '◀ Tracks', 'Tracks ▶']);
    const ids = customIds(message).map((id) => albumButton.decode(id.split(':').slice(1)));
    expect(ids.map((state) => [state.action, state.page])).toEqual([
      ['save', 3],
      ['remove', 3],
      ['prev', 2],
      ['next', 4],
    ]);
  });

  it('shows every track of a long-titled album on one of its pages: names shortened, none skipped', () => {
    // A classical compilation: long titles and credits, with markdown characters that double when escaped.
    const title = (i: number) =>
      `Symphony_No._${i}_in_D_Minor,_Op._125_*Choral*:_IV._Presto_-_Allegro_assai_-_Allegro_`;
    const credits = [
      'Ludwig_van_Beethoven',
      'Symphonieorchester_des_Bayerischen_Rundfunks',
      'Chor_des_BR',
      'Mariss_Jansons',
    ];
    const tracks = Array.from({ length: 40 }, (_, i) =>
      trackLine({ name: title(i + 1), artists: credits, trackNumber: i + 1 }),
    );
    const album = albumSummary({
      artists: Array.from({ length: 12 }, (_, i) => ({
        id: `a${i}`,
        name: `Various_*Artists*_${'_'.repeat(70)}${i}`,
      })),
      tracks,
      totalTracks: 40,
    });
    const shown = [0, 1].flatMap((page) => {
      const message = pure((a) => renderAlbum(a, { ownerId: OWNER, page }), album);
      const description = message.embeds[0]!.description!;
      // Only the tracks of later pages are counted as more.
      expect(/…and (\d+) more tracks$/.exec(description)?.[1]).toBe(page === 0 ? '20' : undefined);
      return description
        .split('\n')
        .filter((line) => line.startsWith('`'))
        .map((line) => Number(/^`(\d+)\.`/.exec(line)?.[1]));
    });
    expect(shown).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    // Short names keep their full length.
    const short = renderAlbum(albumSummary(), { ownerId: OWNER }).embeds[0]!.description!;
    expect(short).toContain('`1.` Morning Window');
  });

  it('numbers tracks as the album does, by disc once there are two, not by place in the list', () => {
    const numbered = (tracks: ReturnType<typeof trackLine>[], page = 0) =>
      renderAlbum(albumSummary({ tracks, totalTracks: tracks.length }), { ownerId: OWNER, page })
        .embeds[0]!.description!.split('\n')
        .filter((line) => line.startsWith('`'))
        .map((line) => line.slice(0, line.indexOf(' ')));
    const twoDiscs = [1, 2, 3, 1, 2].map((trackNumber, i) =>
      trackLine({ trackNumber, discNumber: i < 3 ? 1 : 2 }),
    );
    expect(numbered(twoDiscs)).toEqual(['`1-1.`', '`1-2.`', '`1-3.`', '`2-1.`', '`2-2.`']);
    const tracksField = (tracks: ReturnType<typeof trackLine>[]) =>
      renderAlbum(albumSummary({ tracks, totalTracks: tracks.length }), {
        ownerId: OWNER,
      }).embeds[0]!.fields!.find((field) => field.name === 'Tracks')?.value;
    expect(tracksField(twoDiscs)).toBe('5 on 2 discs');
    expect(tracksField(twoDiscs.slice(0, 3))).toBe('3');
    // An unreadable track 3 left out: 4 stays 4; page 2 goes on from the album's numbers.
    const gap = Array.from({ length: 25 }, (_, i) => trackLine({ trackNumber: i < 2 ? i + 1 : i + 2 }));
    expect(numbered(gap).slice(0, 4)).toEqual(['`1.`', '`2.`', '`4.`', '`5.`']);
    expect(numbered(gap, 1)).toEqual(['`22.`', '`23.`', '`24.`', '`25.`', '`26.`']);
    // A number the service does not give (0) falls back to the place in the list.
    expect(numbered([trackLine({ trackNumber: 0 }), trackLine({ trackNumber: 0 })])).toEqual([
      '`1.`',
      '`2.`',
    ]);
  });

  it('credits a guest on a one-artist album, and every track’s artists on an album of several', () => {
    const lines = (artists: string[], tracks: ReturnType<typeof trackLine>[]) =>
      renderAlbum(
        albumSummary({
          artists: artists.map((name, i) => ({ id: `artist${i}`, name })),
          tracks,
          totalTracks: tracks.length,
        }),
        { ownerId: OWNER },
      )
        .embeds[0]!.description!.split('\n')
        .filter((line) => line.startsWith('`'));
    const solo = lines(
      ['Noah Moreau'],
      [trackLine({ name: 'Alone' }), trackLine({ name: 'Duet', artists: ['Noah Moreau', 'Mia Park'] })],
    );
    expect(solo[0]).toMatch(/^`1\.` Alone · /);
    expect(solo[1]).toMatch(/^`1\.` Duet — Mia Park · /);
    // A compilation's byline names everyone; each track says who plays it.
    const compilation = lines(
      ['Noah Moreau', 'Mia Park', 'The Lunar Comets'],
      [
        trackLine({ name: 'First', artists: ['Mia Park'] }),
        trackLine({ name: 'Second', artists: ['The Lunar Comets', 'Noah Moreau'] }),
        trackLine({ name: 'All of us', artists: ['Noah Moreau', 'Mia Park', 'The Lunar Comets'] }),
      ],
    );
    expect(compilation[0]).toMatch(/^`1\.` First — Mia Park · /);
    expect(compilation[1]).toMatch(/^`1\.` Second — The Lunar Comets, Noah Moreau · /);
    expect(compilation[2]).toMatch(/^`1\.` All of us · /);
  });

  it('clamps the page and disables paging at the ends', () => {
    const tracks = Array.from({ length: 45 }, () => trackLine());
    const last = pure((a) => renderAlbum(a, { ownerId: OWNER, page: 99 }), albumSummary({ tracks }));
    expect(last.embeds[0]?.footer?.text).toMatch(/^Tracks 41–45 of 45 · page 3 of 3/);
    const [, , prev, next] = last.components[0]!.components;
    expect(prev && 'disabled' in prev && prev.disabled).toBe(false);
    expect(next && 'disabled' in next && next.disabled).toBe(true);
  });

  it('shows an album with no tracks, no name, unknown type, many artists and a restriction', () => {
    const message = pure(
      (a) => renderAlbum(a, { ownerId: OWNER }),
      albumSummary({
        name: '',
        albumType: 'audiobook_chapter',
        artists: Array.from({ length: 50 }, (_, i) => ({ id: `a${i}`, name: LONG })),
        tracks: [],
        totalTracks: 0,
        restriction: 'brand-new-reason',
        releaseDate: 'sometime',
        label: '',
      }),
    );
    const embed = message.embeds[0]!;
    expect(embed.title).toBe('Untitled album');
    expect(embed.description).toContain('This album lists no tracks.');
    expect(embed.description).toContain('and 42 more artists');
    const fields = Object.fromEntries((embed.fields ?? []).map((f) => [f.name, f.value]));
    expect(fields['Type']).toBe('Audiobook\\_chapter');
    expect(fields['Availability']).toBe('Not available in US (restriction: brand-new-reason)');
    expect(fields['Released']).toBe('sometime');
    expect(labels(message)).toEqual(['Save to library', 'Remove from library']);
  });

  it('says the length is a lower bound when not every track was fetched', () => {
    const message = renderAlbum(albumSummary({ totalTracks: 1_500 }), { ownerId: OWNER });
    const length = message.embeds[0]!.fields!.find((f) => f.name === 'Length')!.value;
    expect(length).toMatch(/^at least /);
    expect(message.embeds[0]!.description).toContain('…and 1,488 more tracks');
  });

  it('accepts any names and dates the service may send', () => {
    fc.assert(
      fc.property(
        anyText(),
        fc.array(anyText(200), { maxLength: 30 }),
        fc.array(fc.record({ name: anyText(300), artists: fc.array(anyText(100), { maxLength: 6 }) }), {
          maxLength: 60,
        }),
        anyText(100),
        fc.nat(10),
        (name, artistNames, tracks, label, page) => {
          const summary = albumSummary({
            name,
            label,
            artists: artistNames.map((n, i) => ({ id: `id${i}`, name: n })),
            tracks: tracks.map((t) => trackLine(t)),
            releaseDate: label,
          });
          const message = renderAlbum(summary, { ownerId: OWNER, page });
          expectDiscordAccepts(message);
          expect(
            message.embeds[0]!.description!.split('\n').filter((l) => l.startsWith('`')).length,
          ).toBeLessThanOrEqual(ALBUM_PAGE_SIZE);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('artist renderers', () => {
  it('shows followers, popularity, genres and top tracks, all within limits', () => {
    const message = pure(renderArtist, {
      artist: artist({ name: LONG, genres: Array.from({ length: 200 }, () => LONG) }),
      topTracks: Array.from({ length: 10 }, () => track({ name: LONG })),
      market: 'US',
    });
    const fields = Object.fromEntries((message.embeds[0]!.fields ?? []).map((f) => [f.name, f.value]));
    expect(fields['Followers']).toBe('1,234,567');
    expect(fields['Popularity']).toBe('77/100');
    expect(fields['Top tracks in US']).toMatch(/^`1\.` Ü+…/);
  });

  it('marks explicit top tracks, as the album view marks its tracks', () => {
    const message = pure(renderArtist, {
      artist: artist(),
      topTracks: [track({ name: 'Clean' }), track({ name: 'Loud', explicit: true })],
      market: 'US',
    });
    const top = message.embeds[0]!.fields!.find((f) => f.name === 'Top tracks in US')!.value.split('\n');
    expect(top[0]).not.toContain('explicit');
    expect(top[1]).toMatch(/^`2\.` Loud — .* · \d+:\d\d · explicit$/);
  });

  it('copes with an artist the 2026 service describes less, and no top tracks', () => {
    const message = pure(renderArtist, {
      artist: artist({ followers: undefined, popularity: undefined, genres: [], images: [] }),
      topTracks: undefined,
      market: 'SE',
    });
    const fields = Object.fromEntries((message.embeds[0]!.fields ?? []).map((f) => [f.name, f.value]));
    expect(fields).toMatchObject({
      Followers: 'Not shown',
      Popularity: 'Not shown',
      Genres: 'Not classified yet',
      'Top tracks in SE': 'The music service does not offer top tracks to this bot’s app.',
    });
    expect(renderArtist({ artist: artist(), topTracks: [], market: 'SE' }).embeds[0]!.fields![3]!.value).toBe(
      'None available in SE.',
    );
  });

  it('lists all ten top tracks in their field, shortening long names rather than leaving tracks out', () => {
    const long = '_*'.repeat(60);
    const topTracks = Array.from({ length: 10 }, (_, i) =>
      track({ name: `${i + 1}${long}`, album: { ...track().album, name: long } }),
    );
    const message = pure(renderArtist, { artist: artist(), topTracks, market: 'SE' });
    const value = message.embeds[0]!.fields![3]!.value;
    expect(value).not.toMatch(/more track/);
    expect(value.split('\n').map((line) => /^`(\d+)\.`/.exec(line)?.[1])).toEqual(
      Array.from({ length: 10 }, (_, i) => String(i + 1)),
    );
  });

  it('lists 300 artists and 300 unknown ids without passing any limit', () => {
    const message = pure(renderArtists, {
      found: Array.from({ length: 300 }, () => artist({ name: LONG, genres: [LONG, LONG, LONG] })),
      missing: Array.from({ length: 300 }, () => 'AAAAAAAAAAAAAAAAAAAAAA'),
    });
    expect(message.embeds[0]!.title).toBe('300 artists');
    expect(message.embeds[0]!.description).toMatch(/…and [\d,]+ more artists$/);
    expect(message.embeds[0]!.fields![0]!.value).toMatch(/…and [\d,]+ more$/);
    const none = renderArtists({ found: [], missing: ['x'] }).embeds[0]!;
    expect(none.title).toBe('No artists found');
    expect(none.description).toBe('None of those artists were found.');
    expect(renderArtists({ found: [artist()], missing: [] }).embeds[0]!.title).toBe('1 artist');
    expect(
      renderArtists({ found: Array.from({ length: 1_200 }, () => artist()), missing: [] }).embeds[0]!.title,
    ).toBe('1,200 artists');
  });
});

describe('library renderer', () => {
  it('summarises hundreds of albums and skipped inputs', () => {
    const message = pure(renderLibraryChange, {
      action: 'save',
      albums: Array.from({ length: 500 }, (_, i) => ({ id: ALBUM_ID, name: i % 2 ? LONG : undefined })),
      invalid: Array.from({ length: 200 }, () => LONG),
    });
    expect(message.embeds[0]!.title).toBe('Saved 500 albums to your library');
    expect(message.embeds[0]!.fields![0]!.value).toMatch(/\n…and [\d,]+ more$/);
    const skipped = renderLibraryChange({
      action: 'save',
      albums: [],
      invalid: Array.from({ length: 200 }, (_, i) => `not-an-album-${i}`),
    }).embeds[0]!.fields![0]!.value;
    expect(skipped).toMatch(/\n…and \d+ more$/);
    expect(skipped).not.toContain('mores');
    expect(
      renderLibraryChange({ action: 'remove', albums: [{ id: ALBUM_ID, name: 'X' }], invalid: [] }).embeds[0]!
        .title,
    ).toBe('1 album is out of your library');
  });
});

describe('player renderers', () => {
  const devices = [
    device({ id: 'laptop', name: 'MacBook', is_active: true }),
    device({ id: 'kitchen', name: 'Kitchen', is_restricted: true, volume_percent: null }),
    device({ id: 'phone', name: 'Phone', is_private_session: true }),
  ];

  it('marks the active device and the ones that cannot be controlled', () => {
    const message = pure(renderDevices, devices);
    const lines = message.embeds[0]!.description!.split('\n');
    expect(lines[0]).toMatch(/^▶️ MacBook — .*\*\*active\*\*/);
    expect(lines[1]).toMatch(/^🔒 Kitchen — .*\*\*not controllable\*\*/);
    expect(lines[2]).toContain('private session');
    // As the weather replies write a share: no space before the sign.
    expect(lines[0]).toContain(`volume ${devices[0]!.volume_percent}% ·`);
    expect(lines[1]).not.toContain('volume');
    expect(renderDevices([]).embeds[0]!.description).toMatch(/^No devices right now/);
    // A device type is the service's text like any other: a masked link in it shows as typed.
    const odd = renderDevices([device({ type: '[Update](https://evil.example)' })]);
    expect(odd.embeds[0]!.description).toContain('\\[Update\\](https\\://evil.example)');
  });

  it('builds a panel whose buttons carry the owner, the action and the target device', () => {
    const message = pure(renderPlayerPanel, {
      ownerId: OWNER,
      devices,
      targetId: 'phone',
      status: 'Paused.',
    });
    expect(labels(message)).toEqual(['⏸ Pause', '⏭ Next', '↻ Refresh', 'MacBook', 'Phone']);
    const states = customIds(message).map((id) => playerButton.decode(id.split(':').slice(1)));
    expect(states[0]).toEqual({ owner: OWNER, action: 'pause', device: 'phone' });
    expect(states[3]).toEqual({ owner: OWNER, action: 'device', device: 'laptop' });
    expect(message.embeds[0]!.description).toContain('Buttons act on: Phone.');
    expect(message.embeds[0]!.footer?.text).toBe(
      'Pick a device below to send the buttons there. Refresh re-reads your devices.',
    );
  });

  it('keeps a panel of 40 devices with long names and odd ids within five rows', () => {
    const many = Array.from({ length: 40 }, (_, i) =>
      device({ id: i % 5 === 0 ? `id with spaces ${i}` : `d${i}`.padEnd(64, 'x'), name: LONG, type: LONG }),
    );
    const message = pure(renderPlayerPanel, { ownerId: SNOWFLAKE_MAX, devices: many, status: LONG });
    expect(message.components.length).toBeLessThanOrEqual(5);
    expect(customIds(message).every((id) => id.length <= 100)).toBe(true);
    // Ids that cannot travel in a custom id get no button; the rest fill three rows of five.
    expect(customIds(message).filter((id) => id.includes(':device:'))).toHaveLength(15);
  });

  it('offers no device choice with a single device, and says when nothing is active', () => {
    const message = pure(renderPlayerPanel, { ownerId: OWNER, devices: [device()] });
    expect(labels(message)).toEqual(['⏸ Pause', '⏭ Next', '↻ Refresh']);
    expect(message.embeds[0]!.description).toContain('your active device (none right now)');
    // No device buttons, so no word of picking one.
    expect(message.embeds[0]!.footer?.text).toBe('Refresh re-reads your devices.');
    // Two devices, one of them not controllable: still nothing to pick.
    const one = pure(renderPlayerPanel, {
      ownerId: OWNER,
      devices: [device({ id: 'a' }), device({ id: 'b', is_restricted: true })],
    });
    expect(labels(one)).toEqual(['⏸ Pause', '⏭ Next', '↻ Refresh']);
    expect(one.embeds[0]!.footer?.text).toBe('Refresh re-reads your devices.');
  });

  it('confirms pause and next in one line', () => {
    expect(renderPlayerOutcome({ command: 'pause', device: device({ name: '*Den*' }) }).content).toBe(
      '⏸ Paused on \\*Den\\*.',
    );
    expect(renderPlayerOutcome({ command: 'next', device: undefined }).content).toBe(
      '⏭ Skipped to the next track.',
    );
  });
});

describe('playlist renderers', () => {
  it('shows every kind of item on a page without breaking it', () => {
    const entries = [
      playlistEntry('track'),
      playlistEntry('unavailable'),
      playlistEntry('local', {
        name: 'Demo (garage take)',
        artists: [{ id: null, name: 'Alice', uri: null }],
      }),
      playlistEntry('episode'),
      playlistEntry('unsupported'),
      playlistEntry('track', { name: null, artists: [], duration_ms: null }),
      playlistEntry('track', { is_playable: false }),
    ];
    const message = pure(
      (p) => renderPlaylistPage(p, { ownerId: OWNER }),
      playlistPage({ entries, total: 7 }),
    );
    const lines = message.embeds[0]!.description!.split('\n').filter((line) => line.startsWith('`'));
    expect(lines).toEqual([
      '`1.` Winter Rain — The Golden Islands · 5:45',
      '`2.` *Unavailable: removed from the service*',
      '`3.` 💾 Demo (garage take) — Alice · 5:45 · local file',
      '`4.` 🎙️ Episode 1: Static Gravity — The Long Listen · 5:45',
      '`5.` *An item the bot cannot show*',
      '`6.` *(untitled)*',
      '`7.` Winter Rain — The Golden Islands · 5:45 · unavailable',
    ]);
    expect(message.components).toEqual([]);
  });

  it('names every item a removal would take, shortening long names rather than leaving items out', () => {
    const long = '*_~'.repeat(40);
    const entries = Array.from({ length: 15 }, (_, i) =>
      playlistEntry('track', {
        name: `${i}${long}`,
        artists: [1, 2, 3].map((n) => ({ id: `a${n}`, name: `${long}${n}`, uri: `service:artist:a${n}` })),
      }),
    );
    const message = pure((p) => renderRemovalPrompt(p, OWNER), {
      head: playlistHead(),
      from: 5,
      entries,
      copiesAt: [],
      total: 40,
      fingerprint: 'AbC_-123xy',
    });
    const description = message.embeds[0]!.description!;
    expect(description).not.toMatch(/more item/);
    const numbers = description
      .split('\n')
      .filter((line) => line.startsWith('`'))
      .map((line) => Number(/^`(\d+)\.`/.exec(line)?.[1]));
    expect(numbers).toEqual(Array.from({ length: 15 }, (_, i) => i + 5));
  });

  it('pages a 10,000-item playlist: "page k of n" and buttons to the first, previous, next and last page', () => {
    const message = pure(
      (p) => renderPlaylistPage(p, { ownerId: SNOWFLAKE_MAX }),
      playlistPage({ total: 10_000, page: 999, offset: 9_990, pageCount: 1_000 }),
    );
    expect(message.embeds[0]!.footer!.text).toBe('Page 1,000 of 1,000 · items 9,991–10,000 of 10,000');
    const pages = customIds(message).map((id) => playlistPageButton.decode(id.split(':').slice(1)));
    expect(pages.map((p) => [p.nav, p.page])).toEqual([
      ['first', 0],
      ['prev', 998],
      ['next', 999],
      ['last', 999],
    ]);
    expect(pages.every((p) => p.playlist === PLAYLIST_ID && p.owner === SNOWFLAKE_MAX)).toBe(true);
  });

  it('stays within limits with the longest names everywhere', () => {
    const entries = Array.from({ length: 10 }, (_, i) =>
      playlistEntry(i % 2 ? 'track' : 'episode', {
        name: LONG,
        artists: [
          { id: 'a', name: LONG, uri: null },
          { id: 'b', name: LONG, uri: null },
          { id: 'c', name: LONG, uri: null },
        ],
        show: { id: 's', name: LONG, uri: null },
      }),
    );
    const message = pure(
      (p) => renderPlaylistPage(p, { ownerId: OWNER, note: LONG }),
      playlistPage({ entries, head: playlistHead({ name: LONG, ownerName: LONG, image: 'not a url' }) }),
    );
    expect(message.embeds[0]!.description!.split('\n').filter((line) => line.startsWith('`'))).toHaveLength(
      10,
    );
    expect(message.embeds[0]!.thumbnail).toBeUndefined();
  });

  it('says when a playlist is empty, or a page is past its end', () => {
    expect(
      renderPlaylistPage(playlistPage({ entries: [], total: 0 }), { ownerId: OWNER }).embeds[0]!.description,
    ).toContain('This playlist is empty.');
    expect(
      renderPlaylistPage(playlistPage({ entries: [], total: 25, page: 7, offset: 70 }), { ownerId: OWNER })
        .embeds[0]!.description,
    ).toContain('Nothing on this page any more: the playlist now has 25 items.');
  });

  it('states the result of each edit above the page', () => {
    const page = playlistPage();
    const shown = { page, head: page.head, pageIndex: page.page };
    const note = (edit: Parameters<typeof renderPlaylistEdit>[0]) =>
      renderPlaylistEdit(edit, OWNER).embeds[0]!.description!.split('\n')[1];
    expect(note({ kind: 'add', count: 2, position: 12, ...shown })).toBe('**Added 2 items at position 12.**');
    expect(note({ kind: 'move', count: 1, position: 3, from: 9, ...shown })).toBe(
      '**Moved 1 item from position 9 to 3.**',
    );
    expect(note({ kind: 'remove', count: 3, position: 2, ...shown })).toBe(
      '**Removed 3 items from position 2.**',
    );
    expect(note({ kind: 'replace', count: 1, position: 1, ...shown })).toBe(
      '**Replaced every item: the playlist now holds 1 item.**',
    );
  });

  it('asks before removing or replacing, with confirm and cancel buttons for the invoker', () => {
    const removal = pure((p) => renderRemovalPrompt(p, SNOWFLAKE_MAX), {
      head: playlistHead({ name: LONG }),
      from: 9_990,
      entries: Array.from({ length: 50 }, () => playlistEntry('track', { name: LONG })),
      copiesAt: [],
      total: 10_000,
      fingerprint: 'AbC_-123xy',
    });
    expect(labels(removal)).toEqual(['Remove 50 items', 'Cancel']);
    expect(customIds(removal)[0]).toBe(`mprm:${SNOWFLAKE_MAX}:${PLAYLIST_ID}:7pi:1e:AbC_-123xy`);

    const replacement = pure((p) => renderReplacementPrompt(p, OWNER), {
      head: playlistHead(),
      total: 30,
      uris: Array.from({ length: 1_000 }, () => 'service:track:11dFghVXANMlKmJXsNCbNl'),
      token: 'Zm9vYmFyYmF6cXV4',
    });
    expect(labels(replacement)).toEqual(['Replace with 1,000 items', 'Cancel']);
    expect(replacement.embeds[0]!.description).toMatch(/…and [\d,]+ more items/);
    expect(replacement.embeds[0]!.description).toMatch(
      /^All 30 items would be replaced by these 1,000 items:/,
    );
    const headline = (total: number, count: number) =>
      pure((p) => renderReplacementPrompt(p, OWNER), {
        head: playlistHead(),
        total,
        uris: Array.from({ length: count }, () => 'service:track:11dFghVXANMlKmJXsNCbNl'),
        token: 'Zm9vYmFyYmF6cXV4',
      }).embeds[0]!.description!.split('\n')[0];
    expect(headline(30, 1)).toBe('All 30 items would be replaced by this item:');
    expect(headline(1, 2)).toBe('Its only item would be replaced by these 2 items:');
    expect(headline(0, 1)).toBe('The playlist is empty; it would then hold this item:');
    expect(renderCancelled('replace')).toEqual({
      content: 'Cancelled: nothing was replaced.',
      embeds: [],
      components: [],
    });
  });
});

describe('link prompt', () => {
  it('carries the link button', () => {
    const message = pure(
      (url) => renderLinkNeeded(url, 'This needs your music account.'),
      'https://bot.example/link/start?ticket=x',
    );
    expect(message.components[0]!.components[0]).toMatchObject({
      style: 5,
      url: 'https://bot.example/link/start?ticket=x',
    });
  });
});
