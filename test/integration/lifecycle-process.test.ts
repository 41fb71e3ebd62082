/**
 * The bot as a server owner runs it, a real process: how it fails to start, what reaches its output
 * when something throws, and how it stops on signals, alone and as the sharding manager's forks.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { startDiscordEmulator, type DiscordEmulator } from '../../emulators/discord/index.js';
import { freePort } from '../../emulators/net.js';

const TOKEN = 'lifecycle-process-bot-token-0123456789';
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'bot-lifecycle-process-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

interface Run {
  child: ChildProcess;
  output: () => string;
  lines: () => Record<string, unknown>[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  waitFor: (text: string, timeoutMs?: number) => Promise<void>;
}

/** Runs `entry` under tsx with `env` on top of a bare environment (no `.env`, no inherited settings). */
function run(entry: string, env: Record<string, string>, options: { detached?: boolean } = {}): Run {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    env: { PATH: process.env['PATH'] ?? '', HOME: tmpdir(), LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  });
  const lines = () =>
    output
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        try {
          return JSON.parse(line) as Record<string, unknown>;
        } catch {
          return { notJson: line };
        }
      });
  return {
    child,
    output: () => output,
    lines,
    exited,
    waitFor: async (text, timeoutMs = 20_000) => {
      const until = Date.now() + timeoutMs;
      while (!output.includes(text)) {
        if (Date.now() > until) throw new Error(`no "${text}" within ${timeoutMs} ms:\n${output}`);
        await delay(50);
      }
    },
  };
}

async function discordFor(
  shardCount = 1,
  sessionStartsRemaining?: number,
): Promise<{ discord: DiscordEmulator; env: Record<string, string> }> {
  const discord = await startDiscordEmulator({
    botToken: TOKEN,
    shardCount,
    ...(sessionStartsRemaining === undefined ? {} : { sessionStartsRemaining }),
  });
  cleanups.push(() => discord.close());
  return {
    discord,
    env: {
      DISCORD_TOKEN: TOKEN,
      DISCORD_APPLICATION_ID: discord.applicationId,
      DISCORD_API_URL: discord.restUrl,
      DATA_DIR: await tempDir(),
      HTTP_PORT: String(await freePort()),
    },
  };
}

const errorLines = (lines: Record<string, unknown>[]) =>
  lines.filter((line) => typeof line['level'] === 'number' && line['level'] >= 50);

/** Once `bot` has exited 1 with nothing but JSON lines on its output: the messages logged as errors. */
async function failedStartErrors(bot: Run): Promise<unknown[]> {
  expect(await bot.exited).toEqual({ code: 1, signal: null });
  const lines = bot.lines();
  expect(lines.filter((line) => 'notJson' in line)).toEqual([]);
  return errorLines(lines).map((line) => line['msg']);
}

describe('a start that cannot succeed', () => {
  it('ends with exit 1 and one log line when Redis is unreachable, never printing its password', async () => {
    const port = await freePort();
    const bot = run('src/index.ts', {
      DISCORD_TOKEN: TOKEN,
      DISCORD_APPLICATION_ID: '123456789012345678',
      DISCORD_API_URL: 'http://127.0.0.1:9/api',
      REDIS_URL: `redis://:redis-password-canary-42@127.0.0.1:${port}`,
    });
    expect(await failedStartErrors(bot)).toEqual([
      `could not start: cannot connect to Redis at 127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}`,
    ]);
    expect(bot.output()).not.toContain('redis-password-canary-42');
  }, 40_000);

  it('ends with exit 1 and one log line, not a stack trace, when the SQLite file cannot be opened', async () => {
    const { env } = await discordFor();
    await mkdir(path.join(env['DATA_DIR']!, 'bot.sqlite'));
    const bot = run('src/index.ts', env);
    expect(await failedStartErrors(bot)).toEqual([
      expect.stringMatching(
        `^could not start: cannot write the SQLite file ${path.join(env['DATA_DIR']!, 'bot.sqlite')}: SQLITE_CANTOPEN`,
      ),
    ]);
  });
});

