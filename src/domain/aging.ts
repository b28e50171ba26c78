import { dateOfDay, dayNumber, isIsoDate, LAST_DAY } from './dates.js';
import type { Problem } from './errors.js';
import type { GlLineRow } from './generalLedger.js';
import { toJsonInteger } from './money.js';
import { readCounterpartyRef } from './reportQueries.js';
import type { ReportAccount } from './statement.js';

export type AgingType = 'receivable' | 'payable';
export const AGING_TYPES: readonly AgingType[] = ['receivable', 'payable'];
export const DEFAULT_BUCKETS = [30, 60, 90];

export interface AgingQuery {
  type: AgingType;
  as_of: string;
  /** Day limits of the buckets, rising (30,60,90 gives 0-30, 31-60, 61-90, 91+). */
  buckets: number[];
  /** Age from the entry date plus this many days, with a Current column (null: from the entry date). */
  due_days: number | null;
  counterparty: { type: string; external_id: string } | null;
  /** External ids or numbers of the accounts (every receivable, resp. payable, account when empty). */
  accounts: string[];
}

export interface AgingBucket {
  id: string;
  min_days: number | null;
  max_days: number | null;
}

type Atoms = number | bigint;

/** An open item: what is left of an invoice (bill) after the payments applied to it. */
export interface AgingItem {
  entry_id: string;
  je_number: string;
  entry_date: string;
  /** Null when it falls after 9999-12-31, the last date there is. */
  due_date: string | null;
  days: number;
  bucket: string;
  account_id: string;
  memo: string | null;
  original_atoms: Atoms;
  open_atoms: Atoms;
}

export interface AgingRow {
  counterparty_type: string | null;
  counterparty_external_id: string | null;
  name: string;
  amounts: Record<string, Atoms>;
  unapplied: Atoms;
  total: Atoms;
  items: AgingItem[];
}

export interface AgingReport {
  as_of: string;
  type: AgingType;
  reporting_currency: string;
  buckets: AgingBucket[];
  rows: AgingRow[];
  totals: { amounts: Record<string, Atoms>; unapplied: Atoms; total: Atoms };
}

const asInt = (v: unknown): number | null => {
  const n =
    typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : NaN;
  return Number.isSafeInteger(n) && n >= 0 ? n : null;
};

/** Checks an aging query as the API receives it (buckets as `30,60,90`); problems name the parameter. */
export function checkAgingQuery(raw: {
  type?: unknown;
  as_of?: unknown;
  buckets?: unknown;
  due_days?: unknown;
  counterparty?: unknown;
  accounts?: unknown;
}): { query: AgingQuery } | { problems: Problem[] } {
  const problems: Problem[] = [];
  const add = (path: string, reason: string, message: string) =>
    problems.push({ path, reason, message });
  if (!AGING_TYPES.includes(raw.type as AgingType))
    add(
      'type',
      'invalid_type',
      `type '${String(raw.type ?? '')}' is not one of ${AGING_TYPES.join(', ')}`,
    );
  if (raw.as_of === undefined || raw.as_of === '')
    add('as_of', 'missing_parameter', 'as_of is required (YYYY-MM-DD)');
  else if (!isIsoDate(raw.as_of))
    add('as_of', 'invalid_date', `as_of '${String(raw.as_of)}' is not a date (YYYY-MM-DD)`);
  let buckets = DEFAULT_BUCKETS;
  if (raw.buckets !== undefined && raw.buckets !== '') {
    const given = Array.isArray(raw.buckets) ? raw.buckets : String(raw.buckets).split(',');
    const limits = given.map(asInt);
    const rising = limits.every((l, i) => l !== null && l > 0 && (i === 0 || l > limits[i - 1]!));
    if (!rising || limits.length === 0 || limits.length > 12)
      add(
        'buckets',
        'invalid_buckets',
        `buckets '${given.join(',')}' are not 1 to 12 rising day limits above 0 (30,60,90)`,
      );
    else buckets = limits as number[];
  }
  let dueDays: number | null = null;
  if (raw.due_days !== undefined && raw.due_days !== null && raw.due_days !== '') {
    dueDays = asInt(raw.due_days);
    if (dueDays === null || dueDays > 3650)
      add(
        'due_days',
        'invalid_due_days',
        `due_days '${String(raw.due_days)}' is not a whole number of days (0 to 3650)`,
      );
  }
  let counterparty: AgingQuery['counterparty'] = null;
  if (raw.counterparty !== undefined && raw.counterparty !== '' && raw.counterparty !== null) {
    counterparty = readCounterpartyRef(String(raw.counterparty));
    if (!counterparty)
      add(
        'counterparty',
        'invalid_counterparty',
        `counterparty '${String(raw.counterparty)}' is not TYPE:ID (customer:ACME)`,
      );
  }
  const accounts = Array.isArray(raw.accounts)
    ? raw.accounts.map(String)
    : typeof raw.accounts === 'string' && raw.accounts
      ? [raw.accounts]
      : [];
  if (problems.length) return { problems };
  return {
    query: {
      type: raw.type as AgingType,
      as_of: raw.as_of as string,
      buckets,
      due_days: dueDays,
      counterparty,
      accounts,
    },
  };
}

