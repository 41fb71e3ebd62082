/**
 * The emulator's seeded catalog: artists, albums, tracks and podcast episodes, generated the same
 * way on every run. A few albums are deliberately awkward: over 50 tracks (paging inside an album),
 * available in one market only (restriction `market`), and a four-track EP filed as `single`, as
 * the service files EPs.
 */
import { base62Id, createRng, intBetween, pick, type Rng } from './random.js';

export interface ArtistRecord {
  id: string;
  name: string;
  genres: string[];
  popularity: number;
  followers: number;
}

export interface AlbumRecord {
  id: string;
  name: string;
  albumType: string;
  artistIds: string[];
  releaseDate: string;
  releaseDatePrecision: 'year' | 'month' | 'day';
  markets: string[];
  label: string;
  popularity: number;
  upc: string;
  genres: string[];
  trackIds: string[];
}

export interface TrackRecord {
  id: string;
  name: string;
  albumId: string;
  artistIds: string[];
  discNumber: number;
  trackNumber: number;
  durationMs: number;
  explicit: boolean;
  isrc: string;
  popularity: number;
  previewUrl: string | null;
}

export interface EpisodeRecord {
  id: string;
  name: string;
  description: string;
  showId: string;
  showName: string;
  publisher: string;
  durationMs: number;
  releaseDate: string;
  explicit: boolean;
  language: string;
}

export interface CatalogFixtures {
  /** An album with 120 tracks on two discs. */
  longAlbumId: string;
  /** An album with 64 tracks. */
  liveAlbumId: string;
  /** Available in `JP` only. */
  restrictedAlbumId: string;
  /** A four-track EP, filed as `album_type: 'single'`. */
  epAlbumId: string;
  /** A compilation by several artists. */
  compilationAlbumId: string;
  /** The first artist: owns the long album and the EP. */
  artistId: string;
}

export interface Catalog {
  artists: Map<string, ArtistRecord>;
  albums: Map<string, AlbumRecord>;
  tracks: Map<string, TrackRecord>;
  episodes: Map<string, EpisodeRecord>;
  artistIds: string[];
  albumIds: string[];
  trackIds: string[];
  episodeIds: string[];
  fixtures: CatalogFixtures | undefined;
}

/** Markets the catalog knows; most albums are available in all of them. */
export const MARKETS = [
  'US',
  'GB',
  'DE',
  'FR',
  'SE',
  'NL',
  'ES',
  'IT',
  'JP',
  'BR',
  'MX',
  'CA',
  'AU',
  'IN',
] as const;

const ADJECTIVES = [
  'Velvet',
  'Electric',
  'Silent',
  'Golden',
  'Paper',
  'Neon',
  'Hollow',
  'Crimson',
  'Lunar',
  'Wild',
  'Glass',
  'Midnight',
  'Copper',
  'Static',
  'Blue',
  'Northern',
  'Quiet',
  'Burning',
  'Distant',
  'Little',
];
const NOUNS = [
  'Harbours',
  'Foxes',
  'Satellites',
  'Orchards',
  'Engines',
  'Lanterns',
  'Rivers',
  'Ghosts',
  'Pilots',
  'Tides',
  'Comets',
  'Wolves',
  'Gardens',
  'Radios',
  'Mirrors',
  'Sparrows',
  'Signals',
  'Islands',
  'Towers',
  'Echoes',
];
const FIRST_NAMES = [
  'Mara',
  'Jonas',
  'Ines',
  'Theo',
  'Aiko',
  'Lena',
  'Omar',
  'Priya',
  'Noah',
  'Sofia',
  'Elias',
  'Yara',
];
const LAST_NAMES = [
  'Lindqvist',
  'Okafor',
  'Moreau',
  'Tanaka',
  'Rivera',
  'Novak',
  'Haddad',
  'Kowalski',
  'Brennan',
  'Sato',
];
const TITLE_WORDS = [
  'Summer',
  'Rain',
  'Letters',
  'Home',
  'Fire',
  'Morning',
  'Static',
  'Heart',
  'City',
  'Ocean',
  'Window',
  'Dust',
  'Gravity',
  'Lights',
  'Coast',
  'Winter',
  'Dreams',
  'Shadows',
  'Wires',
  'Bloom',
  'Highway',
  'Sugar',
  'Stone',
];
const GENRES = [
  'indie pop',
  'synthwave',
  'dream pop',
  'folk',
  'post-rock',
  'house',
  'jazz',
  'shoegaze',
  'soul',
  'ambient',
  'garage rock',
  'trip hop',
];
const LABELS = [
  'Harbour Records',
  'Northern Lights Music',
  'Paper Moon',
  'Static Recordings',
  'Blue Orchard',
];

