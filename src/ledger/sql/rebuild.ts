import { recordChange } from './auditTables.js';
import { whoNow } from '../runtime/actor.js';
import { errors } from '../../domain/errors.js';
import { rebuildRunning } from '../../domain/rebuild.js';
import { localProcesses, thisProcess } from '../runtime/processes.js';
import type { Session, Tables } from './dialect.js';

/**
 * `books rebuild`: derived data computed again from the lines. Posts are refused with CAPI73
 * meanwhile: the mark is committed first; `rewrite` does the work and calls `done` in the
 * transaction that writes its result, which clears the mark with it. A mark left by a dead rebuild
 * is taken over; a failed rebuild clears its mark.
 */
export async function rebuildMarked<R>(
  tables: Tables,
  rewrite: (done: (s: Session) => Promise<void>) => Promise<R>,
): Promise<R> {
  const mark = ({ sql, scope }: Session, value: string | null, owner: string | null) => {
    const { table, where } = scope.settingsRow;
    return sql.run(`UPDATE ${table} SET rebuild_started_at = ?, rebuild_owner = ? WHERE ${where}`, [
      value,
      owner,
    ]);
  };
  await tables.write(async (s, entity) => {
    if (rebuildRunning(entity, Date.now(), localProcesses)) throw errors.rebuilding(1);
    await mark(s, tables.stamp(), thisProcess());
  });
  const clear = (s: Session) => mark(s, null, null);
  const who = whoNow();
  const done = async (s: Session) => {
    await clear(s);
    await recordChange(
      s,
      who,
      'ledger.rebuilt',
      [],
      'derived totals computed again from the lines',
    );
  };
  try {
    return await rewrite(done);
  } catch (e) {
    await tables.write(clear);
    throw e;
  }
}
