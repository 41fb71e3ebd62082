/**
 * Secrets: the bot runs with canary values for its token, the music client secret, the weather key
 * and the token encryption keys (current and old, written as base64 and as hex), and links real
 * accounts (so real access and refresh tokens, codes, states and PKCE verifiers go over the wire).
 * Then it is pushed through the paths where secrets like to escape: token refresh and its failures,
 * upstream errors that echo the request, a failed code exchange, denied consent. Afterwards every
 * log line, every Discord message the members saw (content, embeds, buttons), every callback-server
 * page and the message of every error the bot logged (as thrown, before the logger scrubs it) is
 * searched for every secret.
 *
 * The same is done to the bot as a server owner runs it, a process of its own with its own logger
 * writing to stdout, on Redis with a canary password in REDIS_URL: through a configuration it
 * refuses, a Redis it cannot reach, and an upstream whose error echoes every secret the bot has.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDiscordEmulator, type InteractionHandle } from '../../emulators/discord/index.js';
import { beginLink, visit } from '../../emulators/music/walk.js';
import { startWeatherEmulator } from '../../emulators/weather/index.js';
import { freePort } from '../../emulators/net.js';
import { registerCommands } from '../../src/bot/register.js';
import { commands } from '../../src/commands/index.js';
import { linkButtonUrl } from '../helpers/bot.js';
import { startBotProcess, type BotProcess } from '../helpers/bot-process.js';
import { startFaultProxy } from '../helpers/reliability-proxy.js';
import {
  CANARY,
  canarySecrets,
  kindsNotSeen,
  WORLD_SECRET_KINDS,
  leaks,
  messageText,
  recordMessages,
  secretsSeen,
  settledText,
  startReliabilityWorld,
  type ReliabilityWorld,
  withCanaryPassword,
  startCanaryMusic,
} from '../helpers/reliability-world.js';
import { cleanRedisPrefix, haveRedis, REDIS_URL, uniquePrefix } from '../helpers/services.js';

const redisReady = await haveRedis();

/** Waits until a log line names the interaction (the bot logs a failed answer with its id). */
async function waitForLog(world: ReliabilityWorld, interactionId: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!world.logs.some((line) => line.includes(interactionId))) {
    if (Date.now() > deadline)
      throw new Error(`no log line names interaction ${interactionId}:\n${world.logs.slice(-4).join('\n')}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('no secret reaches a log, a message, a page or an error message', () => {
  let world: ReliabilityWorld;
  const handles: InteractionHandle[] = [];
  const pages: string[] = [];
  /** Every message the bot created or edited, ephemeral ones (link prompts) included. */
  let messages: string[] = [];

  beforeAll(async () => {
    world = await startReliabilityWorld();
    messages = recordMessages(world.discord);
  });
  afterAll(async () => {
    await world?.close();
  });

  /** Runs a command; every one of them must be answered, a refusal or an error message included. */
  const run = async (name: string, options: Parameters<ReliabilityWorld['slash']>[1] = {}) => {
    const handle = world.slash(name, options);
    handles.push(handle);
    return (await settledText(handle, 15_000)).text;
  };
  /**
   * Runs `steps` and checks that the faults injected for them were all met: a fault the bot never
   * ran into (an unlinked member never calls the API) would leave its echo untested.
   */
  const meeting = async (
    proxy: keyof ReliabilityWorld['proxies'],
    faults: number,
    steps: () => Promise<unknown>,
  ) => {
    const before = world.proxies[proxy].served;
    await steps();
    expect(world.proxies[proxy].served - before, `faults of the ${proxy} proxy met`).toBe(faults);
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
    await meeting('auth', 1, async () =>
      expect(await run('music', { subcommand: 'devices' })).toMatch(/link it again/),
    );
    world.proxies.auth.fail({ match: /POST .*\/api\/token/, status: 500, body: `upstream: ${echoed}` });
    await meeting('auth', 1, () => run('music', { subcommand: 'status', userId: world.bob.id }));
    // The refused refresh ended Alice's link: she links again, so that her commands reach the API.
    pages.push(await world.linkMusic(world.alice.id, premium));

    // Upstream errors that echo the key or the bearer token back.
    world.proxies.weather.fail({
      match: /\/data\/2\.5\/weather/,
      status: 401,
      body: JSON.stringify({
        cod: 401,
        message: `Invalid API key ${CANARY.weatherKey}. appid=${CANARY.weatherKey}`,
      }),
    });
    await meeting('weather', 1, () =>
      run('weather', { subcommand: 'now', options: { place: 'geo:48.1371,11.5754|Munich, Bavaria, DE' } }),
    );
    world.proxies.weather.fail({
      match: /\/data\/2\.5\/weather/,
      status: 200,
      body: `{"not json ${CANARY.weatherKey}`,
    });
    await meeting('weather', 1, () =>
      run('weather', { subcommand: 'now', options: { place: 'geo:50.1109,8.6821|Frankfurt, Hesse, DE' } }),
    );
    world.proxies.music.fail({
      match: /\/v1\/me\/player\/devices/,
      status: 500,
      times: 3,
      body: (request) =>
        JSON.stringify({
          error: { status: 500, message: `token ${request.headers.authorization?.split(' ')[1]} rejected` },
        }),
    });
    await meeting('music', 3, () => run('music', { subcommand: 'devices' }));
    world.proxies.music.clear();
    world.proxies.music.fail({
      match: /\/v1\/me\/player\/devices/,
      status: 400,
      body: (request) =>
        JSON.stringify({
          error: { status: 400, message: `Authorization: ${request.headers.authorization}` },
        }),
    });
    await meeting('music', 1, () => run('music', { subcommand: 'devices' }));

    // A failed code exchange (the service echoes the code and verifier), and a denied consent.
    const carol = world.discord.createUser({ username: 'carol' });
    const reply = await world.slash('music', { subcommand: 'link', userId: carol.id }).reply();
    const start = await beginLink(linkButtonUrl(reply));
    pages.push(start.page.body);
    const back = await world.music.approve(start.location!, world.music.fixtures!.users.free);
    world.proxies.auth.fail({
      match: /POST .*\/api\/token/,
      status: 400,
      body: (request) =>
        JSON.stringify({
          error: 'invalid_grant',
          error_description: `code ${back.searchParams.get('code')} for ${request.headers['content-length']} bytes, ${CANARY.clientSecret}`,
        }),
    });
    await meeting('auth', 1, async () => pages.push((await visit(back.toString(), start.cookie)).body));
    const again = await world.slash('music', { subcommand: 'link', userId: carol.id }).reply();
    const start2 = await beginLink(linkButtonUrl(again));
    pages.push(start2.page.body, start2.body);
    const denied = await world.music.deny(start2.location!, world.music.fixtures!.users.free);
    pages.push((await visit(denied.toString(), start2.cookie)).body);
    pages.push((await visit(`${world.publicUrl}/metrics`)).body);

    // Discord refuses the answer itself: a link prompt (its button holds a fresh ticket) whose reply
    // fails. discord.js's error carries the request's URL, with the interaction token in its path,
    // and the body it sent; the bot logs the error. (The fault matrix does the same to an edit.)
    const dave = world.discord.createUser({ username: 'dave' });
    world.proxies.discord.fail({ match: /POST .*\/callback/, status: 500, times: 8, body: '{"code":0}' });
    const refused = world.slash('music', { subcommand: 'devices', userId: dave.id });
    handles.push(refused);
    await waitForLog(world, refused.id);
    world.proxies.discord.clear();
    await run('help');

    // Now search.
    const secrets = secretsSeen(world);
    const kinds = new Set(secrets.values());
    console.log(
      `secrets: ${secrets.size} values of ${[...kinds].join(', ')}; ${world.logs.length} log lines, ${world.errors.length} error messages, ${handles.length} interactions, ${pages.length} pages`,
    );
    expect(
      kindsNotSeen(secrets, [
        ...WORLD_SECRET_KINDS,
        'authorization code',
        'state',
        'PKCE verifier',
        'interaction token',
      ]),
    ).toEqual([]);
    // The failed exchange's code is among them: it reached the service only as a refused request.
    expect(secrets.get(back.searchParams.get('code')!)).toBe('authorization code');
    const found = leaks(secrets, {
      logs: world.logs,
      'Discord messages': [
        ...messages,
        ...handles
          .flatMap((h) => [h.original(), ...h.followUps])
          .filter((m) => m !== undefined)
          .map(messageText),
      ],
      'callback pages': pages,
      'error messages': world.errors,
    });
    expect(found).toEqual([]);
    // The link prompts were searched too: each holds a start link, with a ticket and no state.
    expect(
      messages.filter((m) => /\/link\/start\?ticket=[A-Za-z0-9_-]+"/.test(m)).length,
    ).toBeGreaterThanOrEqual(4);
    expect(world.logs.length).toBeGreaterThan(20);
    // The failures above were logged as errors, so their messages were searched too.
    expect(world.errors.length).toBeGreaterThan(5);
  }, 120_000);
});

