/**
 * Abuse of the account-linking flow over real HTTP: a start link passed on to another member, a
 * replayed callback, an expired state (the bot's clock is moved past the state's ten minutes), a
 * foreign state (another member's, another browser's), a code used twice, open-redirect attempts,
 * oversized and malformed query strings. Each is refused with a page, and nothing is stored: no
 * code exchange reaches the music service, no link appears or changes.
 * The bot runs with canary secrets; at the end every callback-server page, log line, logged error
 * and message is searched for them and for every code, state and token that went over the wire.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { beginLink, formAction, visit } from '../../emulators/music/walk.js';
import { linkButtonUrl } from '../helpers/bot.js';
import {
  kindsNotSeen,
  leaks,
  recordMessages,
  secretsSeen,
  settledText,
  startReliabilityWorld,
  type ReliabilityWorld,
} from '../helpers/reliability-world.js';

describe('OAuth abuse of the linking flow', () => {
  let world: ReliabilityWorld;
  let carol: { id: string };
  /** How far the bot's clock runs ahead of the real one. */
  const clock = { offsetMs: 0 };
  /** Every page the callback server sent back, refusals included. */
  const pages: string[] = [];
  /** Every message the bot created or edited, as members saw it. */
  let messages: string[] = [];
  const browse = async (url: string, cookie?: string) => {
    const page = await visit(url, cookie);
    pages.push(page.body);
    return page;
  };

  beforeAll(async () => {
    world = await startReliabilityWorld({ clock });
    carol = world.discord.createUser({ username: 'carol' });
    messages = recordMessages(world.discord);
  });
  afterAll(async () => {
    await world?.close();
  });

  /** The start link's page, then its Continue button, in one browser; both pages kept. */
  const begin = async (startUrl: string) => {
    const start = await beginLink(startUrl);
    pages.push(start.page.body, start.body);
    return start;
  };

  /** /music link → start page → Continue → consent: the callback URL and the browser cookie, not yet visited. */
  async function consent(discordUserId: string, musicUserId: string) {
    const reply = await world.slash('music', { subcommand: 'link', userId: discordUserId }).reply();
    const startUrl = linkButtonUrl(reply);
    const start = await begin(startUrl);
    expect(start.status).toBe(303);
    const back = await world.music.approve(start.location!, musicUserId);
    return { startUrl, start, callbackUrl: back.toString(), cookie: start.cookie };
  }

  const status = async (userId: string) =>
    (await settledText(world.slash('music', { subcommand: 'status', userId }), 5_000)).text;
  const exchanges = () => world.music.tokenRequests('authorization_code');

  it('shows a start link passed on to another member with the name of the one who asked, linking nothing', async () => {
    const before = exchanges();
    const reply = await world.slash('music', { subcommand: 'link', userId: carol.id }).reply();
    const startUrl = linkButtonUrl(reply);
    // Carol sends her link to Bob: his browser shows whose Discord account would get access.
    const inBobs = await browse(startUrl);
    expect(inBobs.status).toBe(200);
    expect(inBobs.location).toBeUndefined();
    expect(inBobs.body).toContain('You are about to let the Discord account @carol use your music account');
    // Sending the Continue button's address instead gets nowhere in a browser without the cookie.
    const forwarded = await visit(formAction(inBobs, startUrl)!, undefined, 'POST');
    pages.push(forwarded.body);
    expect(forwarded.status).toBe(403);
    expect(forwarded.location).toBeUndefined();
    expect(exchanges()).toBe(before);
    expect(await status(carol.id)).toContain('/music link');
  });

  it('refuses a replayed callback and keeps the first link as it was', async () => {
    const { callbackUrl, cookie } = await consent(world.alice.id, world.music.fixtures!.users.premium);
    const first = await browse(callbackUrl, cookie);
    expect(first.status).toBe(200);
    const linked = await status(world.alice.id);
    const before = exchanges();
    const replay = await browse(callbackUrl, cookie);
    expect(replay.status).not.toBe(200);
    expect(replay.body).not.toContain('You can close this tab');
    expect(exchanges()).toBe(before);
    expect(await status(world.alice.id)).toBe(linked);
  });

  it('refuses a state that has expired, storing nothing', async () => {
    const dave = world.discord.createUser({ username: 'dave' });
    const { callbackUrl, cookie } = await consent(dave.id, world.music.fixtures!.users.free);
    const before = exchanges();
    // The start link says it expires in 10 minutes; the member comes back after 11.
    clock.offsetMs = 11 * 60_000;
    try {
      const late = await browse(callbackUrl, cookie);
      expect(late.status).not.toBe(200);
      expect(late.location).toBeUndefined();
      expect(late.body).toMatch(/expired/i);
      expect(late.body).not.toContain('You can close this tab');
    } finally {
      clock.offsetMs = 0;
    }
    expect(exchanges()).toBe(before);
    expect(await status(dave.id)).toContain('/music link');
    // The same callback a minute earlier would have linked: the refusal is the clock's doing.
    const onTime = await consent(dave.id, world.music.fixtures!.users.free);
    clock.offsetMs = 9 * 60_000;
    try {
      expect((await browse(onTime.callbackUrl, onTime.cookie)).status).toBe(200);
    } finally {
      clock.offsetMs = 0;
    }
    expect(await status(dave.id)).not.toContain('/music link');
  });

  it('refuses a state opened by another member or in another browser, storing nothing', async () => {
    const before = exchanges();
    // Bob's consent, completed in Carol's browser (she opened her own start link).
    const bobs = await consent(world.bob.id, world.music.fixtures!.users.free);
    const carols = await consent(carol.id, world.music.fixtures!.users.free);
    const foreign = await browse(bobs.callbackUrl, carols.cookie);
    expect(foreign.status).not.toBe(200);
    // And in a browser with no cookie at all.
    const bare = await browse(bobs.callbackUrl);
    expect(bare.status).not.toBe(200);
    expect(exchanges()).toBe(before);
    expect(await status(world.bob.id)).toContain('/music link');
    expect(await status(carol.id)).toContain('/music link');
  });

  it('refuses a code used twice: a spent code under a fresh state links nothing', async () => {
    const { callbackUrl, cookie } = await consent(carol.id, world.music.fixtures!.users.free);
    expect((await browse(callbackUrl, cookie)).status).toBe(200);
    const spentCode = new URL(callbackUrl).searchParams.get('code')!;
    const fresh = await consent(world.bob.id, world.music.fixtures!.users.free);
    const forged = new URL(fresh.callbackUrl);
    forged.searchParams.set('code', spentCode);
    const page = await browse(forged.toString(), fresh.cookie);
    expect(page.status).not.toBe(200);
    expect(page.body).not.toContain('You can close this tab');
    expect(await status(world.bob.id)).toContain('/music link');
  });

  it('never redirects anywhere but the music service’s consent page', async () => {
    const reply = await world.slash('music', { subcommand: 'link', userId: world.bob.id }).reply();
    const startUrl = new URL(linkButtonUrl(reply));
    const authorizeOrigin = new URL(world.config.music!.authUrl).origin;
    for (const [name, value] of [
      ['redirect', 'https://evil.example/'],
      ['redirect_uri', 'https://evil.example/callback'],
      ['next', '//evil.example'],
      ['return_to', 'https://evil.example'],
    ] as const) {
      const url = new URL(startUrl);
      url.searchParams.set(name, value);
      const start = await begin(url.toString());
      expect(start.status).toBe(303);
      const location = new URL(start.location!);
      expect(location.origin).toBe(authorizeOrigin);
      expect(location.toString()).not.toContain('evil');
      expect(location.searchParams.get('redirect_uri')).toBe(`${world.publicUrl}/callback`);
    }
    // A crafted callback with a redirect target: refused or answered with a page, never a redirect.
    const before = exchanges();
    for (const path of [
      '/callback?state=x&code=y&redirect=https://evil.example',
      '/callback?redirect_uri=https://evil.example&error=access_denied&state=abc',
      '//evil.example/callback',
      '/link/start?ticket=../../evil.example',
      '/link/start/https://evil.example',
      '/link/continue?link=../../evil.example',
    ]) {
      const page = await browse(`${world.publicUrl}${path}`);
      expect(page.location, path).toBeUndefined();
      expect(page.status, path).toBeGreaterThanOrEqual(400);
    }
    expect(exchanges()).toBe(before);
    // A genuine callback with a redirect target added: the link is made, the page is the bot's own.
    const { callbackUrl, cookie } = await consent(carol.id, world.music.fixtures!.users.free);
    const withTarget = new URL(callbackUrl);
    for (const name of ['redirect', 'redirect_uri', 'next', 'return_to'])
      withTarget.searchParams.set(name, 'https://evil.example/');
    const page = await browse(withTarget.toString(), cookie);
    expect(page.location).toBeUndefined();
    expect(page.body).not.toContain('evil.example');
  });

  it('refuses oversized and malformed query strings without storing anything', async () => {
    const before = exchanges();
    const cases = [
      `/callback?state=${'a'.repeat(100_000)}&code=x`,
      `/callback?state=${'a'.repeat(7_000)}&code=${'b'.repeat(7_000)}`,
      `/link/start?ticket=${'%F0%9F'.repeat(2_000)}`,
      `/callback?state=%00%00&code=%FF`,
      `/callback?state[]=1&state[]=2&code=x`,
      `/callback?state=abc&state=def&code=x`,
      `/callback?${'a=1&'.repeat(5_000)}`,
    ];
    for (const path of cases) {
      const page = await browse(`${world.publicUrl}${path}`);
      expect(page.status, path.slice(0, 60)).toBeGreaterThanOrEqual(400);
      expect(page.location, path.slice(0, 60)).toBeUndefined();
    }
    expect(exchanges()).toBe(before);
    // Still healthy afterwards.
    expect((await browse(`${world.publicUrl}/healthz`)).status).toBe(200);
  });

  it('shows no secret on any page, in a log line or in a message after the abuse', () => {
    const secrets = secretsSeen(world);
    expect(
      kindsNotSeen(secrets, [
        'client secret',
        'authorization code',
        'state',
        'PKCE verifier',
        'access token',
      ]),
    ).toEqual([]);
    expect(pages.length).toBeGreaterThan(20);
    expect(
      leaks(secrets, {
        'callback pages': pages,
        logs: world.logs,
        'Discord messages': messages,
        'error messages': world.errors,
      }),
    ).toEqual([]);
  });
});