/** The columns: Current when aging from a due date, then the day ranges, the last open-ended. */
export function agingBuckets(limits: number[], due: boolean): AgingBucket[] {
  const out: AgingBucket[] = due ? [{ id: 'current', min_days: null, max_days: 0 }] : [];
  let from = due ? 1 : 0;
  for (const l of limits) {
    out.push({ id: `${from}-${l}`, min_days: from, max_days: l });
    from = l + 1;
  }
  out.push({ id: `${from}+`, min_days: from, max_days: null });
  return out;
}

/** The account types an aging reads by default. */
export const AGING_ACCOUNT_TYPE = {
  receivable: 'accounts_receivable',
  payable: 'accounts_payable',
} as const;

interface Group {
  open: Open[];
  unapplied: bigint;
  name: string;
  type: string | null;
  id: string | null;
}

interface Open {
  line: GlLineRow;
  account: ReportAccount;
  original: bigint;
  open: bigint;
}

/**
 * Open items first-in-first-out: per counterparty and account, in the order of entry date then JE
 * number (the general ledger's), a line that increases the balance is an item; one that decreases
 * it is applied to the oldest open items first, and what no item absorbs waits as an unapplied
 * credit, which later items absorb first. The report's total is therefore the accounts' balance.
 */
export class AgingBuilder {
  private readonly groups = new Map<string, Group>();
  private readonly byKey: Map<number, ReportAccount>;

  constructor(
    private readonly q: AgingQuery,
    accounts: ReportAccount[],
  ) {
    this.byKey = new Map(accounts.map((a) => [a.key, a]));
  }

  add(line: GlLineRow): void {
    const account = this.byKey.get(line.key)!;
    const debit = line.line_type === 'debit';
    // Receivables grow by debits, payables by credits.
    const grows = this.q.type === 'receivable' ? debit : !debit;
    const amount = BigInt(line.amount_atoms);
    // Payments apply within their own account: a group is a counterparty's lines on one account.
    const id = `${line.counterparty_type ?? ''}\u0000${line.counterparty_external_id ?? ''}\u0000${line.key}`;
    let g = this.groups.get(id);
    if (!g) {
      g = {
        open: [],
        unapplied: 0n,
        name: line.counterparty_name ?? '(no counterparty)',
        type: line.counterparty_type,
        id: line.counterparty_external_id,
      };
      this.groups.set(id, g);
    }
    if (grows) {
      const absorbed = g.unapplied < amount ? g.unapplied : amount;
      g.unapplied -= absorbed;
      if (amount - absorbed > 0n)
        g.open.push({ line, account, original: amount, open: amount - absorbed });
      return;
    }
    let left = amount;
    while (left > 0n && g.open.length) {
      const first = g.open[0]!;
      const take = first.open < left ? first.open : left;
      first.open -= take;
      left -= take;
      if (first.open === 0n) g.open.shift();
    }
    g.unapplied += left;
  }

