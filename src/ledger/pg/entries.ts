import {
  journalEntryOfRow,
  type EntryRowFacts,
  type JournalEntry,
  type LineFacts,
} from '../../domain/entry.js';
import { errors } from '../../domain/errors.js';
import { FX_COLUMNS, withFx, type FxColumns } from '../../domain/fx.js';
import { normaliseJeNumber } from '../../domain/jeNumber.js';
import type { EntryFilter } from '../port.js';
import { tagsOf } from '../../domain/tags.js';
import type { PgDb, Query } from './db.js';

/** An entry row as stored, with its reversal links (null when it is not reversed). */
type EntryRow = Omit<EntryRowFacts, 'reversed_by' | 'tags'> & {
  reversed_by: string[] | null;
  tags: string | null;
};

const ENTRY_COLUMNS = `e.seq, e.id, e.je_number, e.entry_date, e.currency, e.memo, e.source, e.status,
  e.is_adjusting, e.manual_entry_reason, e.total_atoms, o.id AS original_id, o.entry_date AS original_date,
  e.created_at, e.updated_at,
  CASE WHEN e.status = 'reversed' THEN (SELECT array_agg(r.id ORDER BY r.seq) FROM journal_entries r
    WHERE r.entity_id = e.entity_id AND r.original_seq = e.seq) END AS reversed_by, e.tags`;

const ENTRY_FROM = `journal_entries e
  LEFT JOIN journal_entries o ON o.entity_id = e.entity_id AND o.seq = e.original_seq`;

const LINES = `SELECT l.entry_seq, l.line_no, l.line_type, l.amount_atoms, l.memo, a.id AS account_id,
    a.account_number, a.name AS account_name, a.account_type, c.counterparty_type,
    c.external_id AS counterparty_external_id, c.name AS counterparty_name, ${FX_COLUMNS},
    l.tags AS line_tags
  FROM journal_lines l JOIN accounts a ON a.entity_id = l.entity_id AND a.key = l.account_key
  LEFT JOIN counterparties c ON c.entity_id = l.entity_id AND c.id = l.counterparty_id`;

type LineRow = Omit<LineFacts, 'fx' | 'tags'> &
  FxColumns & { entry_seq: number; line_no: number; line_tags: string | null };

/** Entries per page of a listing. */
const PAGE = 500;

/** Reads an entity's entries back as the API answers for them. */
export class PgEntryReader {
  constructor(
    private readonly db: PgDb,
    private readonly entityId: string,
  ) {}

  /** The stored row of an entry named by id or JE number, or undefined. */
  async find(q: Query, idOrNumber: string): Promise<EntryRow | undefined> {
    // No entry's id or number holds a NUL (PostgreSQL's text cannot): not found, as on a file.
    if (idOrNumber.includes('\u0000')) return undefined;
    const n = normaliseJeNumber(idOrNumber);
    const rows = await q<EntryRow>(
      `SELECT ${ENTRY_COLUMNS} FROM ${ENTRY_FROM}
       WHERE e.entity_id = $1 AND (e.id = $2 OR e.je_number = $3)`,
      [this.entityId, idOrNumber.trim(), n.ok ? n.value : null],
    );
    return rows[0];
  }

  /** One entry, with its lines; not_found otherwise. */
  get(idOrNumber: string): Promise<JournalEntry> {
    return this.db.tx(async (q) => {
      const row = await this.find(q, idOrNumber);
      if (!row) throw errors.notFound(`no journal entry '${idOrNumber}'`);
      const lines = await q<LineRow>(
        `${LINES} WHERE l.entity_id = $1 AND l.entry_seq = $2 ORDER BY l.line_no`,
        [this.entityId, row.seq],
      );
      return entryOf(row, lines);
    }, true);
  }

  /** Entries in date order, a page at a time, from one snapshot. */
  list(filter: EntryFilter): AsyncGenerator<JournalEntry> {
    return this.db.snapshot((q) => this.pages(q, filter));
  }

