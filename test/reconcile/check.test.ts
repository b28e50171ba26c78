import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { copyTemplate, exec, tempDir } from '../support/ledgers.js';
import { FEBRUARY_FINISHED, JANUARY } from '../support/reconcile.js';

/** The demo ledger with January and February of checking reconciled, as the tutorial leaves it. */
let reconciled = '';
beforeAll(async () => {
  const { dir, ledger } = copyTemplate('demo', 'demo.sqlite');
  const run = async (...args: string[]) => {
    const r = await cli([...args, '--ledger', ledger], { cwd: dir });
    expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  };
  for (const step of [...JANUARY, ...FEBRUARY_FINISHED]) await run(...step);
  reconciled = ledger;
}, 60_000);

/** books check on a copy of the reconciled ledger damaged by `sql`: the problems it names. */
async function checkAfter(sql: string): Promise<string> {
  const file = join(tempDir(), 'damaged.sqlite');
  copyFileSync(reconciled, file);
  exec(file, sql);
  const r = await cli(['check', '--ledger', file]);
  expect(r.exitCode).toBe(1);
  return r.stdout + r.stderr;
}

describe('books check proves reconciliation’s tables', () => {
  it('passes the ledger as books left it', async () => {
    expect((await cli(['check', '--ledger', reconciled])).exitCode).toBe(0);
  });

  it.each([
    [
      'a reconciliation removed',
      `DELETE FROM reconciliations WHERE statement_date = '2025-02-28'`,
      'not on record',
    ],
    [
      'a cleared line’s sign turned',
      `UPDATE line_marks SET net_atoms = -net_atoms WHERE rowid IN (SELECT rowid FROM line_marks LIMIT 1)`.replace(
        /rowid/g,
        'entry_seq',
      ),
      'another amount or side',
    ],
    [
      'a matched line made unmatched',
      `UPDATE statement_lines SET state = 'unmatched' WHERE id = 'stl_1'`,
      'has cleared lines',
    ],
    [
      'a matched line’s amount changed',
      `UPDATE statement_lines SET amount_atoms = amount_atoms + 1 WHERE id = 'stl_2'`,
      'add up to',
    ],
    [
      'a statement line taken out of its reconciliation',
      `UPDATE statement_lines SET reconciliation_id = NULL WHERE id = 'stl_3'`,
      'not held by one',
    ],
    [
      'a line count edited',
      `UPDATE reconciliations SET line_count = line_count + 1`,
      'says it holds',
    ],
    [
      'a mark moved to another statement line',
      `UPDATE line_marks SET statement_line_id = 'stl_5' WHERE statement_line_id = 'stl_4'`,
      'add up to',
    ],
  ])('finds %s', async (_what, sql, words) => {
    expect(await checkAfter(sql)).toContain(words);
  });
});
