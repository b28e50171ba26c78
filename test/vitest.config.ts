import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/globalSetup.ts'],
    // End-to-end tests start the real binary many times; bound each test, not the suite.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Two cores: more workers only make the spawned processes fight each other.
    maxWorkers: 2,
  },
});
