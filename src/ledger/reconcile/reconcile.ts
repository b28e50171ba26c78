import { randomUUID } from 'node:crypto';
import { BooksError, entryInvalid, isBooksError } from '../../domain/errors.js';
import {
  checkStatement,
  chronological,
  lineProblem,
  parseLineId,
  type Reconciliation,
} from '../../domain/reconcile.js';
import type { JournalFromStore } from '../journal/journal.js';
import { undoRefusal } from '../../domain/reconcileFinish.js';
import type {
  CreateOutcome,
  ReconArgs,
  ReconcileOps,
  StatementImportArgs,
  StatementImportSummary,
  StatementSourceView,
} from './port.js';
import type { MaintenanceOps } from '../books/port.js';
import {
  checkLayout,
  checkSource,
  isEmptyLayout,
  sourceProblem,
} from '../../domain/statementLayout.js';
import { flags } from './match.js';
import { ReconFinishing } from './finish.js';
import { ReconMatching } from './match.js';
import { lastFinished, ReconReports, reconciliationOf } from './reports.js';
import { reconAccount, type ReconAccount } from './lines.js';
import { createTargets, entryBody, ruleSet, type Rule } from './create.js';
import { firstRules, RULES_TIME_MS } from './ruleWorker.js';
import type { Sums } from '../reports/reports.js';
import type { ReconReadTx, ReconStore, ReconWriteTx } from './store.js';

/**
 * Reconciliation written once over the store SPI: every rule here, the store's tables in
 * ledger/reconcile/store.ts. A write runs in one transaction holding the entity's lock, so two
 * bookkeepers (or two servers) never match one line twice.
 */
export class ReconcileFromStore implements ReconcileOps {
  readonly list: ReconReports['list'];
  readonly status: ReconReports['status'];
  readonly report: ReconReports['report'];
  readonly lineStates: ReconReports['lineStates'];
  /** Check's part: every reconciliation proved against the lines (see ReconReports.problems). */
  readonly problems: ReconReports['problems'];
  readonly match: ReconMatching['match'];
  readonly unmatch: ReconMatching['unmatch'];
  readonly clear: ReconMatching['clear'];
  readonly ignore: ReconMatching['ignore'];
  readonly finish: ReconFinishing['finish'];

  constructor(
    private readonly store: ReconStore,
    sums: Sums,
    private readonly journal: JournalFromStore,
  ) {
    // Each part of reconciliation on its own, over the same store; this class adds the imports,
    // the layout, entries created from statement lines and undo.
    const reading = new ReconReports(store, sums);
    const matching = new ReconMatching(store, sums);
    const finishing = new ReconFinishing(store, sums);
    this.list = (a) => reading.list(a);
    this.status = (a) => reading.status(a);
    this.report = (a) => reading.report(a);
    this.lineStates = (a) => reading.lineStates(a);
    this.problems = () => reading.problems();
    this.match = (a) => matching.match(a);
    this.unmatch = (a) => matching.unmatch(a);
    this.clear = (a) => matching.clear(a);
    this.ignore = (a) => matching.ignore(a);
    this.finish = (a) => finishing.finish(a);
  }

