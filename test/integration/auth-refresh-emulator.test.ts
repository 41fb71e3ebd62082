import { Keyring } from '../../src/auth/seal.js';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startMusicEmulator, type MusicEmulator } from '../../emulators/music/index.js';
import { MusicOAuth } from '../../src/auth/oauth.js';
import { MUSIC_SCOPES } from '../../src/auth/oauth.js';
import {
  createTokenSource,
  NotLinkedError,
  RelinkRequiredError,
  type TokenSource,
} from '../../src/auth/tokens.js';
import { TokenVault, type MusicLink } from '../../src/auth/vault.js';
import { describeForUser } from '../../src/bot/errors.js';
import { AppCredentialsError, createMusicClient } from '../../src/services/music/index.js';
import { createStorage, type Storage } from '../../src/storage/index.js';
import { cleanRedisPrefix, haveRedis, REDIS_URL, uniquePrefix } from '../helpers/services.js';

const redisReady = await haveRedis();
const REDIRECT = 'http://127.0.0.1:8787/callback';
let music: MusicEmulator;
let oauth: MusicOAuth;

beforeAll(async () => {
  music = await startMusicEmulator({ redirectUris: [REDIRECT] });
  oauth = new MusicOAuth({ authUrl: music.authUrl, clientId: music.clientId, redirectUri: REDIRECT });
});
afterAll(async () => {
  await music?.close();
});
beforeEach(() => music.resetCounters());

/** A link whose access token has expired, holding a rotating (PKCE) refresh token from the emulator. */
function expiredLink(userId: string): MusicLink {
  const issued = music.issueUserToken(userId, MUSIC_SCOPES, { pkce: true });
  return {
    accountId: userId,
    displayName: userId,
    scopes: [...MUSIC_SCOPES],
    accessToken: issued.access_token,
    refreshToken: issued.refresh_token!,
    expiresAt: Date.now() - 1_000,
    linkedAt: Date.now(),
  };
}

/** The storage as a process that is held up sees it: the keep-alive of its claims never runs. */
function withoutKeepAlive(storage: Storage): Storage {
  return new Proxy(storage, {
    get: (target, key: keyof Storage) =>
      key === 'extend'
        ? () => Promise.resolve(false)
        : (target[key] as (...args: unknown[]) => unknown).bind(target),
  });
}

/** A music client on the emulator whose member tokens come from `source`. */
function musicClientFor(source: TokenSource) {
  return createMusicClient({
    apiUrl: music.apiUrl,
    authUrl: music.authUrl,
    clientId: music.clientId,
    clientSecret: music.clientSecret,
    variant: 'classic',
    getAccessToken: (id, rejected) => source.getAccessToken(id, rejected),
  });
}

