import Database from 'better-sqlite3';
import { journalEntryOfRow, type JournalEntry, type LineFacts } from '../../domain/entry.js';
import { errors } from '../../domain/errors.js';
import { FX_COLUMNS, fxOfRow, type FxColumns } from '../../domain/fx.js';
import { normaliseJeNumber } from '../../domain/jeNumber.js';
import { storedAtoms } from '../../domain/money.js';
import type { EntryFilter } from '../port.js';
import { tagsOf } from '../../domain/tags.js';
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
  /** The entry's own tags as stored (JSON), or null. */
  tags: string | null;
}

const ENTRY_COLUMNS = `e.seq, e.id, e.je_number, e.entry_date, e.currency, e.memo, e.source, e.status,
  e.is_adjusting, e.manual_entry_reason, e.total_atoms, o.id AS original_id, o.entry_date AS original_date,
  e.created_at, e.updated_at,
  (SELECT group_concat(r.id) FROM journal_entries r WHERE r.original_seq = e.seq) AS reversed_by, e.tags`;

const LINE_COLUMNS = `l.line_no, l.line_type, l.amount_atoms, l.memo AS line_memo, a.id AS account_id,
  a.account_number, a.name AS account_name, a.account_type, c.counterparty_type,
  c.external_id AS counterparty_external_id, c.name AS counterparty_name, ${FX_COLUMNS},
  l.tags AS line_tags`;

const LINE_JOINS = `JOIN accounts a ON a.key = l.account_key LEFT JOIN counterparties c ON c.id = l.counterparty_id`;

type LineRow = Omit<LineFacts, 'memo' | 'fx' | 'tags'> &
  FxColumns & { line_no: number; line_memo: string | null; line_tags: string | null };

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
        // Exactly: an amount past 2^53 (damage) is then named as it is stored.
        .safeIntegers(true)
        .all(row.seq) as LineRow[];
      return entryOf(row, lines.map(lineOf));
    });
  }

  /**
   * Entries in date order, read a page at a time on a read-only connection of their own, in one
   * read transaction: a consistent snapshot, memory that holds a page however large the ledger, and
   * the ledger's own connection free for other work meanwhile (a server keeps answering).
   */
  *list(filter: EntryFilter): Generator<JournalEntry> {
    const db = new Database(this.db.location, { readonly: true, fileMustExist: true });
    try {
      db.exec('BEGIN');
      const names = namesOf(db);
      const page = pageQuery(db, filter);
      const columns =
        'entry_seq, line_no, account_key, line_type, amount_atoms, memo, counterparty_id, ' +
        'fx_currency, fx_amount_atoms, fx_rate, system, tags';
      const linesIn = db
        .prepare(
          `SELECT ${columns} FROM journal_lines
           WHERE entry_seq IN (SELECT value FROM json_each(?)) ORDER BY entry_seq, line_no`,
        )
        .raw();
      const linesBetween = db
        .prepare(
          `SELECT ${columns} FROM journal_lines WHERE entry_seq BETWEEN ? AND ? ORDER BY entry_seq, line_no`,
        )
        .raw();
      // A page's entries are mostly neighbours in storage (a journal is mostly written in date order):
      // one range read then serves them all, and the few others in it are passed over.
      const linesOf = (seqs: number[]): LinePageRow[] => {
        let [lo, hi] = [Infinity, -Infinity];
        for (const s of seqs) [lo, hi] = [Math.min(lo, s), Math.max(hi, s)];
        if (hi - lo + 1 > 2 * seqs.length)
          return linesIn.all(JSON.stringify(seqs)) as LinePageRow[];
        const wanted = new Set(seqs);
        return (linesBetween.all(lo, hi) as LinePageRow[]).filter((l) => wanted.has(l[0]));
      };
      let cursor: [string, number] = [filter.from ?? '0000-01-01', 0];
      let left = filter.limit ?? Infinity;
      while (left > 0) {
        const rows = page(cursor, Math.min(PAGE, left)) as PageRow[];
        if (rows.length === 0) break;
        const lines = linesOf(rows.map((r) => r[0]));
        yield* assemble(rows, lines, names);
        left -= rows.length;
        const last = rows[rows.length - 1]!;
        cursor = [last[3], last[0]];
      }
      db.exec('COMMIT');
    } finally {
      db.close();
    }
  }
}

