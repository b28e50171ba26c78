import Database from 'better-sqlite3';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { SqliteLedger } from '../../src/ledger/sqlite/ledger.js';
import { BIN, tempDir, writeFile } from '../support/helpers.js';
import { copyTemplate } from '../support/ledgers.js';

/** Whether another connection holds the ledger's write lock now. */
function writeLocked(path: string): boolean {
  const probe = new Database(path, { timeout: 0 });
  try {
    probe.exec('BEGIN IMMEDIATE');
    probe.exec('ROLLBACK');
    return false;
  } catch (e) {
    if ((e as { code?: string }).code?.startsWith('SQLITE_BUSY')) return true;
    throw e;
  } finally {
    probe.close();
  }
}

describe('an import whose numbers another writer takes while it waits for the lock', () => {
  it('refuses the entry as a duplicate number (CAPI33), posts nothing of its batch, and keeps the other', async () => {
    const { ledger: path } = copyTemplate('standard');
    // Another process imports INV-1…INV-n, holding the write lock while it writes them.
    const rows = ['je_number,entry_date,memo,gl_account_id,debit,credit'];
    const entries = 14_000;
    for (let i = 1; i <= entries; i++)
      rows.push(
        `INV-${i},2025-01-15,first ${i},rent,${i}.00,`,
        `INV-${i},2025-01-15,,checking,,${i}.00`,
      );
    const file = writeFile(tempDir(), 'first.csv', rows.join('\n') + '\n');
    const other = execa(process.execPath, [BIN, 'je', 'import', file, '--ledger', path], {
      reject: false,
    });
    let exited = false;
    void other.finally(() => (exited = true));
    while (!writeLocked(path)) {
      if (exited) throw new Error(`the other import ended before it was seen holding the lock`);
      await new Promise((r) => setImmediate(r));
    }
    // This import reads its facts now (INV-7 is not committed yet), then waits for the lock.
    const ledger = SqliteLedger.open(path);
    try {
      const batch = await ledger.journal.beginImport({ dryRun: false, allowDuplicates: false });
      const body = {
        je_number: 'INV-7',
        entry_date: '2025-01-20',
        lines: [
          { gl_account_id: 'rent', line_type: 'debit', amount_atoms: 500 },
          { gl_account_id: 'checking', line_type: 'credit', amount_atoms: 500 },
        ],
      };
      const results = await batch.add([
        { body, fingerprint: 'second', hasRowProblems: false, row: 2 },
      ]);
      await batch.commit();
      expect(results).toEqual([
        {
          status: 'invalid',
          problems: [expect.objectContaining({ path: 'je_number', reason: 'duplicate_je_number' })],
        },
      ]);
    } finally {
      await ledger.close();
    }
    const done = await other;
    expect(done.exitCode, done.stderr).toBe(0);
    const shown = await execa(process.execPath, [
      BIN,
      'entity',
      'show',
      '--format',
      'json',
      '--ledger',
      path,
    ]);
    expect(JSON.parse(shown.stdout).entry_count).toBe(entries);
    const check = await execa(process.execPath, [BIN, 'check', '--ledger', path], {
      reject: false,
    });
    expect(check.exitCode, check.stdout + check.stderr).toBe(0);
  });
});
