import { cutDates } from '../../domain/balanceSheet.js';
import { dayBefore } from '../../domain/dates.js';
import { buildIncomeStatement, type IncomeStatement } from '../../domain/incomeStatement.js';
import type { ReportQuery } from '../../domain/periods.js';
import type { TrialBalanceQuery } from '../../domain/reportQueries.js';
import { hasLines, splitInput, splitTrialBalance, tagColumns } from '../../domain/tagColumns.js';
import {
  buildTrialBalance,
  trialBalanceCuts,
  type TrialBalance,
} from '../../domain/trialBalance.js';
import type { Sums } from './reports.js';
import { NO_TAG } from '../../domain/tags.js';

/**
 * The income statement with one column per value of a tag key over the window, `(none)` for the
 * lines without it, and Total, the statement without the split; every column from one snapshot, so
 * that the columns add up to Total. A value with no line in the window has no column; `(none)`
 * always has one.
 */
export async function incomeStatementByTag(sums: Sums, q: ReportQuery): Promise<IncomeStatement> {
  const key = q.columns_by!;
  const window = { id: 'total', label: 'Total', start_date: q.start_date, end_date: q.end_date };
  const s = await sums.snapshot((e) => cutDates([window], e.fiscal_year_start_month), {
    ...(q.where ? { where: q.where } : {}),
    split: key,
  });
  const input = {
    accounts: s.accounts,
    periods: [window],
    fiscalYearStartMonth: s.entity.fiscal_year_start_month,
    currency: s.entity.currency,
    cuts: s.cuts,
    totals: s.totals,
  };
  const at = new Map(s.cuts.map((d, i) => [d, i]));
  const span = { end: at.get(q.end_date)!, before: at.get(dayBefore(q.start_date))! };
  const columns = tagColumns(key, s.split!.values, s.split!.columns, s).filter(
    (c) => c.id === 'total' || c.label === NO_TAG || hasLines(c, span),
  );
  return { ...buildIncomeStatement(splitInput(input, columns)), columns_by: key };
}

/**
 * The trial balance with debit and credit per value of a tag key, `(none)`, and the total's own
 * debit and credit (the trial balance without the split), from one snapshot.
 */
export async function trialBalanceByTag(sums: Sums, q: TrialBalanceQuery): Promise<TrialBalance> {
  const key = q.columns_by!;
  const s = await sums.snapshot((e) => trialBalanceCuts(q.as_of, e.fiscal_year_start_month), {
    ...(q.where ? { where: q.where } : {}),
    split: key,
  });
  const base = {
    accounts: s.accounts,
    asOf: q.as_of,
    fiscalYearStartMonth: s.entity.fiscal_year_start_month,
    currency: s.entity.currency,
    adjustments: q.adjustments,
    cuts: s.cuts,
  };
  const total = buildTrialBalance({ ...base, totals: s.totals, adjusting: s.adjusting });
  const parts = tagColumns(key, s.split!.values, s.split!.columns, s)
    .filter((c) => c.id !== 'total')
    .map((c) => ({ id: c.id, tb: buildTrialBalance({ ...base, ...c }) }))
    .filter((p) => p.id.endsWith(`:${NO_TAG}`) || p.tb.rows.length > 0);
  return { ...splitTrialBalance(total, parts), columns_by: key };
}
