import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/helpers.js';
import { FIXTURES, fromTemplate, type FixtureLedger } from '../support/fixtures.js';

/** 2^53 − 1 cents and a little less: two deposits whose sum no double holds exactly. */
const FIRST = '90071992547409.91';
const SECOND = '90071992547409.82';
const SUM = 9007199254740991n + 9007199254740982n;

/** The value of a JSON field as written (exact past 2^53, where JSON.parse would round it). */
const field = (json: string, name: string) => new RegExp(`"${name}": ?(-?\\d+)`).exec(json)?.[1];

describe.each(FIXTURES.map((f) => [f.name, f] as const))(
  'a reconciliation past 2^53 on %s',
  (_name, fixture) => {
    let L: FixtureLedger;
    beforeAll(async () => {
      L = await fromTemplate(fixture, 'standard');
    }, 120_000);
    afterAll(async () => L?.close());

    it('clears two deposits to the atom: the cleared balance is the books’ own, nothing outstanding', async () => {
      for (const [date, amount] of [
        ['2025-01-05', FIRST],
        ['2025-01-06', SECOND],
      ] as const) {
        const r = await L.books([
          ...['je', 'post', '--date', date, '--debit', `checking=${amount}`],
          ...['--credit', `capital=${amount}`],
        ]);
        expect(r.exitCode, r.stderr).toBe(0);
      }
      const file = join(tempDir(), 'statement.csv');
      writeFileSync(
        file,
        `Date,Description,Amount\n2025-01-05,DEPOSIT,${FIRST}\n2025-01-06,DEPOSIT,${SECOND}\n`,
      );
      const acct = ['--account', 'checking'];
      for (const args of [
        ['reconcile', 'import', file, ...acct],
        ['reconcile', 'match', ...acct],
      ]) {
        const r = await L.books(args);
        expect(r.exitCode, r.stderr).toBe(0);
      }
      const report = await L.books([
        ...['report', 'reconciliation', ...acct, '--statement-date', '2025-01-31'],
        ...['--format', 'json'],
      ]);
      expect(report.exitCode, report.stderr).toBe(0);
      expect(field(report.stdout, 'cleared_balance')).toBe(String(SUM));
      expect(field(report.stdout, 'book_balance')).toBe(String(SUM));
      const table = await L.books([
        'report',
        'reconciliation',
        ...acct,
        '--statement-date',
        '2025-01-31',
      ]);
      expect(table.stdout).toContain('180,143,985,094,819.73');
      expect(table.stdout).not.toContain('180,143,985,094,819.72');
      expect(await L.check()).toEqual([]);
    });
  },
);
