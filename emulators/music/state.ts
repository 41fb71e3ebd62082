/**
 * The emulator's mutable state: users with their devices, player and library; playlists with every
 * kept version (a removal names the version its positions refer to); tokens, codes, pending
 * authorizations, the accounts page's login sessions and the consents given. Seeded deterministically.
 */
import { randomBytes } from 'node:crypto';
import { seedCatalog, trackCycle, type Catalog } from './catalog.js';
import { base62Id, createRng } from './random.js';

/** The scopes the emulator knows (the real service's names). */
export const SCOPES = [
  'ugc-image-upload',
  'user-read-playback-state',
  'user-modify-playback-state',
  'user-read-currently-playing',
  'app-remote-control',
  'streaming',
  'playlist-read-private',
  'playlist-read-collaborative',
  'playlist-modify-private',
  'playlist-modify-public',
  'user-follow-modify',
  'user-follow-read',
  'user-read-playback-position',
  'user-top-read',
  'user-read-recently-played',
  'user-library-modify',
  'user-library-read',
  'user-read-email',
  'user-read-private',
] as const;

export const URI_SCHEME = 'service';
export const OPEN_HOST = 'https://open.service.example';
export const TOKEN_LIFETIME_S = 3600;
export const CODE_LIFETIME_MS = 10 * 60_000;
/** Refresh tokens die six months after consent; refreshing does not extend them. */
export const REFRESH_LIFETIME_MS = 183 * 24 * 3600_000;
/** Old playlist versions kept for removals against a stale snapshot. */
const KEPT_VERSIONS = 200;

export interface DeviceRecord {
  id: string;
  name: string;
  type: string;
  isRestricted: boolean;
  isPrivateSession: boolean;
  volumePercent: number | null;
  supportsVolume: boolean;
}

export interface PlayerState {
  devices: DeviceRecord[];
  activeDeviceId: string | null;
  isPlaying: boolean;
  /** Track URIs of the current context; `index` is the one playing. */
  queue: string[];
  index: number;
}

export interface UserRecord {
  id: string;
  displayName: string | null;
  email: string;
  country: string;
  product: 'premium' | 'free' | 'open';
  /** On the app's development-mode allow-list. */
  registered: boolean;
  followers: number;
  explicitFilter: boolean;
  /** Saved item URIs (albums, tracks…), in saving order. */
  library: Set<string>;
  /** Playlists in the user's list (owned or followed), in order. */
  playlists: string[];
  player: PlayerState;
}

export interface Entry {
  /** Identity of this occurrence, stable across versions. */
  key: number;
  /** `null` for a local file. */
  uri: string | null;
  kind: 'track' | 'episode' | 'local' | 'missing';
  local?: { name: string; artist: string; album: string; durationMs: number };
  addedAt: string;
  addedBy: string;
}

export class PlaylistRecord {
  readonly versions = new Map<string, Entry[]>();
  private readonly order: string[] = [];
  private version = 0;
  snapshotId = '';

  constructor(
    readonly id: string,
    public name: string,
    readonly ownerId: string,
    public isPublic: boolean,
    public collaborative: boolean,
    readonly collaborators: Set<string>,
    public description: string | null,
    public followers: number,
    entries: Entry[],
  ) {
    this.commit(entries);
  }

  get entries(): Entry[] {
    return this.versions.get(this.snapshotId) ?? [];
  }

  /** Stores a new version and makes it current; returns its snapshot id. */
  commit(entries: Entry[]): string {
    this.version++;
    const id = Buffer.from(`${this.version},${randomBytes(16).toString('hex')}`).toString('base64');
    this.versions.set(id, entries);
    this.order.push(id);
    while (this.order.length > KEPT_VERSIONS) {
      const old = this.order.shift();
      if (old !== undefined) this.versions.delete(old);
    }
    this.snapshotId = id;
    return id;
  }

  canEdit(userId: string): boolean {
    return userId === this.ownerId || (this.collaborative && this.collaborators.has(userId));
  }
}

export interface AccessTokenRecord {
  value: string;
  userId: string | null;
  scopes: Set<string>;
  expiresAt: number;
  /** The authorization code this token descends from (directly or through refreshes), if any. */
  code?: string;
}

export interface RefreshTokenRecord {
  value: string;
  userId: string;
  scopes: string[];
  /** Issued through the PKCE flow: single use, rotated on every refresh. */
  pkce: boolean;
  consentAt: number;
  used: boolean;
  /** The authorization code this token descends from (directly or through refreshes), if any. */
  code?: string;
}

export interface CodeRecord {
  value: string;
  userId: string;
  scopes: string[];
  redirectUri: string;
  challenge: string | null;
  expiresAt: number;
  used: boolean;
}

export interface PendingAuthorization {
  id: string;
  redirectUri: string;
  state: string | null;
  scopes: string[];
  challenge: string | null;
}