/** Builds the catalog for a seed name; `empty` has nothing in it. */
export function seedCatalog(seed: 'default' | 'empty'): Catalog {
  const catalog: Catalog = {
    artists: new Map(),
    albums: new Map(),
    tracks: new Map(),
    episodes: new Map(),
    artistIds: [],
    albumIds: [],
    trackIds: [],
    episodeIds: [],
    fixtures: undefined,
  };
  if (seed === 'empty') return catalog;

  const rng = createRng(0x5eed);
  const ids = new Set<string>();
  const newId = (): string => {
    for (;;) {
      const id = base62Id(rng);
      if (!ids.has(id)) {
        ids.add(id);
        return id;
      }
    }
  };

  const names = new Set<string>();
  for (let i = 0; i < 160; i++) {
    const drawn =
      i % 3 === 0
        ? `${pick(rng, FIRST_NAMES)} ${pick(rng, LAST_NAMES)}`
        : i % 3 === 1
          ? `The ${pick(rng, ADJECTIVES)} ${pick(rng, NOUNS)}`
          : `${pick(rng, ADJECTIVES)} ${pick(rng, NOUNS)}`;
    const name = names.has(drawn) ? `${drawn} ${i}` : drawn;
    names.add(name);
    const artist: ArtistRecord = {
      id: newId(),
      name,
      // A few artists are not yet classified: the spec's empty `genres`.
      genres:
        i % 11 === 5
          ? []
          : [pick(rng, GENRES), pick(rng, GENRES)].filter((g, k, all) => all.indexOf(g) === k),
      // Drawn so every later draw of the seed stays where it was; replaced by `artistPopularity`
      // once the artist's tracks exist.
      popularity: intBetween(rng, 5, 95),
      followers: intBetween(rng, 100, 4_000_000),
    };
    catalog.artists.set(artist.id, artist);
    catalog.artistIds.push(artist.id);
  }

  const title = (words: number) =>
    Array.from({ length: words }, () => pick(rng, TITLE_WORDS))
      .filter((w, k, all) => all.indexOf(w) === k)
      .join(' ');

  const addAlbum = (input: {
    name: string;
    albumType: string;
    artistIds: string[];
    trackCount: number;
    discs?: number;
    markets?: string[];
  }): AlbumRecord => {
    const year = intBetween(rng, 1968, 2025);
    const precision = pick(rng, ['year', 'month', 'day', 'day', 'day'] as const);
    const month = String(intBetween(rng, 1, 12)).padStart(2, '0');
    const day = String(intBetween(rng, 1, 28)).padStart(2, '0');
    const album: AlbumRecord = {
      id: newId(),
      name: input.name,
      albumType: input.albumType,
      artistIds: input.artistIds,
      releaseDate:
        precision === 'year'
          ? `${year}`
          : precision === 'month'
            ? `${year}-${month}`
            : `${year}-${month}-${day}`,
      releaseDatePrecision: precision,
      markets: input.markets ?? [...MARKETS],
      label: pick(rng, LABELS),
      popularity: intBetween(rng, 0, 90),
      upc: String(intBetween(rng, 100_000, 999_999)) + String(intBetween(rng, 100_000, 999_999)),
      genres: [],
      trackIds: [],
    };
    const discs = input.discs ?? 1;
    const perDisc = Math.ceil(input.trackCount / discs);
    for (let n = 0; n < input.trackCount; n++) {
      const primary = input.artistIds[n % input.artistIds.length] ?? input.artistIds[0] ?? '';
      const track: TrackRecord = {
        id: newId(),
        name: n % 9 === 8 ? `${title(2)} (Live)` : title(intBetween(rng, 1, 3)),
        albumId: album.id,
        artistIds: input.albumType === 'compilation' ? [primary] : input.artistIds,
        discNumber: Math.floor(n / perDisc) + 1,
        trackNumber: (n % perDisc) + 1,
        durationMs: intBetween(rng, 95_000, 420_000),
        explicit: rng() < 0.1,
        isrc: `US${pick(rng, ['ABC', 'XYZ', 'QMR', 'UM7'])}${String(year).slice(2)}${String(intBetween(rng, 10_000, 99_999))}`,
        popularity: intBetween(rng, 0, 100),
        previewUrl: null,
      };
      album.trackIds.push(track.id);
      catalog.tracks.set(track.id, track);
      catalog.trackIds.push(track.id);
    }
    catalog.albums.set(album.id, album);
    catalog.albumIds.push(album.id);
    return album;
  };

  const artistIds = catalog.artistIds;
  const first = artistIds[0] ?? '';
  const longAlbum = addAlbum({
    name: 'Complete Sessions',
    albumType: 'album',
    artistIds: [first],
    trackCount: 120,
    discs: 2,
  });
  // A four-track EP: the service files EPs under `single`, one of the three types the contract names.
  const epAlbum = addAlbum({ name: 'Four Rooms', albumType: 'single', artistIds: [first], trackCount: 4 });
  const liveAlbum = addAlbum({
    name: 'Live Anthology',
    albumType: 'album',
    artistIds: [artistIds[1] ?? first],
    trackCount: 64,
  });
  const restricted = addAlbum({
    name: 'Tokyo Tapes',
    albumType: 'album',
    artistIds: [artistIds[2] ?? first],
    trackCount: 10,
    markets: ['JP'],
  });
  const compilation = addAlbum({
    name: 'Harbour Sampler Vol. 1',
    albumType: 'compilation',
    artistIds: artistIds.slice(3, 9),
    trackCount: 12,
  });
  for (const [index, artistId] of artistIds.entries()) {
    addAlbum({
      name: title(intBetween(rng, 1, 3)),
      albumType: 'album',
      artistIds: [artistId],
      trackCount: intBetween(rng, 7, 14),
    });
    addAlbum({
      name: title(intBetween(rng, 1, 2)),
      albumType: 'single',
      artistIds: [artistId],
      trackCount: intBetween(rng, 1, 3),
    });
    // An empty album name is allowed by the spec; one album has it.
    if (index === 40) addAlbum({ name: '', albumType: 'single', artistIds: [artistId], trackCount: 1 });
  }

  const showId = newId();
  for (let n = 1; n <= 6; n++) {
    const episode: EpisodeRecord = {
      id: newId(),
      name: `Episode ${n}: ${title(2)}`,
      description: `A long conversation about ${title(2).toLowerCase()}.`,
      showId,
      showName: 'The Long Listen',
      publisher: 'Harbour Audio',
      durationMs: intBetween(rng, 1_200_000, 4_800_000),
      releaseDate: `2025-0${n}-1${n}`,
      explicit: false,
      language: 'en',
    };
    catalog.episodes.set(episode.id, episode);
    catalog.episodeIds.push(episode.id);
  }

  for (const artist of catalog.artists.values()) artist.popularity = artistPopularity(catalog, artist.id);

  catalog.fixtures = {
    longAlbumId: longAlbum.id,
    liveAlbumId: liveAlbum.id,
    restrictedAlbumId: restricted.id,
    epAlbumId: epAlbum.id,
    compilationAlbumId: compilation.id,
    artistId: first,
  };
  return catalog;
}

/**
 * An artist's popularity as the spec derives it, from the popularity of the artist's tracks: here
 * the mean of their ten most popular (the service's own weighting is not shown), 0 with no track.
 */
function artistPopularity(catalog: Catalog, artistId: string): number {
  const top = [...catalog.tracks.values()]
    .filter((track) => track.artistIds.includes(artistId))
    .map((track) => track.popularity)
    .sort((a, b) => b - a)
    .slice(0, 10);
  return top.length === 0 ? 0 : Math.round(top.reduce((sum, p) => sum + p, 0) / top.length);
}

/** Deterministic picks from the catalog for seeding playlists. */
export function trackCycle(catalog: Catalog, rng: Rng, count: number): string[] {
  return Array.from({ length: count }, () => pick(rng, catalog.trackIds));
}
