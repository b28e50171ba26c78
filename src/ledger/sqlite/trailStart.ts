import { EntriesDigest, GENESIS, sealed } from '../../domain/audit.js';
import { whoNow } from '../runtime/actor.js';
import { eventRow, insertOne, startDraft } from '../sql/auditTables.js';
import {
  ENTRY_PAGE,
  LINE_PAGE,
  recordsOf,
  type EntryRow,
  type LineRow,
} from '../sql/auditRecords.js';
import type { Db } from './db.js';
import { FILE } from './tables.js';

/**
 * Starts the trail of a ledger file written before it, as its schema is brought up to date (in the
 * same transaction, synchronously as a file's migration runs): a `trail.started` event records
 * every entry it holds, so that check and verify hold from the first open on.
 */
export function startTrail(db: Db): void {
  if ((db.prep('SELECT COUNT(*) FROM audit_events').pluck().get() as number) > 0) return;
  const digest = new EntriesDigest();
  let [first, last] = ['', ''];
  const entries = db.prep(ENTRY_PAGE(FILE)).safeIntegers(true);
  const lines = db.prep(LINE_PAGE(FILE)).safeIntegers(true);
  for (let after = 0n; ;) {
    const rows = entries.all(after) as (EntryRow & { seq: bigint })[];
    if (rows.length === 0) break;
    const through = rows[rows.length - 1]!.seq;
    for (const r of recordsOf(rows, lines.all(after, through) as LineRow[])) {
      digest.add(r, r.lines);
      first ||= r.je_number;
      last = r.je_number;
    }
    after = through;
  }
  if (digest.count === 0) return;
  const [event] = sealed({ seq: 0, hash: GENESIS }, new Date().toISOString(), [
    startDraft(whoNow(), digest, first, last),
  ]);
  db.prep(insertOne(FILE)).run(...eventRow(event!));
}
