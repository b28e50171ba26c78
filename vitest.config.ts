import { configDefaults, defineConfig } from 'vitest/config';

// An extra CA bundle (NODE_EXTRA_CA_CERTS, set on these machines) costs every Node process some 45 ms
// to start (docs/benchmarks.md), and the tests start books about a thousand times; none speaks TLS.
delete process.env.NODE_EXTRA_CA_CERTS;
// The suite is hermetic: a bookkeeper's own BOOKS_LEDGER, BOOKS_PROFILE, … would send the commands the
// tests start to their ledger instead of the fixtures'. Only BOOKS_REALFILES (where the real bank
// statements are, test/reconcile/realfiles/README.md) is the suite's to read.
for (const name of Object.keys(process.env))
  if (name.startsWith('BOOKS_') && name !== 'BOOKS_REALFILES') delete process.env[name];

/** Tests that need nothing but the code: no template ledgers, no PostgreSQL, no built binary. */
const UNIT = 'test/**/*.unit.test.ts';

export default defineConfig({
  test: {
    root: new URL('.', import.meta.url).pathname,
    // End-to-end tests start the real binary many times; bound each test, not the suite.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Two cores: more workers only make the spawned processes fight each other.
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'unit', include: [UNIT] } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, UNIT],
          globalSetup: ['test/support/globalSetup.ts'],
        },
      },
    ],
  },
});
