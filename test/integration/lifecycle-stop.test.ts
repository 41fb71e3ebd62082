/**
 * Stopping the bot while members' commands are in flight, and starting it on storage it cannot
 * read or on a port it cannot take.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { startDiscordEmulator } from '../../emulators/discord/index.js';
import { freePort } from '../../emulators/net.js';
import { startWeatherEmulator } from '../../emulators/weather/index.js';
import { Keyring, seal, sealedKeyId, unseal } from '../../src/auth/seal.js';
import { TokenVault } from '../../src/auth/vault.js';
import { createDiscordRest } from '../../src/bot/client.js';
import { registerCommands } from '../../src/bot/register.js';
import { commands } from '../../src/commands/index.js';
import { createCore } from '../../src/compose.js';
import { loadConfig, type Config } from '../../src/config.js';
import { startApp } from '../../src/index.js';
import { createLogger } from '../../src/logger.js';
import { createStorage } from '../../src/storage/index.js';
import { startWeb } from '../../src/web.js';
import { linkFactory } from '../fixtures/links.js';
import { weatherEnv } from '../helpers/fixtures-env.js';

const TOKEN = 'lifecycle-test-bot-token';
const KEY = 'lifecycle-test-weather-key';
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'bot-lifecycle-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function captureLogs() {
  const lines: string[] = [];
  const logger = createLogger({
    level: 'debug',
    secrets: () => [TOKEN, KEY],
    destination: new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    }),
  });
  return { logger, lines };
}

/** The bot with weather, against the emulators, in one guild; `drainMs` as given. */
async function startWeatherBot(drainMs?: number) {
  const discord = await startDiscordEmulator({ botToken: TOKEN });
  cleanups.push(() => discord.close());
  const weather = await startWeatherEmulator({ apiKeys: [KEY] });
  cleanups.push(() => weather.close());
  const alice = discord.createUser({ username: 'alice' });
  const guild = discord.createGuild({ name: 'Lifecycle', ownerId: alice.id });
  const channel = discord.createChannel(guild.id, { name: 'general' });
  await registerCommands({
    token: TOKEN,
    applicationId: discord.applicationId,
    guildId: guild.id,
    apiUrl: discord.restUrl,
    commands,
  });
  const config = loadConfig({
    DISCORD_TOKEN: TOKEN,
    DISCORD_APPLICATION_ID: discord.applicationId,
    DISCORD_API_URL: discord.restUrl,
    DATA_DIR: await tempDir(),
    HTTP_PORT: '0',
    ...weatherEnv(weather, KEY),
  });
  const { logger, lines } = captureLogs();
  const start = () => startApp(config, { logger, ...(drainMs === undefined ? {} : { drainMs }) });
  let app = await start();
  cleanups.push(() => app.stop());
  const home = (subcommand: 'set' | 'show', options: Record<string, string> = {}) =>
    discord.slash({
      guildId: guild.id,
      channelId: channel.id,
      userId: alice.id,
      name: 'weather',
      subcommandGroup: 'home',
      subcommand,
      options,
    });
  const setHome = () => home('set', { place: 'Berlin' });
  const showHome = () => home('show');
  return {
    weather,
    lines,
    get app() {
      return app;
    },
    setHome,
    showHome,
    async restart() {
      await app.stop();
      app = await start();
    },
  };
}

describe('stopping with a member’s command in flight', () => {
  it('lets the command finish its reply and its write before storage closes', async () => {
    const bot = await startWeatherBot();
    // The place lookup answers slowly: the stop comes between the deferral and the saved home.
    bot.weather.delayNext(/geo/, 1_000);
    const command = bot.setHome();
    await command.waitForCallback();
    await bot.app.stop();

    const reply = await command.reply(2_000);
    expect(reply.content).toContain('Your home place is now **Berlin');
    expect(bot.lines.join('\n')).not.toContain('interaction failed');
    await bot.restart();
    const shown = await bot.showHome().reply();
    expect(JSON.stringify(shown)).toContain('Berlin');
  });

  it('waits no longer than the drain time for a command that does not finish', async () => {
    const bot = await startWeatherBot(300);
    bot.weather.delayNext(/geo/, 5_000);
    const command = bot.setHome();
    await command.waitForCallback();
    const started = Date.now();
    await bot.app.stop();
    // The drain, then at most a second for the weather client to let go of its request.
    expect(Date.now() - started).toBeLessThan(2_500);
    expect(bot.lines.some((line) => line.includes('stopping with work still in flight'))).toBe(true);
  });

  it('takes no new command once stopping', async () => {
    const bot = await startWeatherBot(2_000);
    bot.weather.delayNext(/geo/, 1_000);
    const first = bot.setHome();
    await first.waitForCallback();
    const stopping = bot.app.stop();
    const second = bot.showHome();
    await stopping;
    await expect(second.waitForCallback(500)).rejects.toThrow();
  });
});

