import { describe, expect, it } from 'vitest';
import { checkChart, checkCounterparties, type ChartShape } from '../../src/domain/chart.js';
import { treeProblems } from '../../src/domain/chartTree.js';

const record = (row: number, v: Record<string, string>) => ({
  row,
  values: { is_postable: 'true', is_active: 'true', ...v },
});
const shape = (
  external_id: string,
  account_type: ChartShape['account_type'],
  parent: string | null = null,
  number: string | null = null,
): ChartShape => ({
  external_id,
  account_type,
  parent_external_id: parent,
  account_number: number,
});

describe('checkChart: a file is checked as the chart it leaves behind', () => {
  const existing = [shape('cash', 'bank', null, '1000'), shape('checking', 'bank', 'cash', '1010')];

  it('refuses moving a parent to another section while its children stay (a report would hide them)', () => {
    const { problems } = checkChart(
      [record(2, { external_id: 'cash', name: 'Cash', account_type: 'income' })],
      existing,
    );
    expect(problems).toEqual([
      expect.objectContaining({
        row: 2,
        reason: 'section_mismatch',
        message: expect.stringContaining(
          "bank account 'checking' cannot sit under income account 'cash'",
        ),
      }),
    ]);
  });

  it('accepts the same change when the file moves the children along', () => {
    const { problems } = checkChart(
      [
        record(2, { external_id: 'cash', name: 'Cash', account_type: 'income' }),
        record(3, {
          external_id: 'checking',
          name: 'Checking',
          account_type: 'income',
          parent_external_id: 'cash',
        }),
      ],
      existing,
    );
    expect(problems).toEqual([]);
  });

  it('lets numbers move between accounts within one file, and refuses a number two accounts would share', () => {
    const swap = checkChart(
      [
        record(2, {
          external_id: 'checking',
          name: 'C',
          account_type: 'bank',
          account_number: '1000',
          parent_external_id: 'cash',
        }),
        record(3, {
          external_id: 'cash',
          name: 'Cash',
          account_type: 'bank',
          account_number: '1090',
        }),
      ],
      existing,
    );
    expect(swap.problems).toEqual([]);
    const clash = checkChart(
      [
        record(2, {
          external_id: 'savings',
          name: 'S',
          account_type: 'bank',
          account_number: '1010',
        }),
      ],
      existing,
    );
    expect(clash.problems).toEqual([
      expect.objectContaining({ row: 2, path: 'account_number', reason: 'duplicate' }),
    ]);
  });

  it('lists cell problems and tree problems of one file together, by row', () => {
    const { problems } = checkChart(
      [
        record(2, { external_id: 'a', name: 'A', account_type: 'asset' }),
        record(3, {
          external_id: 'b',
          name: 'B',
          account_type: 'bank',
          parent_external_id: 'nowhere',
        }),
        record(4, { external_id: 'c', name: 'C', account_type: 'bank', parent_external_id: 'a' }),
      ],
      existing,
    );
    expect(problems.map((p) => [p.row, p.reason])).toEqual([
      [2, 'invalid_account_type'],
      [3, 'unknown_parent'],
    ]);
  });
});

describe('treeProblems', () => {
  it('reports each account on a cycle, but not one that merely hangs below it', () => {
    const problems = treeProblems([
      shape('a', 'bank', 'b'),
      shape('b', 'bank', 'a'),
      shape('x', 'bank', 'a'),
    ]);
    expect(problems.map((p) => [p.external_id, p.reason])).toEqual([
      ['a', 'parent_cycle'],
      ['b', 'parent_cycle'],
    ]);
  });

  it('finds a child in another section than its parent', () => {
    expect(treeProblems([shape('cash', 'income'), shape('checking', 'bank', 'cash')])).toEqual([
      expect.objectContaining({ external_id: 'checking', reason: 'section_mismatch' }),
    ]);
  });
});

describe('text no ledger can keep', () => {
  it('refuses a NUL in a chart or counterparty cell, naming the row and column', () => {
    const chart = checkChart(
      [record(2, { external_id: 'cash', name: 'Ca\u0000sh', account_type: 'bank' })],
      [],
    );
    expect(chart.problems).toEqual([
      expect.objectContaining({ row: 2, path: 'name', reason: 'invalid_text' }),
    ]);
    const parties = checkCounterparties([
      { row: 3, values: { counterparty_type: 'customer', external_id: 'c\u00001', name: 'Ann' } },
    ]);
    expect(parties.problems).toEqual([
      expect.objectContaining({ row: 3, path: 'external_id', reason: 'invalid_text' }),
    ]);
  });
});
