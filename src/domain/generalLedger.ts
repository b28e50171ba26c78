import type { AccountType } from './accounts.js';
import type { ReportAccount } from './statement.js';
import { toJsonInteger } from './money.js';
import { fiscalYearStart } from './periods.js';

type Atoms = number | bigint;

/** An account of the general ledger with its balance before the window (null: nothing before it). */
export interface GlAccount {
  key: number;
  account_id: string;
  account_number: string | null;
  name: string;
  account_type: AccountType;
  opening: bigint | null;
  /**
   * For profit and loss: the month its fiscal year starts. Its balance is the fiscal year's, so it
   * starts again from zero at each new fiscal year inside the window (earlier years went to retained
   * earnings), and the closing balance is the trial balance's.
   */
  fiscalYearStartMonth: number | null;
}

/** What the general ledger shows of a line's entry and counterparty, as read and as shown alike. */
interface GlLineText {
  entry_id: string;
  je_number: string;
  entry_date: string;
  memo: string | null;
  line_memo: string | null;
  counterparty_type: string | null;
  counterparty_external_id: string | null;
  counterparty_name: string | null;
}

/** A journal line of an account in the window, as the store reads it. */
export interface GlLineRow extends GlLineText {
  key: number;
  line_type: 'debit' | 'credit';
  amount_atoms: number;
  /** Where the line sits, for a cursor: the entry's storage sequence and the line's number. */
  seq: number;
  line_no: number;
  /** A foreign line's amount in its account's currency and its rate; null on a functional line. */
  fx_amount_atoms: number | null;
  fx_rate: string | null;
}

/** A line as the general ledger shows it: debit or credit, and the account's running balance after it. */
export interface GlLine extends GlLineText {
  debit: Atoms | null;
  credit: Atoms | null;
  balance: Atoms;
  /** On a line of an account kept in another currency: its amount in it and the rate. */
  fx?: { amount_atoms: number; rate: string };
  /** With --show-foreign: the account's running balance in its own currency. */
  foreign_balance_atoms?: Atoms;
}

export type GlAccountHead = Omit<GlAccount, 'key' | 'opening' | 'fiscalYearStartMonth'> & {
  opening: Atoms | null;
  /** With --show-foreign, on an account kept in another currency: it, and its opening balance in it. */
  foreign_currency?: string;
  foreign_opening_atoms?: Atoms;
};

/** Where a general ledger was when it stopped: the line's place and the account's sums so far. */
export interface GlPosition {
  key: number;
  date: string;
  seq: number;
  line_no: number;
  balance: number | bigint;
  debits: number | bigint;
  credits: number | bigint;
}

/** Going on after a position: the account's sums carry on from it. */
export type GlResume = Pick<GlPosition, 'key' | 'balance' | 'debits' | 'credits'>;

/** What the general ledger is made of, in order: each account, its lines, its end. */
export type GlEvent =
  | { kind: 'account'; account: GlAccountHead; key: number }
  | { kind: 'line'; line: GlLine; at: GlPosition }
  | {
      kind: 'end';
      closing: Atoms;
      debit_total: Atoms;
      credit_total: Atoms;
      /** With --show-foreign, on an account kept in another currency: its closing balance in it. */
      foreign_closing_atoms?: Atoms;
    };

/**
 * The general ledger as a stream: for each account in chart order, its balance before the window,
 * then each of its lines with the running balance (debits minus credits), then its closing balance
 * and the window's debit and credit totals. `lines` come in the same account order; an account with
 * no balance before the window and no line in it is left out. Memory holds one batch of lines.
 */
