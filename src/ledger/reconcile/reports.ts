import { FIRST_DATE, isIsoDate, LAST_DATE, localDate } from '../../domain/dates.js';
import { BooksError, type Problem } from '../../domain/errors.js';
import {
  lineIdOf,
  parseLineId,
  reversedPairs,
  type ReconLine,
  type Reconciliation,
} from '../../domain/reconcile.js';
import { toJsonInteger } from '../../domain/money.js';
import type { LineStates, ReconArgs, ReconcileStatus, ReconciliationReport } from './port.js';
import {
  accountLines,
  marksOf,
  reconAccount,
  statementLinesOf,
  type ReconAccount,
} from './lines.js';
import type { ReconReads, ReconciliationRow } from './store.js';
import type { Sums } from '../reports/reports.js';
import type { ReconStore } from './store.js';

const n = toJsonInteger;

/** The account's latest finished reconciliation. */
export async function lastFinished(
  recon: ReconReads,
  acct: ReconAccount,
): Promise<ReconciliationRow | undefined> {
  const all = await recon.reconciliations(acct.key);
  return all[all.length - 1];
}

/** A reconciliation as the API says it. */
export function reconciliationOf(acct: ReconAccount, r: ReconciliationRow): Reconciliation {
  return {
    id: r.id,
    account_id: acct.id,
    statement_date: r.statement_date,
    statement_balance_atoms: r.statement_balance_atoms,
    line_count: r.line_count,
    finished_at: r.finished_at,
  };
}

/** What reconciliation reads: its list, the status of an account, the report, and check's part. */
export class ReconReports {
  constructor(
    private readonly store: ReconStore,
    private readonly sums: Sums,
  ) {}

  async list(a: ReconArgs): Promise<Reconciliation[]> {
    return this.store.read(async (tx) => {
      const acct = await reconAccount(tx, a.account);
      return (await tx.recon.reconciliations(acct.key)).map((r) => reconciliationOf(acct, r));
    });
  }

  async status(a: ReconArgs): Promise<ReconcileStatus> {
    const seen = await this.store.read(async (tx) => {
      const acct = await reconAccount(tx, a.account);
      const last = await lastFinished(tx.recon, acct);
      const closing = await tx.recon.closing(acct.key);
      // A closing balance already reconciled is no longer the statement at hand.
      const statement = closing && (!last || closing.date > last.statement_date) ? closing : null;
      const rows = await tx.recon.statementLines(acct.key);
      const lines = await statementLinesOf(tx.recon, acct, rows);
      // What the statements imported reach: the closing balance's date, else their last line's.
      const through = statement?.date ?? rows[rows.length - 1]?.line_date ?? null;
      const cleared = through ? (await tx.recon.clearedThrough(acct.key, through)).total : null;
      const marks = await marksOf(tx.recon, acct, FIRST_DATE, through ?? LAST_DATE);
      return { acct, last, statement, lines, through, cleared, marks };
    });
    const { acct, last, statement, lines, through, cleared } = seen;
    const uncleared: ReconLine[] = [];
    for await (const batch of accountLines(
      this.sums,
      seen.marks,
      acct,
      FIRST_DATE,
      through ?? LAST_DATE,
    ))
      for (const l of batch) if (l.state === 'uncleared') uncleared.push(l);
    const reversed = await this.reversed(uncleared);
    return {
      account_id: acct.id,
      last_reconciliation: last ? reconciliationOf(acct, last) : null,
      statement,
      through,
      cleared_balance: cleared === null ? null : n(cleared),
      difference:
        cleared === null || !statement ? null : n(BigInt(statement.balance_atoms) - cleared),
      matched: lines.filter((l) => l.state === 'matched').length,
      unmatched_statement_lines: lines.filter((l) => l.state === 'unmatched'),
      ignored_statement_lines: lines.filter(
        (l) => l.state === 'ignored' && l.reconciliation_id === null,
      ),
      uncleared_lines: reversed.kept,
      reversed_pairs: reversed.pairs,
    };
  }

  /**
   * Lines (uncleared) without the pairs of an entry and its reversal that net to zero, and those
   * pairs: only lines whose opposite amount is among them are looked up.
   */
  private async reversed(
    lines: ReconLine[],
  ): Promise<{ kept: ReconLine[]; pairs: [ReconLine, ReconLine][] }> {
    const amounts = new Set(lines.map((l) => l.amount_atoms));
    const maybe = lines.filter((l) => amounts.has(-l.amount_atoms));
    if (maybe.length === 0) return { kept: lines, pairs: [] };
    const seqs = [...new Set(maybe.map((l) => parseLineId(l.line_id)!.seq))];
    const links = await this.store.read((tx) => tx.recon.reversalLinks(seqs));
    const pairs = reversedPairs(maybe, links);
    const paired = new Set(pairs.flat());
    return { kept: lines.filter((l) => !paired.has(l)), pairs };
  }

