import { ACCOUNT_TYPES, type Counterparty, type Entity } from '../../domain/accounts.js';
import { counterpartyProblem, unknownAccounts } from '../../domain/input.js';
import { buildBalanceSheet, cutDates, type BalanceSheet } from '../../domain/balanceSheet.js';
import { dayBefore, FIRST_DATE } from '../../domain/dates.js';
import { errors, type Problem, refusal } from '../../domain/errors.js';
import {
  generalLedgerEvents,
  glAccountsOf,
  type GlAccount,
  type GlEvent,
  type GlLineRow,
  type GlResume,
} from '../../domain/generalLedger.js';
import { buildIncomeStatement, type IncomeStatement } from '../../domain/incomeStatement.js';
import {
  buildCashFlow,
  cashFlowQueryProblems,
  type CashFlowStatement,
} from '../../domain/cashFlow.js';
import {
  checkReportQuery,
  fiscalYearStart,
  splitPeriods,
  windowTooLong,
  type ReportQuery,
} from '../../domain/periods.js';
import {
  checkGeneralLedgerQuery,
  checkTrialBalanceQuery,
  type GeneralLedgerQuery,
  type TrialBalanceQuery,
} from '../../domain/reportQueries.js';
import type { ReportAccount } from '../../domain/statement.js';
import type { Cumulative } from '../../domain/totals.js';
import { tagSummaries, type TagCondition, type TagSummary } from '../../domain/tags.js';
import {
  buildTrialBalance,
  trialBalanceCuts,
  type TrialBalance,
} from '../../domain/trialBalance.js';
import type { AgingQueryArgs, ReportOps } from './port.js';
import { incomeStatementByTag, trialBalanceByTag } from './byTag.js';
import {
  AgingBuilder,
  AGING_ACCOUNT_TYPE,
  checkAgingQuery,
  type AgingReport,
} from '../../domain/aging.js';
import { BudgetCells } from '../../domain/budget.js';
import { comparedColumns } from '../../domain/compare.js';

/** A budget cell as a store holds it: by the account's key. */
export interface BudgetCellRow {
  account_key: number;
  period: string;
  amount_atoms: number;
}

/** One consistent reading of what reports are built from. */
export interface SumsSnapshot {
  entity: Entity;
  accounts: ReportAccount[];
  cuts: string[];
  /** By account key: cumulative totals at each of the cuts. */
  totals: Map<number, Cumulative>;
  /** The part of the totals that adjusting entries make. */
  adjusting: Map<number, Cumulative>;
  /** With a split: the key's values (sorted), and the totals of each, then of lines without the key. */
  split?: { values: string[]; columns: SplitTotals[] };
}

/** The totals of one column of a split. */
export interface SplitTotals {
  totals: Map<number, Cumulative>;
  adjusting: Map<number, Cumulative>;
}

/** What a snapshot sums beyond every line's totals. */
export interface SumsRequest {
  /** Only the lines whose effective tags meet every condition. */
  where?: TagCondition[];
  /** Also, per value of this tag key, the lines with it (and `where`), then those without it. */
  split?: string;
}

/** The conditions of each column of a split: a value's, then the lines without the key. */
export function splitConditions(
  where: TagCondition[],
  key: string,
  values: string[],
): TagCondition[][] {
  return [
    ...values.map((value) => [...where, { key, op: 'eq' as const, value }]),
    [...where, { key, op: 'none' as const, value: null }],
  ];
}

/** The general ledger's lines a store reads: its accounts' keys in their order, the window, a position. */
export interface GlLinesQuery {
  keys: number[];
  start_date: string;
  end_date: string;
  counterparty: GeneralLedgerQuery['counterparty'];
  /** Lines of the first account after this place (the caller's keys start at the cursor's account). */
  after?: { key: number; date: string; seq: number; line_no: number };
  /** Only the lines whose effective tags meet every condition. */
  where?: TagCondition[];
}