describe('a start Discord refuses', () => {
  it('names DISCORD_TOKEN when Discord refuses the token, never printing it, and exits 1', async () => {
    const { env } = await discordFor();
    const wrong = 'wrong-bot-token-canary-0123456789';
    const bot = run('src/index.ts', { ...env, DISCORD_TOKEN: wrong });
    expect(await failedStartErrors(bot)).toEqual([
      expect.stringMatching(/^could not start: Discord refused DISCORD_TOKEN\b.*Reset Token/),
    ]);
    expect(bot.output()).not.toContain(wrong);
  }, 40_000);

  it('does not log in with Discord’s daily session starts nearly used up, so a restart loop cannot get the token reset', async () => {
    const { discord, env } = await discordFor(1, 5);
    let identified = 0;
    discord.events.on('identify', () => identified++);
    const bot = run('src/index.ts', env);
    expect(await failedStartErrors(bot)).toEqual([
      expect.stringMatching(
        /^could not start: Discord allows this bot 1000 logins \(session starts\) a day and only 5 are left until \d{4}-\d\d-\d\dT[\d:.]+Z: .*restart loop/,
      ),
    ]);
    expect(identified).toBe(0);
    expect(bot.output()).not.toContain(TOKEN);

    // With enough left, the same start logs in (one session start).
    const { discord: roomy, env: roomyEnv } = await discordFor(1, 6);
    const started = run('src/index.ts', roomyEnv);
    await started.waitFor('"bot started"');
    expect(roomy.connectedShards()).toHaveLength(1);
    started.child.kill('SIGTERM');
    expect(await started.exited).toEqual({ code: 0, signal: null });
  }, 60_000);

  it('says why it could not start on stderr even with LOG_LEVEL=silent, the token still hidden', async () => {
    const { env } = await discordFor();
    const wrong = 'wrong-bot-token-canary-silent-0123';
    const bot = run('src/index.ts', { ...env, DISCORD_TOKEN: wrong, LOG_LEVEL: 'silent' });
    expect(await bot.exited).toEqual({ code: 1, signal: null });
    expect(bot.output().trim()).toMatch(/^could not start: Discord refused DISCORD_TOKEN\b/);
    expect(bot.output()).not.toContain(wrong);
  }, 40_000);

  it('says that what answered at DISCORD_API_URL is not Discord’s API, and what to set, and exits 1', async () => {
    const { discord, env } = await discordFor();
    // The emulator's base without /api: Discord's own answer to a path it has no route for.
    const origin = new URL(discord.restUrl).origin;
    const withoutApi = run('src/index.ts', { ...env, DISCORD_API_URL: origin });
    expect(await failedStartErrors(withoutApi)).toEqual([
      `could not start: Discord at ${origin} answered 404 Not Found to the bot’s login (GET /v10/gateway/bot): ` +
        "DISCORD_API_URL must be Discord's REST base, ending in /api (https://discord.com/api), or be left unset",
    ]);
    // Another service (a proxy whose upstream is down) answering with a page of its own.
    const proxy = createServer((_request, response) => {
      response.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad Gateway</h1>');
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => proxy.close(resolve)));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/api`;
    const behindProxy = run('src/index.ts', { ...env, DISCORD_API_URL: proxyUrl });
    expect(await failedStartErrors(behindProxy)).toEqual([
      `could not start: Discord at ${proxyUrl} answered 502 Bad Gateway to the bot’s login (GET /api/v10/gateway/bot): ` +
        'Discord (or a proxy before it) may be failing; if not, ' +
        "DISCORD_API_URL must be Discord's REST base, ending in /api (https://discord.com/api), or be left unset",
    ]);
    expect(withoutApi.output() + behindProxy.output()).not.toContain(TOKEN);
  }, 40_000);

  it('says Discord could not be reached, naming where it was looked for, and exits 1', async () => {
    const { env } = await discordFor();
    const closed = `http://127.0.0.1:${await freePort()}/api`;
    const bot = run('src/index.ts', { ...env, DISCORD_API_URL: closed });
    expect(await bot.exited).toEqual({ code: 1, signal: null });
    const lines = bot.lines();
    expect(errorLines(lines).map((line) => line['msg'])).toEqual([
      `could not start: cannot reach Discord at ${new URL(closed).origin} (connect ECONNREFUSED ` +
        `${new URL(closed).host}): check the network, and DISCORD_API_URL if it is set`,
    ]);
    expect(bot.output()).not.toContain('The client is destroyed');
  }, 40_000);
});

describe('what Node would print itself', () => {
  it('logs an unhandled rejection and an uncaught exception through the logger, redacted, and exits 1', async () => {
    const dir = await tempDir();
    const entry = path.join(dir, 'entry.ts');
    await writeFile(
      entry,
      `import { runMain } from ${JSON.stringify(path.resolve('src/compose.ts'))};
       import { createLogger } from ${JSON.stringify(path.resolve('src/logger.ts'))};
       runMain(import.meta.url, async (config) => {
         const logger = createLogger({ level: 'info', secrets: () => [config.discord.token] });
         void Promise.reject(new Error('rejected with ' + config.discord.token));
         setTimeout(() => { throw new Error('thrown with ' + config.discord.token); }, 200);
         setInterval(() => {}, 1_000);
         return { logger, stop: async () => {} };
       });`,
    );
    const bot = run(entry, { DISCORD_TOKEN: TOKEN, DISCORD_APPLICATION_ID: '123456789012345678' });
    expect(await bot.exited).toEqual({ code: 1, signal: null });
    expect(bot.output()).not.toContain(TOKEN);
    const lines = bot.lines();
    expect(lines.filter((line) => 'notJson' in line)).toEqual([]);
    expect(
      errorLines(lines).map((line) => [line['msg'], (line['err'] as { message: string }).message]),
    ).toEqual([
      ['unhandled promise rejection', 'rejected with [REDACTED]'],
      ['uncaught exception', 'thrown with [REDACTED]'],
    ]);
  });
});

