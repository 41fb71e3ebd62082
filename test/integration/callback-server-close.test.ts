import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { once } from 'node:events';
import { connect } from 'node:net';
import path from 'node:path';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { beginLink, visit, type BrowserVisit } from '../../emulators/music/walk.js';
import { createLinking } from '../../src/auth/linking.js';
import type { TokenSet } from '../../src/auth/oauth.js';
import { Keyring } from '../../src/auth/seal.js';
import { startCallbackServer } from '../../src/auth/server.js';
import { LinkStates } from '../../src/auth/states.js';
import { TokenVault } from '../../src/auth/vault.js';
import { createLogger } from '../../src/logger.js';
import { createStorage } from '../../src/storage/index.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A callback server whose code exchange waits until the test lets it answer, and a member's link
 * walked up to the callback: `callback()` sends the browser back from the consent page.
 */
async function linkInProgress(options: { closeGraceMs?: number } = {}) {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'bot-callback-close-'));
  const storage = await createStorage({ dataDir });
  cleanups.push(async () => {
    await storage.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  const key = new Keyring(randomBytes(32));
  const states = new LinkStates(storage, key);
  const vault = new TokenVault(storage, key);
  let exchangeStarted!: () => void;
  const exchanging = new Promise<void>((resolve) => (exchangeStarted = resolve));
  let answerExchange!: (tokens: TokenSet) => void;
  const server = await startCallbackServer({
    host: '127.0.0.1',
    port: 0,
    publicUrl: 'http://127.0.0.1',
    linking: {
      states,
      vault,
      cookieKey: key,
      oauth: {
        authorizeUrl: (state) => `http://music.invalid/authorize?state=${state}`,
        exchangeCode: () =>
          new Promise<TokenSet>((resolve) => {
            answerExchange = resolve;
            exchangeStarted();
          }),
      },
      fetchProfile: () => Promise.resolve({ accountId: 'acct-ada', displayName: 'Ada' }),
    },
    registry: new Registry(),
    logger: createLogger({ level: 'silent' }),
    ...options,
  });
  let closing: Promise<void> | undefined;
  const close = () => (closing ??= server.close());
  cleanups.push(close);
  const linking = createLinking({ states, vault, publicUrl: server.url });
  const start = await beginLink(await linking.startLink('discord-ada'));
  const state = new URL(start.location!).searchParams.get('state')!;
  return {
    url: server.url,
    close,
    vault,
    exchanging,
    callback: (): Promise<BrowserVisit> =>
      visit(`${server.url}/callback?state=${state}&code=the-code`, start.cookie),
    answerExchange: () =>
      answerExchange({
        accessToken: 'access',
        refreshToken: 'refresh',
        expiresInSeconds: 3600,
        scopes: ['user-read-private'],
      }),
  };
}

describe('stopping the callback server', () => {
  it('lets a callback in progress finish and store the link before it closes', async () => {
    const world = await linkInProgress();
    const page = world.callback();
    await world.exchanging;
    const closed = world.close();
    world.answerExchange();
    const answer = await page;
    expect(answer.status).toBe(200);
    expect(answer.body).toMatch(/Linked as Ada\./);
    // The answer ends its keep-alive connection, so the close does not wait on the browser.
    const answered = performance.now();
    await closed;
    expect(performance.now() - answered).toBeLessThan(1_000);
    expect((await world.vault.get('discord-ada'))?.accountId).toBe('acct-ada');
  });

  it('takes no new connections once closing', async () => {
    const world = await linkInProgress();
    const page = world.callback();
    await world.exchanging;
    const closed = world.close();
    await expect(visit(`${world.url}/healthz`)).rejects.toThrow();
    world.answerExchange();
    await page;
    await closed;
  });

  it('closes at once when its connections are idle', async () => {
    const world = await linkInProgress();
    // undici keeps the connections of the walk so far open, idle.
    const started = performance.now();
    await world.close();
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('closes at once after refusing a request that is not HTTP, though the client keeps its side open', async () => {
    const world = await linkInProgress();
    const { port } = new URL(world.url);
    const socket = connect({ port: Number(port), host: '127.0.0.1', allowHalfOpen: true });
    socket.on('error', () => {});
    let raw = '';
    socket.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    socket.write('NOT HTTP\r\n\r\n');
    // Read to its end by hand: an async iterator would destroy the socket, closing its side too.
    await once(socket, 'end');
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    const started = performance.now();
    await world.close();
    expect(performance.now() - started).toBeLessThan(1_000);
    socket.destroy();
  });

  it('cuts a request that does not finish within the grace period', async () => {
    const world = await linkInProgress({ closeGraceMs: 300 });
    const page = world.callback();
    page.catch(() => {});
    await world.exchanging;
    const started = performance.now();
    await world.close();
    const took = performance.now() - started;
    expect(took).toBeGreaterThanOrEqual(250);
    expect(took).toBeLessThan(2_000);
    await expect(page).rejects.toThrow();
  });
});
