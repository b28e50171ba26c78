import { dayNumber } from '../../domain/dates.js';
import { BooksError, errors } from '../../domain/errors.js';
import type { Pair } from '../../domain/matching.js';
import { pairsOnThread, sameView, type MatchView } from './matchThread.js';
import { formatAmount, toJsonInteger } from '../../domain/money.js';
import {
  jeLineOf,
  lineIdOf,
  parseLineId,
  reconcileRefused,
  signedAmount,
  type ReconLine,
  type StatementLine,
} from '../../domain/reconcile.js';
import type { MatchOutcome, ReconArgs, ReconcileOps } from './port.js';
import { lastFinished } from './reports.js';
import type { Sums } from '../reports/reports.js';
import {
  accountLines,
  lineIdsNamed,
  reversalPartners,
  markKey,
  markOf,
  marksOf,
  reconAccount,
  shift,
  statementLine,
  statementLinesOf,
  type ReconAccount,
} from './lines.js';
import type { LineMark, ReconReads, ReconReadTx, ReconStore, ReconWriteTx } from './store.js';

const withPartners = (named: unknown, also: string[]) =>
  Array.isArray(named) ? [...(named as unknown[]), ...also] : named;

export const invalid = (path: string, message: string) =>
  new BooksError('invalid_parameters', message, [{ path, reason: 'invalid_parameter', message }]);

/** Refuses a yes/no argument given as anything but true or false (`"no"` is not false). */
export function flags(a: object, names: string[]): void {
  for (const name of names) {
    const v = (a as Record<string, unknown>)[name];
    if (v !== undefined && typeof v !== 'boolean') throw invalid(name, `${name} is true or false`);
  }
}

/** Matching, unmatching, ticking and setting aside: what pairs the statement with the ledger. */
export class ReconMatching {
  constructor(
    private readonly store: ReconStore,
    private readonly sums: Sums,
  ) {}

  async match(a: Parameters<ReconcileOps['match']>[0]): Promise<MatchOutcome> {
    flags(a, ['dry_run', 'describe']);
    if (a.statement_line_id !== undefined || a.line_ids !== undefined) return this.matchByHand(a);
    const window = a.window_days ?? 7;
    if (!Number.isSafeInteger(window) || window < 0 || window > 366)
      throw invalid('window_days', 'window_days is a whole number of days from 0 to 366');
    // The matching is worked out on a thread, outside any transaction (it may take a while); it is
    // written only if the lines it read are still as they were under the lock, else worked out again.
    for (let attempt = 1; ; attempt++) {
      const { window: span, candidates } = await this.candidates(a.account, window);
      const view = async (tx: ReconReadTx | ReconWriteTx): Promise<MatchView> => {
        const acct = await reconAccount(tx, a.account);
        const open = (await tx.recon.statementLines(acct.key)).filter(
          (l) => l.state === 'unmatched',
        );
        const marked = span
          ? await marksOf(tx.recon, acct, span.from, span.to)
          : new Map<string, LineMark>();
        const ledger = candidates.filter((l) => {
          const ref = parseLineId(l.line_id)!;
          return !marked.has(markKey(ref.seq, ref.line_no));
        });
        return { acct, open, ledger };
      };
      const seen = await this.store.read(view);
      // The store is the ledger's own: the pool shares its threads out by ledger.
      const pairs = await pairsOnThread(this.store, seen, window);
      const apply = async (tx: ReconReadTx | ReconWriteTx) => {
        const now = await view(tx);
        return sameView(now, seen) ? this.applyMatch(tx, now, pairs, a.describe === true) : null;
      };
      const done = await (a.dry_run ? this.store.read(apply) : this.store.write(apply));
      if (done) return done;
      if (attempt === 3)
        throw errors.unavailable(
          `the statement or the ledger of '${a.account}' changed while the match was worked ` +
            'out, three times; try again',
        );
    }
  }

