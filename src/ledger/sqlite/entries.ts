import { journalEntryOf, type JournalEntry, type LineFacts } from '../../domain/entry.js';
import { errors } from '../../domain/errors.js';
import { normaliseJeNumber } from '../../domain/jeNumber.js';
import type { EntryFilter } from '../port.js';
import type { Db } from './db.js';

/** An entry row as stored, with its reversal links. */
export interface EntryRow {
  seq: number;
  id: string;
  je_number: string;
  entry_date: string;
  currency: string;
  memo: string | null;
  source: string;
  status: string;
  is_adjusting: number;
  manual_entry_reason: string | null;
  total_atoms: number;
  original_id: string | null;
  original_date: string | null;
  created_at: string;
  updated_at: string;
  /** Ids of the entries that reverse this one, comma-separated, or null. */
  reversed_by: string | null;
}

const ENTRY_COLUMNS = `e.seq, e.id, e.je_number, e.entry_date, e.currency, e.memo, e.source, e.status,
  e.is_adjusting, e.manual_entry_reason, e.total_atoms, o.id AS original_id, o.entry_date AS original_date,
  e.created_at, e.updated_at,
  (SELECT group_concat(r.id) FROM journal_entries r WHERE r.original_seq = e.seq) AS reversed_by`;

const LINE_COLUMNS = `l.line_no, l.line_type, l.amount_atoms, l.memo AS line_memo, a.id AS account_id,
  a.account_number, a.name AS account_name, a.account_type, c.counterparty_type,
  c.external_id AS counterparty_external_id, c.name AS counterparty_name`;

const LINE_JOINS = `JOIN accounts a ON a.key = l.account_key LEFT JOIN counterparties c ON c.id = l.counterparty_id`;

type LineRow = Omit<LineFacts, 'memo'> & { line_no: number; line_memo: string | null };

/** Reads entries back as the API answers for them. */
export class EntryReader {
  constructor(private readonly db: Db) {}

  /** The stored row of an entry named by id or JE number; not_found otherwise. */
  find(idOrNumber: string): EntryRow {
    const n = normaliseJeNumber(idOrNumber);
    const row = this.db
      .prep(
        `SELECT ${ENTRY_COLUMNS} FROM journal_entries e LEFT JOIN journal_entries o ON o.seq = e.original_seq
         WHERE e.id = ? OR e.je_number = ?`,
      )
      .get(idOrNumber.trim(), n.ok ? n.value : null) as EntryRow | undefined;
    if (!row) throw errors.notFound(`no journal entry '${idOrNumber}'`);
    return row;
  }

  /** One entry, with its lines. */
  get(idOrNumber: string): JournalEntry {
    return this.db.read(() => {
      const row = this.find(idOrNumber);
      const lines = this.db
        .prep(
          `SELECT ${LINE_COLUMNS} FROM journal_lines l ${LINE_JOINS} WHERE l.entry_seq = ? ORDER BY l.line_no`,
        )
        .all(row.seq) as LineRow[];
      return entryOf(row, lines.map(lineOf));
    });
  }

  /**
   * Entries in date order, one statement read row by row: lines come with their entry, so memory
   * holds one entry at a time however large the ledger, and the snapshot is consistent.
   */
  *list(filter: EntryFilter): Generator<JournalEntry> {
    const rows = this.db
      .prep(
        `SELECT ${ENTRY_COLUMNS}, ${LINE_COLUMNS}
         FROM journal_entries e JOIN journal_lines l ON l.entry_seq = e.seq ${LINE_JOINS}
         LEFT JOIN journal_entries o ON o.seq = e.original_seq
         WHERE e.entry_date >= ? AND e.entry_date <= ?
         ORDER BY e.entry_date, e.seq, l.line_no`,
      )
      .iterate(filter.from ?? '0000-01-01', filter.to ?? '9999-12-31') as IterableIterator<
      EntryRow & LineRow
    >;
    let current: EntryRow | null = null;
    let lines: LineFacts[] = [];
    for (const r of rows) {
      if (current && current.seq !== r.seq) {
        yield entryOf(current, lines);
        lines = [];
      }
      current = r;
      lines.push(lineOf(r));
    }
    if (current) yield entryOf(current, lines);
  }
}

function lineOf(r: LineRow): LineFacts {
  return {
    account_id: r.account_id,
    account_number: r.account_number,
    account_name: r.account_name,
    account_type: r.account_type,
    line_type: r.line_type,
    amount_atoms: r.amount_atoms,
    memo: r.line_memo,
    counterparty_type: r.counterparty_type,
    counterparty_external_id: r.counterparty_external_id,
    counterparty_name: r.counterparty_name,
  };
}

function entryOf(r: EntryRow, lines: LineFacts[]): JournalEntry {
  return journalEntryOf(
    {
      id: r.id,
      seq: r.seq,
      je_number: r.je_number,
      entry_date: r.entry_date,
      currency: r.currency,
      memo: r.memo,
      source: r.source,
      status: r.status,
      is_adjusting: r.is_adjusting === 1,
      manual_entry_reason: r.manual_entry_reason,
      total_atoms: r.total_atoms,
      created_at: r.created_at,
      updated_at: r.updated_at,
      original: r.original_id ? { id: r.original_id, date: r.original_date! } : null,
      reversed_by: r.reversed_by ? r.reversed_by.split(',') : [],
    },
    lines,
  );
}
