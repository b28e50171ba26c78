/** A line's debits minus credits, in atoms (`l` a journal line). */
export const LINE_NET = `CASE WHEN l.line_type = 'debit' THEN l.amount_atoms ELSE -l.amount_atoms END`;

/**
 * The derived totals as the lines say they are: per account and month, debits minus credits and the
 * number of lines, and the part of each that adjusting entries make. `books rebuild` writes these;
 * `books check` compares them with what is stored.
 */
export const MONTH_TOTALS_FROM_LINES = `
  SELECT l.account_key, substr(e.entry_date, 1, 7) AS month, SUM(${LINE_NET}) AS net, COUNT(*) AS n,
         SUM(CASE WHEN e.is_adjusting = 1 THEN ${LINE_NET} ELSE 0 END) AS adj_net, SUM(e.is_adjusting) AS adj_n
  FROM journal_lines l JOIN journal_entries e ON e.seq = l.entry_seq GROUP BY 1, 2`;
