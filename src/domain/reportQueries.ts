import { isIsoDate } from './dates.js';
import type { Problem } from './errors.js';
import { checkReportQuery } from './periods.js';
import type { Adjustments } from './trialBalance.js';
import { columnsByOf, whereOf, type TagCondition } from './tags.js';

export interface TrialBalanceQuery {
  as_of: string;
  adjustments: Adjustments;
  /** Only lines whose effective tags meet every condition. */
  where?: TagCondition[];
  /** Debit and credit per value of this tag key, `(none)`, and the total (docs/close.md). */
  columns_by?: string;
}

export interface GeneralLedgerQuery {
  start_date: string;
  end_date: string;
  /** External ids; an account covers its descendants. Every account when empty. */
  accounts: string[];
  counterparty: { type: string; external_id: string } | null;
  /** Only lines whose effective tags meet every condition. */
  where?: TagCondition[];
}

type Checked<T> = { query: T } | { problems: Problem[] };

const ADJUSTMENTS: readonly Adjustments[] = ['include', 'exclude', 'worksheet'];

/** Checks trial-balance parameters as the API receives them (as_of required, adjustments one of three). */
export function checkTrialBalanceQuery(raw: {
  as_of?: unknown;
  adjustments?: unknown;
  where?: unknown;
  columns_by?: unknown;
}): Checked<TrialBalanceQuery> {
  const problems: Problem[] = [];
  const where = whereOf(raw.where, problems);
  const columnsBy = columnsByOf(raw.columns_by, problems);
  const asOf = raw.as_of;
  if (asOf === undefined || asOf === '')
    problems.push({
      path: 'as_of',
      reason: 'missing_parameter',
      message: 'as_of is required (YYYY-MM-DD)',
    });
  else if (!isIsoDate(asOf))
    problems.push({
      path: 'as_of',
      reason: 'invalid_date',
      message: `as_of '${String(asOf)}' is not a date (YYYY-MM-DD)`,
    });
  const adjustments = raw.adjustments ?? 'include';
  if (!ADJUSTMENTS.includes(adjustments as Adjustments)) {
    const message = `adjustments '${String(adjustments)}' is not one of ${ADJUSTMENTS.join(', ')}`;
    problems.push({ path: 'adjustments', reason: 'invalid_adjustments', message });
  }
  if (columnsBy && adjustments === 'worksheet')
    problems.push({
      path: 'columns_by',
      reason: 'invalid_parameters',
      message: 'columns_by gives debit and credit per value; the worksheet has its own six columns',
    });
  return problems.length
    ? { problems }
    : {
        query: {
          as_of: asOf as string,
          adjustments: adjustments as Adjustments,
          ...(where.length ? { where } : {}),
          ...(columnsBy ? { columns_by: columnsBy } : {}),
        },
      };
}

/** `TYPE:ID`, as --counterparty and the API's counterparty parameter name one. */
export function readCounterpartyRef(text: string): { type: string; external_id: string } | null {
  const m = /^(customer|vendor|employee):(.+)$/.exec(text.trim());
  return m ? { type: m[1]!, external_id: m[2]!.trim() } : null;
}

/** Checks general-ledger parameters: the window as the balance sheet's, and a counterparty TYPE:ID. */
export function checkGeneralLedgerQuery(raw: {
  start_date?: unknown;
  end_date?: unknown;
  accounts?: string[];
  counterparty?: unknown;
  where?: unknown;
}): Checked<GeneralLedgerQuery> {
  const window = checkReportQuery({
    start_date: raw.start_date,
    end_date: raw.end_date,
    where: raw.where,
  });
  const problems = 'problems' in window ? [...window.problems] : [];
  let counterparty: GeneralLedgerQuery['counterparty'] = null;
  const cp = raw.counterparty;
  if (cp !== undefined && cp !== null && cp !== '') {
    // Text as typed or sent (TYPE:ID), or a reference already read.
    counterparty = readCounterpartyRef(
      typeof cp === 'object'
        ? `${String((cp as Record<string, unknown>).type)}:${String((cp as Record<string, unknown>).external_id)}`
        : String(cp),
    );
    if (!counterparty) {
      const message = `counterparty '${String(raw.counterparty)}' is not TYPE:ID (customer, vendor or employee)`;
      problems.push({ path: 'counterparty', reason: 'invalid_counterparty', message });
    }
  }
  if (problems.length || 'problems' in window) return { problems };
  const { start_date, end_date, where } = window.query;
  return {
    query: {
      start_date,
      end_date,
      accounts: raw.accounts ?? [],
      counterparty,
      ...(where ? { where } : {}),
    },
  };
}
