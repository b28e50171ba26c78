import { describe, expect, it } from 'vitest';
import {
  brokenReversal,
  currencyReadable,
  entityProblems,
  entryProblems,
  totalsDrift,
  unbalancedEntry,
} from '../../src/domain/check.js';
import { numberingProblem } from '../../src/domain/jeNumber.js';

const SOUND = {
  name: 'Test Co',
  currency: 'USD',
  books_start: '2025-01-01',
  fiscal_year_start_month: 4,
  lock_date: '2025-03-31',
};

const reasons = (problems: { path: string; reason: string }[]) =>
  problems.map((p) => `${p.path} ${p.reason}`);

describe('books check: the entity row (entityProblems)', () => {
  it('passes settings that books init, close and the First Month of Books write', () => {
    expect(entityProblems(SOUND, { je_number: 'JE-1', entry_date: '2025-01-01' })).toEqual([]);
    expect(entityProblems({ ...SOUND, books_start: null, lock_date: null })).toEqual([]);
  });

  it('names every setting no command writes, by its column', () => {
    const bad = {
      name: ' ',
      currency: 'usd',
      books_start: '2025-01-15',
      fiscal_year_start_month: 13,
      lock_date: 'garbage',
    };
    expect(reasons(entityProblems(bad))).toEqual([
      'entity.name invalid_entity',
      'entity.currency invalid_entity',
      'entity.books_start invalid_entity',
      'entity.fiscal_year_start_month invalid_entity',
      'entity.lock_date invalid_entity',
    ]);
    expect(currencyReadable(entityProblems(bad))).toBe(false);
    expect(currencyReadable(entityProblems({ ...bad, currency: 'EUR' }))).toBe(true);
  });

  it('names the first entry dated before the books start', () => {
    const p = entityProblems(SOUND, { je_number: 'JE-4', entry_date: '2024-12-31' });
    expect(p).toEqual([
      {
        path: 'JE-4',
        reason: 'before_books_start',
        message: 'JE-4 is dated 2024-12-31, before the books start (2025-01-01)',
      },
    ]);
  });
});

describe('books check: entries and their derived data', () => {
  it('names dates that are no day and currencies other than the entity’s, with how many more', () => {
    const p = entryProblems(
      {
        dates: [
          { entry_date: '2025-02-28', je_number: 'JE-1', n: 4 },
          { entry_date: '2025-02-30', je_number: 'JE-2', n: 3 },
        ],
        currencies: [
          { currency: 'USD', je_number: 'JE-1', n: 5 },
          { currency: 'EUR', je_number: 'JE-9', n: 1 },
        ],
      },
      'USD',
    );
    expect(p.map((x) => x.message)).toEqual([
      "JE-2 (and 2 more) is dated '2025-02-30', which is no date",
      "JE-9 is in EUR, not the entity's USD",
    ]);
  });

  it('says what an unbalanced entry, a drifted total and a lost reversal hold', () => {
    expect(
      unbalancedEntry({ je_number: 'JE-5', d: 10, c: 9n, total_atoms: 10, n: 2, line_count: 3 })
        .message,
    ).toBe('JE-5: debits 10, credits 9, recorded total 10, 2 lines (recorded 3)');
    expect(
      totalsDrift({
        external_id: 'cash',
        month: '2025-03',
        net: 5,
        n: 1,
        adj_net: 0,
        adj_n: 0,
        tnet: null,
        tn: null,
        tadj_net: null,
        tadj_n: null,
      }).message,
    ).toContain("derived total for account 'cash' in 2025-03 is missing atoms");
    expect(brokenReversal('JE-8').path).toBe('JE-8');
  });
});

describe('books check: numbering (numberingProblem)', () => {
  it('passes a JE-n kept as n once, and a number that is not JE-n kept nowhere', () => {
    expect(numberingProblem('JE-12', 12n, null)).toBeNull();
    expect(numberingProblem('JE-12', null, 12n)).toBeNull();
    expect(numberingProblem('INV-7', null, null)).toBeNull();
  });

  it('names a JE-n automatic numbering could give again, or one kept twice or wrongly', () => {
    expect(numberingProblem('JE-12', null, null)).toMatch(/kept for numbering not at all/);
    expect(numberingProblem('JE-12', 11n, null)).toMatch(/kept for numbering as 11/);
    expect(numberingProblem('JE-12', 12n, 12n)).toMatch(/twice/);
    expect(numberingProblem('JE-012', 12n, null)).toMatch(/is not JE-n/);
    expect(numberingProblem('INV-7', 7n, null)).toMatch(/is not JE-n/);
  });
});
