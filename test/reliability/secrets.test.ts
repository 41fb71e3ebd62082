/**
 * Secrets: the bot runs with canary values for its token, the music client secret, the weather key
 * and the vault key, and links real accounts (so real access and refresh tokens, codes, states and
 * PKCE verifiers go over the wire). Then it is pushed through the paths where secrets like to
 * escape: token refresh and its failures, upstream errors that echo the request, a failed code
 * exchange, denied consent. Afterwards every log line, every Discord message the members saw,
 * every callback-server page and every thrown error message is searched for every secret.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InteractionHandle } from '../../emulators/discord/index.js';
import { beginLink, visit } from '../../emulators/music/walk.js';
import { linkButtonUrl } from '../helpers/bot.js';
import {
  CANARY,
  kindsNotSeen,
  leaks,
  secretsSeen,
  settledText,
  startReliabilityWorld,
  type ReliabilityWorld,
} from '../helpers/reliability-world.js';

/** Waits until a log line names the interaction (the bot logs a failed answer with its id). */
async function waitForLog(world: ReliabilityWorld, interactionId: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!world.logs.some((line) => line.includes(interactionId))) {
    if (Date.now() > deadline)
      throw new Error(`no log line names interaction ${interactionId}:\n${world.logs.slice(-4).join('\n')}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('no secret reaches a log, a message or a page', () => {
  let world: ReliabilityWorld;
  const handles: InteractionHandle[] = [];
  const pages: string[] = [];
  const errors: string[] = [];

  beforeAll(async () => {
    world = await startReliabilityWorld();
  });
  afterAll(async () => {
    await world?.close();
  });

  const run = async (name: string, options: Parameters<ReliabilityWorld['slash']>[1] = {}) => {
    const handle = world.slash(name, options);
    handles.push(handle);
    try {
      return (await settledText(handle, 15_000)).text;
    } catch (error) {
      errors.push((error as Error).message);
      return '';
    }
  };

  it('goes through linking, refresh and failures, then finds zero secrets anywhere', async () => {
    const { premium, free } = world.music.fixtures!.users;
    pages.push(await world.linkMusic(world.alice.id, premium));
    pages.push(await world.linkMusic(world.bob.id, free));
    await run('music', { subcommand: 'status' });
    await run('music', { subcommand: 'devices' });
    await run('weather', { subcommand: 'now', options: { place: 'geo:52.517,13.3889|Berlin, Berlin, DE' } });

    // Refresh: every access token seen so far expires, the next commands refresh.
    for (const [token, kind] of secretsSeen(world))
      if (kind === 'access token') world.music.expireToken(token);
    await run('music', { subcommand: 'devices' });
    await run('music', { subcommand: 'status', userId: world.bob.id });

    // A refresh the service refuses, with an answer that echoes what it was sent.
    for (const [token, kind] of secretsSeen(world))
      if (kind === 'access token') world.music.expireToken(token);
    const echoed = `client_secret=${CANARY.clientSecret} refresh_token=${[...secretsSeen(world)].find(([, k]) => k === 'refresh token')?.[0]}`;
    world.proxies.auth.fail({
      match: /POST .*\/api\/token/,
      status: 400,
      body: JSON.stringify({ error: 'invalid_grant', error_description: `bad request: ${echoed}` }),
    });
    await run('music', { subcommand: 'devices' });
    world.proxies.auth.fail({ match: /POST .*\/api\/token/, status: 500, body: `upstream: ${echoed}` });
    await run('music', { subcommand: 'status', userId: world.bob.id });

    // Upstream errors that echo the key or the bearer token back.
    world.proxies.weather.fail({
      match: /\/data\/2\.5\/weather/,
      status: 401,
      body: JSON.stringify({
        cod: 401,
        message: `Invalid API key ${CANARY.weatherKey}. appid=${CANARY.weatherKey}`,
      }),
    });
    await run('weather', {
      subcommand: 'now',
      options: { place: 'geo:48.1371,11.5754|Munich, Bavaria, DE' },
    });
    world.proxies.weather.fail({
      match: /\/data\/2\.5\/weather/,
      status: 200,
      body: `{"not json ${CANARY.weatherKey}`,
    });
    await run('weather', {
      subcommand: 'now',
      options: { place: 'geo:50.1109,8.6821|Frankfurt, Hesse, DE' },
    });
    world.proxies.music.fail({
      match: /\/v1\/me\/player\/devices/,
      status: 500,
      times: 3,
      body: (request) =>
        JSON.stringify({
          error: { status: 500, message: `token ${request.headers.authorization?.split(' ')[1]} rejected` },
        }),
    });
    await run('music', { subcommand: 'devices' });
    world.proxies.music.fail({
      match: /\/v1\/me\/player\/devices/,
      status: 400,
      body: (request) =>
        JSON.stringify({
          error: { status: 400, message: `Authorization: ${request.headers.authorization}` },
        }),
    });
    await run('music', { subcommand: 'devices' });

    // A failed code exchange (the service echoes the code and verifier), and a denied consent.
    const carol = world.discord.createUser({ username: 'carol' });
    const reply = await world.slash('music', { subcommand: 'link', userId: carol.id }).reply();
    const start = await beginLink(linkButtonUrl(reply));
    pages.push(start.page.body);
    const back = await world.music.approve(start.location!, world.music.fixtures!.users.free);
    world.proxies.auth.fail({
      match: /POST .*\/api\/token/,
      status: 400,
      body: JSON.stringify({
        error: 'invalid_grant',
        error_description: `code ${back.searchParams.get('code')} ${CANARY.clientSecret}`,
      }),
    });
    pages.push((await visit(back.toString(), start.cookie)).body);
    const again = await world.slash('music', { subcommand: 'link', userId: carol.id }).reply();
    const start2 = await beginLink(linkButtonUrl(again));
    pages.push(start2.page.body, start2.body);
    const denied = await world.music.deny(start2.location!, world.music.fixtures!.users.free);
    pages.push((await visit(denied.toString(), start2.cookie)).body);
    pages.push((await visit(`${world.publicUrl}/metrics`)).body);

    // Discord refuses the answer itself: a link prompt (its button holds a fresh state) whose reply
    // fails. discord.js's error carries the request's URL, with the interaction token in its path,
    // and the body it sent; the bot logs the error. (The fault matrix does the same to an edit.)
    const dave = world.discord.createUser({ username: 'dave' });
    world.proxies.discord.fail({ match: /POST .*\/callback/, status: 500, times: 8, body: '{"code":0}' });
    const refused = world.slash('music', { subcommand: 'devices', userId: dave.id });
    handles.push(refused);
    await waitForLog(world, refused.id);
    await run('help');

    // Now search.
    const secrets = secretsSeen(world);
    const kinds = new Set(secrets.values());
    console.log(
      `secrets: ${secrets.size} values of ${[...kinds].join(', ')}; ${world.logs.length} log lines, ${handles.length} interactions, ${pages.length} pages`,
    );
    expect(
      kindsNotSeen(secrets, [
        'bot token',
        'client secret',
        'weather key',
        'access token',
        'refresh token',
        'authorization code',
        'state',
        'PKCE verifier',
        'interaction token',
      ]),
    ).toEqual([]);
    const messages = [
      ...world.discord.messages(world.channelId),
      ...handles.flatMap((h) => [h.original(), ...h.followUps]),
    ].filter((m) => m !== undefined);
    // The link prompt carries its own state in the start link by design (it is shown only to the
    // member who asked): only its URL is allowed to, nothing else in it.
    const messageTexts = messages.map((m) => JSON.stringify({ ...m, components: undefined }));
    const found = leaks(secrets, {
      logs: world.logs,
      'Discord messages': messageTexts,
      'callback pages': pages,
      'error messages': errors,
    });
    expect(found).toEqual([]);
    expect(world.logs.length).toBeGreaterThan(20);
  }, 120_000);
});
