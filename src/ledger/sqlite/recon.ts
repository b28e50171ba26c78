import type { JournalLineFacts, ReversalLink } from '../reconcile/store.js';
import { SIGNED } from '../sql/reconChecks.js';
import { ReconTables } from '../sql/reconTables.js';
import type { Db } from './db.js';
import { FILE_ENTITY } from '../sql/dialect.js';
import { sqliteSql } from './tables.js';

/** A line whose mark no longer says what the journal holds (the journal never changes: damage). */
const STRAY = `SELECT m.entry_seq, m.line_no,
    CASE WHEN l.entry_seq IS NULL THEN 'its journal line is missing'
         WHEN l.account_key <> m.account_key THEN 'its journal line is of another account'
         WHEN l.entry_date <> m.entry_date THEN 'its journal line has another date'
         ELSE 'its journal line has another amount or side' END AS why
  FROM line_marks m LEFT JOIN journal_lines l ON l.entry_seq = m.entry_seq AND l.line_no = m.line_no
  LEFT JOIN accounts a ON a.key = l.account_key
  WHERE m.entity_id = ? AND (l.entry_seq IS NULL OR l.account_key <> m.account_key
    OR l.entry_date <> m.entry_date OR ${SIGNED} <> m.net_atoms)
  ORDER BY m.entry_seq, m.line_no`;

/** Reconciliation's tables in a ledger file, on its connection. */
export function sqliteRecon(db: Db): ReconTables {
  const sql = sqliteSql((text) => db.prep(text));
  const line = db.prep(
    `SELECT entry_seq, line_no, account_key, entry_date, line_type, amount_atoms FROM journal_lines
     WHERE entry_seq = ? AND line_no = ?`,
  );
  return new ReconTables(sql, FILE_ENTITY, {
    journalLines: async (refs) =>
      refs
        .map((r) => line.get(r.seq, r.line_no) as JournalLineFacts | undefined)
        .filter((l): l is JournalLineFacts => l !== undefined),
    strayMarks: async () =>
      db.prep(STRAY).all(FILE_ENTITY) as { entry_seq: number; line_no: number; why: string }[],
    reversalLinks: async (seqs) =>
      db
        .prep(
          `SELECT r.original_seq AS original, r.seq AS reversal, o.je_number AS original_je,
                  r.je_number AS reversal_je
           FROM journal_entries r JOIN journal_entries o ON o.seq = r.original_seq
           WHERE r.original_seq IN (SELECT value FROM json_each(?))
              OR r.seq IN (SELECT value FROM json_each(?))`,
        )
        .all(JSON.stringify(seqs), JSON.stringify(seqs)) as ReversalLink[],
  });
}
