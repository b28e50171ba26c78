import { describe, expect, it } from 'vitest';
import { readTags, tagsText } from '../../src/domain/tags.js';
import { TagTotals } from '../../src/domain/tagTotals.js';

describe('tags as the ledger keeps them', () => {
  it('stores no text for an empty set, as for none', () => {
    expect(tagsText(readTags({}, 'tags', []))).toBeNull();
    expect(tagsText(readTags(undefined, 'tags', []))).toBeNull();
    expect(tagsText(readTags({ b: '2', a: '1' }, 'tags', []))).toBe('{"a":"1","b":"2"}');
  });

  it('finds tags given before without reading them again, and still refuses a bad one beside good ones', () => {
    const first = readTags({ project: 'alpha', class: 'c1' }, 'tags', [])!;
    expect(readTags({ project: 'alpha', class: 'c1' }, 'tags', [])).toBe(first);
    expect(readTags({ class: 'c1', project: 'alpha' }, 'tags', [])).toBe(first);
    for (const bad of [
      { project: 'alpha', class: 'c1', Bad: 'x' },
      { project: 'alpha', class: 1 },
      { project: 'alpha', class: ' c1' },
    ]) {
      const problems: { path: string }[] = [];
      expect(readTags(bad, 'tags', problems as never)).toBeNull();
      expect(problems.length).toBe(1);
    }
    expect(readTags({ project: 'alpha' }, 'tags', [])).toEqual({ project: 'alpha' });
    const named = JSON.parse('{"constructor":"x"}') as unknown;
    expect(readTags(named, 'tags', [])).toEqual(named);
    expect(readTags(named, 'tags', [])).toBe(readTags(named, 'tags', []));
  });

  it('sums by tag exactly, and a writer kept open forgets the pairs it numbered once written', () => {
    const totals = new TagTotals();
    const line = (n: number, amount: number) => ({
      account: { key: 7 },
      line_type: 'debit' as const,
      amount_atoms: amount,
      tags: readTags({ invoice: `inv-${n}`, project: 'alpha' }, 'tags', [])!,
    });
    for (let n = 0; n < 20_000; n++)
      totals.add({ entry_date: '2025-03-02', is_adjusting: false, lines: [line(n, 1)] });
    const rows = totals.rows();
    expect(rows.length).toBe(20_001);
    expect(rows.find((r) => r[2] === 'project')).toEqual([
      7,
      '2025-03',
      'project',
      'alpha',
      20_000,
      20_000,
      0,
      0,
    ]);
    totals.clear();
    expect(totals.numbered).toBeLessThan(20_000);
    totals.add({ entry_date: '2025-04-01', is_adjusting: true, lines: [line(3, 5)] });
    expect(totals.rows()).toEqual([
      [7, '2025-04', 'invoice', 'inv-3', 5, 1, 5, 1],
      [7, '2025-04', 'project', 'alpha', 5, 1, 5, 1],
    ]);
    // Past 2^53 a sum goes on exactly, as a bigint.
    totals.clear();
    for (let n = 0; n < 3; n++)
      totals.add({ entry_date: '2025-05-01', is_adjusting: false, lines: [line(9, 4e15)] });
    expect(totals.rows()[1]!.slice(4)).toEqual([12_000_000_000_000_000n, 3, 0, 0]);
  });
});