describe('signals', () => {
  /** An entry point whose stop takes `stopMs`. */
  async function slowStopper(stopMs: number): Promise<Run> {
    const dir = await tempDir();
    const entry = path.join(dir, 'entry.ts');
    await writeFile(
      entry,
      `import { setTimeout as delay } from 'node:timers/promises';
       import { runMain } from ${JSON.stringify(path.resolve('src/compose.ts'))};
       import { createLogger } from ${JSON.stringify(path.resolve('src/logger.ts'))};
       runMain(import.meta.url, async () => {
         const logger = createLogger({ level: 'info' });
         const keepAlive = setInterval(() => {}, 1_000);
         logger.info('started');
         return { logger, stop: async () => { await delay(${stopMs}); clearInterval(keepAlive); logger.info('stopped'); } };
       });`,
    );
    const proc = run(entry, { DISCORD_TOKEN: TOKEN, DISCORD_APPLICATION_ID: '123456789012345678' });
    await proc.waitFor('"started"');
    return proc;
  }

  it('takes the same signal delivered twice at once (to the process and its group) as one request', async () => {
    const proc = await slowStopper(1_000);
    proc.child.kill('SIGTERM');
    await delay(50);
    proc.child.kill('SIGTERM');
    expect(await proc.exited).toEqual({ code: 0, signal: null });
    expect(proc.output()).toContain('"stopped"');
  });

  it('exits at once, with 1, when asked again while a slow stop runs', async () => {
    const proc = await slowStopper(10_000);
    proc.child.kill('SIGINT');
    await delay(1_500);
    const askedAgain = Date.now();
    proc.child.kill('SIGINT');
    expect(await proc.exited).toEqual({ code: 1, signal: null });
    expect(Date.now() - askedAgain).toBeLessThan(1_000);
    expect(proc.output()).toContain('asked again while shutting down');
  });
});

describe('a start that succeeds', () => {
  it('says in its log what it runs: storage, scheduler, features, and the redirect URI to register', async () => {
    const { env } = await discordFor();
    const bot = run('src/index.ts', {
      ...env,
      MUSIC_CLIENT_ID: 'lifecycle-music-client-id',
      MUSIC_CLIENT_SECRET: 'lifecycle-music-client-secret-canary',
      PUBLIC_URL: 'https://bot.example.org',
    });
    await bot.waitFor('"bot started"', 30_000);
    const line = (msg: string) => bot.lines().find((entry) => entry['msg'] === msg);
    expect(line('callback server listening')).toMatchObject({
      redirectUri: 'https://bot.example.org/callback',
    });
    expect(line('bot started')).toMatchObject({
      storage: `sqlite ${env['DATA_DIR']}`,
      scheduler: 'off (weather is off)',
      music: 'on, linking off',
      weather: 'off',
      callbackServer: 'on',
    });
    expect(bot.output()).not.toContain('lifecycle-music-client-secret-canary');
    bot.child.kill('SIGTERM');
    expect(await bot.exited).toEqual({ code: 0, signal: null });
  }, 40_000);
  it('warns when other machines can reach the callback server but the link buttons point at this one', async () => {
    const { env } = await discordFor();
    const linking = {
      ...env,
      HTTP_HOST: '0.0.0.0',
      MUSIC_CLIENT_ID: 'lifecycle-music-client-id',
      MUSIC_CLIENT_SECRET: 'lifecycle-music-client-secret-canary',
      TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, 3).toString('base64'),
    };
    const warnings = async (settings: Record<string, string>) => {
      const bot = run('src/index.ts', settings);
      await bot.waitFor('"bot started"', 30_000);
      bot.child.kill('SIGTERM');
      expect(await bot.exited).toEqual({ code: 0, signal: null });
      expect(bot.output()).not.toMatch(/canary|AwMD/);
      return bot
        .lines()
        .filter((line) => line['level'] === 40)
        .map((line) => line['msg']);
    };
    expect(await warnings(linking)).toEqual([
      `HTTP_HOST 0.0.0.0 lets other machines reach the callback server, but the /music link buttons point at ` +
        `http://127.0.0.1:${env['HTTP_PORT']}, which only this machine can open: set PUBLIC_URL to the address ` +
        `members' browsers reach (such as https://bot.example.org, behind a reverse proxy)`,
    ]);
    expect(await warnings({ ...linking, PUBLIC_URL: 'https://bot.example.org' })).toEqual([]);
    // A container's port published on the host's loopback: PUBLIC_URL set to it on purpose.
    const published = `http://127.0.0.1:${env['HTTP_PORT']}`;
    expect(await warnings({ ...linking, PUBLIC_URL: published })).toEqual([]);
    // On this machine only, with another port than the callback server's: a tunnel may join them.
    const { HTTP_HOST: _everywhere, ...loopback } = linking;
    expect(await warnings({ ...loopback, PUBLIC_URL: 'http://127.0.0.1:8888' })).toEqual([
      `PUBLIC_URL names port 8888 of this machine, but the callback server listens on port ${env['HTTP_PORT']}: ` +
        'unless a tunnel or a proxy here forwards one to the other, the /music link buttons lead nowhere ' +
        `(give both the same port: PUBLIC_URL=http://127.0.0.1:${env['HTTP_PORT']}, or HTTP_PORT=8888)`,
    ]);
  }, 90_000);
});

