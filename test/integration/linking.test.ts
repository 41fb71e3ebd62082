import { Keyring } from '../../src/auth/seal.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import type KeyvSqlite from '@keyv/sqlite';
import { Registry } from 'prom-client';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMusicEmulator, type MusicEmulator } from '../../emulators/music/index.js';
import { createLinking, type Linking } from '../../src/auth/linking.js';
import { MusicOAuth, OAuthError, type TokenSet } from '../../src/auth/oauth.js';
import { startCallbackServer, type CallbackServer } from '../../src/auth/server.js';
import { LinkStates, STATE_LIFETIME_MS } from '../../src/auth/states.js';
import { createTokenSource } from '../../src/auth/tokens.js';
import { TokenVault } from '../../src/auth/vault.js';
import { createLogger } from '../../src/logger.js';
import { createMusicClient, type MusicClient } from '../../src/services/music/index.js';
import { createStorage, type Storage } from '../../src/storage/index.js';
import { beginLink, completeLink, formAction, visit } from '../../emulators/music/walk.js';
import { freePort } from '../../emulators/net.js';
import { linkFactory } from '../fixtures/links.js';

let music: MusicEmulator;
let server: CallbackServer;
let storage: Storage;
let vault: TokenVault;
let linking: Linking;
let states: LinkStates;
let client: MusicClient;
let dataDir: string;
let now = Date.now();
/** Runs while a link's callback reads the new account's profile (after its state is used up). */
let beforeProfile: (() => Promise<void>) | undefined;
let exchangeVerifier: ((real: string) => string) | undefined;
/** The client id the code exchange sends, when a test makes it another than the app's. */
let exchangeClientId: string | undefined;
/** Stands in for the code exchange's answer, given the real exchange. */
let exchangeAnswer: ((real: () => Promise<TokenSet>) => Promise<TokenSet>) | undefined;
let publicUrl: string;
const logs: string[] = [];
const linked: string[] = [];

