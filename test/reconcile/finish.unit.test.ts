import { describe, expect, it } from 'vitest';
import { finishRefusal, undoRefusal, type FinishFacts } from '../../src/domain/reconcileFinish.js';

const FACTS: FinishFacts = {
  date: '2025-01-31',
  balance: 120_000,
  dateGiven: true,
  last: { statement_date: '2024-12-31', statement_balance_atoms: 100_000 },
  open: [],
  cleared: 120_000n,
  exponent: 2,
};

/** A refusal as code, path and reason; or what the verdict is. */
function said(v: ReturnType<typeof finishRefusal>): string {
  if (v === null || v === 'again') return String(v);
  return `${v.code} ${v.errors[0]!.path} ${v.errors[0]!.reason}`;
}

describe('whether a reconciliation may finish (finishRefusal)', () => {
  it('finishes at a zero difference with every line through the date matched', () => {
    expect(said(finishRefusal(FACTS))).toBe('null');
    expect(said(finishRefusal({ ...FACTS, last: undefined }))).toBe('null');
  });

  it('wants a date and a balance', () => {
    expect(said(finishRefusal({ ...FACTS, date: undefined }))).toBe(
      'invalid_parameters statement_date invalid_parameter',
    );
    expect(said(finishRefusal({ ...FACTS, balance: undefined }))).toBe(
      'invalid_parameters statement_balance invalid_parameter',
    );
  });

  it('is done already when the same finish is asked again with its date (a lost answer)', () => {
    const last = { statement_date: '2025-01-31', statement_balance_atoms: 120_000 };
    expect(said(finishRefusal({ ...FACTS, last }))).toBe('again');
    expect(said(finishRefusal({ ...FACTS, last, dateGiven: false }))).toBe(
      'reconcile_refused statement_date reconciled_already',
    );
  });

  it('goes forward only', () => {
    const last = { statement_date: '2025-01-31', statement_balance_atoms: 1 };
    expect(said(finishRefusal({ ...FACTS, last }))).toBe(
      'reconcile_refused statement_date not_later',
    );
  });

  it('names the difference, and the unmatched lines, in the refusal and its details', () => {
    const v = finishRefusal({ ...FACTS, cleared: 119_950n, open: [{ id: 'stl_1' }] });
    expect(said(v)).toBe('reconcile_refused statement_balance difference');
    expect(v !== null && v !== 'again' && v.message).toBe(
      'cannot finish: the statement balance 1,200.00 differs from the cleared balance 1,199.50 by 0.50; ' +
        '1 statement line(s) through 2025-01-31 are unmatched (stl_1)',
    );
    expect(v !== null && v !== 'again' && v.details).toEqual({
      difference: 50,
      unmatched: ['stl_1'],
    });
    expect(said(finishRefusal({ ...FACTS, open: [{ id: 'stl_1' }] }))).toBe(
      'reconcile_refused statement_line_id unmatched_lines',
    );
  });
});

describe('whether a reconciliation may be undone (undoRefusal)', () => {
  it('undoes the latest, by id or without one', () => {
    expect(undoRefusal({ id: 'rec_2' }, undefined, 'checking')).toBeNull();
    expect(undoRefusal({ id: 'rec_2' }, 'rec_2', 'checking')).toBeNull();
  });

  it('refuses another than the latest, and an account with none', () => {
    expect(undoRefusal({ id: 'rec_2' }, 'rec_1', 'checking')?.message).toMatch(
      /rec_1 is not the account's latest \(rec_2 is\)/,
    );
    expect(undoRefusal(undefined, 'rec_1', 'checking')?.message).toMatch(/undone meanwhile/);
    expect(undoRefusal(undefined, undefined, 'checking')?.message).toBe(
      "account 'checking' has no finished reconciliation",
    );
  });
});
