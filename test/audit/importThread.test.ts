import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { books as run } from '../support/helpers.js';
import { copyTemplate, exec } from '../support/ledgers.js';

const tagTotals = (ledger: string) => {
  const db = new Database(ledger, { readonly: true });
  try {
    return db.prepare(`SELECT * FROM tag_month_totals ORDER BY 1, 2, 3, 4`).all() as {
      adj_line_count: number;
    }[];
  } finally {
    db.close();
  }
};

/**
 * A large import (or one read from standard input) writes its rows on a writer thread, which also
 * takes the audit event's digest from those rows: the event must record exactly what was stored.
 */
describe('an import written on its writer thread', () => {
  it('records its entries and their totals by tag: audit verify follows it, and names an edited line', async () => {
    const { ledger: from } = copyTemplate('fx');
    // The real binary: the thread runs from the built code.
    const books = (args: string[], ledger: string, input?: string) =>
      run([...args, '--ledger', ledger], input === undefined ? {} : { input });
    for (const args of [
      [
        '--debit',
        'eur-bank=EUR 1000.00 @ 1.10',
        '--credit',
        'capital=1100',
        '--tag',
        'project=Zürich',
      ],
      ['--debit', 'capital=12.34 #class=c1', '--credit', 'eur-bank=EUR 11.00 @ 1.1218'],
      [
        '--debit',
        'capital=5 #class=c2',
        '--credit',
        'capital=5',
        '--memo',
        'Café — 東京 ☕',
        '--adjusting',
        '--tag',
        'project=Zürich',
      ],
    ]) {
      const r = await books(['je', 'post', '--date', '2025-01-10', ...args], from);
      expect(r.exitCode, r.stderr).toBe(0);
    }
    const journal = await books(['je', 'list', '--format', 'csv'], from);
    expect(journal.exitCode, journal.stderr).toBe(0);

    const { ledger: to } = copyTemplate('fx');
    // Read from standard input: of unknown size, it is written on the thread.
    const imported = await books(['je', 'import', '-'], to, journal.stdout);
    expect(imported.exitCode, imported.stderr).toBe(0);
    const copied = await books(['je', 'list', '--format', 'csv'], to);
    expect(copied.stdout).toBe(journal.stdout);
    // The thread also sums the totals by tag, the adjusting part included: as posting summed them.
    expect(tagTotals(to)).toEqual(tagTotals(from));
    expect(tagTotals(to).some((r) => r.adj_line_count > 0)).toBe(true);
    const checked = await books(['check'], to);
    expect(checked.exitCode, checked.stdout + checked.stderr).toBe(0);
    const verified = await books(['audit', 'verify'], to);
    expect(verified.exitCode, verified.stdout + verified.stderr).toBe(0);
    expect(verified.stdout).toMatch(/verifies \(\d+ events?, 3 entries\)/);

    exec(to, `UPDATE journal_lines SET memo = 'edited' WHERE entry_seq = 2 AND line_no = 1`);
    const tampered = await books(['audit', 'verify'], to);
    expect(tampered.exitCode).toBe(1);
    expect(tampered.stdout + tampered.stderr).toMatch(/audit event \d+ does not follow/);
  });
});