describe('starting on music links sealed with another key', () => {
  function musicConfig(dataDir: string, current: Buffer, previous: Buffer[] = []): Config {
    return loadConfig({
      DISCORD_TOKEN: TOKEN,
      DISCORD_APPLICATION_ID: '123456789012345678',
      DATA_DIR: dataDir,
      MUSIC_CLIENT_ID: 'client-id',
      MUSIC_CLIENT_SECRET: 'client-secret-for-the-key-check',
      TOKEN_ENCRYPTION_KEY: current.toString('base64'),
      ...(previous.length > 0
        ? { TOKEN_ENCRYPTION_KEYS_OLD: previous.map((key) => key.toString('hex')).join(',') }
        : {}),
    });
  }
  const core = async (config: Config) => {
    const { logger } = captureLogs();
    const started = await createCore(config, {
      logger,
      discordRest: createDiscordRest({ apiUrl: config.discord.apiUrl, token: TOKEN }),
    });
    await started.close();
  };
  async function storeLinks(dataDir: string, key: Buffer, count: number) {
    const storage = await createStorage({ dataDir });
    const keyring = new Keyring(key);
    for (let i = 0; i < count; i++) {
      const userId = `10000000000000000${i}`;
      await storage.ns('links').set(userId, seal(keyring, userId, { accountId: `acc-${i}` }));
    }
    await storage.close();
  }

  it('refuses to start, naming the fingerprints, when no stored link can be read', async () => {
    const dataDir = await tempDir();
    const old = randomBytes(32);
    const other = randomBytes(32);
    await storeLinks(dataDir, old, 3);
    await expect(core(musicConfig(dataDir, other))).rejects.toThrow(
      `the stored music links were encrypted with key ${Keyring.idOf(old)}, but TOKEN_ENCRYPTION_KEY is key ${Keyring.idOf(other)}`,
    );
  });

  /** The key the start-up key check was last written with. */
  async function checkedKey(dataDir: string): Promise<string | undefined> {
    const storage = await createStorage({ dataDir });
    try {
      return sealedKeyId((await storage.ns<string>('keyring').get('check')) ?? '');
    } finally {
      await storage.close();
    }
  }

  it('starts with the old key among the previous ones, and then without any links to read', async () => {
    const dataDir = await tempDir();
    const old = randomBytes(32);
    const rotated = randomBytes(32);
    await storeLinks(dataDir, old, 3);
    await expect(core(musicConfig(dataDir, rotated, [old]))).resolves.toBeUndefined();
    // The check now names the new key: the next start reads it alone, not the links.
    expect(await checkedKey(dataDir)).toBe(Keyring.idOf(rotated));
    await expect(core(musicConfig(dataDir, rotated, [old]))).resolves.toBeUndefined();
  });

  it('starts with a new key when there are no links, even after another key was used', async () => {
    const dataDir = await tempDir();
    const first = randomBytes(32);
    const second = randomBytes(32);
    await expect(core(musicConfig(dataDir, first))).resolves.toBeUndefined();
    expect(await checkedKey(dataDir)).toBe(Keyring.idOf(first));
    await expect(core(musicConfig(dataDir, second))).resolves.toBeUndefined();
    expect(await checkedKey(dataDir)).toBe(Keyring.idOf(second));
  });

  it('seals the links of an old key again with the new one at start, so the old key can then be dropped', async () => {
    const dataDir = await tempDir();
    const old = randomBytes(32);
    const rotated = randomBytes(32);
    const links = new Map(
      [0, 1, 2].map((i) => [`20000000000000000${i}`, linkFactory({ accountId: `acc-${i}` })]),
    );
    const storage = await createStorage({ dataDir });
    // One written by a newer version, with a field this one does not know: kept as it is.
    for (const [userId, link] of links)
      await storage.ns('links').set(userId, seal(new Keyring(old), userId, { ...link, future: 'kept' }));
    await storage.close();
    // Started with the old key among the previous ones; its links are sealed again beside the start.
    const { logger, lines } = captureLogs();
    const started = await createCore(musicConfig(dataDir, rotated, [old]), {
      logger,
      discordRest: createDiscordRest({ apiUrl: 'http://127.0.0.1:1/api', token: TOKEN }),
    });
    await expect
      .poll(() => lines.join('\n'), { timeout: 10_000 })
      .toContain('TOKEN_ENCRYPTION_KEYS_OLD any more');
    expect(lines.find((line) => line.includes('sealed again'))).toContain('"resealed":3');
    await started.close();
    // The old key goes: the bot starts, and every link reads with the new key alone.
    await expect(core(musicConfig(dataDir, rotated))).resolves.toBeUndefined();
    const after = await createStorage({ dataDir });
    const vault = new TokenVault(after, new Keyring(rotated));
    for (const [userId, link] of links) expect(await vault.get(userId)).toEqual(link);
    const [someone] = links.keys();
    const raw = (await after.ns<string>('links').get(someone!))!;
    expect(unseal(new Keyring(rotated), someone!, raw)).toMatchObject({ future: 'kept' });
    await after.close();
  });

  it('tells the owner at start about links sealed with a key it no longer has', async () => {
    const dataDir = await tempDir();
    const old = randomBytes(32);
    const current = randomBytes(32);
    await storeLinks(dataDir, current, 3);
    // One link the re-sealing missed, and its old key dropped from the configuration since.
    const storage = await createStorage({ dataDir });
    await storage
      .ns('links')
      .set('300000000000000009', seal(new Keyring(old), '300000000000000009', { a: 1 }));
    await storage.close();
    const { logger, lines } = captureLogs();
    const started = await createCore(musicConfig(dataDir, current), {
      logger,
      discordRest: createDiscordRest({ apiUrl: 'http://127.0.0.1:1/api', token: TOKEN }),
    });
    try {
      await expect
        .poll(() => lines.find((line) => line.includes('in neither TOKEN_ENCRYPTION_KEY')), {
          timeout: 10_000,
        })
        .toContain('"unreadable":1');
    } finally {
      await started.close();
    }
  });

  it('refuses a key change once the check is written, when links sealed before it remain', async () => {
    const dataDir = await tempDir();
    const first = randomBytes(32);
    await storeLinks(dataDir, first, 1);
    await core(musicConfig(dataDir, first));
    await expect(core(musicConfig(dataDir, randomBytes(32)))).rejects.toThrow(Keyring.idOf(first));
  });
});

