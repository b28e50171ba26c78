import type { RecordedLine, StoredRecord } from '../../domain/audit.js';
import { flag, type Scope, type Session } from './dialect.js';

/** Entries read per page while the trail is verified: their lines come in one range read. */
const PAGE = 1000;

/**
 * The entity's entries in storage order, each with its lines, as the trail records them: the columns
 * as they are kept (a damaged value is read, never converted, so that it is named, not stumbled on).
 */
export async function* storedRecords({ sql, scope }: Session): AsyncGenerator<StoredRecord> {
  for (let after = 0; ;) {
    const rows = await sql.all<EntryRow>(ENTRY_PAGE(scope), [after]);
    if (rows.length === 0) return;
    const last = Number(rows[rows.length - 1]!.seq);
    yield* recordsOf(rows, await sql.all<LineRow>(LINE_PAGE(scope), [after, last]));
    after = last;
  }
}

/** A page of entries after a storage seq, as the trail records them (`?`: the seq). */
export const ENTRY_PAGE = (scope: Scope) =>
  `SELECT e.seq, e.id, e.je_number, e.entry_date, e.currency, e.memo, e.source, e.is_adjusting,
          e.manual_entry_reason, e.total_atoms, o.id AS original_id, e.fingerprint, e.created_at,
          e.tags
   FROM journal_entries e LEFT JOIN journal_entries o ON ${scope.joined('o', 'e')}o.seq = e.original_seq
   WHERE ${scope.of('e')}e.seq > ? ORDER BY e.seq LIMIT ${PAGE}`;

/** The lines of the entries after one seq through another (`?`, `?`). */
export const LINE_PAGE = (scope: Scope) =>
  `SELECT l.entry_seq, a.id AS account_id, l.line_type, l.amount_atoms, l.memo, l.counterparty_id,
          l.fx_currency, l.fx_amount_atoms, l.fx_rate, l.system, l.tags
   FROM journal_lines l LEFT JOIN accounts a ON ${scope.joined('a', 'l')}a.key = l.account_key
   WHERE ${scope.of('l')}l.entry_seq > ? AND l.entry_seq <= ? ORDER BY l.entry_seq, l.line_no`;

/** A page's entries with their lines. */
export function recordsOf(rows: EntryRow[], lines: LineRow[]): StoredRecord[] {
  const bySeq = new Map<number, RecordedLine[]>();
  for (const l of lines) {
    let list = bySeq.get(Number(l.entry_seq));
    if (!list) bySeq.set(Number(l.entry_seq), (list = []));
    const fx =
      l.fx_currency === null
        ? null
        : { currency: l.fx_currency, amount_atoms: l.fx_amount_atoms!, rate: l.fx_rate! };
    list.push({ ...l, fx });
  }
  return rows.map((r) => ({
    ...r,
    is_adjusting: flag(r.is_adjusting),
    lines: bySeq.get(Number(r.seq)) ?? [],
  }));
}

export type EntryRow = StoredRecord & { seq: number };

export type LineRow = Omit<RecordedLine, 'fx'> & {
  entry_seq: number;
  fx_currency: string | null;
  fx_amount_atoms: number | null;
  fx_rate: string | null;
};
