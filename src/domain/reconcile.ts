import { ACCOUNT_TYPES, type AccountType } from './accounts.js';
import { isIsoDate } from './dates.js';
import { BooksError, type Problem } from './errors.js';
import { formatAmount, MAX_ATOMS } from './money.js';

/** The longest description, reference or bank id a statement line may have (as an entry's texts). */
const MAX_TEXT = 1000;

/** The most statement lines one import may carry (a year of a busy account is far fewer). */
export const MAX_STATEMENT_LINES = 200_000;

/** A statement line as an import gives it (the API's body), in the account's own sign. */
export interface StatementLineIn {
  /** The file's row (or OFX transaction number), for messages. */
  row: number;
  date: string;
  amount_atoms: number;
  description: string | null;
  reference: string | null;
  bank_id: string | null;
  /** The running balance after the line, when the file gives one. */
  balance_atoms: number | null;
}

/** A statement as an import gives it: its lines and, from an OFX file, its closing balance. */
export interface StatementIn {
  lines: StatementLineIn[];
  closing: { date: string; balance_atoms: number } | null;
}

/** A checked statement line with the identity that finds it again in a later, overlapping file. */
export interface CheckedLine extends StatementLineIn {
  identity: string;
}

/** A statement line as the ledger holds it. */
export interface StatementLine {
  id: string;
  account_id: string;
  date: string;
  amount_atoms: number;
  description: string | null;
  reference: string | null;
  bank_id: string | null;
  state: 'unmatched' | 'matched' | 'ignored';
  /** The ledger lines it is matched with. */
  line_ids: string[];
  reconciliation_id: string | null;
}

/** A ledger line of the account as reconciliation shows it, in the account's sign. */
export interface ReconLine {
  line_id: string;
  entry_id: string;
  je_number: string;
  entry_date: string;
  memo: string | null;
  line_memo: string | null;
  counterparty_name: string | null;
  amount_atoms: number;
  state: LineState;
  /** The date it counts as cleared from: its statement line's, or its own when ticked by hand. */
  cleared_date: string | null;
}

/** A line's state: blank (neither), cleared (matched or ticked), or reconciled. */
export type LineState = 'uncleared' | 'cleared' | 'reconciled';

/** A finished reconciliation. */
export interface Reconciliation {
  id: string;
  account_id: string;
  statement_date: string;
  statement_balance_atoms: number;
  line_count: number;
  finished_at: string;
}

/** The id of a journal line as the API names it (`jel_<seq>_<n>`), read back. */
export function parseLineId(id: string): { seq: number; line_no: number } | null {
  const m = /^jel_([1-9]\d{0,15})_([1-9]\d{0,3})$/.exec(id.trim());
  if (!m) return null;
  const seq = Number(m[1]);
  return Number.isSafeInteger(seq) ? { seq, line_no: Number(m[2]) } : null;
}

export const lineIdOf = (seq: number, lineNo: number): string => `jel_${seq}_${lineNo}`;

/** A ledger line as a person names it: its entry's JE number and its line's number (`JE-12:2`). */
export const jeLineOf = (l: { je_number: string; line_id: string }): string =>
  `${l.je_number}:${parseLineId(l.line_id)?.line_no ?? '?'}`;

/**
 * +1 when the account's own sign is debits minus credits (assets: money in is positive), −1 when it
 * is credits minus debits (liabilities: a card's charge is positive); null for an account a statement
 * cannot be of.
 */
export function accountSign(type: AccountType): 1 | -1 | null {
  const section = ACCOUNT_TYPES[type].section;
  return section === 'assets' ? 1 : section === 'liabilities' ? -1 : null;
}

/** Why an account cannot be reconciled, or null. */
export function reconcilableProblem(a: {
  external_id: string;
  account_type: AccountType;
  is_postable: boolean;
  is_active: boolean;
}): string | null {
  if (accountSign(a.account_type) === null)
    return (
      `account '${a.external_id}' is of type ${a.account_type}; only a balance-sheet asset or ` +
      'liability account (normally bank or credit_card) has a statement to reconcile'
    );
  if (!a.is_postable)
    return `account '${a.external_id}' is a header account; reconcile a postable account`;
  if (!a.is_active) return `account '${a.external_id}' is inactive`;
  return null;
}

/** A line's amount in the account's sign. */
export function signedAmount(
  sign: 1 | -1,
  line: { line_type: 'debit' | 'credit'; amount_atoms: number },
): number {
  const debit = line.line_type === 'debit' ? line.amount_atoms : -line.amount_atoms;
  return sign === 1 ? debit : -debit;
}

const text = (v: unknown): v is string | null | undefined =>
  v === null || v === undefined || typeof v === 'string';
const atoms = (v: unknown): v is number =>
  Number.isSafeInteger(v) && Math.abs(v as number) <= MAX_ATOMS;