  async importStatement(a: StatementImportArgs): Promise<StatementImportSummary> {
    flags(a, ['dry_run', 'ofx_account_change']);
    const file = typeof a.file === 'string' && a.file ? a.file : 'statement';
    const source = checkSource(a.source);
    const layout = a.layout === undefined || a.layout === null ? null : checkLayout(a.layout);
    const run = async (tx: ReconReadTx | ReconWriteTx) => {
      const acct = await reconAccount(tx, a.account);
      const st = checkStatement(a.statement, file, acct.exponent);
      const kept = await tx.recon.source(acct.key);
      const wrong =
        source && sourceProblem(acct, source, kept.known, a.ofx_account_change === true);
      if (wrong) throw new BooksError('reconcile_refused', `${file}: ${wrong.message}`, [wrong]);
      const taken = await tx.recon.identitiesTaken(
        acct.key,
        st.lines.map((l) => l.identity),
      );
      const seen = new Set<string>();
      const fresh = st.lines.filter((l) => {
        const dup = taken.has(l.identity) || seen.has(l.identity);
        seen.add(l.identity);
        return !dup;
      });
      const last = await lastFinished(tx.recon, acct);
      const closed = last ? fresh.filter((l) => l.date <= last.statement_date) : [];
      if (closed.length) {
        const problems = closed.map((l) =>
          lineProblem(
            st.lines.indexOf(l),
            l.row,
            'date',
            'statement_closed',
            `a line dated ${l.date}, on or before the account's last finished reconciliation ` +
              `(${last!.statement_date}): that statement is closed`,
          ),
        );
        const message =
          problems.length === 1
            ? `${file}: ${problems[0]!.message}`
            : `${file}: ${problems.length} lines are dated within a finished reconciliation`;
        throw new BooksError('reconcile_refused', message, problems);
      }
      if ('write' in tx) {
        const at = this.store.now().toISOString();
        // Numbered in the order they happened (a newest-first file's too): stl_1 is the earliest.
        await tx.recon.addStatementLines(acct.key, chronological(fresh, st.newestFirst), at);
        // An older statement imported again keeps the latest closing balance.
        const keptClosing = await tx.recon.closing(acct.key);
        const closes = st.closing && (!keptClosing || st.closing.date >= keptClosing.date);
        if (closes) await tx.recon.setClosing(acct.key, st.closing!);
        const newClosing = closes && !sameClosing(keptClosing, st.closing!);
        // The first statement to name its bank account names the account's; a changed one is
        // recorded only when the bookkeeper said so (checked above).
        const known = source?.acctid
          ? { acctid: source.acctid, bankid: source.bankid }
          : kept.known;
        const remembered = layout && !isEmptyLayout(layout) ? layout : kept.layout;
        const sourced = known !== kept.known || remembered !== kept.layout;
        if (sourced) await tx.recon.setSource(acct.key, { layout: remembered, known });
        // The same statement again changes nothing, and makes no event.
        if (fresh.length || newClosing || sourced)
          tx.event.name(
            'reconcile.statement_imported',
            [acct.external_id],
            `${acct.external_id}: ${fresh.length} statement lines imported from ${file}, ` +
              `${st.lines.length - fresh.length} already there`,
          );
      }
      // A statement of no lines spans its closing balance's day.
      const dates = st.lines.length ? st.lines.map((l) => l.date).sort() : [st.closing!.date];
      return {
        imported: fresh.length,
        skipped: st.lines.length - fresh.length,
        start: dates[0]!,
        end: dates[dates.length - 1]!,
        closing_balance: st.closing?.balance_atoms ?? null,
      };
    };
    return a.dry_run ? this.store.read(run) : this.store.write(run);
  }

  async layout(a: ReconArgs): Promise<StatementSourceView> {
    flags(a, []);
    return this.store.read(async (tx) => {
      const acct = await reconAccount(tx, a.account);
      const kept = await tx.recon.source(acct.key);
      return { account_id: acct.id, layout: kept.layout, statement_account: kept.known };
    });
  }

  async forgetLayout(a: ReconArgs): Promise<StatementSourceView> {
    flags(a, []);
    return this.store.write(async (tx) => {
      const acct = await reconAccount(tx, a.account);
      const kept = await tx.recon.source(acct.key);
      if (kept.layout) {
        await tx.recon.setSource(acct.key, { layout: null, known: kept.known });
        tx.event.name(
          'reconcile.layout_forgotten',
          [acct.external_id],
          `${acct.external_id}: the statement layout kept for it is forgotten`,
        );
      }
      return {
        account_id: acct.id,
        layout: null,
        statement_account: kept.known,
        forgotten: kept.layout,
      };
    });
  }

  async create(a: Parameters<ReconcileOps['create']>[0]): Promise<CreateOutcome> {
    flags(a, ['dry_run']);
    const rules = ruleSet(a);
    const ruled = await this.ruled(a, rules);
    const run = async (tx: ReconReadTx | ReconWriteTx) => {
      const acct = await reconAccount(tx, a.account);
      const targets = await createTargets(tx.recon, acct, a, rules, ruled);
      const created: CreateOutcome['created'] = [];
      for (const t of targets.apply) {
        const body = entryBody(acct, t.line, t.rule, await rateFor(tx, acct, t.line));
        let entry;
        try {
          entry = await this.journal.postWithin(tx, body, {
            idempotencyKey: `rec-${randomUUID()}`,
          });
        } catch (e) {
          if (!isBooksError(e)) throw e;
          const what = t.line.description ?? 'no description';
          const where = `statement line ${t.line.id} (${t.line.line_date}, ${what})`;
          const problems = e.errors.map((p) => ({ ...p, message: `${where}: ${p.message}` }));
          // Worded as a service's answer is read back (a CAPI33's message is its problems').
          const message =
            e.code === 'CAPI33' && problems.length
              ? entryInvalid(problems).message
              : `${where}: ${e.message}`;
          throw new BooksError(e.code, message, problems, e.details);
        }
        // A dry run numbers nothing (every draft would take the same next number): it names none.
        const lineId = entry.lines[0]!.id;
        created.push({
          statement_line_id: t.line.id,
          je_number: 'write' in tx ? entry.je_number : '',
          entry_id: entry.id,
          line_id: lineId,
        });
        if ('write' in tx) {
          const ref = parseLineId(lineId)!;
          await tx.recon.addMarks([
            {
              entry_seq: ref.seq,
              line_no: ref.line_no,
              account_key: acct.key,
              entry_date: t.line.line_date,
              net_atoms: t.line.amount_atoms,
              cleared_date: t.line.line_date,
              statement_line_id: t.line.id,
              reconciliation_id: null,
            },
          ]);
          await tx.recon.setState([t.line.id], 'matched');
        }
      }
      if ('write' in tx && created.length)
        tx.event.name(
          'reconcile.entries_created',
          [acct.external_id, ...created.slice(0, 20).map((c) => c.je_number)],
          `${acct.external_id}: ${created.length} entries posted for unmatched statement lines`,
        );
      return { created, left: targets.left };
    };
    return a.dry_run ? this.store.read(run) : this.store.write(run);
  }

