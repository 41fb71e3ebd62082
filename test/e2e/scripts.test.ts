import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { startDiscordEmulator, type DiscordEmulator } from '../../emulators/discord/index.js';
import { DEFAULT_PORTS } from '../../scripts/lib/offline.js';
import { freePort } from '../../emulators/net.js';

function run(args: string[], env?: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(env ? { env } : {}),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { child, exited, output: () => ({ stdout, stderr }) };
}

/** The environment `npm run register` needs, for the server `guildId` of the emulator `discord`. */
function registerEnv(discord: DiscordEmulator, guildId: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env['PATH'],
    DISCORD_TOKEN: 'register-test-token',
    DISCORD_APPLICATION_ID: discord.applicationId,
    DISCORD_API_URL: discord.restUrl,
    DISCORD_GUILD_ID: guildId,
  };
}

/** The demo's data directories (`bot-demo-*`) in `dir`. */
async function demoDirs(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((name) => name.startsWith('bot-demo-'));
}

/** A fresh directory to use as the demo's TMPDIR, so its data directory can be looked for there. */
async function demoTmp(): Promise<{ dir: string; env: NodeJS.ProcessEnv; remove(): Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'demo-tmp-test-'));
  return {
    dir,
    env: { ...process.env, TMPDIR: dir },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

describe('the quick-start scripts', () => {
  it('npm run demo -- --tour-only plays the tour, prints the /help answer and exits 0', async () => {
    const demo = run(['scripts/demo.ts', '--tour-only']);
    const code = await demo.exited;
    const { stdout, stderr } = demo.output();
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('> /help');
    expect(stdout).toContain('What I can do');
    expect(stdout).toContain('Tour finished: every step answered.');
  }, 60_000);

  it('npm run demo -- --help prints the usage and exits 0 without starting anything', async () => {
    const demo = run(['scripts/demo.ts', '--help']);
    expect(await demo.exited).toBe(0);
    const { stdout, stderr } = demo.output();
    expect(stdout).toMatch(/^Usage: npm run demo/);
    expect(stdout).toContain('--tour-only');
    expect(stdout).toContain('LOG_LEVEL');
    for (const port of Object.values(DEFAULT_PORTS)) expect(stdout).toContain(String(port));
    expect(stdout).not.toContain('Offline demo');
    expect(stderr).toBe('');
  }, 30_000);

  it('npm run demo with an unknown option prints the usage to stderr and exits 1', async () => {
    const demo = run(['scripts/demo.ts', '--tuor-only']);
    expect(await demo.exited).toBe(1);
    const { stdout, stderr } = demo.output();
    expect(stderr).toContain('Unknown option --tuor-only');
    expect(stderr).toContain('Usage: npm run demo');
    expect(stdout).not.toContain('Offline demo');
  }, 30_000);

  // Ctrl-C, a service manager's stop, and the terminal closed.
  it.each(['SIGINT', 'SIGTERM', 'SIGHUP'] as const)(
    'npm run demo stopped with %s while it starts leaves no data directory behind',
    async (signal) => {
      const tmp = await demoTmp();
      try {
        const demo = run(['scripts/demo.ts', '--tour-only'], tmp.env);
        // The signal once the data directory exists, before the demo says it is up.
        await expect.poll(() => demoDirs(tmp.dir), { timeout: 30_000, interval: 5 }).toHaveLength(1);
        const shownBefore = demo.output().stdout;
        demo.child.kill(signal);
        const code = await demo.exited;
        expect(shownBefore).not.toContain('Offline demo:');
        expect(code, demo.output().stderr).toBe(0);
        expect(demo.output().stdout).not.toContain('> /help');
        expect(await demoDirs(tmp.dir)).toEqual([]);
      } finally {
        await tmp.remove();
      }
    },
    60_000,
  );

  it('npm run demo keeps running, names an album and an artist to try, and Ctrl-C removes its data', async () => {
    const tmp = await demoTmp();
    try {
      const demo = run(['scripts/demo.ts'], tmp.env);
      await expect
        .poll(() => demo.output().stdout, { timeout: 60_000, interval: 100 })
        .toContain('Press Ctrl-C to stop.');
      const { stdout } = demo.output();
      expect(stdout).toContain('Tour finished: every step answered.');
      expect(stdout).toMatch(/\/music album album:[0-9A-Za-z]{22}\b/);
      expect(stdout).toMatch(/\/music artist artist:[0-9A-Za-z]{22}\b/);
      expect(await demoDirs(tmp.dir)).toHaveLength(1);
      demo.child.kill('SIGINT');
      expect(await demo.exited).toBe(0);
      expect(await demoDirs(tmp.dir)).toEqual([]);
    } finally {
      await tmp.remove();
    }
  }, 90_000);

  it('npm run register puts the commands in the server named, and --remove takes them away again', async () => {
    const discord = await startDiscordEmulator({ botToken: 'register-test-token' });
    try {
      const guild = discord.createGuild({ name: 'testing' });
      const env = registerEnv(discord, guild.id);
      const register = run(['scripts/register.ts'], env);
      expect(await register.exited, register.output().stderr).toBe(0);
      expect(register.output().stdout).toContain(`commands in guild ${guild.id}: /`);
      expect(discord.commands(guild.id).map((command) => command.name)).toEqual(
        expect.arrayContaining(['weather', 'music', 'help']),
      );
      // Where a command is offered is a global command's setting only, as Discord documents it.
      expect(discord.commands(guild.id).map((command) => command.contexts ?? null)).toEqual(
        discord.commands(guild.id).map(() => null),
      );

      const remove = run(['scripts/register.ts', '--remove'], env);
      expect(await remove.exited, remove.output().stderr).toBe(0);
      expect(remove.output().stdout).toContain(`Removed the commands in guild ${guild.id}.`);
      expect(discord.commands(guild.id)).toEqual([]);

      const typo = run(['scripts/register.ts', '--rmeove'], env);
      expect(await typo.exited).toBe(1);
      expect(typo.output().stderr).toContain('Unknown option --rmeove');
    } finally {
      await discord.close();
    }
  }, 60_000);

  it('npm run register names the setting to check when Discord refuses it', async () => {
    const discord = await startDiscordEmulator({ botToken: 'register-test-token' });
    try {
      const guild = discord.createGuild({ name: 'testing' });
      const env = registerEnv(discord, guild.id);
      const failing = async (changed: Record<string, string>) => {
        const register = run(['scripts/register.ts'], { ...env, ...changed });
        expect(await register.exited).toBe(1);
        return register.output().stderr.trim();
      };
      const token = await failing({ DISCORD_TOKEN: 'wrong-token-canary-register' });
      expect(token).toMatch(/^Registration failed: Discord refused DISCORD_TOKEN: .*Reset Token/);
      expect(token).not.toContain('wrong-token-canary-register');
      expect(await failing({ DISCORD_APPLICATION_ID: '100000000000000001' })).toMatch(
        /^Registration failed: DISCORD_APPLICATION_ID is not this bot’s application/,
      );
      // Another bot's id (its application's), the usual slip: Discord answers 403 / 20012.
      const otherBot = discord.createUser({ username: 'other-bot', bot: true });
      expect(await failing({ DISCORD_APPLICATION_ID: otherBot.id })).toMatch(
        /^Registration failed: DISCORD_APPLICATION_ID is not this bot’s application/,
      );
      // Nothing listens there: as the bot says at start, Discord was never reached.
      const closed = await freePort();
      expect(await failing({ DISCORD_API_URL: `http://127.0.0.1:${closed}/api` })).toMatch(
        new RegExp(
          `^Registration failed: cannot reach Discord at http://127\\.0\\.0\\.1:${closed} \\(.*ECONNREFUSED.*\\): ` +
            'check the network, and DISCORD_API_URL if it is set$',
        ),
      );
      // The base without /api: Discord's own answer to a path it has no route for.
      const origin = new URL(discord.restUrl).origin;
      expect(await failing({ DISCORD_API_URL: origin })).toBe(
        `Registration failed: Discord at ${origin} answered 404 Not Found to the commands’ registration ` +
          `(PUT /v10/applications/${env.DISCORD_APPLICATION_ID}/guilds/${guild.id}/commands): ` +
          "DISCORD_API_URL must be Discord's REST base, ending in /api (https://discord.com/api), or be left unset",
      );
      // A server the app is not in: the link that adds the bot there, that server chosen.
      const notIn = await failing({ DISCORD_GUILD_ID: '100000000000000002' });
      const link =
        /^Registration failed: The bot cannot register commands in the server DISCORD_GUILD_ID names \(100000000000000002\): add it there with (\S+) or correct the id\.$/.exec(
          notIn,
        );
      expect(link, notIn).not.toBeNull();
      const invite = new URL(link![1]!);
      expect(invite.origin + invite.pathname).toBe('https://discord.com/oauth2/authorize');
      expect(Object.fromEntries(invite.searchParams)).toMatchObject({
        client_id: env.DISCORD_APPLICATION_ID,
        scope: 'bot applications.commands',
        guild_id: '100000000000000002',
        disable_guild_select: 'true',
      });
    } finally {
      await discord.close();
    }
  }, 60_000);

  it('npm run emulators serves on the fixed default ports, prints them, and stops on Ctrl-C', async () => {
    const emulators = run(['scripts/emulators.ts']);
    await expect
      .poll(() => emulators.output().stdout, { timeout: 20_000 })
      .toContain('Environment for a bot');
    const { stdout } = emulators.output();
    for (const port of [DEFAULT_PORTS.discord, DEFAULT_PORTS.music, DEFAULT_PORTS.weather]) {
      expect(stdout).toContain(`127.0.0.1:${port}`);
    }
    const gateway = await request(`http://127.0.0.1:${DEFAULT_PORTS.discord}/api/v10/gateway`);
    expect(gateway.statusCode).toBe(200);
    await gateway.body.dump();
    emulators.child.kill('SIGINT');
    expect(await emulators.exited).toBe(0);
  }, 60_000);
});