/** The problems of one line of a statement body (types, a real date, amounts in range). */
function lineProblems(raw: unknown, i: number): Problem[] {
  const at = (field: string, reason: string, message: string): Problem =>
    lineProblem(i, rowOf(raw, i), field, reason, message);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return [at('', 'invalid_type', 'a statement line must be an object')];
  const l = raw as Record<string, unknown>;
  const out: Problem[] = [];
  if (!isIsoDate(l.date)) out.push(at('date', 'invalid_date', `'${String(l.date)}' is not a date`));
  if (!atoms(l.amount_atoms))
    out.push(at('amount_atoms', 'invalid_amount', 'amount_atoms must be a safe integer'));
  else if (l.amount_atoms === 0)
    out.push(at('amount_atoms', 'zero_amount', 'a statement line of zero moves nothing'));
  for (const f of ['description', 'reference', 'bank_id'])
    if (!text(l[f]) || (typeof l[f] === 'string' && (l[f] as string).includes('\u0000')))
      out.push(at(f, 'invalid_text', `${f} must be text without NUL characters`));
    else if (typeof l[f] === 'string' && (l[f] as string).length > MAX_TEXT)
      out.push(at(f, 'too_long', `${f} has more than ${MAX_TEXT} characters`));
  if (l.balance_atoms !== undefined && l.balance_atoms !== null && !atoms(l.balance_atoms))
    out.push(at('balance_atoms', 'invalid_amount', 'balance_atoms must be a safe integer'));
  return out;
}

/**
 * A problem of a statement line, named by its place in the body and, in its message, by the file's
 * row: the same words whether the ledger is local or a service answers (which gives no rows).
 */
export function lineProblem(
  i: number,
  row: number,
  field: string,
  reason: string,
  message: string,
): Problem {
  return {
    path: `lines[${i}]${field ? `.${field}` : ''}`,
    reason,
    message: `row ${row}: ${message}`,
  };
}

function rowOf(raw: unknown, i: number): number {
  const row = (raw as { row?: unknown } | null)?.row;
  return Number.isSafeInteger(row) ? (row as number) : i + 1;
}

const clean = (v: unknown): string | null => {
  const t = typeof v === 'string' ? v.trim() : '';
  return t === '' ? null : t;
};

/**
 * Checks a statement body and gives each line its identity: the bank's id, or else its date, amount,
 * description, reference and occurrence among identical lines of the file. A running balance must
 * follow from the line before it (in the file's date order, oldest or newest first); a row that
 * breaks the chain is named. Raises invalid_input with every problem.
 */
export function checkStatement(body: unknown, file: string, exponent: number): CheckedStatement {
  const problems: Problem[] = [];
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const raw = Array.isArray(b.lines) ? (b.lines as unknown[]) : null;
  // A statement of no lines tells its closing balance (an account that did not move), else nothing.
  const least = b.closing === undefined || b.closing === null ? 1 : 0;
  if (!raw || raw.length < least || raw.length > MAX_STATEMENT_LINES)
    throw refusal(file, [
      {
        path: 'lines',
        reason: raw ? 'invalid_size' : 'required',
        message: `a statement has ${least} to ${MAX_STATEMENT_LINES} lines`,
      },
    ]);
  raw.forEach((l, i) => problems.push(...lineProblems(l, i)));
  const closing = closingOf(b.closing, problems);
  if (problems.length) throw refusal(file, problems);
  const seen = new Map<string, number>();
  const banks = new Map<string, number>();
  const lines = raw.map((l, i): CheckedLine => {
    const r = l as Record<string, unknown>;
    const line: CheckedLine = {
      row: rowOf(l, i),
      date: r.date as string,
      amount_atoms: r.amount_atoms as number,
      description: clean(r.description),
      reference: clean(r.reference),
      bank_id: clean(r.bank_id),
      balance_atoms: (r.balance_atoms as number | null | undefined) ?? null,
      identity: '',
    };
    const same = JSON.stringify([line.date, line.amount_atoms, line.description, line.reference]);
    const n = (seen.get(same) ?? 0) + 1;
    seen.set(same, n);
    if (line.bank_id !== null) {
      // A bank gives each transaction an id of its own: two lines with one id are a broken file.
      const first = banks.get(line.bank_id);
      if (first !== undefined)
        problems.push(
          lineProblem(
            i,
            line.row,
            'bank_id',
            'duplicate_bank_id',
            `the bank id '${line.bank_id}' is also row ${first}'s`,
          ),
        );
      banks.set(line.bank_id, line.row);
    }
    line.identity = line.bank_id !== null ? `id:${line.bank_id}` : `ln:${same}#${n}`;
    return line;
  });
  const chain = chainOf(lines, exponent);
  problems.push(...chain.problems);
  if (problems.length) throw refusal(file, problems);
  return { lines, closing: closing ?? chain.closing, newestFirst: chain.newestFirst };
}

