import { chartProblems, type ChartShape } from '../../domain/chart.js';
import { numberingProblem } from '../../domain/jeNumber.js';
import { exponentOf, MAX_ATOMS } from '../../domain/money.js';
import {
  brokenReversal,
  derivedStructure,
  currencyReadable,
  entityProblems,
  entryProblems,
  type EntitySettings,
  type EntryFacts,
  invalidLine,
  totalsDrift,
  unbalancedEntry,
  type TotalsDrift,
} from '../../domain/check.js';
import type { DumpCounts, DumpRecord } from '../../domain/dump.js';
import { isBooksError, type Problem } from '../../domain/errors.js';
import { clearDamaged, markDamaged } from './connection.js';
import type { MaintenanceOps } from '../port.js';
import type { Db } from './db.js';
import { rebuild } from './rebuild.js';
import { dumpLedger, restoreLedger } from './transfer.js';
import { MONTH_TOTALS_FROM_LINES } from './sql.js';

type Add = (p: Problem) => void;

/** `books check` and `books rebuild` of a ledger file. */
export class SqliteMaintenance implements MaintenanceOps {
  constructor(
    private readonly db: Db,
    private readonly shapes: () => ChartShape[],
  ) {}

  async verifyFile(): Promise<Problem[]> {
    const rows = this.damage('quick_check');
    if (rows.length) markDamaged(this.db.location, rows[0]!);
    return rows.map((r) => ({
      path: 'file',
      reason: 'integrity',
      message: `the file is damaged: ${r}`,
    }));
  }

  /**
   * What SQLite's integrity or quick check finds wrong, a few lines at most, with the table or index
   * a damaged page belongs to named where the schema can still be read. Empty for a sound file.
   */
  private damage(pragma: 'integrity_check' | 'quick_check'): string[] {
    let lines: string[];
    try {
      const rows = this.db.sqlite.pragma(`${pragma}(10)`, { simple: false }) as Record<
        string,
        string
      >[];
      lines = rows
        .flatMap((r) => String(Object.values(r)[0]).split('\n'))
        .filter((l) => !l.startsWith('***'));
    } catch (e) {
      lines = [(e as Error).message];
    }
    if (lines.length === 1 && lines[0] === 'ok') return [];
    const named = (line: string) =>
      line.replace(/^Tree (\d+)/, (whole, root: string) => {
        try {
          const name = this.db.sqlite
            .prepare('SELECT name FROM sqlite_master WHERE rootpage = ?')
            .pluck()
            .get(Number(root));
          return name ? `${whole} (${String(name)})` : whole;
        } catch {
          return whole;
        }
      });
    const shown = lines.slice(0, 3).map(named);
    return lines.length > 3 ? [...shown, `… ${lines.length - 3} more`] : shown;
  }

  async rebuild(): Promise<{ totals: number; lines: number }> {
    return rebuild(this.db);
  }

  dump(): AsyncIterable<DumpRecord> {
    return dumpLedger(this.db.location);
  }

  restore(records: AsyncIterable<unknown>): Promise<DumpCounts> {
    return restoreLedger(this.db, records);
  }

  /** Every invariant the ledger relies on, in one read transaction; an empty list means the file is sound. */
  async check(): Promise<{ problems: Problem[]; checked: Record<string, number> }> {
    const problems: Problem[] = [];
    const add: Add = (p) => problems.push(p);
    let checked: Record<string, number> = {};
    try {
      checked = this.db.read(() => {
        // A damaged file is not read further: what it says cannot be believed.
        if (this.fileIntegrity(add)) {
          const sound = this.entityRow(add);
          this.entriesBalance(add);
          this.derivedTotals(add);
          this.glIndex(add);
          this.links(add);
          this.numbering(add);
          if (sound) this.chartTree(add);
        }
        return this.counts();
      });
    } catch (e) {
      if (!isBooksError(e) || e.code !== 'damaged') throw e;
      add({ path: 'file', reason: 'damaged', message: e.message });
    }
    const damage = problems.filter((p) => p.path === 'file');
    if (damage.length) markDamaged(this.db.location, damage[0]!.message);
    else clearDamaged(this.db.location);
    return { problems, checked };
  }

