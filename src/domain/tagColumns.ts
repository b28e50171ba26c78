import { columnCuts, type StatementInput } from './balanceSheet.js';
import type { Period } from './periods.js';
import { NO_TAG } from './tags.js';
import type { Cumulative } from './totals.js';
import type { TrialBalance, TrialBalanceRow } from './trialBalance.js';

/** One column of `--columns-by`: a value's lines (or those without the key), or all of them. */
export interface TagColumn {
  /** The column's id in the report: `key:value`, `key:(none)`, or `total`. */
  id: string;
  label: string;
  totals: Map<number, Cumulative>;
  adjusting: Map<number, Cumulative>;
}

/** The columns of a split by `key`: each value's, `(none)`, then the total. */
export function tagColumns(
  key: string,
  values: string[],
  parts: { totals: Map<number, Cumulative>; adjusting: Map<number, Cumulative> }[],
  total: { totals: Map<number, Cumulative>; adjusting: Map<number, Cumulative> },
): TagColumn[] {
  return [
    ...values.map((v, i) => ({ id: `${key}:${v}`, label: v, ...parts[i]! })),
    { id: `${key}:${NO_TAG}`, label: NO_TAG, ...parts[values.length]! },
    { id: 'total', label: 'Total', ...total },
  ];
}

/** Whether a column has a line within one period (a value used only outside the window has none). */
export function hasLines(c: TagColumn, at: { end: number; before: number }): boolean {
  for (const t of c.totals.values()) if (t.count[at.end]! - t.count[at.before]! > 0) return true;
  return false;
}

/**
 * A statement's input with one column per tag column over one period (the window): the columns'
 * cumulative totals one after another, each column's cuts where its totals are. The statement's
 * builders then give, column by column, what each would give alone.
 */
export function splitInput(input: StatementInput, columns: TagColumn[]): StatementInput {
  const [window] = input.periods as [Period];
  const one = columnCuts({ ...input, periods: [window] });
  const width = input.cuts.length;
  const totals = new Map<number, Cumulative>();
  const zero: Cumulative = {
    net: Array.from({ length: width }, () => 0n),
    count: Array.from({ length: width }, () => 0),
  };
  for (const a of input.accounts) {
    const parts = columns.map((c) => c.totals.get(a.key) ?? zero);
    if (parts.every((p) => p === zero)) continue;
    totals.set(a.key, {
      net: parts.flatMap((p) => p.net),
      count: parts.flatMap((p) => p.count),
    });
  }
  const shift = (i: number) => columns.map((_, c) => c * width + i);
  return {
    ...input,
    periods: columns.map((c) => ({ ...window, id: c.id, label: c.label })),
    cuts: columns.flatMap(() => input.cuts),
    totals,
    columnAt: {
      ends: shift(one.ends[0]!),
      befores: shift(one.befores[0]!),
      fyBefores: shift(one.fyBefores[0]!),
    },
  };
}

/**
 * The trial balance with debit and credit per tag column (`key:value:debit`…), the total's own
 * `debit` and `credit` last: rows as the total's (every account with a line in some column has one
 * in the total), each column's cells where it has the row.
 */
export function splitTrialBalance(
  total: TrialBalance,
  parts: { id: string; tb: TrialBalance }[],
): TrialBalance {
  const keyOf = (r: TrialBalanceRow) => r.account_id ?? r.account_kind;
  const columns = [...parts.flatMap((p) => [`${p.id}:debit`, `${p.id}:credit`]), ...total.columns];
  const byPart = parts.map((p) => new Map(p.tb.rows.map((r) => [keyOf(r), r])));
  const rows = total.rows.map((r) => {
    const { debit, credit, ...head } = r;
    const out: TrialBalanceRow = { ...head };
    parts.forEach((p, i) => {
      const mine = byPart[i]!.get(keyOf(r));
      out[`${p.id}:debit`] = (mine?.debit as TrialBalanceRow['debit']) ?? null;
      out[`${p.id}:credit`] = (mine?.credit as TrialBalanceRow['credit']) ?? null;
    });
    return { ...out, debit: debit ?? null, credit: credit ?? null };
  });
  const totals: TrialBalance['totals'] = {};
  parts.forEach((p) => {
    totals[`${p.id}:debit`] = p.tb.totals.debit!;
    totals[`${p.id}:credit`] = p.tb.totals.credit!;
  });
  return { ...total, columns, rows, totals: { ...totals, ...total.totals } };
}
