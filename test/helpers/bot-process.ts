/**
 * The bot as a real child process (`src/index.ts`, or the web process `src/web.ts`), for crash and
 * multi-process tests and the memory benchmark.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface BotProcess {
  child: ChildProcess;
  logs: () => string;
  exited: Promise<number | null>;
  /** Resolves once the process logged that it is ready (connected to Discord, listening, every shard up). */
  ready: Promise<void>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export interface BotProcessOptions {
  /** Which entry point runs: the bot (default), the web process, or the sharding manager. */
  entry?: 'src/index.ts' | 'src/web.ts' | 'src/shards.ts';
  /**
   * Runs the compiled JavaScript under `dist/` with the Node flags of `npm start`, as a server owner
   * runs the bot (`npm run build` first), instead of the TypeScript through tsx, whose transpiler
   * adds its own memory and start-up time.
   */
  compiled?: boolean;
}

/** The Node flags of package.json's start script, but for `.env`: the caller gives the environment. */
export function startScriptFlags(): string[] {
  const { scripts } = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } };
  return scripts.start.split(/\s+/).filter((word) => word.startsWith('--') && !word.startsWith('--env-file'));
}

export function startBotProcess(env: Record<string, string>, options: BotProcessOptions = {}): BotProcess {
  const entry = options.entry ?? 'src/index.ts';
  const readyText = {
    'src/index.ts': 'connected to Discord',
    'src/web.ts': 'callback server listening',
    'src/shards.ts': 'every shard process is ready',
  }[entry];
  const args = options.compiled
    ? [...startScriptFlags(), `dist/${entry.replace(/\.ts$/, '.js')}`]
    : ['--import', 'tsx', entry];
  const child = spawn(process.execPath, args, {
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let markReady: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    if (output.includes(readyText)) markReady();
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return {
    child,
    logs: () => output,
    exited,
    ready: Promise.race([
      ready,
      exited.then((code) => Promise.reject(new Error(`bot exited (${code}) before ready:\n${output}`))),
    ]),
    async kill(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