/** Which lines counterpartySums adds up: of these accounts, with one counterparty, around two dates. */
export interface CounterpartySumsQuery {
  keys: number[];
  before: string;
  since: string;
  counterparty: NonNullable<GeneralLedgerQuery['counterparty']>;
  /** Only the lines whose effective tags meet every condition. */
  where?: TagCondition[];
}

/** Per account key: the lines' net and count before one date, and of those since the other. */
export type CounterpartySums = Map<
  number,
  { all: bigint; allCount: number; recent: bigint; recentCount: number }
>;

/**
 * What a database store offers so that the domain can build every report: the store only sums
 * (per-account totals cumulated to cut dates, read in one snapshot) and streams the general ledger's
 * lines; the report engine is shared by every store that has the journal in a database.
 */
export interface Sums {
  /** The entity, the chart and the totals at the cuts the entity's fiscal year calls for, at one moment. */
  snapshot(cutsFor: (entity: Entity) => string[], request?: SumsRequest): Promise<SumsSnapshot>;
  /** The lines of a general ledger, in its accounts' order, then by date and entry. */
  glLines(q: GlLinesQuery): AsyncIterable<GlLineRow[]>;
  /** Per account, debits minus credits (and lines) with one counterparty: before `before`, and since `since`. */
  counterpartySums(q: CounterpartySumsQuery): Promise<CounterpartySums>;
  /** The entity the ledger's books are of. */
  entity(): Promise<Entity>;
  /** Per tag key and value, the lines that carry it (from the derived totals by tag). */
  tagCounts(): Promise<{ key: string; value: string; lines: number }[]>;
  /** A random secret kept in the ledger under this name, made once: the same for every process. */
  secret(name: string): Promise<Buffer>;
}

/** Raises the refusal of a query's problems as the API's invalid_parameters. */
function refuse(problems: Problem[]): never {
  throw refusal('invalid_parameters', problems);
}

/** Raises the refusal of a report query: invalid_parameters, or CAPI69 for a window over 5 years. */
export function checkedQuery(query: ReportQuery): ReportQuery {
  const checked = checkReportQuery(query);
  if ('problems' in checked) refuse(checked.problems);
  if (windowTooLong(query.start_date, query.end_date))
    throw errors.windowTooLong(query.start_date, query.end_date);
  return checked.query;
}

/**
 * Where a general ledger goes on from (the API's cursor, decoded): an account from its start, or
 * after one of its lines with the account's sums so far.
 */
export type GlCursor = { key: number } | (NonNullable<GlLinesQuery['after']> & GlResume);

/** The reports of a store that sums: pure domain builders over its totals. */
export class ReportsFromSums implements ReportOps {
  constructor(
    private readonly sums: Sums,
    /** The entity's budget cells, by account key (`--compare budget`). */
    private readonly budgets: () => Promise<BudgetCellRow[]>,
    /** The entity's counterparties: a filter must name one of them. */
    private readonly counterparties: () => Promise<Counterparty[]>,
  ) {}

  /** Refuses a filter's counterparty the ledger does not have (an empty report would mislead). */
  private async known(ref: { type: string; external_id: string } | null | undefined) {
    if (!ref) return;
    const problem = counterpartyProblem(ref, await this.counterparties());
    if (problem) refuse([problem]);
  }

