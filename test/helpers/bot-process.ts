/** The bot as a real child process (`src/index.ts`), for crash and multi-process tests. */
import { spawn, type ChildProcess } from 'node:child_process';

export interface BotProcess {
  child: ChildProcess;
  logs: () => string;
  exited: Promise<number | null>;
  /** Resolves once the bot logged that it is connected to Discord. */
  ready: Promise<void>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export function startBotProcess(env: Record<string, string>): BotProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/index.ts'], {
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let markReady: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    if (output.includes('connected to Discord')) markReady();
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
