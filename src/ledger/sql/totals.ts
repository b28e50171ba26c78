import type { Scope } from './dialect.js';

/** A line's debits minus credits, in atoms (`l` a journal line). */
export const LINE_NET = `CASE WHEN l.line_type = 'debit' THEN l.amount_atoms ELSE -l.amount_atoms END`;
/** The same in the line's own currency: a foreign line's foreign amount (reconciliation's marks). */
export const LINE_OWN_NET = `CASE WHEN l.line_type = 'debit' THEN COALESCE(l.fx_amount_atoms, l.amount_atoms)
  ELSE -COALESCE(l.fx_amount_atoms, l.amount_atoms) END`;

/**
 * The derived totals as the entity's lines say they are: per account and month, debits minus credits
 * and the number of lines, and the part of each that adjusting entries make, by the entry's month
 * (as a post adds them; a line's copy of the date is checked apart). `books rebuild` and a
 * restore write these; `books check` compares them with what is stored.
 */
export function monthTotalsFromLines(s: Scope): string {
  return `
  SELECT l.account_key, substr(e.entry_date, 1, 7) AS month, SUM(${LINE_NET}) AS net, COUNT(*) AS n,
         COALESCE(SUM(${LINE_NET}) FILTER (WHERE e.is_adjusting), 0) AS adj_net,
         COUNT(*) FILTER (WHERE e.is_adjusting) AS adj_n
  FROM journal_lines l JOIN journal_entries e ON ${s.joined('e', 'l')}e.seq = l.entry_seq
  WHERE ${s.of('l')}TRUE GROUP BY 1, 2`;
}

/** The columns of a derived total, as monthTotalsFromLines gives them. */
export const TOTALS_COLUMNS =
  'account_key, month, net_atoms, line_count, adj_net_atoms, adj_line_count';
