import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The reliability suite runs on its own: npm run test:reliability.
    exclude: ['test/reliability/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // A poll waits on gateway events, a log line or a browser: on a busy 2-core machine, longer than
    // vitest's default second. Only a failing poll waits this long.
    expect: { poll: { timeout: 10_000 } },
  },
});
