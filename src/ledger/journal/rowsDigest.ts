import { EntriesDigest, type RecordedEntry, type RecordedLine } from '../../domain/audit.js';
import { ENTRY_AT as E, ENTRY_COLUMNS, LINE_AT as L, LINE_COLUMNS } from './entryRows.js';

interface Open {
  entry: RecordedEntry;
  lines: RecordedLine[];
  expected: number;
}

/**
 * The digest of entries (domain/audit.ts EntriesDigest) taken from the rows EntryWriter inserts, in
 * the order it inserts them: where an import's rows are written (its writer thread), so that the
 * import's own thread does not also spell out and hash every entry. An entry's lines follow its row
 * (EntryWriter flushes entries first); an entry is digested once it has all its lines.
 */
export class RowsDigest {
  private readonly digest = new EntriesDigest();
  private readonly open: Open[] = [];
  private head = 0;

  constructor(
    /** An account's id from the key its lines store. */
    private readonly accountId: (key: number) => string | null,
    /** A reversed entry's id from its storage seq. */
    private readonly originalId: (seq: number) => string | null,
  ) {}

  /** Rows of journal_entries, values row after row in ENTRY_COLUMNS order. */
  entries(values: readonly unknown[]): void {
    const w = ENTRY_COLUMNS.length;
    for (let r = 0; r < values.length; r += w) {
      const v = (c: number) => values[r + c];
      const original = v(E.original_seq) as number | null;
      this.open.push({
        entry: {
          id: v(E.id) as string,
          je_number: v(E.je_number) as string,
          entry_date: v(E.entry_date) as string,
          currency: v(E.currency) as string,
          memo: v(E.memo) as string | null,
          source: v(E.source) as string,
          is_adjusting: v(E.is_adjusting) === 1,
          manual_entry_reason: v(E.manual_entry_reason) as string | null,
          total_atoms: v(E.total_atoms) as number,
          original_id: original === null ? null : this.originalId(original),
          fingerprint: v(E.fingerprint) as string | null,
          created_at: v(E.created_at) as string,
          tags: v(E.tags) as string | null,
        },
        lines: [],
        expected: v(E.line_count) as number,
      });
    }
  }

  /** Rows of journal_lines, in LINE_COLUMNS order, for the entries given before them. */
  lines(values: readonly unknown[]): void {
    const w = LINE_COLUMNS.length;
    for (let r = 0; r < values.length; r += w) {
      const v = (c: number) => values[r + c];
      const open = this.open[this.head];
      if (!open) throw new Error('a journal line was written before its entry');
      const currency = v(L.fx_currency) as string | null;
      open.lines.push({
        account_id: this.accountId(v(L.account_key) as number)!,
        line_type: v(L.line_type) as string,
        amount_atoms: v(L.amount_atoms) as number,
        memo: v(L.memo) as string | null,
        counterparty_id: v(L.counterparty_id) as string | null,
        fx:
          currency === null
            ? null
            : {
                currency,
                amount_atoms: v(L.fx_amount_atoms) as number,
                rate: v(L.fx_rate) as string,
              },
        system: v(L.system) as string | null,
        tags: v(L.tags) as string | null,
      });
      if (open.lines.length === open.expected) this.close();
    }
  }

  private close(): void {
    const { entry, lines } = this.open[this.head]!;
    this.digest.add(entry, lines);
    this.open[this.head++] = undefined as unknown as Open;
    if (this.head === this.open.length) {
      this.open.length = 0;
      this.head = 0;
    }
  }

  /** How many entries, and their digest (null for none); every entry's lines must have come. */
  result(): { count: number; hex: string | null } {
    if (this.head !== this.open.length)
      throw new Error('an entry was written without all its lines');
    return { count: this.digest.count, hex: this.digest.hex() };
  }
}
