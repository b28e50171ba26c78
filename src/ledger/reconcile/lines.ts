import { dateOfDay, dayNumber, FIRST_DATE, LAST_DATE } from '../../domain/dates.js';
import type { AccountRef } from '../../domain/entry.js';
import type { GlLineRow } from '../../domain/generalLedger.js';
import { BooksError, errors } from '../../domain/errors.js';
import { exponentOf } from '../../domain/money.js';
import {
  accountSign,
  lineIdOf,
  parseLineId,
  reconcilableProblem,
  reconcileRefused,
  signedAmount,
  type LineState,
  type ReconLine,
  type StatementLine,
} from '../../domain/reconcile.js';
import type { Sums } from '../reports/reports.js';
import type { LineMark, ReconReads, StatementLineRow } from './store.js';
import type { ReconReadTx } from './store.js';

/** The account being reconciled, as every operation reads it. */
export interface ReconAccount {
  key: number;
  id: string;
  external_id: string;
  account_number: string | null;
  sign: 1 | -1;
  account_type: AccountRef['account_type'];
  /** The account's currency (the entity's, unless it is denominated in another). */
  currency: string;
  /**
   * Kept in another currency than the entity's: it is reconciled in its own (its lines' foreign
   * amounts, its statement's), and a line posted for it converts at the rate table's rate.
   */
  foreign: boolean;
  /** Of the account's currency: amounts in messages are written as people read them. */
  exponent: number;
}

/** The account a reference names (external id, else number), if a statement can be of it. */
export async function reconAccount(tx: ReconReadTx, ref: unknown): Promise<ReconAccount> {
  if (typeof ref !== 'string' || ref.trim() === '')
    throw new BooksError('invalid_parameters', 'account is required', [
      { path: 'account', reason: 'required', message: 'name the account to reconcile' },
    ]);
  const body = { lines: [{ gl_account_id: ref }] };
  const facts = await tx.facts({ bodies: [body], fingerprint: null });
  const a: AccountRef | undefined = facts.lookups.accounts.get(ref);
  if (!a) throw errors.notFound(`no account '${ref}'`);
  const problem = reconcilableProblem(a);
  if (problem) throw reconcileRefused(problem, 'account', 'not_reconcilable');
  return {
    key: a.key,
    id: a.id,
    external_id: a.external_id,
    account_number: a.account_number,
    sign: accountSign(a.account_type)!,
    account_type: a.account_type,
    currency: a.currency ?? facts.entity.currency,
    foreign: a.currency !== null && a.currency !== facts.entity.currency,
    exponent: exponentOf(a.currency ?? facts.entity.currency),
  };
}

/** A mark's state: reconciled once a finished reconciliation holds it, else cleared. */
export const markState = (m: LineMark | undefined): LineState =>
  m === undefined ? 'uncleared' : m.reconciliation_id ? 'reconciled' : 'cleared';

export const markKey = (seq: number, lineNo: number): string => `${seq}:${lineNo}`;

/** The account's marks of lines dated in [from, to], by line. */
export async function marksOf(
  recon: ReconReads,
  a: ReconAccount,
  from: string,
  to: string,
): Promise<Map<string, LineMark>> {
  const marks = new Map<string, LineMark>();
  for (const m of await recon.marks(a.key, from, to)) marks.set(markKey(m.entry_seq, m.line_no), m);
  return marks;
}

/**
 * The account's journal lines dated in [from, to], in date order, with their state as the marks
 * say, a batch at a time (memory holds a batch, and the marks). Read outside the store's
 * transaction, on a reading of its own: a database store's stream takes a connection of its own,
 * and a transaction that waited for it while holding one could wait forever on a full pool. The
 * journal only grows, so the marks read before and the lines read after agree on every line.
 */
export async function* accountLines(
  sums: Sums,
  marks: Map<string, LineMark>,
  a: ReconAccount,
  from: string,
  to: string,
): AsyncGenerator<ReconLine[]> {
  const q = { keys: [a.key], start_date: from, end_date: to, counterparty: null };
  // A foreign account's lines in its own currency; a revaluation's (no foreign amount) is no bank line.
  const own = (r: GlLineRow) =>
    a.foreign ? { line_type: r.line_type, amount_atoms: r.fx_amount_atoms ?? 0 } : r;
  for await (const batch of sums.glLines(q))
    yield (a.foreign ? batch.filter((r) => r.fx_amount_atoms !== 0) : batch).map((r) => ({
      line_id: lineIdOf(r.seq, r.line_no),
      entry_id: r.entry_id,
      je_number: r.je_number,
      entry_date: r.entry_date,
      memo: r.memo,
      line_memo: r.line_memo,
      counterparty_name: r.counterparty_name,
      amount_atoms: signedAmount(a.sign, own(r)),
      state: markState(marks.get(markKey(r.seq, r.line_no))),
      cleared_date: marks.get(markKey(r.seq, r.line_no))?.cleared_date ?? null,
    }));
}