export interface CheckedStatement {
  lines: CheckedLine[];
  closing: StatementIn['closing'];
  /** The running balance holds only read backwards: the file lists its newest line first. */
  newestFirst: boolean;
}

/** A statement's lines in the order they happened: by date, and in a day as the bank booked them. */
export function chronological(lines: CheckedLine[], newestFirst: boolean): CheckedLine[] {
  const booked = newestFirst ? [...lines].reverse() : [...lines];
  return booked.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
}

function closingOf(raw: unknown, problems: Problem[]): StatementIn['closing'] {
  if (raw === null || raw === undefined) return null;
  const c = raw as Record<string, unknown>;
  if (!isIsoDate(c.date) || !atoms(c.balance_atoms)) {
    problems.push({
      path: 'closing',
      reason: 'invalid_closing',
      message: 'the closing balance needs a date and balance_atoms',
    });
    return null;
  }
  return { date: c.date, balance_atoms: c.balance_atoms };
}

/**
 * Rows whose running balance does not follow from the row before (a line missing or doubled). A
 * file lists its lines oldest or newest first: the order whose chain breaks least is the file's.
 */
function chainOf(
  lines: CheckedLine[],
  exponent: number,
): { problems: Problem[]; closing: StatementIn['closing']; newestFirst: boolean } {
  const forward = lines.map((_, i) => i);
  const backward = [...forward].reverse();
  const [a, b] = [breaks(lines, forward, exponent), breaks(lines, backward, exponent)];
  const [problems, order] = b.length < a.length ? [b, backward] : [a, forward];
  // The balance after the latest line, in the order that holds, is the statement's closing balance.
  const last = [...order].reverse().find((i) => lines[i]!.balance_atoms !== null);
  const closing =
    problems.length === 0 && last !== undefined
      ? { date: lines[last]!.date, balance_atoms: lines[last]!.balance_atoms! }
      : null;
  return { problems, closing, newestFirst: order === backward && a.length > 0 };
}

function breaks(lines: CheckedLine[], order: number[], exponent: number): Problem[] {
  const m = (a: number) => formatAmount(a, exponent);
  const out: Problem[] = [];
  for (let k = 1; k < order.length; k++) {
    const prev = lines[order[k - 1]!]!.balance_atoms;
    const l = lines[order[k]!]!;
    if (prev === null || l.balance_atoms === null) continue;
    // Two safe integers may add up past 2^53: compared exactly.
    const next = BigInt(prev) + BigInt(l.amount_atoms);
    if (next === BigInt(l.balance_atoms)) continue;
    const message =
      `the balance ${m(l.balance_atoms)} does not follow from the line before it ` +
      `(${m(prev)} and ${m(l.amount_atoms)} make ${formatAmount(next, exponent)}): ` +
      'a line is missing or doubled';
    out.push(lineProblem(order[k]!, l.row, 'balance_atoms', 'balance_chain_broken', message));
  }
  return out;
}

function refusal(file: string, problems: Problem[]): BooksError {
  const message =
    problems.length === 1
      ? `${file}: ${problems[0]!.message}`
      : `${file}: ${problems.length} problems; nothing was imported`;
  return new BooksError('invalid_input', message, problems);
}

/** A refusal of reconciliation's rules (exit 1, HTTP 422), naming what is wrong. */
export function reconcileRefused(
  message: string,
  path: string,
  reason: string,
  details: Record<string, unknown> = {},
): BooksError {
  return new BooksError('reconcile_refused', message, [{ path, reason, message }], details);
}

/**
 * Entries voided by their reversal, as QuickBooks drops voided items from a reconciliation: a line
 * of an entry and the line of its reversal that undoes it (the same account, the opposite amount),
 * both uncleared, net to zero and are left out of the outstanding lines, listed once as a pair.
 */
export function reversedPairs<L extends { je_number: string; amount_atoms: number }>(
  lines: L[],
  links: { original_je: string; reversal_je: string }[],
): [L, L][] {
  const byEntry = new Map<string, L[]>();
  for (const l of lines) byEntry.set(l.je_number, [...(byEntry.get(l.je_number) ?? []), l]);
  const used = new Set<L>();
  const pairs: [L, L][] = [];
  for (const link of links)
    for (const a of byEntry.get(link.original_je) ?? []) {
      if (used.has(a)) continue;
      const b = (byEntry.get(link.reversal_je) ?? []).find(
        (x) => !used.has(x) && x.amount_atoms === -a.amount_atoms,
      );
      if (!b) continue;
      used.add(a).add(b);
      pairs.push([a, b]);
    }
  return pairs;
}