  private counts(): Record<string, number> {
    const n = (table: string) =>
      this.db.prep(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;
    return {
      entries: n('journal_entries'),
      lines: n('journal_lines'),
      accounts: n('accounts'),
      counterparties: n('counterparties'),
      totals: n('account_month_totals'),
    };
  }

  /** SQLite's own check of every page and index; false when the file is damaged. */
  private fileIntegrity(add: Add): boolean {
    const rows = this.damage('integrity_check');
    if (rows.length) {
      for (const r of rows)
        add({ path: 'file', reason: 'integrity', message: `the file is damaged: ${r}` });
      return false;
    }
    for (const r of this.db.sqlite.pragma('foreign_key_check') as {
      table: string;
      rowid: number;
      parent: string;
    }[]) {
      const message = `${r.table} row ${r.rowid} points at a missing ${r.parent} row`;
      add({ path: r.table, reason: 'foreign_key', message });
    }
    return true;
  }

  private entriesBalance(add: Add): void {
    const unbalanced = this.db
      .prep(
        `SELECT e.je_number, e.total_atoms, e.line_count,
                COALESCE(SUM(CASE WHEN l.line_type = 'debit' THEN l.amount_atoms END), 0) AS d,
                COALESCE(SUM(CASE WHEN l.line_type = 'credit' THEN l.amount_atoms END), 0) AS c,
                COUNT(l.line_no) AS n
         FROM journal_entries e LEFT JOIN journal_lines l ON l.entry_seq = e.seq GROUP BY e.seq
         HAVING d != c OR d != e.total_atoms OR n != e.line_count OR n < 2 OR e.total_atoms > ${MAX_ATOMS}`,
      )
      .safeIntegers(true)
      .all() as {
      je_number: string;
      total_atoms: number;
      d: number;
      c: number;
      n: number;
      line_count: number;
    }[];
    for (const u of unbalanced) add(unbalancedEntry(u));
    const badLines = this.db
      .prep(
        `SELECT e.je_number, l.line_no FROM journal_lines l JOIN journal_entries e ON e.seq = l.entry_seq
         WHERE l.amount_atoms < 1 OR l.amount_atoms > ${MAX_ATOMS} OR l.line_type NOT IN ('debit', 'credit')
            OR l.entry_date != e.entry_date`,
      )
      .all() as { je_number: string; line_no: number }[];
    for (const b of badLines) add(invalidLine(b.je_number, b.line_no));
  }

  private derivedTotals(add: Add): void {
    const drift = this.db
      .prep(
        `WITH actual AS (${MONTH_TOTALS_FROM_LINES})
         SELECT a.external_id, x.* FROM (
           SELECT actual.account_key, actual.month, actual.net, actual.n, actual.adj_net, actual.adj_n,
                  t.net_atoms AS tnet, t.line_count AS tn, t.adj_net_atoms AS tadj_net, t.adj_line_count AS tadj_n
             FROM actual LEFT JOIN account_month_totals t
               ON t.account_key = actual.account_key AND t.month = actual.month
           UNION ALL
           SELECT t.account_key, t.month, NULL, NULL, NULL, NULL, t.net_atoms, t.line_count, t.adj_net_atoms,
                  t.adj_line_count
             FROM account_month_totals t LEFT JOIN actual
               ON actual.account_key = t.account_key AND actual.month = t.month
             WHERE actual.account_key IS NULL
         ) x LEFT JOIN accounts a ON a.key = x.account_key
         WHERE x.net IS NOT x.tnet OR x.n IS NOT x.tn OR x.adj_net IS NOT x.tadj_net OR x.adj_n IS NOT x.tadj_n`,
      )
      .all() as TotalsDrift[];
    for (const d of drift) add(totalsDrift(d));
  }

  /** The general ledger's index holds exactly the lines of the entries through its mark (glIndex.ts). */
  private glIndex(add: Add): void {
    const marks = this.db.prep('SELECT through_seq FROM gl_index_state').pluck().all() as number[];
    const last = this.db
      .prep('SELECT COALESCE(MAX(seq), 0) FROM journal_entries')
      .pluck()
      .get() as number;
    const through = marks[0];
    if (marks.length !== 1 || through === undefined || through > last) {
      const what = `the general ledger's index is marked through ${marks.join(', ') || 'nothing'}`;
      return add(derivedStructure('gl_index_state', what));
    }
    const same = ['account_key', 'entry_date', 'entry_seq', 'line_no']
      .map((c) => `g.${c} = l.${c}`)
      .join(' AND ');
    const count = (sql: string) => this.db.prep(sql).pluck().get(through) as number;
    const missing = count(
      `SELECT COUNT(*) FROM journal_lines l
       WHERE l.entry_seq <= ? AND NOT EXISTS (SELECT 1 FROM gl_index g WHERE ${same})`,
    );
    const extra = count(
      `SELECT COUNT(*) FROM gl_index g
       WHERE g.entry_seq > ? OR NOT EXISTS (SELECT 1 FROM journal_lines l WHERE ${same})`,
    );
    if (missing || extra) {
      const what = `the general ledger's index lacks ${missing} lines and holds ${extra} that are not lines`;
      add(derivedStructure('gl_index', what));
    }
  }

  private links(add: Add): void {
    const reversals = this.db
      .prep(
        `SELECT o.je_number FROM journal_entries o WHERE o.status = 'reversed'
         AND NOT EXISTS (SELECT 1 FROM journal_entries r WHERE r.original_seq = o.seq)`,
      )
      .pluck()
      .all() as string[];
    for (const r of reversals) add(brokenReversal(r));
  }

  /** Every JE-n kept where automatic numbering looks for it (see numberingProblem). */
  private numbering(add: Add): void {
    const rows = this.db
      .prep(
        `SELECT je_number, je_seq, je_seq_uncounted FROM journal_entries
         WHERE je_seq IS NOT NULL OR je_seq_uncounted IS NOT NULL OR je_number GLOB 'JE-[1-9]*'`,
      )
      .safeIntegers(true)
      .raw()
      .iterate() as IterableIterator<[string, bigint | null, bigint | null]>;
    let found = 0;
    for (const [number, counted, uncounted] of rows) {
      const problem = numberingProblem(number, counted, uncounted);
      if (problem && found++ < 10)
        add({ path: `journal_entries[${number}]`, reason: 'je_numbering', message: problem });
    }
    if (found > 10)
      add({ path: 'journal_entries', reason: 'je_numbering', message: `… ${found - 10} more` });
  }

  /** The file's one entity row, its settings sound, and no entry before its books start. */
  private entityRow(add: Add): boolean {
    const rows = this.db
      .prep(`SELECT name, currency, books_start, fiscal_year_start_month, lock_date FROM entity`)
      .all() as EntitySettings[];
    if (rows.length !== 1) {
      const message = `the file holds ${rows.length} entity rows, not one`;
      add({ path: 'entity', reason: 'invalid_entity', message });
      return false;
    }
    const first = this.db
      .prep(`SELECT je_number, entry_date FROM journal_entries ORDER BY entry_date, seq LIMIT 1`)
      .get() as { je_number: string; entry_date: string } | undefined;
    const problems = entityProblems(rows[0]!, first);
    for (const p of problems) add(p);
    const facts: EntryFacts = {
      dates: this.db
        .prep(
          `SELECT entry_date, MIN(je_number) AS je_number, COUNT(*) AS n FROM journal_entries
           GROUP BY entry_date`,
        )
        .all() as EntryFacts['dates'],
      currencies: this.db
        .prep(
          `SELECT currency, MIN(je_number) AS je_number, COUNT(*) AS n FROM journal_entries
           GROUP BY currency`,
        )
        .all() as EntryFacts['currencies'],
    };
    if (currencyReadable(problems))
      for (const p of entryProblems(facts, rows[0]!.currency as string)) add(p);
    return currencyReadable(problems);
  }

  private chartTree(add: Add): void {
    const exponent = exponentOf(this.db.entity().currency);
    for (const p of chartProblems(this.shapes(), exponent)) add(p);
  }
}