describe('starting on an address this machine does not have', () => {
  it('names HTTP_HOST and what to set it to', async () => {
    const config = loadConfig({
      DISCORD_TOKEN: TOKEN,
      DISCORD_APPLICATION_ID: '123456789012345678',
      DATA_DIR: await tempDir(),
      // TEST-NET-1 (RFC 5737): documentation only, never a machine's own address.
      HTTP_HOST: '192.0.2.1',
      HTTP_PORT: String(await freePort()),
    });
    const { logger } = captureLogs();
    await expect(startWeb(config, { logger })).rejects.toThrow(
      /^cannot serve the callback server on 192\.0\.2\.1:\d+: this machine has no such address\. Set HTTP_HOST/,
    );
  });
});

describe('starting on a port another process holds', () => {
  it('says which port and what to do', async () => {
    const port = await freePort();
    const holder = http.createServer();
    await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => holder.close(resolve)));
    const config = loadConfig({
      DISCORD_TOKEN: TOKEN,
      DISCORD_APPLICATION_ID: '123456789012345678',
      DATA_DIR: await tempDir(),
      HTTP_PORT: String(port),
    });
    const { logger } = captureLogs();
    await expect(startWeb(config, { logger })).rejects.toThrow(
      `cannot serve the callback server on 127.0.0.1:${port}: another process listens there. Set HTTP_PORT to a free port`,
    );
    await delay(10);
  });
});