  /**
   * Which rule each unmatched statement line takes, read before the lock and worked out on a thread
   * of its own with a time limit (see firstRules): nothing a pattern does holds the ledger or the
   * server.
   */
  private async ruled(a: ReconArgs, rules: Rule[]): Promise<Map<string, number>> {
    const patterns = rules.map((r) => r.pattern);
    if (patterns.some((p) => p === null)) return new Map();
    const open = await this.store.read(async (tx) => {
      const acct = await reconAccount(tx, a.account);
      return (await tx.recon.statementLines(acct.key)).filter((l) => l.state === 'unmatched');
    });
    const first = await firstRules(
      patterns as string[],
      open.map((l) => l.description ?? ''),
      RULES_TIME_MS,
      this.store,
    );
    return new Map(open.map((l, i) => [l.id, first[i]!]));
  }

  async undo(a: ReconArgs & { id?: string }): Promise<Reconciliation> {
    return this.store.write(async (tx) => {
      const acct = await reconAccount(tx, a.account);
      const last = await lastFinished(tx.recon, acct);
      const refusal = undoRefusal(last, a.id, acct.external_id);
      if (refusal) throw refusal;
      await tx.recon.undo(last!);
      tx.event.name(
        'reconcile.undone',
        [acct.external_id, last!.id],
        `${acct.external_id}: the reconciliation through ${last!.statement_date} is undone`,
      );
      return reconciliationOf(acct, last!);
    });
  }
}

/** A store's maintenance whose check also proves every reconciliation (see ReconReports.problems). */
export function checkingReconciliations(
  maintenance: MaintenanceOps,
  reconcile: ReconcileFromStore,
): MaintenanceOps {
  return {
    check: async () => {
      const own = await maintenance.check();
      const recon = await reconcile.problems();
      return {
        problems: [...own.problems, ...recon.problems],
        checked: { ...own.checked, reconciliations: recon.count },
      };
    },
    verifyFile: () => maintenance.verifyFile(),
    rebuild: () => maintenance.rebuild(),
    dump: () => maintenance.dump(),
    restore: (records) => maintenance.restore(records),
  };
}

/**
 * A foreign account's rate for a statement line's date, from the rate table (read as a post reads
 * it); none for an account in the entity's currency. No rate is the line's refusal.
 */
async function rateFor(
  tx: ReconReadTx,
  acct: ReconAccount,
  line: { id: string; line_date: string },
): Promise<{ text: string; functional: string } | undefined> {
  if (!acct.foreign) return undefined;
  const body = {
    entry_date: line.line_date,
    lines: [{ fx: { currency: acct.currency, amount_atoms: 1 } }],
  };
  const facts = await tx.facts({ bodies: [body], fingerprint: null });
  const text = facts.lookups.rates.get(`${acct.currency}\u0000${line.line_date}`);
  if (text === undefined)
    throw entryInvalid([
      {
        path: 'statement_line_id',
        reason: 'fx_rate_missing',
        message:
          `statement line ${line.id}: no ${acct.currency} rate on or before ${line.line_date}: ` +
          'add one (books rates add)',
      },
    ]);
  return { text, functional: facts.entity.currency };
}

/** Whether a statement's closing balance is the one the account keeps already. */
const sameClosing = (
  kept: { date: string; balance_atoms: number } | null | undefined,
  c: { date: string; balance_atoms: number },
) => kept?.date === c.date && kept.balance_atoms === c.balance_atoms;
