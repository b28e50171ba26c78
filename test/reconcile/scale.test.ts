import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/helpers.js';
import { FIXTURES, fromTemplate, type FixtureLedger } from '../support/fixtures.js';

/** Lines of one amount within one week: every statement line could pair with every ledger line. */
const N = 3_000;
const date = (d: number) => `2025-03-0${1 + d}`;
const statementDay = (i: number) => i % 7;
const ledgerDay = (i: number) => (i * 3 + Math.floor(i / 5)) % 7;

describe.each(FIXTURES.map((f) => [f.name, f] as const))(
  'an automatic match of thousands of lines of one amount on %s',
  (_name, fixture) => {
    let L: FixtureLedger;
    beforeAll(async () => {
      L = await fromTemplate(fixture, 'standard');
      const dir = tempDir();
      const entries = join(dir, 'entries.csv');
      const rows = ['entry,entry_date,gl_account_id,debit,credit'];
      for (let i = 0; i < N; i++)
        rows.push(
          `E${i},${date(ledgerDay(i))},checking,4.75,`,
          `E${i},${date(ledgerDay(i))},sales,,4.75`,
        );
      writeFileSync(entries, rows.join('\n') + '\n');
      const statement = join(dir, 'statement.csv');
      const lines = ['Date,Description,Amount'];
      for (let i = 0; i < N; i++) lines.push(`${date(statementDay(i))},CARD SALE,4.75`);
      writeFileSync(statement, lines.join('\n') + '\n');
      for (const args of [
        ['je', 'import', entries],
        ['reconcile', 'import', statement, '--account', 'checking'],
      ]) {
        const r = await L.books(args);
        expect(r.exitCode, r.stderr).toBe(0);
      }
    }, 120_000);
    afterAll(async () => L?.close());

    // Paired in a quadratic network this took minutes; the test's own limit says so.
    it('pairs every line, with the least total of days there is', { timeout: 60_000 }, async () => {
      const r = await L.books(['reconcile', 'match', '--account', 'checking', '--format', 'json']);
      expect(r.exitCode, r.stderr).toBe(0);
      const done = JSON.parse(r.stdout) as { matched: { days: number }[] };
      expect(done.matched).toHaveLength(N);
      // On a line, the least total distance between two equal-sized sets pairs them in sorted order.
      const s = Array.from({ length: N }, (_, i) => statementDay(i)).sort((a, b) => a - b);
      const l = Array.from({ length: N }, (_, i) => ledgerDay(i)).sort((a, b) => a - b);
      const least = s.reduce((sum, d, k) => sum + Math.abs(d - l[k]!), 0);
      expect(done.matched.reduce((sum, m) => sum + m.days, 0)).toBe(least);
      expect(await L.check()).toEqual([]);
    });
  },
);