  /** Writes a worked-out matching (within the transaction that read the same lines) and says it. */
  private async applyMatch(
    tx: ReconReadTx | ReconWriteTx,
    { acct, open, ledger }: MatchView,
    pairs: Pair[],
    describe: boolean,
  ): Promise<MatchOutcome> {
    if ('write' in tx && pairs.length) {
      await tx.recon.addMarks(
        pairs.map((p) => markOf(acct, ledger[p.ledger]!, open[p.statement]!)),
      );
      await tx.recon.setState(
        pairs.map((p) => open[p.statement]!.id),
        'matched',
      );
      tx.event.name(
        'reconcile.matched',
        [acct.external_id, ...pairs.slice(0, 20).map((p) => open[p.statement]!.id)],
        `${acct.external_id}: ${pairs.length} statement lines matched`,
      );
    }
    const pairedS = new Set(pairs.map((p) => p.statement));
    const pairedL = new Set(pairs.map((p) => p.ledger));
    return {
      matched: pairs.map((p) => {
        const [s, l] = [open[p.statement]!, ledger[p.ledger]!];
        const match = { statement_line_id: s.id, line_ids: [l.line_id], days: p.days };
        if (!describe) return match;
        return {
          ...match,
          date: s.line_date,
          amount_atoms: s.amount_atoms,
          description: s.description,
          ledger_lines: [jeLineOf(l)],
        };
      }),
      unmatched_statement_lines: await statementLinesOf(
        tx.recon,
        acct,
        open.filter((_, i) => !pairedS.has(i)),
      ),
      uncleared_lines: ledger.filter((_, j) => !pairedL.has(j)),
    };
  }

  /**
   * The ledger lines an automatic match may pair: the account's uncleared lines within the window
   * around its unmatched statement lines. Read first, outside the lock (see accountLines); under it,
   * those cleared meanwhile are dropped, so that a line is never matched twice.
   */
  private async candidates(
    account: string,
    window: number,
  ): Promise<{ window: { from: string; to: string } | null; candidates: ReconLine[] }> {
    const seen = await this.store.read(async (tx) => {
      const acct = await reconAccount(tx, account);
      const open = (await tx.recon.statementLines(acct.key)).filter((l) => l.state === 'unmatched');
      if (open.length === 0) return null;
      const from = shift(open[0]!.line_date, -window);
      const last = open.reduce((m, l) => (l.line_date > m ? l.line_date : m), '');
      const to = shift(last, window);
      return { acct, from, to, marks: await marksOf(tx.recon, acct, from, to) };
    });
    if (!seen) return { window: null, candidates: [] };
    const candidates: ReconLine[] = [];
    for await (const batch of accountLines(this.sums, seen.marks, seen.acct, seen.from, seen.to))
      for (const l of batch) if (l.state === 'uncleared') candidates.push(l);
    return { window: { from: seen.from, to: seen.to }, candidates };
  }

  /** One statement line with ledger lines whose amounts add up to it (a batch deposit). */
  private async matchByHand(
    a: ReconArgs & { statement_line_id?: string; line_ids?: string[]; dry_run?: boolean },
  ): Promise<MatchOutcome> {
    const run = async (tx: ReconReadTx | ReconWriteTx) => {
      const acct = await reconAccount(tx, a.account);
      const sl = await statementLine(tx.recon, acct, a.statement_line_id);
      if (sl.state !== 'unmatched')
        throw reconcileRefused(
          `statement line ${sl.id} is ${sl.state}; only an unmatched line can be matched`,
          'statement_line_id',
          'not_unmatched',
        );
      const named = await lineIdsNamed(tx, a.line_ids);
      const lines = await this.ledgerLinesNamed(tx.recon, acct, named, 'match');
      // Up to a thousand lines: added exactly, past 2^53 too.
      const sum = lines.reduce((s, l) => s + BigInt(l.net), 0n);
      if (sum !== BigInt(sl.amount_atoms))
        throw reconcileRefused(
          `the lines add up to ${formatAmount(sum, acct.exponent)}, the statement line is ` +
            `${formatAmount(sl.amount_atoms, acct.exponent)} (in the account's sign): ` +
            'a match must balance',
          'line_ids',
          'unbalanced_match',
          { difference: toJsonInteger(BigInt(sl.amount_atoms) - sum) },
        );
      if ('write' in tx) {
        await tx.recon.addMarks(
          lines.map((l) => ({
            ...l.mark,
            cleared_date: sl.line_date,
            statement_line_id: sl.id,
          })),
        );
        await tx.recon.setState([sl.id], 'matched');
        tx.event.name(
          'reconcile.matched',
          [acct.external_id, sl.id, ...lines.map((l) => l.id)],
          `${acct.external_id}: statement line ${sl.id} matched by hand to ${lines.length} ledger lines`,
        );
      }
      const far = lines.reduce(
        (m, l) => Math.max(m, Math.abs(dayNumber(l.mark.entry_date) - dayNumber(sl.line_date))),
        0,
      );
      return {
        matched: [{ statement_line_id: sl.id, line_ids: lines.map((l) => l.id), days: far }],
        unmatched_statement_lines: [],
        uncleared_lines: [],
      };
    };
    return a.dry_run ? this.store.read(run) : this.store.write(run);
  }

