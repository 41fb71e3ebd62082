import { Keyring } from '../../src/auth/seal.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMusicEmulator, type MusicEmulator } from '../../emulators/music/index.js';
import { createLinking, type Linking } from '../../src/auth/linking.js';
import { MusicOAuth } from '../../src/auth/oauth.js';
import { startCallbackServer, type CallbackServer } from '../../src/auth/server.js';
import { LinkStates, STATE_LIFETIME_MS } from '../../src/auth/states.js';
import { TokenVault } from '../../src/auth/vault.js';
import { createLogger } from '../../src/logger.js';
import { createMusicClient, type MusicClient } from '../../src/services/music/index.js';
import { createStorage, type Storage } from '../../src/storage/index.js';
import { completeLink, visit } from '../../emulators/music/walk.js';
import { freePort } from '../../emulators/net.js';

let music: MusicEmulator;
let server: CallbackServer;
let storage: Storage;
let vault: TokenVault;
let linking: Linking;
let client: MusicClient;
let dataDir: string;
let now = Date.now();
let exchangeVerifier: ((real: string) => string) | undefined;
const logs: string[] = [];
const linked: string[] = [];

beforeAll(async () => {
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  music = await startMusicEmulator({ redirectUris: [`${publicUrl}/callback`] });
  dataDir = await mkdtemp(path.join(tmpdir(), 'bot-link-'));
  storage = await createStorage({ dataDir });
  const key = new Keyring(randomBytes(32));
  vault = new TokenVault(storage, key);
  const states = new LinkStates(storage, key, () => now);
  const oauth = new MusicOAuth({
    authUrl: music.authUrl,
    clientId: music.clientId,
    redirectUri: `${publicUrl}/callback`,
  });
  client = createMusicClient({
    apiUrl: music.apiUrl,
    authUrl: music.authUrl,
    clientId: music.clientId,
    clientSecret: music.clientSecret,
    variant: 'classic',
    getAccessToken: () => Promise.reject(new Error('not used')),
  });
  const logger = createLogger({
    level: 'debug',
    destination: new Writable({
      write(chunk: Buffer, _e, done) {
        logs.push(chunk.toString());
        done();
      },
    }),
  });
  server = await startCallbackServer({
    host: '127.0.0.1',
    port,
    publicUrl,
    linking: {
      states,
      vault,
      cookieKey: key,
      oauth: {
        authorizeUrl: (state, challenge) => oauth.authorizeUrl(state, challenge),
        exchangeCode: (callback, state, verifier) =>
          oauth.exchangeCode(callback, state, exchangeVerifier ? exchangeVerifier(verifier) : verifier),
      },
      fetchProfile: async (token) => {
        const me = await client.users.meWithToken(token);
        return { accountId: me.account_id ?? me.id, displayName: me.display_name, product: me.product };
      },
      onLinked: (userId) => {
        linked.push(userId);
        return Promise.resolve();
      },
    },
    registry: new Registry(),
    logger,
  });
  linking = createLinking({ states, vault, publicUrl });
});

afterAll(async () => {
  await server?.close();
  await client?.close();
  await music?.close();
  await storage?.close();
  await rm(dataDir, { recursive: true, force: true });
});

beforeEach(() => {
  now = Date.now();
  exchangeVerifier = undefined;
});

const premium = () => music.fixtures!.users.premium;

describe('linking a music account', () => {
  it('links by PKCE and stores the account for the Discord user who asked', async () => {
    const url = await linking.startLink('discord-ada');
    const page = await completeLink(music, url, premium());
    expect(page.status).toBe(200);
    expect(page.body).toMatch(/Linked as .+\. You can close this tab and go back to Discord\./);
    const link = await vault.get('discord-ada');
    expect(link?.scopes).toContain('user-modify-playback-state');
    expect(linked).toContain('discord-ada');
    expect(music.tokenRequests('authorization_code')).toBeGreaterThan(0);
  });

  it('sends the browser to the consent page with an S256 challenge and security headers', async () => {
    const start = await visit(await linking.startLink('discord-x'));
    const location = new URL(start.location!);
    expect(location.searchParams.get('code_challenge_method')).toBe('S256');
    expect(location.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(start.cookie).toMatch(/^link_session=/);
    const page = await visit(`${server.url}/callback?state=${'a'.repeat(43)}&code=x`);
    expect(page.status).toBe(400);
  });

  it('refuses a replayed state on its own page, keeping the first link intact', async () => {
    const url = await linking.startLink('discord-replay');
    const first = await completeLink(music, url, premium());
    expect(first.status).toBe(200);
    const stored = await vault.get('discord-replay');
    const again = await visit(first.callbackUrl, first.browserCookie);
    expect(again.status).toBe(409);
    expect(again.body).toContain('This link was already used');
    expect(await vault.get('discord-replay')).toEqual(stored);
  });

  it('refuses an expired state on its own page and stores nothing', async () => {
    const url = await linking.startLink('discord-late');
    const start = await visit(url);
    const back = await music.approve(start.location!, premium());
    now += STATE_LIFETIME_MS + 1_000;
    const page = await visit(back.toString(), start.cookie);
    expect(page.status).toBe(410);
    expect(page.body).toContain('This link has expired');
    expect(await vault.get('discord-late')).toBeUndefined();
  });

  it("refuses a state that another Discord user's browser brings back", async () => {
    const victim = await linking.startLink('discord-victim');
    const attackerStart = await visit(await linking.startLink('discord-attacker'));
    const victimStart = await visit(victim);
    const back = await music.approve(victimStart.location!, premium());
    // The callback arrives in the attacker's browser, which carries the attacker's own cookie.
    const page = await visit(back.toString(), attackerStart.cookie);
    expect(page.status).toBe(403);
    expect(page.body).toContain('This link belongs to someone else');
    expect(await vault.get('discord-victim')).toBeUndefined();
    expect(await vault.get('discord-attacker')).toBeUndefined();
  });

  it('shows a denial on its own page and stores nothing', async () => {
    const page = await completeLink(music, await linking.startLink('discord-no'), premium(), { deny: true });
    expect(page.body).toContain('Linking cancelled');
    expect(await vault.get('discord-no')).toBeUndefined();
  });

  it('shows a failed code exchange (wrong verifier) on its own page and stores nothing', async () => {
    exchangeVerifier = () => 'w'.repeat(64);
    const page = await completeLink(music, await linking.startLink('discord-verifier'), premium());
    expect(page.status).toBe(502);
    expect(page.body).toContain('The music service did not accept this link');
    expect(await vault.get('discord-verifier')).toBeUndefined();
  });

  it('never logs the code, the state or a token', async () => {
    const url = await linking.startLink('discord-logs');
    const page = await completeLink(music, url, premium());
    const callback = new URL(page.callbackUrl);
    const text = logs.join('\n');
    const link = await vault.get('discord-logs');
    for (const secret of [
      callback.searchParams.get('code')!,
      callback.searchParams.get('state')!,
      link!.accessToken,
      link!.refreshToken,
    ]) {
      expect(text).not.toContain(secret);
    }
  });

  it('answers health and metrics', async () => {
    expect((await visit(`${server.url}/healthz`)).status).toBe(200);
    const metrics = await visit(`${server.url}/metrics`);
    expect(metrics.body).toMatch(/bot_music_links_total\{outcome="linked"\} \d+/);
  });
});