export async function* generalLedgerEvents(
  accounts: GlAccount[],
  batches: AsyncIterable<GlLineRow[]>,
  window: { start: string; end: string },
  resume?: GlResume & { date: string },
): AsyncGenerator<GlEvent> {
  const it = batches[Symbol.asyncIterator]();
  let batch: GlLineRow[] = [];
  let i = 0;
  // The next line, reading a batch when one is used up; undefined after the last.
  const peek = async (): Promise<GlLineRow | undefined> => {
    while (i >= batch.length) {
      const next = await it.next();
      if (next.done) return undefined;
      [batch, i] = [next.value, 0];
    }
    return batch[i];
  };
  // A reader that stops early (a page of the API) closes the lines too: a store reads them in a
  // transaction on a connection of its own, held until the stream ends.
  try {
    for (const a of accounts) {
      let r = await peek();
      const resumed = resume?.key === a.key;
      if (r?.key !== a.key && a.opening === null && !resumed) continue;
      const { key: _k, opening, fiscalYearStartMonth: fy, ...head } = a;
      yield {
        kind: 'account',
        key: a.key,
        account: { ...head, opening: opening === null ? null : toJsonInteger(opening) },
      };
      let [balance, debits, credits]: [Sum, Sum, Sum] = resumed
        ? [resume.balance, resume.debits, resume.credits]
        : [opening === null ? 0 : toJsonInteger(opening), 0, 0];
      // The first day of the next fiscal year, where a profit-and-loss balance starts again.
      let yearEnds = fy === null ? AFTER_ALL : nextYear(resumed ? resume.date : window.start, fy);
      for (; r?.key === a.key; i++, r = await peek()) {
        const amount = r.amount_atoms;
        if (r.entry_date >= yearEnds) [balance, yearEnds] = [0, nextYear(r.entry_date, fy!)];
        if (r.line_type === 'debit')
          [balance, debits] = [add(balance, amount), add(debits, amount)];
        else [balance, credits] = [add(balance, -amount), add(credits, amount)];
        const at = {
          key: a.key,
          date: r.entry_date,
          seq: r.seq,
          line_no: r.line_no,
          balance,
          debits,
          credits,
        };
        yield { kind: 'line', line: glLine(r, balance), at };
      }
      // A new fiscal year begun after its last line: the year's balance is nothing yet.
      if (window.end >= yearEnds) balance = 0;
      yield { kind: 'end', closing: balance, debit_total: debits, credit_total: credits };
    }
  } finally {
    await it.return?.();
  }
}

const AFTER_ALL = '\uffff';

/** The first day of the fiscal year after the one a date is in. */
function nextYear(date: string, fy: number): string {
  const start = fiscalYearStart(date, fy);
  return `${Number(start.slice(0, 4)) + 1}${start.slice(4)}`;
}

/** A running sum, exact: a number while it is a safe integer, a bigint past that. */
type Sum = number | bigint;

function add(sum: Sum, amount: number): Sum {
  if (typeof sum === 'number') {
    const s = sum + amount;
    // Safe integers add exactly unless the result leaves the safe range: then add as bigints.
    return Number.isSafeInteger(s) ? s : BigInt(sum) + BigInt(amount);
  }
  return toJsonInteger(sum + BigInt(amount));
}

function glLine(r: GlLineRow, balance: Atoms): GlLine {
  return {
    entry_id: r.entry_id,
    je_number: r.je_number,
    entry_date: r.entry_date,
    memo: r.memo,
    line_memo: r.line_memo,
    counterparty_type: r.counterparty_type,
    counterparty_external_id: r.counterparty_external_id,
    counterparty_name: r.counterparty_name,
    debit: r.line_type === 'debit' ? r.amount_atoms : null,
    credit: r.line_type === 'credit' ? r.amount_atoms : null,
    balance,
    ...(r.fx_amount_atoms !== null
      ? { fx: { amount_atoms: r.fx_amount_atoms, rate: r.fx_rate ?? '0' } }
      : {}),
  };
}

/** A general ledger read whole (the API's pages put together), as JSON shows it. */
export interface GeneralLedger {
  start_date: string;
  end_date: string;
  reporting_currency: string;
  accounts: (GlAccountHead & {
    lines: GlLine[];
    closing: Atoms;
    debit_total: Atoms;
    credit_total: Atoms;
  })[];
}

/**
 * The accounts a general ledger covers, in chart order (account number, then name): those named by
 * external id or account number with every account below them, or every account. Names that match no account are
 * returned apart, to be refused.
 */
export function glAccountsOf(
  accounts: ReportAccount[],
  externalIds: string[],
): { selected: ReportAccount[]; unknown: string[] } {
  // By external id, then by account number (as the command line names accounts).
  const byExt = new Map(accounts.map((a) => [a.external_id, a]));
  for (const a of accounts)
    if (a.account_number && !byExt.has(a.account_number)) byExt.set(a.account_number, a);
  const unknown = externalIds.filter((id) => !byExt.has(id));
  let keys: Set<number>;
  if (externalIds.length === 0) keys = new Set(accounts.map((a) => a.key));
  else {
    keys = new Set(externalIds.flatMap((id) => (byExt.has(id) ? [byExt.get(id)!.key] : [])));
    // Descendants: walk until no account is added.
    for (let grew = true; grew;) {
      grew = false;
      for (const a of accounts) {
        if (a.parent_key !== null && keys.has(a.parent_key) && !keys.has(a.key))
          grew = keys.add(a.key) !== null;
      }
    }
  }
  const order = (a: { account_number: string | null; name: string }) =>
    `${a.account_number ?? '\uffff'}\u0000${a.name}`;
  const selected = accounts
    .filter((a) => keys.has(a.key))
    .sort((x, y) => (order(x) < order(y) ? -1 : order(x) > order(y) ? 1 : 0));
  return { selected, unknown };
}