  private async statement<T extends object>(
    query: ReportQuery,
    build: typeof buildBalanceSheet | typeof buildIncomeStatement | typeof buildCashFlow,
  ): Promise<T> {
    const q = checkedQuery(query);
    const compare = q.compare ?? [];
    if (q.columns_by && build !== buildIncomeStatement)
      refuse([
        {
          path: 'columns_by',
          reason: 'invalid_parameters',
          message: 'columns_by splits the income statement and the trial balance',
        },
      ]);
    if (q.columns_by && compare.length)
      refuse([
        {
          path: 'columns_by',
          reason: 'invalid_parameters',
          message: 'columns_by makes a column per tag value over the window; it is not compared',
        },
      ]);
    if (q.columns_by) return (await incomeStatementByTag(this.sums, q)) as T;
    const columnsOf = (e: Entity) => {
      const fy = e.fiscal_year_start_month;
      const periods = splitPeriods(q.start_date, q.end_date, q.period_type, fy);
      return comparedColumns(periods, compare, q.period_type, fy);
    };
    // The 5-year window counts the compared periods too (docs/close.md).
    const entity = compare.length ? await this.sums.entity() : null;
    if (entity) {
      const first = columnsOf(entity).columns.reduce(
        (d, c) => (c.start_date < d ? c.start_date : d),
        q.start_date,
      );
      if (windowTooLong(first, q.end_date)) throw errors.windowTooLong(first, q.end_date);
    }
    const [s, budgetRows] = await Promise.all([
      this.sums.snapshot(
        (e) => cutDates(columnsOf(e).columns, e.fiscal_year_start_month),
        q.where ? { where: q.where } : {},
      ),
      compare.includes('budget') ? this.budgets() : Promise.resolve([]),
    ]);
    const fy = s.entity.fiscal_year_start_month;
    const { columns, comparisons } = columnsOf(s.entity);
    const input = {
      accounts: s.accounts,
      periods: columns.map(({ budget: _, ...p }) => p),
      fiscalYearStartMonth: fy,
      currency: s.entity.currency,
      ...(compare.includes('budget')
        ? { budget: new BudgetCells(budgetRows, columns, fy, q.period_type) }
        : {}),
    };
    const built = build({ ...input, cuts: s.cuts, totals: s.totals }) as T;
    return compare.length ? { ...built, comparisons } : built;
  }

  balanceSheet(query: ReportQuery): Promise<BalanceSheet> {
    return this.statement(query, buildBalanceSheet);
  }

  async tags(): Promise<TagSummary[]> {
    return tagSummaries(await this.sums.tagCounts());
  }

  async cursorKey(): Promise<{ secret: Buffer; scope: string }> {
    const [secret, entity] = await Promise.all([this.sums.secret('gl_cursor'), this.sums.entity()]);
    return { secret, scope: entity.id };
  }

  async aging(raw: AgingQueryArgs): Promise<AgingReport> {
    const checked = checkAgingQuery(raw);
    if ('problems' in checked) refuse(checked.problems);
    const q = checked.query;
    await this.known(q.counterparty);
    const s = await this.sums.snapshot(() => [q.as_of]);
    let selected: ReportAccount[];
    if (q.accounts.length) {
      const refs = q.accounts.map((ref) => ref.trim());
      const unknown = unknownAccounts(refs, s.accounts);
      if (unknown.length) refuse(unknown);
      selected = glAccountsOf(s.accounts, refs).selected;
    } else selected = s.accounts.filter((a) => a.account_type === AGING_ACCOUNT_TYPE[q.type]);
    const builder = new AgingBuilder(q, selected);
    if (selected.length) {
      const lines = this.sums.glLines({
        keys: selected.map((a) => a.key),
        start_date: FIRST_DATE,
        end_date: q.as_of,
        counterparty: q.counterparty,
      });
      for await (const chunk of lines) for (const l of chunk) builder.add(l);
    }
    return builder.build(s.entity.currency);
  }

  incomeStatement(query: ReportQuery): Promise<IncomeStatement> {
    return this.statement(query, buildIncomeStatement);
  }

  async cashFlow(query: ReportQuery): Promise<CashFlowStatement> {
    const problems = cashFlowQueryProblems(query);
    if (problems.length) refuse(problems);
    return this.statement(query, buildCashFlow);
  }

  async trialBalance(query: TrialBalanceQuery): Promise<TrialBalance> {
    const checked = checkTrialBalanceQuery(query);
    if ('problems' in checked) refuse(checked.problems);
    const { as_of: asOf, adjustments, where } = checked.query;
    if (checked.query.columns_by) return trialBalanceByTag(this.sums, checked.query);
    const s = await this.sums.snapshot(
      (e) => trialBalanceCuts(asOf, e.fiscal_year_start_month),
      where ? { where } : {},
    );
    const fy = s.entity.fiscal_year_start_month;
    const input = {
      accounts: s.accounts,
      asOf,
      fiscalYearStartMonth: fy,
      currency: s.entity.currency,
      adjustments,
    };
    return buildTrialBalance({ ...input, cuts: s.cuts, totals: s.totals, adjusting: s.adjusting });
  }