const PAGE = 500;

type PageRow = [
  number,
  string,
  string,
  string,
  string,
  string | null,
  string,
  string,
  number,
  string | null,
  number,
  string | null,
  string | null,
  string,
  string,
  string | null,
  string | null,
];
type LinePageRow = [
  number,
  number,
  number,
  'debit' | 'credit',
  number,
  string | null,
  string | null,
  string | null,
  number | null,
  string | null,
  string | null,
  string | null,
];

/** The next page of entries after a (date, seq) cursor, as the filter selects them. */
function pageQuery(
  db: Database.Database,
  f: EntryFilter,
): (cursor: [string, number], limit: number) => unknown[] {
  const where = ['(e.entry_date, e.seq) > (?, ?)', 'e.entry_date <= ?'];
  const params: unknown[] = [f.to ?? '9999-12-31'];
  if (f.accounts?.length) {
    where.push(
      `EXISTS (SELECT 1 FROM journal_lines x WHERE x.entry_seq = e.seq AND x.account_key IN (
         WITH RECURSIVE sub(key) AS (SELECT key FROM accounts WHERE external_id IN (SELECT value FROM json_each(?))
           UNION SELECT a.key FROM accounts a JOIN sub ON a.parent_key = sub.key)
         SELECT key FROM sub))`,
    );
    params.push(JSON.stringify(f.accounts));
  }
  if (f.counterparty) {
    where.push(
      `EXISTS (SELECT 1 FROM journal_lines x JOIN counterparties c ON c.id = x.counterparty_id
               WHERE x.entry_seq = e.seq AND c.counterparty_type = ? AND c.external_id = ?)`,
    );
    params.push(f.counterparty.type, f.counterparty.external_id);
  }
  if (f.search) {
    where.push(
      `(instr(lower(e.memo), lower(?)) > 0 OR instr(lower(e.je_number), lower(?)) > 0
        OR EXISTS (SELECT 1 FROM journal_lines x WHERE x.entry_seq = e.seq AND instr(lower(x.memo), lower(?)) > 0))`,
    );
    params.push(f.search, f.search, f.search);
  }
  const stmt = db
    .prepare(
      `SELECT e.seq, e.id, e.je_number, e.entry_date, e.currency, e.memo, e.source, e.status, e.is_adjusting,
              e.manual_entry_reason, e.total_atoms, o.id, o.entry_date, e.created_at, e.updated_at,
              CASE WHEN e.status = 'reversed'
                THEN (SELECT group_concat(r.id) FROM journal_entries r WHERE r.original_seq = e.seq) END,
              e.tags
       FROM journal_entries e LEFT JOIN journal_entries o ON o.seq = e.original_seq
       WHERE ${where.join(' AND ')} ORDER BY e.entry_date, e.seq LIMIT ?`,
    )
    .raw();
  return ([date, seq], limit) => stmt.all(date, seq, ...params, limit);
}

interface Names {
  accounts: Map<number, { id: string; number: string | null; name: string; type: string }>;
  counterparties: Map<string, { type: string; external_id: string; name: string }>;
}

