import type { Sql } from './dialect.js';
import { LINE_OWN_NET } from './totals.js';

/** A place in reconciliation's tables that does not hold together, and why. */
export interface ReconDamage {
  path: string;
  why: string;
}

/**
 * A journal line's amount in its account's sign (SQL over `l`, a journal line, and `a`, its account):
 * what its cleared mark must hold.
 */
export const SIGNED = `(${LINE_OWN_NET}) *
  (CASE WHEN a.account_type IN ('bank', 'accounts_receivable', 'other_current_asset', 'fixed_asset',
    'other_asset') THEN 1 ELSE -1 END)`;

const MARK = `'line_marks.jel_' || m.entry_seq || '_' || m.line_no`;

/**
 * What `books check` proves of reconciliation's tables beyond each reconciliation's sum (damage, as
 * books writes them only together): every reconciliation a row names exists, holds the line count it
 * says and nothing cleared after its date; nothing through an account's last reconciliation is left
 * out of one; each statement line's state agrees with its cleared lines, which add up to it.
 */
export async function reconDamage(sql: Sql, entity: string): Promise<ReconDamage[]> {
  const queries = [
    `SELECT ${MARK} AS path, CASE WHEN r.id IS NULL
       THEN 'names reconciliation ' || m.reconciliation_id || ', which is not on record'
       ELSE 'is cleared ' || m.cleared_date || ', after its reconciliation''s date' END AS why
     FROM line_marks m LEFT JOIN reconciliations r
       ON r.entity_id = m.entity_id AND r.id = m.reconciliation_id
     WHERE m.entity_id = ? AND m.reconciliation_id IS NOT NULL
       AND (r.id IS NULL OR m.cleared_date > r.statement_date)`,
    `SELECT 'statement_lines.' || s.id AS path, CASE WHEN r.id IS NULL
       THEN 'names reconciliation ' || s.reconciliation_id || ', which is not on record'
       ELSE 'is dated ' || s.line_date || ', after its reconciliation''s date' END AS why
     FROM statement_lines s LEFT JOIN reconciliations r
       ON r.entity_id = s.entity_id AND r.id = s.reconciliation_id
     WHERE s.entity_id = ? AND s.reconciliation_id IS NOT NULL
       AND (r.id IS NULL OR s.line_date > r.statement_date)`,
    // What a finished month holds is reconciled: a row through the last date left out was reopened.
    `SELECT ${MARK} AS path, 'is cleared within a finished reconciliation but not held by one' AS why
     FROM line_marks m WHERE m.entity_id = ? AND m.reconciliation_id IS NULL
       AND m.cleared_date <= (SELECT MAX(r.statement_date) FROM reconciliations r
         WHERE r.entity_id = m.entity_id AND r.account_key = m.account_key)`,
    `SELECT 'statement_lines.' || s.id AS path,
            'is dated within a finished reconciliation but not held by one' AS why
     FROM statement_lines s WHERE s.entity_id = ? AND s.reconciliation_id IS NULL
       AND s.line_date <= (SELECT MAX(r.statement_date) FROM reconciliations r
         WHERE r.entity_id = s.entity_id AND r.account_key = s.account_key)`,
    `SELECT 'reconciliations.' || r.id AS path,
            'says it holds ' || r.line_count || ' lines, and holds ' ||
            (SELECT COUNT(*) FROM line_marks m WHERE m.entity_id = r.entity_id
               AND m.reconciliation_id = r.id) AS why
     FROM reconciliations r WHERE r.entity_id = ? AND r.line_count <>
       (SELECT COUNT(*) FROM line_marks m WHERE m.entity_id = r.entity_id AND m.reconciliation_id = r.id)`,
    `SELECT 'statement_lines.' || s.id AS path, CASE WHEN s.state = 'matched'
       THEN 'is matched, and its cleared lines add up to ' || COALESCE(SUM(m.net_atoms), 0) ||
            ' atoms, not its ' || s.amount_atoms
       ELSE 'is ' || s.state || ', and has cleared lines' END AS why
     FROM statement_lines s LEFT JOIN line_marks m
       ON m.entity_id = s.entity_id AND m.statement_line_id = s.id
     WHERE s.entity_id = ?
     GROUP BY s.id, s.state, s.amount_atoms
     HAVING (s.state = 'matched' AND (COUNT(m.entry_seq) = 0 OR SUM(m.net_atoms) <> s.amount_atoms))
         OR (s.state <> 'matched' AND COUNT(m.entry_seq) > 0)`,
    `SELECT ${MARK} AS path, 'names statement line ' || m.statement_line_id || ', not on record' AS why
     FROM line_marks m WHERE m.entity_id = ? AND m.statement_line_id IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM statement_lines s
         WHERE s.entity_id = m.entity_id AND s.id = m.statement_line_id)`,
  ];
  const out: ReconDamage[] = [];
  await sql.wholeReads();
  for (const q of queries) out.push(...(await sql.all<ReconDamage>(q, [entity])));
  return out;
}