  /**
   * Ledger lines named by id for a manual match or a tick: each of the account, none given twice,
   * none cleared already, none dated within a finished reconciliation (for a tick).
   */
  private async ledgerLinesNamed(
    recon: ReconReads,
    acct: ReconAccount,
    ids: unknown,
    purpose: 'match' | 'clear',
  ): Promise<{ id: string; net: number; mark: LineMark }[]> {
    if (!Array.isArray(ids) || ids.length === 0 || ids.length > 1000)
      throw invalid('line_ids', 'name 1 to 1000 ledger lines (JE-12:2, or jel_<entry>_<line>)');
    const refs = ids.map((id) => {
      const ref = typeof id === 'string' ? parseLineId(id) : null;
      if (!ref)
        throw invalid('line_ids', `'${String(id)}' is not a line (JE-12:2, or jel_<entry>_<line>)`);
      return ref;
    });
    if (new Set(refs.map((r) => `${r.seq}:${r.line_no}`)).size !== refs.length)
      throw invalid('line_ids', 'a line is named twice');
    const found = new Map(
      (await recon.journalLines(refs)).map((l) => [lineIdOf(l.entry_seq, l.line_no), l]),
    );
    const marked = new Map(
      (await recon.marksOf({ lines: refs })).map((m) => [lineIdOf(m.entry_seq, m.line_no), m]),
    );
    return refs.map((r) => {
      const id = lineIdOf(r.seq, r.line_no);
      const l = found.get(id);
      if (!l || l.account_key !== acct.key)
        throw reconcileRefused(
          `line ${id} is not a line of account '${acct.external_id}'`,
          'line_ids',
          'not_of_account',
        );
      const m = marked.get(id);
      const how = m?.reconciliation_id
        ? 'reconciled'
        : m?.statement_line_id
          ? `matched to ${m.statement_line_id}`
          : 'ticked';
      if (m) throw reconcileRefused(`line ${id} is already ${how}`, 'line_ids', 'already_cleared');
      const net = signedAmount(acct.sign, l);
      const mark: LineMark = {
        entry_seq: r.seq,
        line_no: r.line_no,
        account_key: acct.key,
        entry_date: l.entry_date,
        net_atoms: net,
        cleared_date: l.entry_date,
        statement_line_id: null,
        reconciliation_id: null,
      };
      return { id, net, mark, purpose };
    });
  }

  async unmatch(a: ReconArgs & { statement_line_id: string }): Promise<StatementLine> {
    return this.store.write(async (tx) => {
      const acct = await reconAccount(tx, a.account);
      const sl = await statementLine(tx.recon, acct, a.statement_line_id);
      if (sl.reconciliation_id)
        throw reconcileRefused(
          `statement line ${sl.id} is reconciled; undo the reconciliation first`,
          'statement_line_id',
          'reconciled',
        );
      if (sl.state === 'unmatched')
        throw reconcileRefused(
          `statement line ${sl.id} is neither matched nor ignored`,
          'statement_line_id',
          'not_matched',
        );
      // An ignored line comes back as unmatched (ignoring was a mistake); a matched one lets go
      // of its ledger lines.
      const marks = await tx.recon.marksOf({ statementLines: [sl.id] });
      await tx.recon.removeMarks(marks.map((m) => ({ seq: m.entry_seq, line_no: m.line_no })));
      await tx.recon.setState([sl.id], 'unmatched');
      tx.event.name(
        'reconcile.unmatched',
        [acct.external_id, sl.id],
        `${acct.external_id}: statement line ${sl.id} back to unmatched (was ${sl.state})`,
      );
      const [line] = await statementLinesOf(tx.recon, acct, [{ ...sl, state: 'unmatched' }]);
      return line!;
    });
  }