/** The chart and counterparties by key, read once: a journal line names them by key. */
function namesOf(db: Database.Database): Names {
  const accounts = new Map<
    number,
    { id: string; number: string | null; name: string; type: string }
  >();
  for (const [key, id, number, name, type] of db
    .prepare(`SELECT key, id, account_number, name, account_type FROM accounts`)
    .raw()
    .iterate() as IterableIterator<[number, string, string | null, string, string]>) {
    accounts.set(key, { id, number, name, type });
  }
  const counterparties = new Map<string, { type: string; external_id: string; name: string }>();
  for (const [id, type, external_id, name] of db
    .prepare(`SELECT id, counterparty_type, external_id, name FROM counterparties`)
    .raw()
    .iterate() as IterableIterator<[string, string, string, string]>) {
    counterparties.set(id, { type, external_id, name });
  }
  return { accounts, counterparties };
}

const accountFacts = (a: { id: string; number: string | null; name: string; type: string }) => ({
  account_id: a.id,
  account_number: a.number,
  account_name: a.name,
  account_type: a.type,
});

/** A page's entries with their lines (both in seq order within the page's entries). */
function* assemble(rows: PageRow[], lines: LinePageRow[], names: Names): Generator<JournalEntry> {
  const bySeq = new Map<number, LineFacts[]>();
  for (const [
    seq,
    ,
    key,
    side,
    amount,
    memo,
    cpId,
    fxCurrency,
    fxAmount,
    fxRate,
    system,
    lineTags,
  ] of lines) {
    let list = bySeq.get(seq);
    if (!list) bySeq.set(seq, (list = []));
    const cp = cpId === null ? undefined : names.counterparties.get(cpId);
    list.push({
      ...accountFacts(names.accounts.get(key)!),
      line_type: side,
      amount_atoms: amount,
      memo,
      counterparty_type: cp?.type ?? null,
      counterparty_external_id: cp?.external_id ?? null,
      counterparty_name: cp?.name ?? null,
      ...(fxCurrency !== null ? { fx: fxOfRow(fxCurrency, fxAmount, fxRate)! } : {}),
      ...(system === 'fx_realized' ? { system } : {}),
      ...(lineTags ? { tags: tagsOf(lineTags) } : {}),
    });
  }
  for (const r of rows) {
    const [
      seq,
      id,
      je_number,
      entry_date,
      currency,
      memo,
      source,
      status,
      adjusting,
      reason,
      total,
    ] = r;
    const [originalId, originalDate, created_at, updated_at, reversedBy] = [
      r[11],
      r[12],
      r[13],
      r[14],
      r[15],
    ];
    yield entryOf(
      {
        seq,
        id,
        je_number,
        entry_date,
        currency,
        memo,
        source,
        status,
        is_adjusting: adjusting,
        manual_entry_reason: reason,
        total_atoms: total,
        original_id: originalId,
        original_date: originalDate,
        created_at,
        updated_at,
        reversed_by: reversedBy,
        tags: r[16],
      },
      bySeq.get(seq) ?? [],
    );
  }
}

function lineOf(r: LineRow): LineFacts {
  return {
    account_id: r.account_id,
    account_number: r.account_number,
    account_name: r.account_name,
    account_type: r.account_type,
    line_type: r.line_type,
    amount_atoms: storedAtoms(r.amount_atoms),
    memo: r.line_memo,
    counterparty_type: r.counterparty_type,
    counterparty_external_id: r.counterparty_external_id,
    counterparty_name: r.counterparty_name,
    ...(r.fx_currency !== null
      ? { fx: fxOfRow(r.fx_currency, r.fx_amount_atoms, r.fx_rate)! }
      : {}),
    ...(r.system === 'fx_realized' ? { system: r.system } : {}),
    ...(r.line_tags ? { tags: tagsOf(r.line_tags) } : {}),
  };
}

function entryOf(r: EntryRow, lines: LineFacts[]): JournalEntry {
  const { is_adjusting, reversed_by, tags, ...row } = r;
  return journalEntryOfRow(
    {
      ...row,
      is_adjusting: is_adjusting === 1,
      reversed_by: reversed_by ? reversed_by.split(',') : [],
      tags: tagsOf(tags),
    },
    lines,
  );
}
