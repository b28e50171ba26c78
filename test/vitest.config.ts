import { defineConfig } from 'vitest/config';

// An extra CA bundle (NODE_EXTRA_CA_CERTS, set on these machines) costs every Node process some 45 ms
// to start (docs/benchmarks.md), and the tests start books about a thousand times; none speaks TLS.
delete process.env.NODE_EXTRA_CA_CERTS;

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
