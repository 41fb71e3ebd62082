/**
 * The README's systemd unit is what a server owner copies to run the bot for good: it must start
 * the bot as `npm start` does, with the same Node flags (the memory figures the README gives are
 * measured with them), apart from `.env`, which the unit reads itself.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startScriptFlags } from '../helpers/bot-process.js';

describe('the README’s systemd unit and shard command', () => {
  it('starts the compiled bot with the Node flags of npm start', () => {
    const readme = readFileSync('README.md', 'utf8');
    const line = /^ExecStart=(.*)$/m.exec(readme)?.[1];
    expect(line, 'an ExecStart= line in README.md').toBeDefined();
    const words = line!.trim().split(/\s+/);
    expect(words.at(-1)).toBe('dist/src/index.js');
    expect(words.filter((word) => word.startsWith('--')).sort()).toEqual([...startScriptFlags()].sort());
  });

  it('has `npm run start:shards`, which the README gives, fork shards with the Node flags of npm start', () => {
    const { scripts } = JSON.parse(readFileSync('package.json', 'utf8')) as {
      scripts: Record<string, string>;
    };
    const words = (scripts['start:shards'] ?? '').split(/\s+/);
    expect(words.at(-1)).toBe('dist/src/shards.js');
    // The forks inherit the manager's own flags (`execArgv`), so these are theirs too.
    const flags = words.filter((word) => word.startsWith('--') && !word.startsWith('--env-file'));
    expect(flags.sort()).toEqual([...startScriptFlags()].sort());
    expect(readFileSync('README.md', 'utf8')).toContain('`npm run start:shards`');
  });
});
