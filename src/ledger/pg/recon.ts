import type { JournalLineFacts, ReversalLink } from '../reconcile/store.js';
import { SIGNED } from '../sql/reconChecks.js';
import { storedAtoms } from '../../domain/money.js';
import { ReconTables } from '../sql/reconTables.js';
import type { Query } from './db.js';
import { pgSql } from './tables.js';

const STRAY = `SELECT m.entry_seq, m.line_no,
    CASE WHEN l.entry_seq IS NULL THEN 'its journal line is missing'
         WHEN l.account_key <> m.account_key THEN 'its journal line is of another account'
         WHEN l.entry_date <> m.entry_date THEN 'its journal line has another date'
         ELSE 'its journal line has another amount or side' END AS why
  FROM line_marks m LEFT JOIN journal_lines l
    ON l.entity_id = m.entity_id AND l.entry_seq = m.entry_seq AND l.line_no = m.line_no
  LEFT JOIN accounts a ON a.entity_id = l.entity_id AND a.key = l.account_key
  WHERE m.entity_id = $1 AND (l.entry_seq IS NULL OR l.account_key <> m.account_key
    OR l.entry_date <> m.entry_date OR ${SIGNED} <> m.net_atoms)
  ORDER BY m.entry_seq, m.line_no`;

/** Reconciliation's tables of one entity, on a transaction's connection. */
export function pgRecon(q: Query, entityId: string): ReconTables {
  const sql = pgSql(q);
  return new ReconTables(sql, entityId, {
    journalLines: async (refs) => {
      if (refs.length === 0) return [];
      const rows = await q<JournalLineFacts>(
        `SELECT l.entry_seq, l.line_no, l.account_key, l.entry_date, l.line_type, l.amount_atoms
         FROM journal_lines l JOIN unnest($2::int8[], $3::int4[]) AS r(seq, line_no)
           ON l.entry_seq = r.seq AND l.line_no = r.line_no
         WHERE l.entity_id = $1`,
        [entityId, refs.map((r) => r.seq), refs.map((r) => r.line_no)],
      );
      return rows.map((r) => ({
        ...r,
        entry_seq: Number(r.entry_seq),
        amount_atoms: storedAtoms(r.amount_atoms),
      }));
    },
    strayMarks: async () => {
      const rows = await q<{ entry_seq: number; line_no: number; why: string }>(STRAY, [entityId]);
      return rows.map((r) => ({ ...r, entry_seq: Number(r.entry_seq) }));
    },
    reversalLinks: async (seqs) => {
      const rows = await q<ReversalLink>(
        `SELECT r.original_seq AS original, r.seq AS reversal, o.je_number AS original_je,
                r.je_number AS reversal_je
         FROM journal_entries r JOIN journal_entries o
           ON o.entity_id = r.entity_id AND o.seq = r.original_seq
         WHERE r.entity_id = $1 AND (r.original_seq = ANY($2::int8[]) OR r.seq = ANY($2::int8[]))`,
        [entityId, seqs],
      );
      return rows.map((r) => ({
        ...r,
        original: Number(r.original),
        reversal: Number(r.reversal),
      }));
    },
  });
}
