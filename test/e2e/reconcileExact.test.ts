import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { psqlPath } from '../../src/bench/cluster.js';
import type { PgLedger } from '../../src/ledger/pg/ledger.js';
import { databaseUrl, FIXTURES, fromTemplate, type FixtureLedger } from '../support/fixtures.js';

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

/** Sets an entry's two lines and total to an amount no post can give, as someone with the tables would. */
async function overwrite(L: FixtureLedger, jeNumber: string, atoms: bigint): Promise<void> {
  if (L.file) {
    const db = new Database(L.file);
    const seq = db
      .prepare('SELECT seq FROM journal_entries WHERE je_number = ?')
      .pluck()
      .get(jeNumber);
    db.prepare('UPDATE journal_lines SET amount_atoms = ? WHERE entry_seq = ?').run(atoms, seq);
    db.prepare('UPDATE journal_entries SET total_atoms = ? WHERE seq = ?').run(atoms, seq);
    db.close();
    return;
  }
  const entity = (L.store as PgLedger).entityId;
  execFileSync(psqlPath(), [
    databaseUrl(),
    '-qc',
    `UPDATE journal_lines SET amount_atoms = ${atoms} WHERE entity_id = '${entity}' AND entry_seq =
       (SELECT seq FROM journal_entries WHERE entity_id = '${entity}' AND je_number = '${jeNumber}');
     UPDATE journal_entries SET total_atoms = ${atoms} WHERE entity_id = '${entity}' AND je_number = '${jeNumber}'`,
  ]);
}

describe.each(FIXTURES.filter((f) => f.name !== 'served').map((f) => [f.name, f] as const))(
  'an amount past 2^53 − 1 written into the tables on %s',
  (_name, fixture) => {
    it('fails books check, naming the line, and je show refuses it rather than round it', async () => {
      const L = await fromTemplate(fixture, 'standard');
      try {
        const r = await L.books([
          'je',
          'post',
          '--date',
          '2025-02-01',
          '--debit',
          'rent=1',
          '--credit',
          'checking=1',
        ]);
        expect(r.exitCode, r.stderr).toBe(0);
        const je = /JE-\d+/.exec(r.stdout)![0];
        await overwrite(L, je, 9007199254740993n);
        const check = await L.books(['check']);
        expect(check.exitCode, check.stdout).toBe(1);
        expect(check.stdout + check.stderr).toContain(`${je} line 1 has an invalid side or amount`);
        const show = await L.books(['je', 'show', je]);
        expect(show.exitCode).toBe(1);
        expect(show.stderr).toMatch(/^error damaged: a stored amount \(9007199254740993\)/);
        expect(show.stdout).not.toMatch(/90,071,992,547,409\.9/);
      } finally {
        await L.close();
      }
    });
  },
);