describe('token refresh against the music emulator', () => {
  let storage: Storage;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'bot-refresh-'));
    storage = await createStorage({ dataDir });
  });
  afterAll(async () => {
    await storage?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('makes exactly one refresh request for 200 concurrent calls (counted by the emulator)', async () => {
    const vault = new TokenVault(storage, new Keyring(randomBytes(32)));
    const user = music.fixtures!.users.premium;
    await vault.put('discord-1', expiredLink(user));
    const source = createTokenSource({ vault, oauth, storage });
    const tokens = await Promise.all(Array.from({ length: 200 }, () => source.getAccessToken('discord-1')));
    expect(music.tokenRequests('refresh_token')).toBe(1);
    expect(new Set(tokens).size).toBe(1);
  });

  it('refreshes once and tries again when the service refuses a token that looked valid', async () => {
    const vault = new TokenVault(storage, new Keyring(randomBytes(32)));
    const user = music.fixtures!.users.premium;
    // Valid for another hour by our records, but the service has ended it early.
    const link = { ...expiredLink(user), expiresAt: Date.now() + 3_600_000 };
    await vault.put('discord-3', link);
    music.expireToken(link.accessToken);
    const source = createTokenSource({ vault, oauth, storage });
    const client = musicClientFor(source);
    try {
      const answers = await Promise.all(Array.from({ length: 20 }, () => client.users.me('discord-3')));
      expect(answers.every((me) => me.id === user)).toBe(true);
      expect(music.tokenRequests('refresh_token')).toBe(1);
      expect((await vault.get('discord-3'))!.accessToken).not.toBe(link.accessToken);

      // Refused again and the refresh token is dead too: the member is asked to link again.
      const current = (await vault.get('discord-3'))!;
      music.expireToken(current.accessToken);
      music.expireToken(current.refreshToken);
      await expect(client.users.me('discord-3')).rejects.toThrow(RelinkRequiredError);
      expect(await vault.get('discord-3')).toBeUndefined();
    } finally {
      await client.close();
    }
  });

  it('keeps the link and blames the app, not the member, when the service refuses the bot’s client id', async () => {
    const vault = new TokenVault(storage, new Keyring(randomBytes(32)));
    const link = expiredLink(music.fixtures!.users.premium);
    await vault.put('discord-4', link);
    const wrongApp = new MusicOAuth({
      authUrl: music.authUrl,
      clientId: 'no-such-app',
      redirectUri: REDIRECT,
    });
    const source = createTokenSource({ vault, oauth: wrongApp, storage });
    const error = await source.getAccessToken('discord-4').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppCredentialsError);
    expect((error as AppCredentialsError).userMessage).toMatch(/tell the bot’s owner/);
    expect(await vault.get('discord-4')).toEqual(link);
  });

  it('tells the member the service is not answering when the token endpoint fails, and keeps the link', async () => {
    const vault = new TokenVault(storage, new Keyring(randomBytes(32)));
    const link = expiredLink(music.fixtures!.users.premium);
    await vault.put('discord-5', link);
    const source = createTokenSource({ vault, oauth, storage });
    const client = musicClientFor(source);
    try {
      music.failNext('/accounts/api/token', 503);
      const error = await client.users.me('discord-5').catch((e: unknown) => e);
      expect(describeForUser(error)).toBe(
        'The music service is not answering right now. Please try again in a minute.',
      );
      expect(await vault.get('discord-5')).toEqual(link);
      // Once the service is back, the same link works.
      expect((await client.users.me('discord-5')).id).toBe(music.fixtures!.users.premium);
    } finally {
      await client.close();
    }
  });

  it('puts a link back when a process held up mid-refresh lost its lock and another sent the token it had just spent', async () => {
    const vault = new TokenVault(storage, new Keyring(randomBytes(32)), { lockTtlMs: 200 });
    const user = music.fixtures!.users.premium;
    const link = expiredLink(user);
    await vault.put('discord-6', link);
    // Process A is held up (paused, swapped out): its lock's keep-alive does not run either.
    const heldUp = withoutKeepAlive(storage);
    const a = createTokenSource({ vault, oauth, storage: heldUp, lockTtlMs: 200 });
    const b = createTokenSource({ vault, oauth, storage, lockTtlMs: 200 });
    // The service spends A's refresh token at once; its answer reaches A 1.5 s later.
    music.stallNext('/accounts/api/token', 1_500, { phase: 'body' });
    const fromA = a.getAccessToken('discord-6');
    while (music.tokenRequests('refresh_token') === 0) await delay(10);
    await delay(400);
    // B takes the lock that ran out, sends the same (spent) token and is refused.
    await expect(b.getAccessToken('discord-6')).rejects.toThrow(RelinkRequiredError);
    expect(music.tokenRequests('refresh_token')).toBe(2);
    expect(await vault.get('discord-6')).toBeUndefined();
    // A's answer arrives: the link is back, with the tokens the service gave A.
    const token = await fromA;
    const kept = await vault.get('discord-6');
    expect(kept?.accessToken).toBe(token);
    expect(kept?.refreshToken).not.toBe(link.refreshToken);
    expect(await vault.lapsed('discord-6')).toBe(false);
    const client = musicClientFor(b);
    try {
      expect((await client.users.me('discord-6')).id).toBe(user);
    } finally {
      await client.close();
    }
    expect(music.tokenRequests('refresh_token')).toBe(2);
  });

  it('puts such a link back later when storage refuses the put-back for a while, serving its token meanwhile', async () => {
    const key = new Keyring(randomBytes(32));
    const vault = new TokenVault(storage, key, { lockTtlMs: 200 });
    const user = music.fixtures!.users.premium;
    const link = expiredLink(user);
    await vault.put('discord-8', link);
    // A's view of the store refuses to put a link back until told otherwise.
    const vaultOfA = new TokenVault(storage, key, { lockTtlMs: 200 });
    const restore = vaultOfA.restore.bind(vaultOfA);
    let refusing = true;
    vaultOfA.restore = (userId, value) =>
      refusing ? Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6379')) : restore(userId, value);
    const storedLater: string[] = [];
    const a = createTokenSource({
      vault: vaultOfA,
      oauth,
      storage: withoutKeepAlive(storage),
      lockTtlMs: 200,
      storeRetryMs: 200,
      onStoredLater: (outcome) => storedLater.push(outcome),
    });
    const b = createTokenSource({ vault, oauth, storage, lockTtlMs: 200 });
    music.stallNext('/accounts/api/token', 1_500, { phase: 'body' });
    const fromA = a.getAccessToken('discord-8');
    while (music.tokenRequests('refresh_token') === 0) await delay(10);
    await delay(400);
    await expect(b.getAccessToken('discord-8')).rejects.toThrow(RelinkRequiredError);
    // A's answer arrives; the put-back is refused, and A still answers with the new token.
    const token = await fromA;
    await expect(a.getAccessToken('discord-8')).resolves.toBe(token);
    expect(await vault.get('discord-8')).toBeUndefined();
    refusing = false;
    await vi.waitFor(() => expect(storedLater).toEqual(['stored']), { timeout: 5_000, interval: 50 });
    expect((await vault.get('discord-8'))?.accessToken).toBe(token);
    await a.close();
    expect(music.tokenRequests('refresh_token')).toBe(2);
  });

  it('puts nothing back when the member unlinked after such a refusal', async () => {
    const vault = new TokenVault(storage, new Keyring(randomBytes(32)), { lockTtlMs: 200 });
    await vault.put('discord-7', expiredLink(music.fixtures!.users.premium));
    const heldUp = withoutKeepAlive(storage);
    const a = createTokenSource({ vault, oauth, storage: heldUp, lockTtlMs: 200 });
    const b = createTokenSource({ vault, oauth, storage, lockTtlMs: 200 });
    music.stallNext('/accounts/api/token', 1_500, { phase: 'body' });
    const fromA = a.getAccessToken('discord-7').catch((e: unknown) => e);
    while (music.tokenRequests('refresh_token') === 0) await delay(10);
    await delay(400);
    await expect(b.getAccessToken('discord-7')).rejects.toThrow(RelinkRequiredError);
    await vault.locked('discord-7', () => vault.delete('discord-7'));
    expect(await fromA).toBeInstanceOf(NotLinkedError);
    expect(await vault.get('discord-7')).toBeUndefined();
  });

  it('still works after 50 refreshes with rotation, and a spent refresh token is never stored again', async () => {
    const vault = new TokenVault(storage, new Keyring(randomBytes(32)));
    const user = music.fixtures!.users.premium;
    await vault.put('discord-2', expiredLink(user));
    let now = Date.now();
    const source = createTokenSource({ vault, oauth, storage, now: () => now });
    const spent = new Set<string>();
    for (let i = 0; i < 50; i++) {
      spent.add((await vault.get('discord-2'))!.refreshToken);
      await source.getAccessToken('discord-2');
      expect(spent.has((await vault.get('discord-2'))!.refreshToken)).toBe(false);
      now += 3_600_000;
    }
    expect(music.tokenRequests('refresh_token')).toBe(50);
    const client = musicClientFor(source);
    const me = await client.users.me('discord-2');
    expect(me.id).toBe(user);
    await client.close();
  });
});