/** Statement lines as the API answers for them, with the ledger lines each is matched with. */
export async function statementLinesOf(
  recon: ReconReads,
  a: ReconAccount,
  rows: StatementLineRow[],
): Promise<StatementLine[]> {
  const matched = rows.filter((r) => r.state === 'matched').map((r) => r.id);
  const byLine = new Map<string, string[]>();
  for (const m of await recon.marksOf({ statementLines: matched })) {
    const list = byLine.get(m.statement_line_id!) ?? [];
    list.push(lineIdOf(m.entry_seq, m.line_no));
    byLine.set(m.statement_line_id!, list);
  }
  return rows.map((r) => ({
    id: r.id,
    account_id: a.id,
    date: r.line_date,
    amount_atoms: r.amount_atoms,
    description: r.description,
    reference: r.reference,
    bank_id: r.bank_id,
    state: r.state,
    line_ids: byLine.get(r.id) ?? [],
    reconciliation_id: r.reconciliation_id,
  }));
}

/** One statement line of the account by id, or not_found. */
export async function statementLine(
  recon: ReconReads,
  a: ReconAccount,
  id: unknown,
): Promise<StatementLineRow> {
  if (typeof id !== 'string' || id === '')
    throw new BooksError('invalid_parameters', 'statement_line_id is required', [
      { path: 'statement_line_id', reason: 'required', message: 'name a statement line' },
    ]);
  const [row] = await recon.statementLines(a.key, [id]);
  if (!row) throw errors.notFound(`no statement line '${id}' of account '${a.external_id}'`);
  return row;
}

/**
 * Lines named as a person names them, `JE-12:2` (an entry's JE number and its line's number), made
 * line ids; other values are left for the caller to judge.
 */
export async function lineIdsNamed(tx: ReconReadTx, ids: unknown): Promise<unknown> {
  if (!Array.isArray(ids)) return ids;
  const out: unknown[] = [];
  for (const id of ids) {
    const m = typeof id === 'string' ? /^(.+):(\d{1,4})$/.exec(id.trim()) : null;
    if (!m || id.trim().startsWith('jel_')) {
      out.push(id);
      continue;
    }
    const entry = await tx.entry(m[1]!);
    if (!entry) throw badLine(`'${id}': no entry ${m[1]}`);
    const lineNo = Number(m[2]);
    if (lineNo < 1 || lineNo > entry.lines.length)
      throw badLine(`'${id}': ${entry.je_number} has ${entry.lines.length} lines`);
    out.push(lineIdOf(entry.seq, lineNo));
  }
  return out;
}

const badLine = (message: string) =>
  new BooksError('invalid_parameters', message, [
    { path: 'line_ids', reason: 'invalid_parameter', message },
  ]);

/**
 * The lines that undo these (or that these undo) by a reversal on the same account: ticking one of
 * an entry and its reversal ticks the other, since together they net to zero.
 */
export async function reversalPartners(
  tx: ReconReadTx,
  a: ReconAccount,
  named: unknown,
  ticked: boolean,
): Promise<string[]> {
  if (!Array.isArray(named) || !named.every((x) => typeof x === 'string')) return [];
  const ids = named as string[];
  const refs = ids.map((id) => parseLineId(id)).filter((r) => r !== null);
  const facts = await tx.recon.journalLines(refs);
  const links = await tx.recon.reversalLinks([...new Set(refs.map((r) => r.seq))]);
  const seen = new Set(ids);
  const out: string[] = [];
  for (const f of facts)
    for (const link of links) {
      const other =
        link.original === f.entry_seq
          ? { seq: link.reversal, je: link.reversal_je }
          : link.reversal === f.entry_seq
            ? { seq: link.original, je: link.original_je }
            : null;
      if (!other) continue;
      const entry = await tx.entry(other.je);
      const at = entry?.lines.findIndex(
        (l) =>
          l.gl_account_id === a.external_id &&
          l.line_type !== f.line_type &&
          l.amount_atoms === f.amount_atoms,
      );
      if (at === undefined || at < 0) continue;
      const id = lineIdOf(other.seq, at + 1);
      if (!seen.has(id)) {
        seen.add(id);
        out.push(id);
      }
    }
  // To tick: the partners not cleared; to untick: those ticked by hand.
  const marks = new Map(
    (await tx.recon.marksOf({ lines: out.map((i) => parseLineId(i)!) })).map((m) => [
      lineIdOf(m.entry_seq, m.line_no),
      m,
    ]),
  );
  return out.filter((i) => {
    const m = marks.get(i);
    return ticked ? m !== undefined && !m.statement_line_id && !m.reconciliation_id : !m;
  });
}

/** A date moved by whole days, kept within the dates a ledger holds. */
export function shift(date: string, days: number): string {
  const n = dayNumber(date) + days;
  if (n <= dayNumber(FIRST_DATE)) return FIRST_DATE;
  if (n >= dayNumber(LAST_DATE)) return LAST_DATE;
  return dateOfDay(n);
}

/** A match's mark: the ledger line cleared as of its statement line's date. */
export function markOf(
  acct: ReconAccount,
  l: ReconLine,
  s: { id: string; line_date: string },
): LineMark {
  const ref = parseLineId(l.line_id)!;
  return {
    entry_seq: ref.seq,
    line_no: ref.line_no,
    account_key: acct.key,
    entry_date: l.entry_date,
    net_atoms: l.amount_atoms,
    cleared_date: s.line_date,
    statement_line_id: s.id,
    reconciliation_id: null,
  };
}
