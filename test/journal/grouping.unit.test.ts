import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { GlAccount } from '../../src/domain/accounts.js';
import { readCsv } from '../../src/import/csv.js';
import { groupEntries, type DraftEntry } from '../../src/import/entries.js';
import { entryCsvSpec } from '../../src/import/layout.js';

const accounts = [
  ['rent', '6100'],
  ['checking', '1010'],
].map(([external_id, account_number]) => ({ external_id, account_number }) as GlAccount);

/** The drafts of a CSV text, or the header's fatal problems. */
async function drafts(csv: string): Promise<DraftEntry[] | { fatal: unknown[] }> {
  const out: DraftEntry[] = [];
  const batches = readCsv(Readable.from([csv]), entryCsvSpec('t.csv', ','));
  for await (const d of groupEntries(batches, { file: 't.csv', accounts, currency: 'USD' })) {
    if ('fatal' in d) return d;
    out.push(...d);
  }
  return out;
}

const header = 'entry,entry_date,gl_account_id,debit,credit,memo\n';

describe('groupEntries', () => {
  it('groups contiguous rows by entry, with each line’s row, accounts by id or number', async () => {
    const d = (await drafts(
      header + '1,2025-01-02,6100,10,,Rent\n1,,checking,,10,\n2,2025-01-03,rent,5,,\n2,,1010,,5,\n',
    )) as DraftEntry[];
    expect(d.map((x) => [x.row, x.lineRows])).toEqual([
      [2, [2, 3]],
      [4, [4, 5]],
    ]);
    expect(d[0]!.body).toEqual({
      entry_date: '2025-01-02',
      memo: 'Rent',
      lines: [
        { gl_account_id: 'rent', line_type: 'debit', amount_atoms: 1000 },
        { gl_account_id: 'checking', line_type: 'credit', amount_atoms: 1000 },
      ],
    });
  });

  it('keeps memos as the file gives them, with the fingerprint they had when imports trimmed them', async () => {
    const rows = (memo: string) => `1,2025-01-02,rent,1,,${memo}\n1,,checking,,1,\n`;
    const [kept] = (await drafts(header + rows('"  two  spaces  "'))) as DraftEntry[];
    const [plain] = (await drafts(header + rows('two  spaces'))) as DraftEntry[];
    expect(kept!.body.memo).toBe('  two  spaces  ');
    expect(kept!.fingerprint).toBe(plain!.fingerprint);
    const [blank] = (await drafts(header + rows('"   "'))) as DraftEntry[];
    const [none] = (await drafts(header + rows(''))) as DraftEntry[];
    expect([blank!.body.memo, none!.body.memo]).toEqual(['   ', undefined]);
    expect(blank!.fingerprint).toBe(none!.fingerprint);
  });

  it('gives identical entries distinct fingerprints by occurrence, the same on every reading', async () => {
    const text =
      header + 'a,2025-01-02,rent,1,,\na,,checking,,1,\nb,2025-01-02,rent,1,,\nb,,checking,,1,\n';
    const [first, second] = (await drafts(text)) as DraftEntry[];
    expect(first!.fingerprint.startsWith('2025-01-02:')).toBe(true);
    expect(first!.fingerprint.replace(/\.1$/, '.2')).toBe(second!.fingerprint);
    expect(((await drafts(text)) as DraftEntry[]).map((x) => x.fingerprint)).toEqual([
      first!.fingerprint,
      second!.fingerprint,
    ]);
  });

  it('names a group that comes back after its rows ended, and a blank group key', async () => {
    const d = (await drafts(
      header +
        '1,2025-01-02,rent,1,,\n1,,checking,,1,\n2,2025-01-02,rent,1,,\n2,,checking,,1,\n' +
        '1,2025-01-02,rent,1,,\n,,checking,,1,\n',
    )) as DraftEntry[];
    const problems = d.flatMap((x) => x.problems.map((p) => [p.row, p.path, p.reason]));
    expect(problems).toEqual([
      [6, 'entry', 'group_not_contiguous'],
      [7, 'entry', 'missing_field'],
      [7, 'entry_date', 'missing_field'],
    ]);
  });

  it('groups by je_number when there is no entry column, normalising it', async () => {
    const d = (await drafts(
      'je_number,entry_date,gl_account_id,debit,credit\nje-7,2025-01-02,rent,1,\nJE 7,,checking,,1\n',
    )) as DraftEntry[];
    expect(d).toHaveLength(1);
    expect(d[0]!.body.je_number).toBe('je-7');
  });

  it('refuses a header without an amount form or a grouping column (row 1)', async () => {
    expect(await drafts('entry_date,gl_account_id,memo\n2025-01-02,rent,x\n')).toEqual({
      fatal: [
        expect.objectContaining({ row: 1, path: 'amount' }),
        expect.objectContaining({ row: 1, path: 'entry' }),
      ],
    });
  });
});