  async *generalLedger(query: GeneralLedgerQuery, from?: GlCursor): AsyncGenerator<GlEvent> {
    const checked = checkGeneralLedgerQuery(query);
    if ('problems' in checked) refuse(checked.problems);
    const q = checked.query;
    if (windowTooLong(q.start_date, q.end_date))
      throw errors.windowTooLong(q.start_date, q.end_date);
    await this.known(q.counterparty);
    const before = dayBefore(q.start_date);
    const s = await this.sums.snapshot(
      (e) => [dayBefore(fiscalYearStart(q.start_date, e.fiscal_year_start_month)), before],
      q.where ? { where: q.where } : {},
    );
    const refs = q.accounts.map((ref) => ref.trim());
    const unknown = unknownAccounts(refs, s.accounts);
    if (unknown.length) refuse(unknown);
    const { selected } = glAccountsOf(s.accounts, refs);
    const fromRank = from ? selected.findIndex((a) => a.key === from.key) : 0;
    // The chart changed between pages (the cursor's account no longer in the report): the pages
    // already given cannot be continued, only read again.
    if (fromRank < 0) {
      const message =
        'cursor names an account no longer in this report (the chart changed); start again';
      refuse([{ path: 'cursor', reason: 'invalid_cursor', message }]);
    }
    const accounts = await this.openings(selected.slice(fromRank), s, q);
    const mid = from && 'seq' in from ? from : undefined;
    // From an account's start: after nothing of it (every date of the account's rank is later than '').
    const after = mid ?? (from ? { key: from.key, date: '', seq: 0, line_no: 0 } : undefined);
    const lines = this.sums.glLines({
      keys: accounts.map((a) => a.key),
      ...q,
      ...(after ? { after } : {}),
    });
    yield* generalLedgerEvents(accounts, lines, { start: q.start_date, end: q.end_date }, mid);
  }

  /**
   * Each account's balance before the window: balance-sheet accounts all their history, profit and
   * loss from the start of the fiscal year the window starts in. With a counterparty, of its lines only.
   */
  private async openings(
    selected: ReportAccount[],
    s: SumsSnapshot,
    q: GeneralLedgerQuery,
  ): Promise<GlAccount[]> {
    const [fyBefore, before] = [0, 1];
    const bySide = (a: ReportAccount) =>
      ACCOUNT_TYPES[a.account_type].section === 'profit_and_loss';
    const cp = q.counterparty
      ? await this.sums.counterpartySums({
          keys: selected.map((a) => a.key),
          before: q.start_date,
          since: fiscalYearStart(q.start_date, s.entity.fiscal_year_start_month),
          counterparty: q.counterparty,
          ...(q.where ? { where: q.where } : {}),
        })
      : null;
    return selected.map((a) => {
      let net: bigint;
      let count: number;
      if (cp) {
        const c = cp.get(a.key);
        [net, count] = bySide(a)
          ? [c?.recent ?? 0n, c?.recentCount ?? 0]
          : [c?.all ?? 0n, c?.allCount ?? 0];
      } else {
        const t = s.totals.get(a.key);
        const since = bySide(a) ? 1 : 0;
        net = t ? t.net[before]! - BigInt(since) * t.net[fyBefore]! : 0n;
        count = t ? t.count[before]! - since * t.count[fyBefore]! : 0;
      }
      const head = {
        key: a.key,
        account_id: a.id,
        account_number: a.account_number,
        name: a.name,
        account_type: a.account_type,
      };
      const fiscalYearStartMonth = bySide(a) ? s.entity.fiscal_year_start_month : null;
      return { ...head, opening: count > 0 ? net : null, fiscalYearStartMonth };
    });
  }
}