describe.runIf(redisReady)('token refresh with two processes on one Redis', () => {
  const prefix = uniquePrefix('refresh');
  afterAll(async () => {
    await cleanRedisPrefix(prefix);
  });

  function worker(env: Record<string, string>) {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/refresh-worker.ts'], {
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let markReady: () => void;
    const ready = new Promise<void>((resolve) => (markReady = resolve));
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      if (err.includes('ready\n')) markReady();
    });
    const done = new Promise<string[]>((resolve, reject) => {
      child.once('exit', (code) =>
        code === 0
          ? resolve(JSON.parse(out) as string[])
          : reject(new Error(`worker exited ${code}: ${err}`)),
      );
    });
    return { child, ready, done };
  }

  it('makes exactly one refresh request for 200 calls split over two processes', async () => {
    const raw = randomBytes(32);
    const key = new Keyring(raw);
    const storage = await createStorage({ dataDir: 'unused', redisUrl: REDIS_URL, redisPrefix: prefix });
    await new TokenVault(storage, key).put('discord-3', expiredLink(music.fixtures!.users.premium));
    await storage.close();
    const env = {
      REDIS_URL,
      REDIS_PREFIX: prefix,
      VAULT_KEY: raw.toString('base64'),
      AUTH_URL: music.authUrl,
      CLIENT_ID: music.clientId,
      REDIRECT_URI: REDIRECT,
      USER_ID: 'discord-3',
      COUNT: '100',
    };
    const workers = [worker(env), worker(env)];
    // Both processes are up (compiled, Redis connected) before either starts asking.
    await Promise.race([Promise.all(workers.map((w) => w.ready)), Promise.any(workers.map((w) => w.done))]);
    for (const { child } of workers) child.stdin.write('go\n');
    const results = await Promise.all(workers.map((w) => w.done));
    expect(music.tokenRequests('refresh_token')).toBe(1);
    expect(new Set(results.flat()).size).toBe(1);
  }, 60_000);
});
