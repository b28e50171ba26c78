import { writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, fromTemplate } from '../support/fixtures.js';
import { MIGRATIONS } from '../../src/ledger/sqlite/schema.js';
import { tamper } from '../support/tamper.js';
import { tempDir } from '../support/ledgers.js';

/**
 * What someone with the tables (sqlite3 on a file, psql on a database) can write that no command
 * writes: books check names it, and no command reads it as if it were sound.
 */

const STORES = FIXTURES.filter((f) => f.name !== 'served').map((f) => [f.name, f] as const);

describe.each(STORES)('what the tables hold that no command writes, on %s', (_name, fixture) => {
  it('an amount past 2^53 − 1: check names the line, and je show refuses it rather than round it', async () => {
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
      const atoms = 9007199254740993n;
      const table = { entity: 'journal_entries', lines: 'journal_lines' };
      tamper(
        L,
        `UPDATE ${table.lines} SET amount_atoms = @atoms WHERE entity_id = '{entity}' AND entry_seq =
           (SELECT seq FROM ${table.entity} WHERE entity_id = '{entity}' AND je_number = @je)`,
        { atoms, je },
      );
      tamper(
        L,
        `UPDATE ${table.entity} SET total_atoms = @atoms WHERE entity_id = '{entity}' AND je_number = @je`,
        { atoms, je },
      );
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

  it.each([
    ['lock_date', "'garbage'", 'not a date (YYYY-MM-DD)'],
    ['lock_date', "'2025-02-30'", 'not a date (YYYY-MM-DD)'],
    ['fiscal_year_start_month', '13', 'not a month (1 to 12)'],
    ['fiscal_year_start_month', '0', 'not a month (1 to 12)'],
    ['books_start', "'2025-01-15'", 'not the first day of a month (YYYY-MM-01)'],
    ['currency', "'usd'", 'not an ISO 4217 currency code (upper case)'],
    ['name', "''", 'not a name'],
  ])("an entity's %s of %s: check names it", async (column, value, what) => {
    const L = await fromTemplate(fixture, 'demo');
    try {
      const table = L.file ? 'entity' : 'entities';
      tamper(L, `UPDATE ${table} SET ${column} = ${value} WHERE entity_id = '{entity}'`);
      const check = await L.books(['check', '--format', 'json']);
      expect(check.exitCode, check.stderr).toBe(1);
      const { error } = JSON.parse(check.stdout) as {
        error: { errors: { path: string; reason: string; message: string }[] };
      };
      // The value as read back: a quoted SQL text is a string, else a number.
      const stored = value.startsWith("'") ? value.slice(1, -1) : Number(value);
      expect(error.errors).toContainEqual({
        path: `entity.${column}`,
        reason: 'invalid_entity',
        message: `the entity's ${column} is ${JSON.stringify(stored)}: ${what}`,
      });
    } finally {
      await L.close();
    }
  });

  it.each([
    [
      'a date that is none',
      "UPDATE journal_entries SET entry_date = '2025-13-01' WHERE entity_id = '{entity}' AND je_number = 'JE-2'",
      "JE-2 is dated '2025-13-01', which is no date",
    ],
    [
      'another currency than the entity’s',
      "UPDATE journal_entries SET currency = 'JPY' WHERE entity_id = '{entity}' AND je_number = 'JE-2'",
      "JE-2 is in JPY, not the entity's USD",
    ],
    [
      'an account of no type',
      "UPDATE accounts SET account_type = 'garbage' WHERE entity_id = '{entity}' AND external_id = 'rent'",
      "account 'rent' is of type 'garbage', which is none",
    ],
  ])('%s: check names it', async (_what, sql, words) => {
    const L = await fromTemplate(fixture, 'demo');
    try {
      tamper(L, sql);
      const check = await L.books(['check']);
      expect(check.exitCode).toBe(1);
      expect(check.stdout + check.stderr).toContain(words);
    } finally {
      await L.close();
    }
  });

  it('an entry before the First Month of Books: check names it', async () => {
    const L = await fromTemplate(fixture, 'demo');
    try {
      const table = L.file ? 'entity' : 'entities';
      tamper(L, `UPDATE ${table} SET books_start = '2025-02-01' WHERE entity_id = '{entity}'`);
      const check = await L.books(['check']);
      expect(check.exitCode).toBe(1);
      expect(check.stdout + check.stderr).toMatch(
        /JE-1 is dated 2025-01-\d\d, before the books start \(2025-02-01\)/,
      );
    } finally {
      await L.close();
    }
  });
});

describe('what only a ledger file can hold: a fraction or text where a number is kept', () => {
  const file = FIXTURES.find((f) => f.name === 'sqlite')!;
  const problems = async (L: FixtureLedger) => {
    const check = await L.books(['check', '--format', 'json']);
    expect(check.exitCode, check.stderr).toBe(1);
    return (
      JSON.parse(check.stdout) as { error: { errors: { reason: string; message: string }[] } }
    ).error.errors;
  };

  it('a JE number kept as 3.5 or as text: check names it (exit 1), never stops on it', async () => {
    for (const value of ['3.5', "'abc'"]) {
      const L = await fromTemplate(file, 'demo');
      try {
        tamper(L, `UPDATE journal_entries SET je_seq = ${value} WHERE je_number = 'JE-9'`);
        expect(await problems(L)).toContainEqual({
          path: 'journal_entries[JE-9]',
          reason: 'je_numbering',
          message: `JE-9 is kept for numbering as ${value.replaceAll("'", '')}, which is not a whole number`,
        });
      } finally {
        await L.close();
      }
    }
  });

  /** As a books before the totals' tables were STRICT left them: the schema one version back. */
  const olderTotals = (L: FixtureLedger) => {
    for (const sql of [
      'ALTER TABLE account_month_totals RENAME TO kept',
      `CREATE TABLE account_month_totals (account_key INTEGER NOT NULL, month TEXT NOT NULL,
         net_atoms INTEGER NOT NULL, line_count INTEGER NOT NULL,
         adj_net_atoms INTEGER NOT NULL DEFAULT 0, adj_line_count INTEGER NOT NULL DEFAULT 0,
         PRIMARY KEY (account_key, month)) WITHOUT ROWID`,
      'INSERT INTO account_month_totals SELECT * FROM kept',
      'DROP TABLE kept',
      `PRAGMA user_version = ${MIGRATIONS.length - 1}`,
    ])
      tamper(L, sql);
  };
  const MOST = 9007199254740991n;
  const MOST_TEXT = '90071992547409.91';

  it('a derived total with a fraction: the file refuses it; one kept before is summed again on upgrade', async () => {
    const L = await fromTemplate(file, 'demo');
    try {
      const first = `(account_key, month) =
        (SELECT account_key, month FROM account_month_totals ORDER BY account_key, month LIMIT 1)`;
      // The totals' tables are STRICT: not even sqlite3 writes a fraction into one.
      expect(() =>
        tamper(L, `UPDATE account_month_totals SET net_atoms = net_atoms + 0.5 WHERE ${first}`),
      ).toThrow(/cannot store REAL value in INTEGER column/);
      olderTotals(L);
      tamper(L, `UPDATE account_month_totals SET net_atoms = net_atoms + 1.5 WHERE ${first}`);
      const checked = await L.books(['check']);
      expect(checked.exitCode, checked.stderr).toBe(0);
      expect(await L.check()).toEqual([]);
    } finally {
      await L.close();
    }
  });

  it('a total kept inexact past 2^63 - 1 before: summed again when upgraded, or refused naming it', async () => {
    const dir = tempDir();
    const rows = ['entry,entry_date,gl_account_id,debit,credit'];
    for (let i = 1; i <= 1025; i++) {
      const amount = i === 1025 ? '1.00' : MOST_TEXT;
      rows.push(`E${i},2025-03-03,checking,${amount},`, `E${i},2025-03-03,savings,,${amount}`);
    }
    writeFileSync(join(dir, 'most.csv'), rows.join('\n') + '\n');
    for (const last of [1000n, MOST]) {
      const L = await fromTemplate(file, 'standard');
      try {
        const seeded = await L.books(['je', 'import', join(dir, 'most.csv')]);
        expect(seeded.exitCode, seeded.stderr).toBe(0);
        olderTotals(L);
        // The last entry as an earlier books could take it (its lines 1,000 atoms, or the largest),
        // and the totals as SQLite's real numbers left them.
        const lastSeq = '(SELECT MAX(seq) FROM journal_entries)';
        tamper(L, `UPDATE journal_lines SET amount_atoms = ${last} WHERE entry_seq = ${lastSeq}`);
        tamper(L, `UPDATE journal_entries SET total_atoms = ${last} WHERE seq = ${lastSeq}`);
        for (const [sign, side] of [
          ['+', '>'],
          ['-', '<'],
        ])
          tamper(
            L,
            `UPDATE account_month_totals SET net_atoms = net_atoms * 1.0 ${sign} ${last}.0
             WHERE month = '2025-03' AND net_atoms ${side} 0`,
          );
        const r = await L.books(['report', 'tb', '--as-of', '2025-03-31', '--format', 'json']);
        const sum = 1024n * MOST + last;
        if (last === MOST) {
          expect(r.exitCode).toBe(1);
          expect(r.stdout + r.stderr).toContain(
            `the total of account 'checking' for 2025-03 is ${sum} atoms`,
          );
          expect(r.stdout + r.stderr).toContain('past 2^63 - 1');
          // Left as it was: not upgraded.
          const db = new Database(L.file!, { readonly: true });
          expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length - 1);
          db.close();
          continue;
        }
        expect(r.exitCode, r.stderr).toBe(0);
        expect(BigInt(/"debit": (\d+)/.exec(r.stdout)![1]!)).toBe(sum);
      } finally {
        await L.close();
      }
    }
  });
});
