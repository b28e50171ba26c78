import { beforeAll, describe, expect, it } from 'vitest';
import { demoLedger, type RunResult } from './helpers.js';

// What a bookkeeper closing a month meets: each case here went wrong once, for a new user or a
// hostile one.
let demo: Awaited<ReturnType<typeof demoLedger>>;

beforeAll(async () => {
  demo = await demoLedger();
});

const json = (r: RunResult) => JSON.parse(r.stdout);

describe('filters that name something the ledger does not have', () => {
  it('an unknown counterparty is refused as an unknown account is (exit 1), not an empty report', async () => {
    for (const args of [
      ['report', 'gl', '--counterparty', 'customer:NOPE', '--end', '2025-12-31'],
      ['je', 'list', '--counterparty', 'customer:NOPE'],
      ['report', 'gl', '--account', 'NOPE', '--end', '2025-12-31'],
      ['je', 'list', '--account', 'NOPE'],
    ]) {
      const r = await demo.run([...args, '--format', 'json']);
      expect(r.exitCode, args.join(' ')).toBe(1);
      expect(json(r).error.code).toBe('not_found');
    }
    const r = await demo.run(['je', 'list', '--counterparty', 'customer:c00']);
    expect(r.stderr).toMatch(/no customer 'c00'; did you mean customer:C001/);
    // A counterparty that exists but has no lines is an empty report, as before.
    const known = await demo.run(['je', 'list', '--counterparty', 'employee:E001']);
    expect(known.exitCode, known.stderr).toBe(0);
  });
});
