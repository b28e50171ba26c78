import { TagTotals } from '../../domain/tagTotals.js';
import { ENTRY_AT as E, ENTRY_COLUMNS, LINE_AT as L, LINE_COLUMNS } from './entryRows.js';

/**
 * The totals by tag of the rows EntryWriter inserts, summed where they are written (an import's
 * writer thread) rather than by the import's own thread, which then neither sums nor sends them.
 * An entry's row comes before its lines (EntryWriter flushes entries first).
 */
export class RowsTagTotals {
  private readonly totals = new TagTotals();
  /** Storage seqs of the adjusting entries written since the last `take`. */
  private readonly adjusting = new Set<number>();

  /** Rows of journal_entries, values row after row in ENTRY_COLUMNS order. */
  entries(values: readonly unknown[]): void {
    const w = ENTRY_COLUMNS.length;
    for (let r = 0; r < values.length; r += w)
      if (values[r + E.is_adjusting] === 1) this.adjusting.add(values[r + E.seq] as number);
  }

  /** Rows of journal_lines, in LINE_COLUMNS order. */
  lines(values: readonly unknown[]): void {
    const w = LINE_COLUMNS.length;
    for (let r = 0; r < values.length; r += w) {
      const text = values[r + L.tags] as string | null;
      if (text === null) continue;
      const amount = values[r + L.amount_atoms] as number;
      this.totals.addStored(
        values[r + L.account_key] as number,
        values[r + L.entry_date] as string,
        values[r + L.line_type] === 'debit' ? amount : -amount,
        this.adjusting.has(values[r + L.entry_seq] as number),
        text,
      );
    }
  }

  /** The totals of the lines given since the last call, as TagTotals.rows gives them; then forgets them. */
  take(): unknown[][] {
    const rows = this.totals.rows();
    this.totals.clear();
    this.adjusting.clear();
    return rows;
  }
}