beforeAll(async () => {
  const port = await freePort();
  publicUrl = `http://127.0.0.1:${port}`;
  music = await startMusicEmulator({ redirectUris: [`${publicUrl}/callback`] });
  dataDir = await mkdtemp(path.join(tmpdir(), 'bot-link-'));
  storage = await createStorage({ dataDir });
  const key = new Keyring(randomBytes(32));
  vault = new TokenVault(storage, key);
  states = new LinkStates(storage, key, () => now);
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
        authorizeUrl: (state, challenge, options) => oauth.authorizeUrl(state, challenge, options),
        exchangeCode: (callback, state, verifier) => {
          const real = () =>
            (exchangeClientId
              ? new MusicOAuth({
                  authUrl: music.authUrl,
                  clientId: exchangeClientId,
                  redirectUri: `${publicUrl}/callback`,
                })
              : oauth
            ).exchangeCode(callback, state, exchangeVerifier ? exchangeVerifier(verifier) : verifier);
          return exchangeAnswer ? exchangeAnswer(real) : real();
        },
      },
      fetchProfile: async (token) => {
        await beforeProfile?.();
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
    now: () => now,
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
  beforeProfile = undefined;
  exchangeVerifier = undefined;
  exchangeClientId = undefined;
  exchangeAnswer = undefined;
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
    const start = await beginLink(await linking.startLink('discord-x'));
    expect(start.status).toBe(303);
    const location = new URL(start.location!);
    expect(location.searchParams.get('code_challenge_method')).toBe('S256');
    expect(location.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(start.cookie).toMatch(/^link_session_[A-Za-z0-9_-]{8}=/);
    const page = await visit(`${server.url}/callback?state=${'a'.repeat(43)}&code=x`);
    expect(page.status).toBe(400);
  });

  it('puts a ticket in the start link, never the OAuth state, which goes only to the consent page and back', async () => {
    const url = new URL(await linking.startLink('discord-ticket'));
    expect([...url.searchParams.keys()]).toEqual(['ticket']);
    const ticket = url.searchParams.get('ticket')!;
    const start = await beginLink(url.toString());
    const state = new URL(start.location!).searchParams.get('state')!;
    expect(state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(state).not.toBe(ticket);
    expect(start.page.body).not.toContain(state);
    // A state is no ticket: the start page does not know it.
    const byState = await visit(`${server.url}/link/start?ticket=${state}`);
    expect(byState.status).toBe(400);
    expect(byState.cookie).toBeUndefined();
  });

  it('keeps PUBLIC_URL’s path in the link and in the start page’s button, for a bot served under a path', async () => {
    const prefixed = createLinking({ states, vault, publicUrl: 'https://bot.example.org/skybeat' });
    const url = new URL(await prefixed.startLink('discord-proxy'));
    expect(`${url.origin}${url.pathname}`).toBe('https://bot.example.org/skybeat/link/start');
    // The page as the proxy hands it on from this server: its button must post back under the path.
    const page = await visit(`${server.url}/link/start${url.search}`);
    expect(page.status).toBe(200);
    expect(new URL(formAction(page, url.toString())!).pathname).toBe('/skybeat/link/continue');
  });

  it('refuses a replayed state on its own page, keeping the first link intact', async () => {
    const url = await linking.startLink('discord-replay');
    const first = await completeLink(music, url, premium());
    expect(first.status).toBe(200);
    const stored = await vault.get('discord-replay');
    const again = await visit(first.callbackUrl, first.browserCookie);
    expect(again.status).toBe(409);
    expect(again.body).toContain('This link was already used');
    // The same address again is most often the success page reloaded: it says where to check.
    expect(again.body).toContain('that is done: /music status in Discord shows it');
    expect(await vault.get('discord-replay')).toEqual(stored);
  });

  it('says what became of a used link when it is opened again, claiming a link only when one was made', async () => {
    // Cancelled on the consent page: the callback reloaded, then the start link in Discord again.
    const cancelled = await linking.startLink('discord-back-denied');
    const denied = await completeLink(music, cancelled, premium(), { deny: true });
    for (const again of [await visit(denied.callbackUrl, denied.browserCookie), await visit(cancelled)]) {
      expect(again.status).toBe(409);
      expect(again.body).toContain('This link was already used');
      expect(again.body).toContain('access was not granted, so nothing was linked');
      expect(again.body).toContain('run /music link again');
      expect(again.body).not.toContain('that is done');
    }

    // A code exchange that failed.
    exchangeVerifier = () => 'w'.repeat(64);
    const refused = await completeLink(music, await linking.startLink('discord-back-failed'), premium());
    exchangeVerifier = undefined;
    const reloaded = await visit(refused.callbackUrl, refused.browserCookie);
    expect(reloaded.status).toBe(409);
    expect(reloaded.body).toContain('Linking with this one did not complete, so nothing was linked');
    expect(reloaded.body).not.toContain('that is done');

    // Back at the consent page's answer after the ten minutes: expired, as the first time.
    const start = await beginLink(await linking.startLink('discord-back-late'));
    const back = await music.approve(start.location!, premium());
    now += STATE_LIFETIME_MS + 1_000;
    expect((await visit(back.toString(), start.cookie)).status).toBe(410);
    const late = await visit(back.toString(), start.cookie);
    expect(late.status).toBe(410);
    expect(late.body).toContain('This link has expired');
    expect(late.body).not.toContain('that is done');
    expect(await vault.get('discord-back-denied')).toBeUndefined();
    expect(await vault.get('discord-back-failed')).toBeUndefined();
    expect(await vault.get('discord-back-late')).toBeUndefined();
  });

  it('reads a link used before outcomes were kept as used, without saying it linked', async () => {
    // What an earlier version left behind: the used marker alone.
    const start = await startIn('discord-old-marker');
    expect((await states.take(start.state)).kind).toBe('ok');
    const again = await visit(`${server.url}/callback?state=${start.state}&code=x`, start.cookie);
    expect(again.status).toBe(409);
    expect(again.body).toContain('This link was already used');
    expect(again.body).toContain('/music status in Discord shows whether your music account is linked');
    expect(again.body).not.toContain('that is done');
  });

  it('refuses an expired state on its own page and stores nothing', async () => {
    const url = await linking.startLink('discord-late');
    const start = await beginLink(url);
    const back = await music.approve(start.location!, premium());
    now += STATE_LIFETIME_MS + 1_000;
    const page = await visit(back.toString(), start.cookie);
    expect(page.status).toBe(410);
    expect(page.body).toContain('This link has expired');
    expect(await vault.get('discord-late')).toBeUndefined();
  });

  it('withdraws the links a member started before unlinking, and takes one started after', async () => {
    const notOpened = await linking.startLink('discord-withdrawn');
    // One already through the consent page when the member unlinks in Discord.
    const start = await beginLink(await linking.startLink('discord-withdrawn'));
    const back = await music.approve(start.location!, premium());
    now += 1;
    await linking.unlink('discord-withdrawn');
    now += 1;
    const opened = await visit(notOpened);
    expect(opened.status).toBe(410);
    expect(opened.body).toContain('This link was withdrawn');
    const returned = await visit(back.toString(), start.cookie);
    expect(returned.status).toBe(410);
    expect(returned.body).toContain('This link was withdrawn');
    expect(await vault.get('discord-withdrawn')).toBeUndefined();

    const fresh = await completeLink(music, await linking.startLink('discord-withdrawn'), premium());
    expect(fresh.status).toBe(200);
    expect(await vault.get('discord-withdrawn')).toBeDefined();
  });

  it('does not store a link whose member unlinked while its callback was completing it', async () => {
    const url = await linking.startLink('discord-unlinked-midway');
    now += 1;
    beforeProfile = async () => {
      beforeProfile = undefined;
      await linking.unlink('discord-unlinked-midway');
    };
    const page = await completeLink(music, url, premium());
    expect(page.status).toBe(410);
    expect(page.body).toContain('This link was withdrawn');
    expect(await vault.get('discord-unlinked-midway')).toBeUndefined();
  });

  it("refuses a state that another Discord user's browser brings back", async () => {
    const victim = await linking.startLink('discord-victim');
    const attackerStart = await beginLink(await linking.startLink('discord-attacker'));
    const victimStart = await beginLink(victim);
    const back = await music.approve(victimStart.location!, premium());
    // The callback arrives in the attacker's browser, which carries the attacker's own cookie.
    const page = await visit(back.toString(), attackerStart.cookie);
    expect(page.status).toBe(403);
    expect(page.body).toContain('This link belongs to someone else');
    expect(await vault.get('discord-victim')).toBeUndefined();
    expect(await vault.get('discord-attacker')).toBeUndefined();
  });

  it('shows a denial on its own page, not claiming the member refused (the service says so for a failed consent too), and stores nothing', async () => {
    const page = await completeLink(music, await linking.startLink('discord-no'), premium(), { deny: true });
    expect(page.body).toContain('Access was not granted');
    expect(page.body).toContain(
      'it was cancelled on the music service’s page, or did not complete there. Nothing was linked',
    );
    expect(page.body).toContain('To try again: Go back to Discord and run /music link again');
    expect(page.body).not.toContain('You did not allow');
    expect(await vault.get('discord-no')).toBeUndefined();
  });

  it('shows a failed code exchange (wrong verifier) on its own page and stores nothing', async () => {
    exchangeVerifier = () => 'w'.repeat(64);
    const page = await completeLink(music, await linking.startLink('discord-verifier'), premium());
    expect(page.status).toBe(502);
    expect(page.body).toContain('The music service did not accept this link');
    expect(await vault.get('discord-verifier')).toBeUndefined();
    // The link's state is spent: its cookies go, as on the other pages that end a link.
    expect(page.cookie).toMatch(/^link_session_[A-Za-z0-9_-]{8}=$/);
  });

  it('tells the member that the bot’s app is set up wrong, not to retry, when the service refuses the bot’s client', async () => {
    exchangeClientId = 'not-the-apps-client-id';
    const page = await completeLink(music, await linking.startLink('discord-app'), premium());
    expect(page.status).toBe(502);
    expect(page.body).toContain('The bot’s music app is not set up right');
    expect(page.body).toContain('linking again will not help');
    expect(page.body).not.toContain('run /music link again');
    expect(await vault.get('discord-app')).toBeUndefined();
    const line = logs.find((l) => l.includes('refused the bot’s code exchange'));
    expect(line).toBeDefined();
    expect((JSON.parse(line!) as { level: number }).level).toBe(50);
  });

  it('tells the member to tell the owner, not to retry, when the bot cannot use the token answer, and logs why at error', async () => {
    const answers = [
      // A 200 without a refresh token: the link would end with its first access token.
      async (real: () => Promise<TokenSet>) => ({ ...(await real()), refreshToken: undefined }),
      () =>
        Promise.reject(
          new OAuthError(
            'invalid_response',
            "The music service's token endpoint sent an answer the bot cannot use: unexpected token_type",
          ),
        ),
    ];
    for (const [i, answer] of answers.entries()) {
      exchangeAnswer = answer;
      const from = logs.length;
      const page = await completeLink(music, await linking.startLink(`discord-unusable-${i}`), premium());
      expect(page.status).toBe(502);
      expect(page.body).toContain('The bot could not use the music service’s answer');
      expect(page.body).toContain('Trying again will probably not help.');
      expect(page.body).toContain('they will find the details in the bot’s log');
      expect(page.body).not.toContain('did not accept this link');
      expect(await vault.get(`discord-unusable-${i}`)).toBeUndefined();
      const line = logs.slice(from).find((l) => l.includes('music code exchange failed'));
      expect((JSON.parse(line!) as { level: number }).level).toBe(50);
      const callback = new URL(page.callbackUrl);
      for (const secret of [callback.searchParams.get('code')!, callback.searchParams.get('state')!])
        expect(logs.slice(from).join('')).not.toContain(secret);
    }
  });

  it('tells a member whose music account is not on a development-mode app’s user list to ask the owner, not to retry', async () => {
    const outsider = music.createUser({ id: 'outsider', registered: false });
    const start = await beginLink(await linking.startLink('discord-outsider'));
    const back = await music.approve(start.location!, outsider.id);
    const page = await visit(back.toString(), start.cookie);
    expect(page.status).toBe(403);
    expect(page.body).toContain('Ask the bot’s owner to add your music account');
    expect(page.body).not.toContain('not answering');
    expect(await vault.get('discord-outsider')).toBeUndefined();
    expect(logs.join('')).toContain('not on the music app’s user list');
  });

  it('tells a member that the bot’s app has used up its quota, not that the service is down, and the owner at error', async () => {
    music.exceedQuota({ count: 1, path: '/v1/me' });
    const page = await completeLink(music, await linking.startLink('discord-quota'), premium());
    expect(page.status).toBe(503);
    expect(page.body).toContain('has used up its requests for now');
    expect(page.body).not.toContain('not answering');
    expect(await vault.get('discord-quota')).toBeUndefined();
    const line = logs.find((l) => l.includes('used up its request quota'));
    expect((JSON.parse(line!) as { level: number }).level).toBe(50);
  });

  it('links with the permissions the service granted, and says which of those asked for it did not grant', async () => {
    // RFC 6749 §5.1: the answer names the scope granted when it is not the one asked for.
    exchangeAnswer = async (real) => ({
      ...(await real()),
      scopes: ['user-read-private', 'playlist-read-private', 'playlist-read-collaborative'],
    });
    const page = await completeLink(music, await linking.startLink('discord-narrow'), premium());
    expect(page.status).toBe(200);
    expect(page.body).toContain(
      'The music service did not grant everything the bot asked for, so it cannot save and remove albums in your library; see your devices; pause and skip; edit your public playlists; edit your private playlists.',
    );
    expect((await vault.get('discord-narrow'))?.scopes).toEqual([
      'user-read-private',
      'playlist-read-private',
      'playlist-read-collaborative',
    ]);
    // Everything granted: not a word of it.
    exchangeAnswer = undefined;
    const whole = await completeLink(music, await linking.startLink('discord-whole'), premium());
    expect(whole.body).not.toContain('did not grant');
  });

  it('times a new link’s access token from before the code exchange, not from after a slow profile read', async () => {
    const requestedAt = now;
    let lifetimeS = 0;
    exchangeAnswer = async (real) => {
      const tokens = await real();
      lifetimeS = tokens.expiresInSeconds;
      now += 2_000;
      return tokens;
    };
    // The profile read retrying for a while.
    beforeProfile = () => {
      now += 40_000;
      return Promise.resolve();
    };
    const page = await completeLink(music, await linking.startLink('discord-slow-profile'), premium());
    expect(page.status).toBe(200);
    const link = await vault.get('discord-slow-profile');
    expect(lifetimeS).toBeGreaterThan(0);
    expect(link?.expiresAt).toBe(requestedAt + lifetimeS * 1000);
    expect(link?.linkedAt).toBe(requestedAt + 42_000);
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

describe('the start page, before anything happens', () => {
  it('names the Discord account that gets access, as text, sets the cookie and does not redirect', async () => {
    const url = await linking.startLink('discord-named', {
      account: { username: '<script>alert(1)</script>', displayName: 'Eve & "co"' },
    });
    const response = await request(url);
    const body = await response.body.text();
    expect(response.statusCode).toBe(200);
    expect(response.headers.location).toBeUndefined();
    expect(String(response.headers['set-cookie'])).toMatch(/^link_session_[A-Za-z0-9_-]{8}=/);
    expect(body).toContain(
      'You are about to let the Discord account @&lt;script&gt;alert(1)&lt;/script&gt; (Eve &amp; &quot;co&quot;) ' +
        'use your music account: see your devices, pause and skip what is playing, save albums to your library ' +
        'or remove them, and read and change your playlists.',
    );
    expect(body).toContain('if someone sent you this link, close this page.');
    expect(body).not.toContain('<script>');
    expect(body).toMatch(/<button type="submit">Continue<\/button>/);
    // Its form may post here and be sent on to the consent page, nowhere else.
    expect(response.headers['content-security-policy']).toContain(
      `form-action 'self' ${new URL(music.authUrl).origin};`,
    );
    expect(await vault.get('discord-named')).toBeUndefined();
  });

  it('names the account generically for a link started before it kept the name', async () => {
    // What `/music link` stored before the upgrade: no account name in the pending link.
    const page = await visit(await linking.startLink('discord-old'));
    expect(page.status).toBe(200);
    expect(page.body).toContain(
      'You are about to let a Discord account (the one that asked the bot for this link) use your music account',
    );
    expect(page.location).toBeUndefined();
  });

  it("shows an attacker's start link, opened in a victim's browser, with the attacker's name", async () => {
    const sent = await linking.startLink('discord-mallory', { account: { username: 'mallory' } });
    const victim = await visit(sent);
    expect(victim.status).toBe(200);
    expect(victim.location).toBeUndefined();
    expect(victim.body).toContain('You are about to let the Discord account @mallory use your music account');
    expect(victim.body).toContain('if someone sent you this link, close this page.');
    expect(await vault.get('discord-mallory')).toBeUndefined();
  });

  it('refuses Continue without the cookie its start page set, and stores nothing', async () => {
    const url = await linking.startLink('discord-forwarded', { account: { username: 'mallory' } });
    // The attacker opened the start page and passes on its Continue address; another member's
    // start page left its own cookie in the victim's browser.
    const attackers = await visit(url);
    const continueUrl = formAction(attackers, url)!;
    const others = await visit(await linking.startLink('discord-other'));
    for (const cookie of [undefined, others.cookie]) {
      const refused = await visit(continueUrl, cookie, 'POST');
      expect(refused.status).toBe(403);
      expect(refused.location).toBeUndefined();
      expect(refused.body).toContain('Please finish in the same browser');
    }
    expect(await vault.get('discord-forwarded')).toBeUndefined();

    // The link itself is untouched: in the browser that read its page, Continue still goes on.
    const continued = await visit(continueUrl, attackers.cookie, 'POST');
    expect(continued.status).toBe(303);
    expect(new URL(continued.location!).origin).toBe(new URL(music.authUrl).origin);
  });

  it('says what became of the link when Continue comes without the start page’s cookie (gone after ten minutes, or blocked), and leaves it as it is', async () => {
    // A start page left open past the link's ten minutes: its cookie has gone with them.
    const late = await linking.startLink('discord-open-tab');
    const latePage = await visit(late);
    now += STATE_LIFETIME_MS + 1_000;
    const expired = await visit(formAction(latePage, late)!, undefined, 'POST');
    expect(expired.status).toBe(410);
    expect(expired.body).toContain('This link has expired');
    expect(expired.body).not.toContain('same browser');
    now = Date.now();

    // Used already, then withdrawn: the same pages as with the cookie.
    const used = await linking.startLink('discord-used-tab');
    const usedPage = await visit(used);
    await completeLink(music, used, premium());
    const again = await visit(formAction(usedPage, used)!, undefined, 'POST');
    expect(again.status).toBe(409);
    expect(again.body).toContain('This link was already used');
    const withdrawn = await linking.startLink('discord-withdrawn-tab');
    const withdrawnPage = await visit(withdrawn);
    now += 1;
    await linking.unlink('discord-withdrawn-tab');
    const gone = await visit(formAction(withdrawnPage, withdrawn)!, undefined, 'POST');
    expect(gone.status).toBe(410);
    expect(gone.body).toContain('This link was withdrawn');

    // Still valid (a browser that blocks cookies): only then "the same browser, with cookies allowed";
    // and the link still goes on where the cookie is.
    const valid = await linking.startLink('discord-no-cookies');
    const validPage = await visit(valid);
    const blocked = await visit(formAction(validPage, valid)!, undefined, 'POST');
    expect(blocked.status).toBe(403);
    expect(blocked.body).toContain('Please finish in the same browser');
    expect(blocked.body).toContain('with cookies allowed');
    const continued = await visit(formAction(validPage, valid)!, validPage.cookie, 'POST');
    expect(continued.status).toBe(303);

    // A link this bot never made.
    const made = await visit(`${server.url}/link/continue?link=${'A'.repeat(43)}`, undefined, 'POST');
    expect(made.status).toBe(400);
    expect(made.body).toContain('This link is not valid');
  });

  it('does not link a browser that only loaded the start page and was then sent to the consent page by someone else', async () => {
    // Mallory presses Continue on her own start link and keeps the consent address. Her page opens
    // the same start link in the victim's browser (a pop-up: the start page's cookie is stored
    // there), then sends that browser to the consent address, where the victim agrees.
    const url = await linking.startLink('discord-mallory-2', { account: { username: 'mallory' } });
    const mallorys = await beginLink(url);
    const victims = await visit(url);
    expect(victims.cookie).toBeDefined();
    const back = await music.approve(mallorys.location!, premium());
    const page = await visit(back.toString(), victims.cookie);
    expect(page.status).toBe(403);
    expect(page.body).toContain('Please finish in the same browser');
    expect(await vault.get('discord-mallory-2')).toBeUndefined();
  });

  it('refuses Continue posted from another site, even with the start page’s cookie, and stores nothing', async () => {
    const url = await linking.startLink('discord-csrf', { account: { username: 'mallory' } });
    const page = await visit(url);
    const continueUrl = formAction(page, url)!;
    const refused = await visit(continueUrl, page.cookie, 'POST', 'cross-site');
    expect(refused.status).toBe(403);
    expect(refused.location).toBeUndefined();
    expect(refused.cookie).toBeUndefined();
    expect(refused.body).toContain('Please use the Continue button on the link page');
    // Without Sec-Fetch-Site (an older browser), the Origin header decides.
    const post = (origin: string) =>
      request(continueUrl, {
        method: 'POST',
        headers: { cookie: page.cookie!, origin, 'content-type': 'application/x-www-form-urlencoded' },
        body: '',
      });
    const foreign = await post('https://evil.example');
    expect(foreign.statusCode).toBe(403);
    await foreign.body.dump();
    const own = await post(new URL(server.url).origin);
    expect(own.statusCode).toBe(303);
    await own.body.dump();
    expect(await vault.get('discord-csrf')).toBeUndefined();
  });

  it('asks the service to show its consent page every time (show_dialog)', async () => {
    const start = await beginLink(await linking.startLink('discord-dialog'));
    expect(new URL(start.location!).searchParams.get('show_dialog')).toBe('true');
  });
});

/** The start link and its Continue in a browser: the consent page's address, its state and the cookie set. */
async function startIn(userId: string) {
  const start = await beginLink(await linking.startLink(userId));
  const state = new URL(start.location!).searchParams.get('state')!;
  return { ...start, state };
}

/** Rows the callback server keeps in the `oauth-states` namespace, claims included. */
async function stateRows(): Promise<number> {
  const sqlite = storage.ns('oauth-states').opts.store as KeyvSqlite;
  const rows = (await sqlite.query(`SELECT count(*) AS n FROM keyv WHERE key LIKE 'oauth-states:%'`)) as {
    n: number;
  }[];
  return rows[0]!.n;
}

describe('the callback server under abuse and odd answers', () => {
  it('stores nothing for callbacks with states it never issued', async () => {
    const before = await stateRows();
    for (let i = 0; i < 50; i++) {
      const page = await visit(
        `${server.url}/callback?state=${randomBytes(24).toString('base64url')}&error=x`,
      );
      expect(page.status).toBe(400);
    }
    expect(await stateRows()).toBe(before);
  });

  it('answers an address past the header limit, or a request that is not HTTP, with a page of its own', async () => {
    const long = await request(`${server.url}/callback?state=${'a'.repeat(20_000)}&code=x`);
    expect(long.statusCode).toBe(431);
    expect(long.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(long.headers['referrer-policy']).toBe('no-referrer');
    expect(long.headers['cache-control']).toBe('no-store');
    expect(await long.body.text()).toContain('The address is too long.');

    const { port } = new URL(server.url);
    const socket = connect(Number(port), '127.0.0.1');
    socket.end('NOT HTTP\r\n\r\n');
    const raw = (await socket.toArray()).join('');
    expect(raw).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(raw).toContain('content-security-policy: ');
    expect(raw).toContain('The request could not be read.');
    // And it goes on serving.
    expect((await visit(`${server.url}/healthz`)).status).toBe(200);
  });

  it('answers a target that is no address with a 400 page, not a server error', async () => {
    const { port } = new URL(server.url);
    const socket = connect(Number(port), '127.0.0.1');
    // Node's parser lets this through; as an address, its port is out of range.
    socket.end('GET //a:99999/callback HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    const raw = (await socket.toArray()).join('');
    expect(raw).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(raw).toContain('The address is not valid.');
    expect(logs.join('')).not.toContain('callback server error');
  });

  it('serves a route only at its path as written: dot segments, encoded dots, backslashes and other hosts get a 404 page', async () => {
    const { port } = new URL(server.url);
    const raw = async (target: string) => {
      const socket = connect(Number(port), '127.0.0.1');
      socket.end(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      return (await socket.toArray()).join('');
    };
    // Each resolves to /metrics or /healthz, which a proxy forwarding only /link/ and /callback
    // must not expose.
    for (const target of [
      '/link/%2e%2e/metrics',
      '/link/%2E%2E/metrics',
      '/link/../metrics',
      '/link\\..\\metrics',
      '/callback/%2e%2e/healthz',
      '//evil.example/metrics',
      'http://other.example/metrics',
    ]) {
      const answer = await raw(target);
      expect(answer, target).toMatch(/^HTTP\/1\.1 404 Not Found\r\n/);
      expect(answer, target).not.toContain('bot_music_links_total');
      expect(answer, target).not.toContain('"status":"ok"');
    }
    expect(await raw('/metrics')).toContain('bot_music_links_total');
  });

  it('renews tokens at a token endpoint whose local address is written in capitals', async () => {
    // PKCE tokens, as linking gets them: a public client refreshes them without its secret.
    const issued = music.issueUserToken(music.fixtures!.users.premium, ['user-read-private'], { pkce: true });
    const shouted = new MusicOAuth({
      authUrl: music.authUrl.replace(/^http:/, 'HTTP:'),
      clientId: music.clientId,
      redirectUri: `${server.url}/callback`,
    });
    const renewed = await shouted.refresh(issued.refresh_token!);
    expect(renewed.accessToken).not.toBe(issued.access_token);
  });

  it('answers HEAD on the link routes with 405 and uses up nothing', async () => {
    const url = await linking.startLink('discord-head');
    const headStart = await request(url, { method: 'HEAD' });
    expect(headStart.statusCode).toBe(405);
    expect(headStart.headers.allow).toBe('GET');
    expect(headStart.headers['set-cookie']).toBeUndefined();
    await headStart.body.dump();

    const start = await beginLink(url);
    for (const method of ['HEAD', 'GET'] as const) {
      const continued = await request(start.continueUrl, { method, headers: { cookie: start.cookie! } });
      expect(continued.statusCode).toBe(405);
      expect(continued.headers.allow).toBe('POST');
      expect(continued.headers.location).toBeUndefined();
      await continued.body.dump();
    }
    const back = await music.approve(start.location!, premium());
    const headCallback = await request(back.toString(), {
      method: 'HEAD',
      headers: { cookie: start.cookie! },
    });
    expect(headCallback.statusCode).toBe(405);
    expect(headCallback.headers.allow).toBe('GET');
    await headCallback.body.dump();
    expect(await vault.get('discord-head')).toBeUndefined();

    // The state and the code are still unused: the browser's GET links.
    const page = await visit(back.toString(), start.cookie);
    expect(page.status).toBe(200);
    expect(await vault.get('discord-head')).toBeDefined();
  });

  it('answers a wrong method on a link route with a readable page, its Allow header, and no caching', async () => {
    const start = await beginLink(await linking.startLink('discord-wrong-method'));
    for (const [url, method, allow] of [
      [start.continueUrl, 'GET', 'POST'],
      [`${server.url}/callback?state=${'a'.repeat(43)}&code=x`, 'POST', 'GET'],
    ] as const) {
      const response = await request(url, { method, headers: { cookie: start.cookie! } });
      const body = await response.body.text();
      expect(response.statusCode).toBe(405);
      expect(response.headers.allow).toBe(allow);
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(body).toContain('<h1>This address cannot be opened this way</h1>');
      expect(body).toContain('only works when reached through the link the bot gave you in Discord');
      expect(body).toContain('run /music link again');
    }
    const post = await request(`${server.url}/healthz`, { method: 'POST' });
    expect(post.statusCode).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    expect(await post.body.text()).toContain('This server only links music accounts for the Discord bot.');
    // The link is untouched.
    expect(
      (await visit((await music.approve(start.location!, premium())).toString(), start.cookie)).status,
    ).toBe(200);
  });

  it('tells a refusal, a service fault and any other error code apart, echoing none of them', async () => {
    const cases = [
      ['access_denied', 200, 'Access was not granted'],
      ['server_error', 503, 'The music service is not answering'],
      ['temporarily_unavailable', 503, 'The music service is not answering'],
      ['invalid_scope', 502, 'The bot’s music app is not set up right'],
      ['unauthorized_client', 502, 'The bot’s music app is not set up right'],
      ['<script>alert(1)</script>', 502, 'Linking failed'],
    ] as const;
    for (const [error, status, text] of cases) {
      const start = await startIn('discord-errors');
      const page = await visit(
        `${server.url}/callback?state=${start.state}&error=${encodeURIComponent(error)}`,
        start.cookie,
      );
      expect(page.status, error).toBe(status);
      expect(page.body, error).toContain(text);
      expect(page.body).not.toContain('<script>');
      if (error !== 'access_denied') expect(page.body).not.toContain('Access was not granted');
    }
    expect(await vault.get('discord-errors')).toBeUndefined();
  });

  it('refuses a callback that repeats a parameter without using up the state, and an `iss` it never gets as a refusal', async () => {
    const start = await startIn('discord-repeats');
    const back = await music.approve(start.location!, premium());
    const code = back.searchParams.get('code')!;
    for (const twice of [`code=${code}&code=other`, `code=${code}&state=${start.state}`]) {
      const page = await visit(`${server.url}/callback?state=${start.state}&${twice}`, start.cookie);
      expect(page.status, twice).toBe(400);
      expect(page.body).toContain('repeats a parameter');
      expect(page.body).not.toContain(code);
    }
    expect(await vault.get('discord-repeats')).toBeUndefined();
    // The member's own answer still links.
    expect((await visit(back.toString(), start.cookie)).status).toBe(200);
    expect(await vault.get('discord-repeats')).toBeDefined();

    // RFC 9207's `iss`, which this service does not send: not a valid answer, not the service down,
    // and the bot's own refusal, not the service's.
    const other = await startIn('discord-iss');
    const approved = await music.approve(other.location!, premium());
    approved.searchParams.set('iss', 'https://issuer.invalid');
    const from = logs.length;
    const page = await visit(approved.toString(), other.cookie);
    expect(page.status).toBe(502);
    expect(page.body).toContain('The bot could not use the music service’s answer');
    expect(page.body).toContain('Please tell the bot’s owner');
    expect(page.body).not.toContain('did not accept this link');
    expect(await vault.get('discord-iss')).toBeUndefined();
    const line = logs.slice(from).find((l) => l.includes('music code exchange failed'));
    expect((JSON.parse(line!) as { level: number }).level).toBe(50);
    expect(line).not.toContain(approved.searchParams.get('code')!);
  });

  it('finishes two links started in one browser, each clearing only its own cookie', async () => {
    // A browser keeps one cookie per name: a second cookie of the same name replaces the first.
    const cookies = new Map<string, string>();
    const keep = (cookie: string) => cookies.set(cookie.split('=')[0]!, cookie);
    const first = await startIn('discord-twice');
    keep(first.cookie!);
    const second = await startIn('discord-twice');
    keep(second.cookie!);
    const jar = [...cookies.values()].join('; ');

    const back = await music.approve(first.location!, premium());
    const response = await request(back.toString(), { headers: { cookie: jar } });
    expect(response.statusCode).toBe(200);
    await response.body.dump();
    const cleared = String(response.headers['set-cookie']);
    expect(cleared).toMatch(
      new RegExp(`^${first.cookie!.split('=')[0]}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`),
    );
    expect(await vault.get('discord-twice')).toBeDefined();

    // The second is still bound to this browser, so it finishes too.
    const page = await visit((await music.approve(second.location!, premium())).toString(), jar);
    expect(page.status).toBe(200);
  });

  it('sets its cookies HttpOnly, SameSite=Lax, for ten minutes: the start page’s, then the binding one at Continue', async () => {
    const start = await beginLink(await linking.startLink('discord-cookie'));
    const [startCookie, bound] = start.cookie!.split('; ');
    expect(startCookie).toMatch(/^link_session_[A-Za-z0-9_-]{8}=/);
    expect(bound).toMatch(/^link_bound_[A-Za-z0-9_-]{8}=/);
    const response = await request(start.continueUrl, {
      method: 'POST',
      headers: { cookie: startCookie!, 'sec-fetch-site': 'same-origin' },
    });
    await response.body.dump();
    expect(String(response.headers['set-cookie'])).toMatch(
      /^link_bound_[A-Za-z0-9_-]{8}=[^;]+; Path=\/; Max-Age=600; HttpOnly; SameSite=Lax$/,
    );
  });

  it('keeps a new link when a refresh of the old one is storing its answer meanwhile', async () => {
    await vault.put('discord-relink', linkFactory({ accountId: 'old-account', expiresAt: Date.now() - 1 }));
    const put = vault.put.bind(vault);
    // The refresh's write is slow to reach storage; the new link's is not.
    vault.put = async (userId, link) => {
      if (link.accessToken === 'late-access') await delay(1_000);
      await put(userId, link);
    };
    try {
      const source = createTokenSource({
        vault,
        storage,
        oauth: {
          refresh: () =>
            Promise.resolve({
              accessToken: 'late-access',
              refreshToken: 'late-refresh',
              expiresInSeconds: 3600,
              scopes: [],
            }),
        },
      });
      const refreshing = source.getAccessToken('discord-relink');
      await delay(50);
      const page = await completeLink(music, await linking.startLink('discord-relink'), premium());
      expect(page.status).toBe(200);
      await refreshing;
      expect((await vault.get('discord-relink'))?.accountId).not.toBe('old-account');
    } finally {
      vault.put = put;
    }
  });
});

describe('linking behind HTTPS', () => {
  const httpsUrl = 'https://bot.example';
  let httpsMusic: MusicEmulator;
  let httpsServer: CallbackServer;
  /** The same, its public address written `HTTPS://BOT.EXAMPLE`. */
  let shoutedServer: CallbackServer;
  let httpsLinking: Linking;
  let httpsVault: TokenVault;
  let httpsClient: MusicClient;

  beforeAll(async () => {
    httpsMusic = await startMusicEmulator({ redirectUris: [`${httpsUrl}/callback`] });
    httpsClient = createMusicClient({
      apiUrl: httpsMusic.apiUrl,
      authUrl: httpsMusic.authUrl,
      clientId: httpsMusic.clientId,
      clientSecret: httpsMusic.clientSecret,
      variant: 'classic',
      getAccessToken: () => Promise.reject(new Error('not used')),
    });
    const key = new Keyring(randomBytes(32));
    httpsVault = new TokenVault(storage, key);
    const httpsStates = new LinkStates(storage, key);
    const oauth = new MusicOAuth({
      authUrl: httpsMusic.authUrl,
      clientId: httpsMusic.clientId,
      redirectUri: `${httpsUrl}/callback`,
    });
    const serve = (publicUrl: string) =>
      startCallbackServer({
        host: '127.0.0.1',
        port: 0,
        publicUrl,
        linking: {
          states: httpsStates,
          vault: httpsVault,
          cookieKey: key,
          oauth,
          fetchProfile: async (token) => {
            const me = await httpsClient.users.meWithToken(token);
            return { accountId: me.account_id ?? me.id, displayName: me.display_name };
          },
        },
        registry: new Registry(),
        logger: createLogger({ level: 'silent' }),
      });
    httpsServer = await serve(httpsUrl);
    shoutedServer = await serve('HTTPS://BOT.EXAMPLE');
    httpsLinking = createLinking({ states: httpsStates, vault: httpsVault, publicUrl: httpsUrl });
  });

  afterAll(async () => {
    await httpsServer?.close();
    await shoutedServer?.close();
    await httpsClient?.close();
    await httpsMusic?.close();
  });

  /** The public address as this test reaches the server (the proxy's part). */
  const local = (url: string) => {
    const parsed = new URL(url);
    return `${httpsServer.url}${parsed.pathname}${parsed.search}`;
  };

  /** Start page and Continue for `userId`: the binding cookie set, and the consent address. */
  async function pressContinue(userId: string): Promise<{ bound: string; consent: string }> {
    const startUrl = local(await httpsLinking.startLink(userId));
    const start = await request(startUrl);
    const page = await start.body.text();
    const startCookie = String(start.headers['set-cookie']).split(';')[0]!;
    const next = await request(formAction({ body: page }, startUrl)!, {
      method: 'POST',
      headers: { cookie: startCookie, 'sec-fetch-site': 'same-origin' },
    });
    await next.body.dump();
    return {
      bound: String(next.headers['set-cookie']).split(';')[0]!,
      consent: String(next.headers.location),
    };
  }

  it('keeps its cookies Secure when the public address is written in capitals', async () => {
    const startUrl = new URL(await httpsLinking.startLink('discord-shouted'));
    const start = await request(`${shoutedServer.url}${startUrl.pathname}${startUrl.search}`);
    await start.body.dump();
    expect(start.statusCode).toBe(200);
    expect(String(start.headers['set-cookie'])).toMatch(/; Secure/);
  });

  it('takes the binding cookie only under its __Host- name, which no sibling subdomain can set', async () => {
    const { bound, consent } = await pressContinue('discord-https');
    expect(bound).toMatch(/^__Host-link_bound_[A-Za-z0-9_-]{8}=/);
    const back = local((await httpsMusic.approve(consent, httpsMusic.fixtures!.users.premium)).toString());

    // The same value under the name a sibling subdomain could set binds nothing.
    const tossed = await request(back, { headers: { cookie: bound.replace(/^__Host-/, '') } });
    await tossed.body.dump();
    expect(tossed.statusCode).not.toBe(200);
    expect(await httpsVault.get('discord-https')).toBeUndefined();

    const real = await request(back, { headers: { cookie: bound } });
    await real.body.dump();
    expect(real.statusCode).toBe(200);
    expect(await httpsVault.get('discord-https')).toBeDefined();
  });
});