  /** A counterparty's row: its open items by age, oldest first, and what is unapplied. */
  private row(g: Group, buckets: AgingBucket[]) {
    const asOf = dayNumber(this.q.as_of);
    const bucketOf = (days: number) =>
      buckets.find(
        (b) =>
          (b.min_days === null || days >= b.min_days) &&
          (b.max_days === null || days <= b.max_days),
      )!.id;
    g.open.sort(
      (x, y) =>
        cmp(x.line.entry_date, y.line.entry_date) ||
        x.line.seq - y.line.seq ||
        x.line.line_no - y.line.line_no,
    );
    const amounts = zeroCells(buckets);
    const items: AgingItem[] = [];
    for (const o of g.open) {
      const dueDate = dayNumber(o.line.entry_date) + (this.q.due_days ?? 0);
      const days = asOf - dueDate;
      const bucket = bucketOf(days);
      amounts[bucket]! += o.open;
      items.push({
        entry_id: o.line.entry_id,
        je_number: o.line.je_number,
        entry_date: o.line.entry_date,
        // Due after the last date a ledger holds: no date to name (the item is current).
        due_date: dueDate > LAST_DAY ? null : dateOfDay(dueDate),
        days,
        bucket,
        account_id: o.account.id,
        memo: o.line.line_memo ?? o.line.memo,
        original_atoms: toJsonInteger(o.original),
        open_atoms: toJsonInteger(o.open),
      });
    }
    // An unapplied credit lowers the balance: negative in the account's sign, so a row adds across.
    const unapplied = -g.unapplied;
    let total = unapplied;
    for (const b of buckets) total += amounts[b.id]!;
    return {
      counterparty_type: g.type,
      counterparty_external_id: g.id,
      name: g.name,
      amounts,
      unapplied,
      total,
      items,
    };
  }

  build(currency: string): AgingReport {
    const due = this.q.due_days !== null;
    const buckets = agingBuckets(this.q.buckets, due);
    const totals = { amounts: zeroCells(buckets), unapplied: 0n, total: 0n };
    const rows: AgingRow[] = [];
    // A row per counterparty: its groups (one per account) together, open items by date.
    const byParty = new Map<string, Group>();
    for (const g of this.groups.values()) {
      const id = `${g.type ?? ''}\u0000${g.id ?? ''}`;
      const had = byParty.get(id);
      if (!had) byParty.set(id, { ...g, open: [...g.open] });
      else {
        had.open.push(...g.open);
        had.unapplied += g.unapplied;
      }
    }
    const groups = [...byParty.values()].sort(
      (x, y) =>
        cmp(x.name, y.name) || cmp(x.type ?? '', y.type ?? '') || cmp(x.id ?? '', y.id ?? ''),
    );
    for (const g of groups) {
      if (!g.open.length && g.unapplied === 0n) continue;
      const row = this.row(g, buckets);
      for (const b of buckets) totals.amounts[b.id]! += row.amounts[b.id]!;
      totals.unapplied += row.unapplied;
      totals.total += row.total;
      rows.push({
        ...row,
        amounts: jsonCells(row.amounts),
        unapplied: toJsonInteger(row.unapplied),
        total: toJsonInteger(row.total),
      });
    }
    return {
      as_of: this.q.as_of,
      type: this.q.type,
      reporting_currency: currency,
      buckets,
      rows,
      totals: {
        amounts: jsonCells(totals.amounts),
        unapplied: toJsonInteger(totals.unapplied),
        total: toJsonInteger(totals.total),
      },
    };
  }
}

const zeroCells = (buckets: AgingBucket[]) =>
  Object.fromEntries(buckets.map((b) => [b.id, 0n])) as Record<string, bigint>;

const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);

function jsonCells(cells: Record<string, bigint>): Record<string, Atoms> {
  return Object.fromEntries(Object.entries(cells).map(([k, v]) => [k, toJsonInteger(v)]));
}

/** A counterparty with what it owes and is owed on a date: the totals of its aging rows. */
export type CounterpartyBalance<C> = C & {
  receivable_balance: Atoms;
  payable_balance: Atoms;
};

/**
 * Each counterparty's receivable and payable balance on the date of two agings (one of each type):
 * its row's total, in the account's sign, or zero where it has none.
 */
export function counterpartyBalances<C extends { counterparty_type: string; external_id: string }>(
  counterparties: C[],
  receivable: AgingReport,
  payable: AgingReport,
): CounterpartyBalance<C>[] {
  const totals = (r: AgingReport) =>
    new Map(
      r.rows.map((row) => [`${row.counterparty_type}:${row.counterparty_external_id}`, row.total]),
    );
  const [rec, pay] = [totals(receivable), totals(payable)];
  return counterparties.map((c) => {
    const key = `${c.counterparty_type}:${c.external_id}`;
    return { ...c, receivable_balance: rec.get(key) ?? 0, payable_balance: pay.get(key) ?? 0 };
  });
}