  private async *pages(q: Query, filter: EntryFilter): AsyncGenerator<JournalEntry> {
    const { where, params } = filterOf(filter);
    let cursor: [string, number] = [filter.from ?? '0000-01-01', 0];
    let left = filter.limit ?? Infinity;
    while (left > 0) {
      const limit = Math.min(PAGE, left);
      const rows = await q<EntryRow>(
        `SELECT ${ENTRY_COLUMNS} FROM ${ENTRY_FROM}
         WHERE e.entity_id = $1 AND (e.entry_date, e.seq) > ($2, $3) AND ${where}
         ORDER BY e.entry_date, e.seq LIMIT ${limit}`,
        [this.entityId, cursor[0], cursor[1], ...params],
      );
      if (rows.length === 0) break;
      const lines = await q<LineRow>(
        `${LINES} WHERE l.entity_id = $1 AND l.entry_seq = ANY($2) ORDER BY l.entry_seq, l.line_no`,
        [this.entityId, rows.map((r) => r.seq)],
      );
      const bySeq = new Map<number, LineRow[]>();
      for (const l of lines) {
        let list = bySeq.get(l.entry_seq);
        if (!list) bySeq.set(l.entry_seq, (list = []));
        list.push(l);
      }
      for (const r of rows) yield entryOf(r, bySeq.get(r.seq) ?? []);
      left -= rows.length;
      const last = rows[rows.length - 1]!;
      cursor = [last.entry_date, last.seq];
    }
  }
}

/** The filter's conditions on `e`, with parameters numbered from $4. */
function filterOf(f: EntryFilter): { where: string; params: unknown[] } {
  const params: unknown[] = [f.to ?? '9999-12-31'];
  const where = ['e.entry_date <= $4'];
  const p = (v: unknown) => `$${params.push(v) + 3}`;
  if (f.accounts?.length) {
    const ids = p(f.accounts);
    where.push(
      `EXISTS (SELECT 1 FROM journal_lines x WHERE x.entity_id = e.entity_id AND x.entry_seq = e.seq
         AND x.account_key IN (
           WITH RECURSIVE sub(key) AS (
             SELECT key FROM accounts WHERE entity_id = e.entity_id AND external_id = ANY(${ids})
             UNION SELECT a.key FROM accounts a JOIN sub ON a.entity_id = e.entity_id AND a.parent_key = sub.key)
           SELECT key FROM sub))`,
    );
  }
  if (f.counterparty) {
    const [t, x] = [p(f.counterparty.type), p(f.counterparty.external_id)];
    where.push(
      `EXISTS (SELECT 1 FROM journal_lines x JOIN counterparties c ON c.entity_id = x.entity_id
                 AND c.id = x.counterparty_id
               WHERE x.entity_id = e.entity_id AND x.entry_seq = e.seq AND c.counterparty_type = ${t}
                 AND c.external_id = ${x})`,
    );
  }
  if (f.search) {
    const s = p(f.search);
    where.push(
      `(strpos(lower(e.memo), lower(${s})) > 0 OR strpos(lower(e.je_number), lower(${s})) > 0
        OR EXISTS (SELECT 1 FROM journal_lines x WHERE x.entity_id = e.entity_id AND x.entry_seq = e.seq
                   AND strpos(lower(x.memo), lower(${s})) > 0))`,
    );
  }
  return { where: where.join(' AND '), params };
}

function entryOf(r: EntryRow, lines: LineRow[]): JournalEntry {
  return journalEntryOfRow(
    { ...r, reversed_by: r.reversed_by ?? [], tags: tagsOf(r.tags) },
    lines.map(({ entry_seq: _s, line_no: _n, line_tags: t, ...line }) => ({
      ...withFx(line),
      ...(t ? { tags: tagsOf(t) } : {}),
    })),
  );
}