describe('no secret reaches the output of a bot process', () => {
  const bots: BotProcess[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await Promise.all(bots.splice(0).map((bot) => bot.kill('SIGKILL')));
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it.runIf(redisReady)(
    'prints no secret when its configuration is refused, when Redis is unreachable, or when an upstream echoes every secret',
    async () => {
      const discord = await startDiscordEmulator({ botToken: CANARY.botToken });
      const messages = recordMessages(discord);
      const { httpPort, publicUrl, music } = await startCanaryMusic();
      const weather = await startWeatherEmulator({ apiKeys: [CANARY.weatherKey] });
      const weatherProxy = await startFaultProxy();
      weatherProxy.setTarget(new URL(weather.apiUrl).origin);
      const dataDir = await mkdtemp(path.join(tmpdir(), 'bot-secrets-'));
      const prefix = uniquePrefix('secrets');
      cleanups.push(
        () => discord.close(),
        () => music.close(),
        () => weather.close(),
        () => weatherProxy.close(),
        () => rm(dataDir, { recursive: true, force: true }),
        () => cleanRedisPrefix(prefix),
      );
      const member = discord.createUser({ username: 'erin' });
      const guild = discord.createGuild({ name: 'Secrets', ownerId: member.id });
      const channel = discord.createChannel(guild.id, { name: 'general' });
      await registerCommands({
        token: CANARY.botToken,
        applicationId: discord.applicationId,
        guildId: guild.id,
        apiUrl: discord.restUrl,
        commands,
      });
      const keys = { current: randomBytes(32), old: [randomBytes(32), randomBytes(32)] };
      const redisUrl = withCanaryPassword(REDIS_URL);
      const viaProxy = (url: string) => `${weatherProxy.origin}${new URL(url).pathname.replace(/\/$/, '')}`;
      const env = {
        DISCORD_TOKEN: CANARY.botToken,
        DISCORD_APPLICATION_ID: discord.applicationId,
        DISCORD_GUILD_ID: guild.id,
        DISCORD_API_URL: discord.restUrl,
        HTTP_PORT: String(httpPort),
        PUBLIC_URL: publicUrl,
        DATA_DIR: dataDir,
        LOG_LEVEL: 'trace',
        MUSIC_CLIENT_ID: music.clientId,
        MUSIC_CLIENT_SECRET: music.clientSecret,
        MUSIC_API_URL: music.apiUrl,
        MUSIC_AUTH_URL: music.authUrl,
        MUSIC_API_VARIANT: music.variant,
        // The current key as hex, the old ones as base64 and hex: every form the owner may write.
        TOKEN_ENCRYPTION_KEY: keys.current.toString('hex'),
        TOKEN_ENCRYPTION_KEYS_OLD: `${keys.old[0]!.toString('base64')},${keys.old[1]!.toString('hex')}`,
        WEATHER_API_KEY: CANARY.weatherKey,
        WEATHER_API_URL: viaProxy(weather.apiUrl),
        WEATHER_PRO_URL: viaProxy(weather.proUrl),
        WEATHER_HISTORY_URL: viaProxy(weather.historyUrl),
        WEATHER_BULK_URL: viaProxy(weather.bulkUrl),
        REDIS_URL: redisUrl,
        REDIS_PREFIX: prefix,
      };
      const secrets = canarySecrets({
        encryptionKeys: [keys.current, ...keys.old],
        redisUrl,
        transcripts: [],
      });
      expect(kindsNotSeen(secrets, ['token encryption key', 'Redis password'])).toEqual([]);

      // A configuration it refuses: the list of problems on stderr, with every secret set beside it.
      const refusedConfig = startBotProcess({
        ...env,
        REDIS_URL: redisUrl.replace(/^redis/, 'http'),
        TOKEN_ENCRYPTION_KEYS_OLD: `${env.TOKEN_ENCRYPTION_KEYS_OLD},${CANARY.clientSecret}`,
      });
      bots.push(refusedConfig);
      refusedConfig.ready.catch(() => {});
      expect(await refusedConfig.exited).toBe(1);
      expect(refusedConfig.logs()).toMatch(/REDIS_URL/);

      // A Redis that does not answer, reached with the password.
      const closedPort = await freePort();
      const unreachable = new URL(redisUrl);
      unreachable.port = String(closedPort);
      const noRedis = startBotProcess({ ...env, REDIS_URL: unreachable.toString() });
      bots.push(noRedis);
      noRedis.ready.catch(() => {});
      expect(await noRedis.exited).not.toBe(0);
      expect(noRedis.logs()).toMatch(/Redis/);

      // Running: the weather service refuses the key with an answer that holds every secret the
      // bot has, in every form it was configured in.
      const bot = startBotProcess(env);
      bots.push(bot);
      await bot.ready;
      const everything = [...secrets]
        .filter(([value, kind]) => kind !== 'token encryption key' || !value.includes(','))
        .map(([value]) => value)
        .join(' ');
      weatherProxy.fail({
        match: /\/data\/2\.5\/weather/,
        status: 401,
        body: JSON.stringify({ cod: 401, message: `Invalid API key. Known: ${everything}` }),
      });
      const handle = discord.slash({
        guildId: guild.id,
        channelId: channel.id,
        userId: member.id,
        name: 'weather',
        subcommand: 'now',
        options: { place: 'geo:52.517,13.3889|Berlin, Berlin, DE' },
      });
      const answer = await settledText(handle, 15_000);
      expect(answer.text).toMatch(/does not accept/);
      expect(weatherProxy.served).toBe(1);
      // Its log line about the refusal is out before it stops.
      await expect.poll(() => bot.logs(), { timeout: 5_000 }).toMatch(/WeatherKeyRejectedError/);
      await bot.kill('SIGTERM');

      const outputs = { 'refused configuration': refusedConfig, 'unreachable Redis': noRedis, running: bot };
      console.log(
        `secrets/process: ${secrets.size} values of ${[...new Set(secrets.values())].join(', ')}; ` +
          Object.entries(outputs)
            .map(([name, process]) => `${name}: ${process.logs().length} characters of output`)
            .join(', '),
      );
      expect(
        leaks(secrets, {
          ...Object.fromEntries(
            Object.entries(outputs).map(([name, process]) => [`${name} (stdout, stderr)`, [process.logs()]]),
          ),
          'Discord messages': messages,
        }),
      ).toEqual([]);
    },
    90_000,
  );
});
