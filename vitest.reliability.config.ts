import { defineConfig } from 'vitest/config';

/** `npm run test:reliability`: fuzzing, fault matrix, crash safety, secrets, OAuth abuse. */
export default defineConfig({
  test: {
    include: ['test/reliability/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