/** The key of `EmulatorState.consents` for what `userId` granted the app `clientId`. */
export const consentKey = (userId: string, clientId: string): string => `${userId}\n${clientId}`;

export interface CreateUserInput {
  id: string;
  displayName?: string | null;
  email?: string;
  country?: string;
  product?: 'premium' | 'free' | 'open';
  registered?: boolean;
  /** The account's explicit-content filter: explicit tracks are then restricted (`reason: 'explicit'`). */
  explicitFilter?: boolean;
  devices?: Partial<DeviceRecord>[];
  /** Id of the active device; the first device when omitted and there are devices, none with `null`. */
  activeDeviceId?: string | null;
  isPlaying?: boolean;
}

export interface SeedFixtures {
  users: {
    /** US, premium; several devices, one active, one restricted. */
    premium: string;
    /** GB, free; one device. */
    free: string;
    /** DE, premium; one device, none active. */
    noActiveDevice: string;
    /** FR, premium; no devices at all. */
    noDevices: string;
    /** JP, premium; exactly one device, active; explicit-content filter on. */
    oneDevice: string;
  };
  playlists: { big: string; roadTrip: string; shared: string; bobPicks: string };
}

export class EmulatorState {
  readonly catalog: Catalog;
  readonly users = new Map<string, UserRecord>();
  readonly playlists = new Map<string, PlaylistRecord>();
  readonly accessTokens = new Map<string, AccessTokenRecord>();
  readonly refreshTokens = new Map<string, RefreshTokenRecord>();
  readonly codes = new Map<string, CodeRecord>();
  readonly pending = new Map<string, PendingAuthorization>();
  /** The accounts page's login sessions: session cookie value → user id. */
  readonly sessions = new Map<string, string>();
  /** Scopes each user has granted each client, keyed by `consentKey(userId, clientId)`. */
  readonly consents = new Map<string, Set<string>>();
  readonly fixtures: SeedFixtures | undefined;
  private nextKey = 1;
  private readonly idRng = createRng(0x1d5);

  constructor(
    seed: 'default' | 'empty',
    readonly now: () => number,
  ) {
    this.catalog = seedCatalog(seed);
    this.fixtures = seed === 'default' ? this.seedPeople() : undefined;
  }

  newId(): string {
    return base62Id(this.idRng);
  }

  createUser(input: CreateUserInput): UserRecord {
    if (this.users.has(input.id)) throw new Error(`user ${input.id} already exists`);
    const devices = (input.devices ?? []).map((device, index) => ({
      id: device.id ?? randomBytes(20).toString('hex'),
      name: device.name ?? `Device ${index + 1}`,
      type: device.type ?? 'Computer',
      isRestricted: device.isRestricted ?? false,
      isPrivateSession: device.isPrivateSession ?? false,
      volumePercent: device.volumePercent === undefined ? 50 : device.volumePercent,
      supportsVolume: device.supportsVolume ?? true,
    }));
    const active = input.activeDeviceId === undefined ? (devices[0]?.id ?? null) : input.activeDeviceId;
    const queue = this.catalog.trackIds.slice(0, 20).map((id) => `${URI_SCHEME}:track:${id}`);
    const user: UserRecord = {
      id: input.id,
      displayName: input.displayName === undefined ? input.id : input.displayName,
      email: input.email ?? `${input.id}@mail.example`,
      country: input.country ?? 'US',
      product: input.product ?? 'premium',
      registered: input.registered ?? true,
      followers: 0,
      explicitFilter: input.explicitFilter ?? false,
      library: new Set(),
      playlists: [],
      player: {
        devices,
        activeDeviceId: active,
        isPlaying: active !== null && (input.isPlaying ?? true),
        queue,
        index: 0,
      },
    };
    this.users.set(user.id, user);
    return user;
  }

  entry(
    uri: string | null,
    kind: Entry['kind'],
    addedBy: string,
    addedAt: string,
    local?: Entry['local'],
  ): Entry {
    const entry: Entry = { key: this.nextKey++, uri, kind, addedAt, addedBy };
    if (local !== undefined) entry.local = local;
    return entry;
  }