describe('the sharding manager and its shard processes (src/shards.ts)', () => {
  const pidsOf = (proc: Run, msg: string) =>
    proc
      .lines()
      .filter((line) => line['msg'] === msg)
      .map((line) => line['pid'] as number);

  it('stops when its process group is signalled, exiting only after its shard has stopped', async () => {
    const { env } = await discordFor();
    const manager = run('src/shards.ts', env, { detached: true });
    await manager.waitFor('every shard process is ready', 30_000);
    // What a service manager or a terminal does: every process of the group gets the signal, and
    // the shard gets it once more from the sharding manager.
    process.kill(-manager.child.pid!, 'SIGTERM');
    expect(await manager.exited).toEqual({ code: 0, signal: null });
    const [shardPid] = pidsOf(manager, 'connected to Discord');
    expect(shardPid).toBeDefined();
    expect(pidsOf(manager, 'stopped')).toContain(shardPid);
  }, 60_000);

  it('says how a shard process died (its signal) and starts it again', async () => {
    const { env } = await discordFor();
    const manager = run('src/shards.ts', env);
    await manager.waitFor('every shard process is ready', 30_000);
    const [shardPid] = pidsOf(manager, 'connected to Discord');
    process.kill(shardPid!, 'SIGKILL');
    await manager.waitFor('shard process died; respawning');
    expect(manager.lines().find((line) => line['msg'] === 'shard process died; respawning')).toMatchObject({
      level: 40,
      shardId: 0,
      signal: 'SIGKILL',
    });
    await expect.poll(() => pidsOf(manager, 'connected to Discord').length, { timeout: 30_000 }).toBe(2);
  }, 60_000);

  it('fails the start when a shard process exits while starting (a refused token), without claiming a respawn', async () => {
    const { env } = await discordFor();
    const wrong = 'wrong-shard-token-canary-0123456789';
    const manager = run('src/shards.ts', { ...env, DISCORD_TOKEN: wrong });
    expect(await manager.exited).toEqual({ code: 1, signal: null });
    const lines = manager.lines();
    expect(lines.filter((line) => 'notJson' in line)).toEqual([]);
    expect(lines.map((line) => line['msg'])).not.toContain('shard process died; respawning');
    // The shard says why, once; the manager says it stops, and starts no second shard process.
    expect(errorLines(lines).map((line) => [line['msg'], line['exitCode']])).toEqual([
      [expect.stringMatching(/^could not start: Discord refused DISCORD_TOKEN\b/), undefined],
      ['a shard process exited before it was ever ready: stopping the others, without starting it again', 1],
    ]);
    expect(new Set(lines.map((line) => line['pid'])).size).toBe(2);
    expect(manager.output()).not.toContain(wrong);
  }, 60_000);

  it('leaves no shard process running when the manager itself is killed', async () => {
    const { env } = await discordFor();
    const manager = run('src/shards.ts', env);
    await manager.waitFor('every shard process is ready', 30_000);
    await manager.waitFor('connected to Discord');
    const [shardPid] = pidsOf(manager, 'connected to Discord');
    const alive = () => {
      try {
        process.kill(shardPid!, 0);
        return true;
      } catch {
        return false;
      }
    };
    cleanups.push(() => {
      if (alive()) process.kill(shardPid!, 'SIGKILL');
      return Promise.resolve();
    });
    manager.child.kill('SIGKILL');
    await manager.exited;
    await expect.poll(alive, { timeout: 10_000 }).toBe(false);
  }, 60_000);
});
