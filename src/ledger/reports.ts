import type { Entity } from '../domain/accounts.js';
import { buildBalanceSheet, cutDates, type BalanceSheet } from '../domain/balanceSheet.js';
import { BooksError, errors } from '../domain/errors.js';
import {
  checkReportQuery,
  splitPeriods,
  windowTooLong,
  type ReportQuery,
} from '../domain/periods.js';
import type { ReportAccount } from '../domain/statement.js';
import type { Cumulative } from '../domain/totals.js';
import type { ReportOps } from './port.js';

/** One consistent reading of what reports are built from. */
export interface SumsSnapshot {
  entity: Entity;
  accounts: ReportAccount[];
  cuts: string[];
  /** By account key: cumulative totals at each of the cuts. */
  totals: Map<number, Cumulative>;
}

/**
 * What a database store offers so that the domain can build every report: the store only sums
 * (per-account totals cumulated to cut dates, read in one snapshot); the report engine is shared by
 * every store that has the journal in a database.
 */
export interface Sums {
  /** The entity, the chart and the totals at the cuts the entity's fiscal year calls for, at one moment. */
  snapshot(cutsFor: (entity: Entity) => string[]): Promise<SumsSnapshot>;
}

/** Raises the refusal of a report query: invalid_parameters, or CAPI69 for a window over 5 years. */
export function checkedQuery(query: ReportQuery): ReportQuery {
  const checked = checkReportQuery(query);
  if ('problems' in checked) {
    const message = checked.problems.map((p) => p.message).join('; ');
    throw new BooksError('invalid_parameters', message, checked.problems);
  }
  if (windowTooLong(query.start_date, query.end_date))
    throw errors.windowTooLong(query.start_date, query.end_date);
  return checked.query;
}

/** The reports of a store that sums: pure domain builders over its totals. */
export class ReportsFromSums implements ReportOps {
  constructor(private readonly sums: Sums) {}

  async balanceSheet(query: ReportQuery): Promise<BalanceSheet> {
    const q = checkedQuery(query);
    const periodsOf = (e: Entity) =>
      splitPeriods(q.start_date, q.end_date, q.period_type, e.fiscal_year_start_month);
    const s = await this.sums.snapshot((e) => cutDates(periodsOf(e), e.fiscal_year_start_month));
    return buildBalanceSheet({
      accounts: s.accounts,
      periods: periodsOf(s.entity),
      fiscalYearStartMonth: s.entity.fiscal_year_start_month,
      currency: s.entity.currency,
      cuts: s.cuts,
      totals: s.totals,
    });
  }
}
