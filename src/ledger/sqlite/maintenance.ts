import type { DumpCounts, DumpRecord } from '../../domain/dump.js';
import { rewriteTagTotals } from '../sql/tagTotals.js';
import { derivedStructure } from '../../domain/check.js';
import { isBooksError, type Problem } from '../../domain/errors.js';
import { checkedCounts, journalProblems, type Add } from '../sql/check.js';
import { rebuildMarked } from '../sql/rebuild.js';
import { dumpRecords } from '../sql/dump.js';
import { restoreInto, rewriteTotals, type RestoreTarget } from '../sql/restore.js';
import type { MaintenanceOps } from '../port.js';
import type { Tables } from '../sql/dialect.js';
import { monthTotalsFromLines, TOTALS_COLUMNS } from '../sql/totals.js';
import { clearDamaged, markDamaged, summingExactly } from './connection.js';
import type { Db } from './db.js';
import { reindex } from './glIndex.js';
import { FILE, fileTables } from './tables.js';
import { fileRows, runOn } from './writer.js';

/** `books check` and `books rebuild` of a ledger file. */
export class SqliteMaintenance implements MaintenanceOps {
  private readonly tables: Tables;

  constructor(private readonly db: Db) {
    this.tables = fileTables(db);
  }

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
    return rebuildMarked(this.tables, async (done) => {
      // Computed from a snapshot without the write lock (posts are refused by the mark meanwhile),
      // then written with the index rebuilt and the mark cleared in one transaction.
      const rows = summingExactly(monthTotalsFromLines(FILE), (sql) =>
        this.db.prep(sql).safeIntegers(true).raw().all(),
      ) as [bigint, string, bigint, bigint, bigint, bigint][];
      return this.tables.write(async (s) => {
        this.db.sqlite.exec('DELETE FROM account_month_totals');
        const insert = this.db.prep(
          `INSERT INTO account_month_totals (${TOTALS_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)`,
        );
        let lines = 0;
        for (const row of rows) {
          insert.run(...row);
          lines += Number(row[3]);
        }
        await rewriteTagTotals(s);
        reindex(this.db);
        await done(s);
        return { totals: rows.length, lines };
      });
    });
  }

  dump(): AsyncIterable<DumpRecord> {
    return this.tables.snapshot(dumpRecords);
  }

  /**
   * Restores a dump into this ledger in one IMMEDIATE transaction. The ledger's connection serves
   * nothing else meanwhile (the records may come from a file, read as they come).
   */
  restore(records: AsyncIterable<unknown>): Promise<DumpCounts> {
    const target: RestoreTarget = {
      rows: fileRows(runOn(this.db)),
      name: this.db.location,
      kind: 'ledger',
      keyHolder: async () => null,
      derive: async (s) => {
        await rewriteTotals(s);
        reindex(this.db);
      },
    };
    return this.tables.write((s) => restoreInto(s, target, records));
  }

  /** Every invariant the ledger relies on, in one read transaction; an empty list means the file is sound. */
  async check(): Promise<{ problems: Problem[]; checked: Record<string, number> }> {
    const problems: Problem[] = [];
    const add: Add = (p) => problems.push(p);
    let checked: Record<string, number> = {};
    try {
      checked = await this.tables.read(async (s) => {
        // A damaged file is not read further: what it says cannot be believed.
        problems.push(
          ...(await journalProblems(s, {
            storage: async (add) => this.fileIntegrity(add),
            derived: async (add) => this.glIndex(add),
          })),
        );
        return checkedCounts(s);
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
}
