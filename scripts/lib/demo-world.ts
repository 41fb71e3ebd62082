/**
 * The demo's world: the emulators, a guild with two channels, two members (Alice, premium on the
 * music service, and Bob, free), the bot itself, and the playground page beside the Discord
 * emulator. Shared by `npm run demo` and the playground's browser test.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { APIUser } from 'discord-api-types/v10';
import { startPlayground, type Playground } from '../../emulators/discord/playground/server.js';
import { seedCatalog } from '../../emulators/music/catalog.js';
import type { MusicEmulator } from '../../emulators/music/index.js';
import type { Place } from '../../emulators/weather/places.js';
import { loadConfig } from '../../src/config.js';
import { registerCommands } from '../../src/bot/register.js';
import { commands } from '../../src/commands/index.js';
import { rememberRecent, type RecentItem } from '../../src/domain/music/recent.js';
import { startApp, type App } from '../../src/index.js';
import { createLogger } from '../../src/logger.js';
import { DEFAULT_PORTS, startOffline, type OfflineWorld } from './offline.js';
import type { TourWorld } from './tour.js';

/**
 * How late the demo's bot still makes a scheduled post: a day, the most `SCHEDULE_GRACE_MINUTES`
 * allows, so the playground's "+1 day" posts a slot it jumps past (once: only a schedule's latest
 * slot is ever made) instead of skipping it as too late.
 */
export const DEMO_SCHEDULE_GRACE_MINUTES = 24 * 60;

/** The seeded catalog's albums and artists the demo puts in each member's recent lists. */
export interface MusicSuggestions {
  albums: RecentItem[];
  artists: RecentItem[];
  /** The first of each, for the terminal to name. */
  album: RecentItem;
  artist: RecentItem;
}

/**
 * A few albums and artists of the music emulator's seeded catalog, as the bot itself remembers
 * viewed ones (name; for an album its artists, for an artist its genres). The emulator gives ids
 * only; the catalog is generated the same way on every run, so its records are rebuilt here and
 * matched by id. The JP-only album is left out: it fails for the demo's US accounts.
 */
function catalogSuggestions(music: MusicEmulator): { albums: RecentItem[]; artists: RecentItem[] } {
  const fixtures = music.fixtures;
  if (fixtures === undefined) return { albums: [], artists: [] };
  const catalog = seedCatalog('default');
  const { longAlbumId, epAlbumId, liveAlbumId, compilationAlbumId } = fixtures.catalog;
  const artistName = (id: string) => catalog.artists.get(id)?.name ?? id;
  const albums = [longAlbumId, epAlbumId, liveAlbumId, compilationAlbumId].flatMap((id) => {
    const album = catalog.albums.get(id);
    return album === undefined
      ? []
      : [{ id, name: album.name, detail: album.artistIds.map(artistName).join(', ') }];
  });
  const artists = fixtures.artistIds.slice(0, 5).flatMap((id) => {
    const artist = catalog.artists.get(id);
    return artist === undefined
      ? []
      : [{ id, name: artist.name, detail: artist.genres.slice(0, 2).join(', ') }];
  });
  return { albums, artists };
}

/**
 * One sentence for the playground: the offline weather service knows only its own places, so a
 * newcomer's home town is "not found". Names a few, each once (there are eight Springfields).
 */
function placesHint(places: readonly Place[]): string {
  const names = new Set(places.map((place) => place.name));
  const some = ['Springfield', 'Paris', 'London', 'Berlin', 'Tokyo', 'Sydney'].filter((name) =>
    names.has(name),
  );
  const zip = places.find((place) => place.name === 'Berlin')?.zip;
  return (
    `Offline, the weather service knows only ${names.size} place names, such as ` +
    `${some.slice(0, -1).join(', ')} and ${some.at(-1) ?? ''}` +
    `${zip === undefined ? '' : ` (or a postal code: ${zip}, DE)`}; any other place is not found.`
  );
}

