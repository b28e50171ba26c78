import { BooksError } from '../../domain/errors.js';
import { rebuildRunning } from '../../domain/rebuild.js';
import { localProcesses, thisProcess } from '../processes.js';
import type { Db } from './db.js';
import { reindex } from './glIndex.js';
import { MONTH_TOTALS_FROM_LINES } from './sql.js';

/**
 * Recomputes the derived monthly totals and the general ledger's index from the lines. Posts are
 * refused with CAPI73 meanwhile: the mark is committed first, the totals are computed from a snapshot
 * without holding the write lock, then written, the index rebuilt and the mark cleared in one
 * transaction. A mark left by a dead rebuild is taken over.
 */
export function rebuild(db: Db): { totals: number; lines: number } {
  db.write(() => {
    if (rebuildRunning(db.entity(), Date.now(), localProcesses)) {
      throw new BooksError(
        'CAPI73',
        'a rebuild is already running; try again when it finishes',
        [],
        {
          retryable: true,
          retry_after: 1,
        },
      );
    }
    db.prep(`UPDATE entity SET rebuild_started_at = ?, rebuild_owner = ?`).run(
      db.stamp(),
      thisProcess(),
    );
  });
  try {
    const rows = db.prep(MONTH_TOTALS_FROM_LINES).safeIntegers(true).raw().all() as [
      bigint,
      string,
      bigint,
      bigint,
      bigint,
      bigint,
    ][];
    return db.write(() => {
      db.sqlite.exec('DELETE FROM account_month_totals');
      const insert = db.prep(
        `INSERT INTO account_month_totals (account_key, month, net_atoms, line_count, adj_net_atoms, adj_line_count)
         VALUES (?, ?, ?, ?, ?, ?)`,
      );
      let lines = 0;
      for (const row of rows) {
        insert.run(...row);
        lines += Number(row[3]);
      }
      reindex(db);
      clearMark(db);
      return { totals: rows.length, lines };
    });
  } catch (e) {
    db.write(() => clearMark(db));
    throw e;
  }
}

function clearMark(db: Db): void {
  db.prep(`UPDATE entity SET rebuild_started_at = NULL, rebuild_owner = NULL`).run();
}
