import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { BooksError } from '../../domain/errors.js';
import type { Db, EntityRow } from './db.js';
import { reindex } from './glIndex.js';
import { MONTH_TOTALS_FROM_LINES } from './sql.js';

/** How long a mark from another machine (whose process cannot be asked) is believed. */
const FOREIGN_MARK_MS = 10 * 60 * 1000;

/**
 * This process as a rebuild mark names it: host, pid and the process's start time, so that a pid
 * reused by another process after a crash does not pass for the rebuild.
 */
function me(): string {
  return `${hostname()}:${process.pid}:${startTime(process.pid) ?? ''}`;
}

/** A process's start time in clock ticks since boot (Linux), or null where it cannot be read. */
function startTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22, counted after the command name, which is in parentheses and may hold spaces.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/** True while the process that wrote a rebuild mark is alive. */
function ownerAlive(owner: string, startedAt: string, now: number): boolean {
  const [host, pidText, started] = owner.split(':');
  if (host !== hostname()) return now - Date.parse(startedAt) < FOREIGN_MARK_MS;
  const pid = Number(pidText);
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const current = startTime(pid);
  return !started || current === null || current === started;
}

/**
 * True while a rebuild runs: the mark is there and the process that set it is alive. A rebuild that
 * was killed is recognised as dead at once, so its mark never blocks posting.
 */
export function rebuildRunning(entity: EntityRow, now = Date.now()): boolean {
  const started = entity.rebuild_started_at;
  if (started === null) return false;
  return ownerAlive(entity.rebuild_owner ?? '', started, now);
}

/**
 * Recomputes the derived monthly totals and the general ledger's index from the lines. Posts are
 * refused with CAPI73 meanwhile: the mark is committed first, the totals are computed from a snapshot
 * without holding the write lock, then written, the index rebuilt and the mark cleared in one
 * transaction. A mark left by a dead rebuild is taken over.
 */
export function rebuild(db: Db): { totals: number; lines: number } {
  db.write(() => {
    if (rebuildRunning(db.entity())) {
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
    db.prep(`UPDATE entity SET rebuild_started_at = ?, rebuild_owner = ?`).run(db.stamp(), me());
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
