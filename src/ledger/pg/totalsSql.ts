/** The derived totals' upserts of a database's posting transaction. */

/**
 * The derived totals added in one statement, in a fixed order of keys (writers never deadlock); the
 * seven arrays numbered from `at`.
 */
export const addTotals = (at = 1) => {
  const types = ['text', 'int4', 'text', 'int8', 'int8', 'int8', 'int8'];
  return `INSERT INTO account_month_totals AS t
    (entity_id, account_key, month, net_atoms, line_count, adj_net_atoms, adj_line_count)
  SELECT * FROM unnest(${types.map((t, i) => `$${at + i}::${t}[]`).join(', ')})
    ORDER BY 2, 3
  ON CONFLICT (entity_id, account_key, month) DO UPDATE SET net_atoms = t.net_atoms + excluded.net_atoms,
    line_count = t.line_count + excluded.line_count, adj_net_atoms = t.adj_net_atoms + excluded.adj_net_atoms,
    adj_line_count = t.adj_line_count + excluded.adj_line_count`;
};
export const ADD_TOTALS = addTotals();

/** The derived totals by tag added in one statement, in a fixed order of keys; nine arrays from `at`. */
export const addTagTotals = (at = 1) => {
  const types = ['text', 'int4', 'text', 'text', 'text', 'int8', 'int8', 'int8', 'int8'];
  return `INSERT INTO tag_month_totals AS t (entity_id, account_key, month, tag_key, tag_value,
    net_atoms, line_count, adj_net_atoms, adj_line_count)
  SELECT * FROM unnest(${types.map((t, i) => `$${at + i}::${t}[]`).join(', ')})
    ORDER BY 4, 5, 2, 3
  ON CONFLICT (entity_id, tag_key, tag_value, account_key, month) DO UPDATE SET
    net_atoms = t.net_atoms + excluded.net_atoms, line_count = t.line_count + excluded.line_count,
    adj_net_atoms = t.adj_net_atoms + excluded.adj_net_atoms,
    adj_line_count = t.adj_line_count + excluded.adj_line_count`;
};