  createPlaylist(input: {
    ownerId: string;
    name: string;
    uris?: readonly string[];
    public?: boolean;
    collaborative?: boolean;
    collaborators?: readonly string[];
    description?: string | null;
    id?: string;
  }): PlaylistRecord {
    const owner = this.users.get(input.ownerId);
    if (owner === undefined) throw new Error(`no user ${input.ownerId}`);
    const addedAt = new Date(this.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const entries = (input.uris ?? []).map((uri) =>
      this.entry(uri, uri.includes(':episode:') ? 'episode' : 'track', owner.id, addedAt),
    );
    const collaborative = input.collaborative ?? false;
    const playlist = new PlaylistRecord(
      input.id ?? this.newId(),
      input.name,
      owner.id,
      // A collaborative playlist is never public.
      collaborative ? false : (input.public ?? true),
      collaborative,
      new Set(input.collaborators ?? []),
      input.description ?? null,
      0,
      entries,
    );
    this.playlists.set(playlist.id, playlist);
    owner.playlists.unshift(playlist.id);
    for (const collaborator of playlist.collaborators)
      this.users.get(collaborator)?.playlists.push(playlist.id);
    return playlist;
  }

  private seedPeople(): SeedFixtures {
    this.createUser({
      id: 'alice',
      displayName: 'Alice',
      country: 'US',
      product: 'premium',
      devices: [
        { id: 'alice-laptop', name: 'Alice’s MacBook', type: 'Computer', volumePercent: 64 },
        {
          id: 'alice-kitchen',
          name: 'Kitchen speaker',
          type: 'Speaker',
          isRestricted: true,
          volumePercent: null,
          supportsVolume: false,
        },
        { id: 'alice-phone', name: 'Alice’s phone', type: 'Smartphone', volumePercent: 100 },
      ],
      activeDeviceId: 'alice-laptop',
    });
    this.createUser({
      id: 'bob',
      displayName: 'Bob',
      country: 'GB',
      product: 'free',
      devices: [{ id: 'bob-phone', name: 'Bob’s phone', type: 'Smartphone', volumePercent: 80 }],
    });
    this.createUser({
      id: 'carol',
      displayName: 'Carol',
      country: 'DE',
      product: 'premium',
      devices: [{ id: 'carol-pc', name: 'Carol’s PC', type: 'Computer' }],
      activeDeviceId: null,
    });
    this.createUser({ id: 'noor', displayName: 'Noor', country: 'FR', product: 'premium', devices: [] });
    this.createUser({
      id: 'yuki',
      displayName: 'Yuki',
      country: 'JP',
      product: 'premium',
      explicitFilter: true,
      devices: [{ id: 'yuki-tv', name: 'Living room TV', type: 'TV', volumePercent: 30 }],
    });

    const rng = createRng(0xb16);
    const { episodeIds } = this.catalog;
    const trackUri = (id: string) => `${URI_SCHEME}:track:${id}`;
    const big = this.createPlaylist({
      ownerId: 'alice',
      name: 'Everything, Forever',
      uris: trackCycle(this.catalog, rng, 10_000).map(trackUri),
      description: null,
    });
    // The surprises real lists hold: a removed track, local files, episodes.
    const entries = [...big.entries];
    const at = (position: number, entry: Entry) => {
      entries[position] = entry;
    };
    const seededAt = '2024-03-01T12:00:00Z';
    // A track the service no longer has: listed with `track: null`, under an id the catalog no longer
    // holds. (Not one the catalog still has: a removal of that track by URI, which takes every copy,
    // would then also take this entry, which shows no URI.)
    at(2, this.entry(trackUri('RemovedTrack0000000000'), 'missing', 'alice', seededAt));
    at(
      4,
      this.entry(null, 'local', 'alice', seededAt, {
        name: 'Demo (garage take)',
        artist: 'Alice',
        album: 'Voice memos',
        durationMs: 187_000,
      }),
    );
    at(6, this.entry(`${URI_SCHEME}:episode:${episodeIds[0] ?? ''}`, 'episode', 'alice', seededAt));
    at(
      7_451,
      this.entry(null, 'local', 'alice', seededAt, {
        name: 'Untitled 12',
        artist: 'Unknown artist',
        album: '',
        durationMs: 93_000,
      }),
    );
    at(9_999, this.entry(`${URI_SCHEME}:episode:${episodeIds[1] ?? ''}`, 'episode', 'alice', seededAt));
    big.commit(entries);

    const roadTrip = this.createPlaylist({
      ownerId: 'alice',
      name: 'Road trip',
      public: false,
      uris: trackCycle(this.catalog, rng, 30).map(trackUri),
    });
    const shared = this.createPlaylist({
      ownerId: 'alice',
      name: 'Shared with Bob',
      collaborative: true,
      collaborators: ['bob'],
      uris: trackCycle(this.catalog, rng, 15).map(trackUri),
    });
    const bobPicks = this.createPlaylist({
      ownerId: 'bob',
      name: 'Bob’s picks',
      description: 'Things Bob likes.',
      uris: trackCycle(this.catalog, rng, 12).map(trackUri),
    });
    this.users.get('bob')?.playlists.push(big.id);

    return {
      users: {
        premium: 'alice',
        free: 'bob',
        noActiveDevice: 'carol',
        noDevices: 'noor',
        oneDevice: 'yuki',
      },
      playlists: { big: big.id, roadTrip: roadTrip.id, shared: shared.id, bobPicks: bobPicks.id },
    };
  }
}