export interface DemoWorld {
  offline: OfflineWorld;
  guildId: string;
  channelId: string;
  alice: APIUser;
  bob: APIUser;
  playground: Playground | undefined;
  /**
   * Puts a few albums and artists of the music emulator's catalog in Alice's and Bob's recent
   * lists (the bot's own `rememberRecent`), so the album and artist options suggest them: the
   * music service has no search, and a newcomer knows no ids. Run after the tour, whose
   * `/music unlink` empties Alice's lists.
   */
  suggestMusic(): Promise<MusicSuggestions>;
  close(): Promise<void>;
}

/** What the tour plays against: the demo's emulators, its server and channel, Alice and Bob. */
export function tourWorldOf(world: DemoWorld): TourWorld {
  return {
    discord: world.offline.discord,
    music: world.offline.music,
    weather: world.offline.weather,
    guildId: world.guildId,
    channelId: world.channelId,
    userId: world.alice.id,
    otherUserId: world.bob.id,
  };
}

export async function startDemoWorld(options: {
  fixedPorts: boolean;
  playground: boolean;
  logLevel?: string;
}): Promise<DemoWorld> {
  const offline = await startOffline({ fixedPorts: options.fixedPorts });
  const dataDir = await mkdtemp(path.join(tmpdir(), 'bot-demo-'));
  // A demo that fails to start (a port in use) leaves nothing behind: no server, no data directory.
  let app: App | undefined;
  try {
    const alice = offline.discord.createUser({ username: 'alice', globalName: 'Alice', locale: 'en-US' });
    const bob = offline.discord.createUser({ username: 'bob', globalName: 'Bob', locale: 'en-GB' });
    const guild = offline.discord.createGuild({ name: 'Demo Server', ownerId: alice.id });
    const channel = offline.discord.createChannel(guild.id, { name: 'general' });
    const lounge = offline.discord.createChannel(guild.id, { name: 'lounge' });

    const config = loadConfig({
      ...offline.env,
      DISCORD_GUILD_ID: guild.id,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      SCHEDULE_GRACE_MINUTES: String(DEMO_SCHEDULE_GRACE_MINUTES),
    });
    const logger = createLogger({
      level: options.logLevel ?? 'warn',
      secrets: () => [config.discord.token],
    });
    await registerCommands({
      token: config.discord.token,
      applicationId: config.discord.applicationId,
      guildId: guild.id,
      apiUrl: config.discord.apiUrl,
      commands,
    });
    // The bot runs on the emulators' clock, so the playground's time control moves it too.
    const bot = await startApp(config, { logger, now: () => offline.clock.now() });
    app = bot;
    const fixtures = offline.music.fixtures?.users;
    const playground = options.playground
      ? await startPlayground({
          discord: offline.discord,
          guilds: [
            {
              id: guild.id,
              name: guild.name,
              channels: [
                { id: channel.id, name: 'general' },
                { id: lounge.id, name: 'lounge' },
              ],
            },
          ],
          users: [
            {
              id: alice.id,
              name: 'Alice',
              note: `owns the server; premium on the music service: link as ${fixtures?.premium ?? 'alice'}`,
            },
            {
              id: bob.id,
              name: 'Bob',
              note: `free on the music service: link as ${fixtures?.free ?? 'bob'}`,
            },
          ],
          hints: [placesHint(offline.weather.places)],
          clock: {
            now: () => offline.clock.now(),
            advance(ms: number) {
              offline.clock.advance(ms);
              bot.clockMoved();
            },
            reset() {
              offline.clock.reset();
              bot.clockMoved();
            },
          },
          port: options.fixedPorts ? DEFAULT_PORTS.playground : 0,
        })
      : undefined;

    return {
      offline,
      guildId: guild.id,
      channelId: channel.id,
      alice,
      bob,
      playground,
      async suggestMusic() {
        const { albums, artists } = catalogSuggestions(offline.music);
        const [album, artist] = [albums[0], artists[0]];
        if (album === undefined || artist === undefined)
          throw new Error('the music emulator has no seeded catalog to suggest from');
        const recent = bot.storage.ns('music-recent');
        for (const member of [alice, bob]) {
          await rememberRecent(recent, member.id, 'albums', albums);
          await rememberRecent(recent, member.id, 'artists', artists);
        }
        return { albums, artists, album, artist };
      },
      async close() {
        await playground?.close();
        await bot.stop();
        await offline.close();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await app?.stop().catch(() => undefined);
    await offline.close().catch(() => undefined);
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}
