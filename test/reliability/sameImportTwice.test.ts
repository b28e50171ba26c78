import { describe, expect, it } from 'vitest';
import { books, tempDir, writeFile } from '../support/helpers.js';
import { copyTemplate } from '../support/ledgers.js';

describe('one file imported twice at once into a ledger file', () => {
  it('each entry is posted once: the later import skips what the earlier posted, and neither fails', async () => {
    const { ledger } = copyTemplate('standard');
    // Large enough to be written on the import's thread (1 MiB and more), every entry on one date:
    // the fingerprints an import looks up are those of that date.
    const rows = ['entry,entry_date,memo,gl_account_id,debit,credit'];
    const entries = 14_000;
    for (let i = 0; i < entries; i++)
      rows.push(
        `E${i},2025-01-15,twice ${i},rent,${i + 1}.00,`,
        `E${i},2025-01-15,,checking,,${i + 1}.00`,
      );
    const file = writeFile(tempDir(), 'twice.csv', rows.join('\n') + '\n');
    const [a, b] = await Promise.all([
      books(['je', 'import', file, '--ledger', ledger]),
      books(['je', 'import', '-', '--ledger', ledger], { input: rows.join('\n') + '\n' }),
    ]);
    expect(a.exitCode, a.stderr).toBe(0);
    expect(b.exitCode, b.stderr).toBe(0);
    const shown = JSON.parse(
      (await books(['entity', 'show', '--format', 'json', '--ledger', ledger])).stdout,
    );
    expect(shown.entry_count).toBe(entries);
    const check = await books(['check', '--ledger', ledger]);
    expect(check.exitCode, check.stdout + check.stderr).toBe(0);
  });
});