  async clear(
    a: ReconArgs & { line_ids: string[]; unclear?: boolean },
  ): Promise<{ line_ids: string[]; state: 'cleared' | 'uncleared' }> {
    flags(a, ['unclear']);
    return this.store.write(async (tx) => {
      const acct = await reconAccount(tx, a.account);
      const last = await lastFinished(tx.recon, acct);
      const named = await lineIdsNamed(tx, a.line_ids);
      // An entry and its reversal are ticked and unticked together (they net to zero).
      const also = await reversalPartners(tx, acct, named, a.unclear === true);
      if (a.unclear) {
        const ids = await this.tickedLines(tx.recon, acct, withPartners(named, also));
        await tx.recon.removeMarks(ids.map((i) => parseLineId(i)!));
        if (ids.length)
          tx.event.name(
            'reconcile.uncleared',
            [acct.external_id, ...ids.slice(0, 20)],
            `${acct.external_id}: ${ids.length} ledger lines unticked`,
          );
        return { line_ids: ids, state: 'uncleared' as const };
      }
      const lines = await this.ledgerLinesNamed(tx.recon, acct, withPartners(named, also), 'clear');
      const early = last && lines.find((l) => l.mark.entry_date <= last.statement_date);
      if (early)
        throw reconcileRefused(
          `line ${early.id} is dated ${early.mark.entry_date}, within the reconciliation finished ` +
            `through ${last.statement_date}; ticking it would change that statement's cleared balance`,
          'line_ids',
          'statement_closed',
        );
      await tx.recon.addMarks(lines.map((l) => l.mark));
      tx.event.name(
        'reconcile.cleared',
        [acct.external_id, ...lines.slice(0, 20).map((l) => l.id)],
        `${acct.external_id}: ${lines.length} ledger lines ticked as cleared`,
      );
      return { line_ids: lines.map((l) => l.id), state: 'cleared' as const };
    });
  }

  /** Lines named for untick: each ticked by hand (not matched) and not reconciled. */
  private async tickedLines(
    recon: ReconReads,
    acct: ReconAccount,
    ids: unknown,
  ): Promise<string[]> {
    if (!Array.isArray(ids) || ids.length === 0)
      throw invalid('line_ids', 'name the lines to untick');
    const refs = ids.map((id) => {
      const ref = typeof id === 'string' ? parseLineId(id) : null;
      if (!ref)
        throw invalid('line_ids', `'${String(id)}' is not a line (JE-12:2, or jel_<entry>_<line>)`);
      return ref;
    });
    const marks = new Map(
      (await recon.marksOf({ lines: refs })).map((m) => [lineIdOf(m.entry_seq, m.line_no), m]),
    );
    return refs.map((r) => {
      const id = lineIdOf(r.seq, r.line_no);
      const m = marks.get(id);
      const why =
        !m || m.account_key !== acct.key
          ? 'is not ticked'
          : m.reconciliation_id
            ? 'is reconciled'
            : m.statement_line_id
              ? `is matched to ${m.statement_line_id} (unmatch it instead)`
              : null;
      if (why) throw reconcileRefused(`line ${id} ${why}`, 'line_ids', 'not_ticked');
      return id;
    });
  }

  async ignore(a: ReconArgs & { statement_line_id: string }): Promise<StatementLine> {
    return this.store.write(async (tx) => {
      const acct = await reconAccount(tx, a.account);
      const sl = await statementLine(tx.recon, acct, a.statement_line_id);
      if (sl.state !== 'unmatched')
        throw reconcileRefused(
          `statement line ${sl.id} is ${sl.state}; only an unmatched line can be set aside`,
          'statement_line_id',
          'not_unmatched',
        );
      await tx.recon.setState([sl.id], 'ignored');
      tx.event.name(
        'reconcile.ignored',
        [acct.external_id, sl.id],
        `${acct.external_id}: statement line ${sl.id} set aside`,
      );
      const [line] = await statementLinesOf(tx.recon, acct, [{ ...sl, state: 'ignored' }]);
      return line!;
    });
  }
}