  /**
   * The reconciliation report at a statement date: the finished reconciliation of that date (the
   * latest when none is given), or else a draft of today's state at it. Book balance = cleared +
   * outstanding − cleared after the date, each from its own reading, so the report shows whether
   * the ledger holds together.
   */
  async report(a: ReconArgs & { statement_date?: string }): Promise<ReconciliationReport> {
    if (a.statement_date !== undefined && !isIsoDate(a.statement_date))
      throw new BooksError('invalid_parameters', `'${a.statement_date}' is not a date`, [
        { path: 'statement_date', reason: 'invalid_date', message: 'a date is YYYY-MM-DD' },
      ]);
    const seen = await this.store.read(async (tx) => {
      const acct = await reconAccount(tx, a.account);
      const recs = await tx.recon.reconciliations(acct.key);
      const closing = await tx.recon.closing(acct.key);
      const finished = a.statement_date
        ? recs.find((r) => r.statement_date === a.statement_date)
        : recs[recs.length - 1];
      const date =
        a.statement_date ??
        finished?.statement_date ??
        closing?.date ??
        localDate(this.store.now());
      const rows = await tx.recon.statementLines(acct.key);
      const lines = await statementLinesOf(
        tx.recon,
        acct,
        rows.filter((r) => r.line_date <= date && r.state !== 'matched'),
      );
      const cleared = (await tx.recon.clearedThrough(acct.key, date)).total;
      const marks = await marksOf(tx.recon, acct, FIRST_DATE, LAST_DATE);
      return { acct, finished, closing, date, lines, cleared, marks };
    });
    const { acct, finished, closing, date, lines, cleared } = seen;
    const statementBalance =
      finished?.statement_balance_atoms ??
      (closing && closing.date === date ? closing.balance_atoms : null);
    const debits: ReconLine[] = [];
    const credits: ReconLine[] = [];
    const after: ReconLine[] = [];
    let book = 0n;
    const isCleared = (l: ReconLine) => l.cleared_date !== null && l.cleared_date <= date;
    for await (const batch of accountLines(this.sums, seen.marks, acct, FIRST_DATE, LAST_DATE))
      for (const l of batch) {
        if (l.entry_date <= date) {
          book += BigInt(l.amount_atoms);
          if (!isCleared(l)) (acct.sign * l.amount_atoms > 0 ? debits : credits).push(l);
        } else if (isCleared(l)) after.push(l);
      }
    const total = (ls: ReconLine[]) => ls.reduce((s, l) => s + BigInt(l.amount_atoms), 0n);
    const reversed = await this.reversed([...debits, ...credits]);
    const kept = new Set(reversed.kept);
    const [openDebits, openCredits] = [debits, credits].map((ls) => ls.filter((l) => kept.has(l)));
    return {
      account_id: acct.id,
      statement_date: date,
      status: finished && finished.statement_date === date ? 'finished' : 'draft',
      statement_balance: statementBalance,
      cleared_balance: n(cleared),
      difference: statementBalance === null ? null : n(BigInt(statementBalance) - cleared),
      book_balance: n(book),
      outstanding_debits: { total: n(total(openDebits!)), lines: openDebits! },
      outstanding_credits: { total: n(total(openCredits!)), lines: openCredits! },
      reversed_pairs: reversed.pairs,
      cleared_after_date: { total: n(total(after)), lines: after },
      unmatched_statement_lines: lines.filter((l) => l.state === 'unmatched'),
      ignored_statement_lines: lines.filter((l) => l.state === 'ignored'),
    };
  }

  async lineStates(a: { line_ids?: string[] | string }): Promise<LineStates> {
    const ids = typeof a.line_ids === 'string' ? a.line_ids.split(',') : a.line_ids;
    const refs = ids?.map((id) => parseLineId(id)).filter((r) => r !== null) ?? [];
    return this.store.read(async (tx) => {
      const marks = ids ? await tx.recon.marksOf({ lines: refs }) : await tx.recon.allMarks();
      const out: LineStates = {};
      for (const m of marks)
        out[lineIdOf(m.entry_seq, m.line_no)] = {
          state: m.reconciliation_id ? 'reconciled' : 'cleared',
          cleared_date: m.cleared_date,
        };
      return out;
    });
  }

  /**
   * check's part: every finished reconciliation's lines still add up to its statement balance, and
   * every cleared line is still the journal line it was.
   */
  async problems(): Promise<{ problems: Problem[]; count: number }> {
    return this.store.read((tx) => reconProblems(tx.recon));
  }
}

/** Check's reconciliation predicates over any transaction's reads (a check's, or a restore's). */
export async function reconProblems(
  recon: ReconReads,
): Promise<{ problems: Problem[]; count: number }> {
  const problems: Problem[] = [];
  const recs = await recon.reconciledSums();
  for (const r of recs)
    if (r.reconciled !== BigInt(r.statement_balance_atoms))
      problems.push({
        path: `reconciliations.${r.id}`,
        reason: 'reconciliation_broken',
        message:
          `reconciliation ${r.id} (through ${r.statement_date}): its lines add up to ` +
          `${r.reconciled} atoms, the statement balance is ${r.statement_balance_atoms}`,
      });
  for (const d of await recon.damage())
    problems.push({
      path: d.path,
      reason: 'reconciliation_damaged',
      message: `${d.path} ${d.why}`,
    });
  for (const m of await recon.strayMarks())
    problems.push({
      path: `line_marks.jel_${m.entry_seq}_${m.line_no}`,
      reason: 'cleared_line_changed',
      message: `cleared line jel_${m.entry_seq}_${m.line_no}: ${m.why}`,
    });
  return { problems, count: recs.length };
}
