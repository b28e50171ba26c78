import type { Problem } from '../../domain/errors.js';
import { TAG_KEY, type TagCondition } from '../../domain/tags.js';
import type { Scope, Session } from './dialect.js';
import { LINE_NET } from './totals.js';

/** The columns of a derived total by tag, as tagTotalsFromLines gives them. */
export const TAG_TOTALS_COLUMNS =
  'account_key, month, tag_key, tag_value, net_atoms, line_count, adj_net_atoms, adj_line_count';

/**
 * The derived totals by tag as the entity's lines say they are: per effective tag of a line, its
 * account and entry month, debits minus credits and lines, and the adjusting part.
 */
export function tagTotalsFromLines(s: Scope): string {
  return `
  SELECT l.account_key, substr(e.entry_date, 1, 7) AS month, j.key AS tag_key, j.value AS tag_value,
         SUM(${LINE_NET}) AS net, COUNT(*) AS n,
         COALESCE(SUM(${LINE_NET}) FILTER (WHERE e.is_adjusting), 0) AS adj_net,
         COUNT(*) FILTER (WHERE e.is_adjusting) AS adj_n
  FROM journal_lines l JOIN journal_entries e ON ${s.joined('e', 'l')}e.seq = l.entry_seq,
       ${s.jsonPairs('l.tags', 'j')}
  WHERE ${s.of('l')}l.tags IS NOT NULL GROUP BY 1, 2, 3, 4`;
}

/**
 * Adds the totals by tag of the entries stored after `?` up to `?` (their seq), as the lines just
 * written say: run by the store in the posting transaction, after the lines, so that a database (a
 * file's writer thread) sums them rather than the process that checks the entries.
 */
export function addTagTotalsOfEntries(s: Scope): string {
  const lead = s.entityId === null ? '' : 'entity_id, ';
  const key = `${lead}tag_key, tag_value, account_key, month`;
  return `INSERT INTO tag_month_totals AS t (${lead}${TAG_TOTALS_COLUMNS})
  SELECT ${s.entityId === null ? '' : 'l.entity_id, '}l.account_key, substr(l.entry_date, 1, 7), j.key, j.value,
         SUM(${LINE_NET}), COUNT(*), COALESCE(SUM(${LINE_NET}) FILTER (WHERE e.is_adjusting), 0),
         COUNT(*) FILTER (WHERE e.is_adjusting)
  FROM journal_lines l JOIN journal_entries e ON ${s.joined('e', 'l')}e.seq = l.entry_seq,
       ${s.jsonPairs('l.tags', 'j')}
  WHERE ${s.of('l')}l.entry_seq > ? AND l.entry_seq <= ? AND l.tags IS NOT NULL
  GROUP BY ${s.entityId === null ? '' : 'l.entity_id, '}l.account_key, substr(l.entry_date, 1, 7), j.key, j.value
  ON CONFLICT (${key}) DO UPDATE SET net_atoms = t.net_atoms + excluded.net_atoms,
    line_count = t.line_count + excluded.line_count, adj_net_atoms = t.adj_net_atoms + excluded.adj_net_atoms,
    adj_line_count = t.adj_line_count + excluded.adj_line_count`;
}

/** The entity's derived totals by tag, computed again from its lines. */
export async function rewriteTagTotals({ sql, scope }: Session): Promise<void> {
  await sql.run(`DELETE FROM tag_month_totals WHERE ${scope.of('tag_month_totals')}TRUE`, []);
  const columns = `${scope.entityId === null ? '' : 'entity_id, '}${TAG_TOTALS_COLUMNS}`;
  await sql.run(
    `INSERT INTO tag_month_totals (${columns})
     SELECT ${scope.entityId === null ? '' : '?, '}x.* FROM (${tagTotalsFromLines(scope)}) x`,
    scope.row([]),
  );
}

/** Where the derived totals by tag differ from what the lines say: one problem each. */
export async function tagTotalsDrift({ sql, scope }: Session): Promise<Problem[]> {
  const rows = await sql.all<Record<string, unknown>>(
    `WITH actual AS MATERIALIZED (${tagTotalsFromLines(scope)}),
       t AS (SELECT * FROM tag_month_totals t WHERE ${scope.of('t')}TRUE)
     SELECT x.*, a.external_id FROM (
       SELECT actual.account_key, actual.month, actual.tag_key, actual.tag_value, actual.net, actual.n,
              actual.adj_net, actual.adj_n, t.net_atoms AS tnet, t.line_count AS tn,
              t.adj_net_atoms AS tadj_net, t.adj_line_count AS tadj_n
         FROM actual LEFT JOIN t ON t.account_key = actual.account_key AND t.month = actual.month
           AND t.tag_key = actual.tag_key AND t.tag_value = actual.tag_value
       UNION ALL
       SELECT t.account_key, t.month, t.tag_key, t.tag_value, NULL, NULL, NULL, NULL, t.net_atoms,
              t.line_count, t.adj_net_atoms, t.adj_line_count
         FROM t WHERE NOT EXISTS (SELECT 1 FROM actual WHERE actual.account_key = t.account_key
           AND actual.month = t.month AND actual.tag_key = t.tag_key AND actual.tag_value = t.tag_value)) x
     LEFT JOIN accounts a ON ${scope.of('a')}a.key = x.account_key
     WHERE x.net IS DISTINCT FROM x.tnet OR x.n IS DISTINCT FROM x.tn
        OR x.adj_net IS DISTINCT FROM x.tadj_net OR x.adj_n IS DISTINCT FROM x.tadj_n`,
    [],
  );
  return rows.map((d) => {
    const s = (v: unknown) => String(v ?? 0);
    const what =
      `derived total by tag ${s(d.tag_key)}=${s(d.tag_value)} ` +
      `for account '${s(d.external_id)}' in ${s(d.month)}`;
    const said = (net: unknown, n: unknown, adjNet: unknown, adjN: unknown) =>
      `${s(net)} atoms over ${s(n)} lines (adjusting ${s(adjNet)} over ${s(adjN)})`;
    const stored = said(d.tnet, d.tn, d.tadj_net, d.tadj_n);
    const lines = said(d.net, d.n, d.adj_net, d.adj_n);
    const message =
      d.tnet === null || d.tnet === undefined
        ? `${what} is missing; the lines say ${lines}`
        : d.net === null || d.net === undefined
          ? `${what} holds ${stored}, which no line has`
          : `${what} is ${stored}; the lines say ${lines}`;
    return {
      path: `tag_month_totals[${s(d.external_id)}, ${s(d.month)}, ${s(d.tag_key)}=${s(d.tag_value)}]`,
      reason: 'derived_mismatch',
      message,
    };
  });
}

/** Per tag key and value, the lines that carry it (`books tags list`), as text to keep counts exact. */
export const tagCountsSql = (s: Scope): string =>
  `SELECT tag_key AS key, tag_value AS value, CAST(SUM(line_count) AS TEXT) AS lines
   FROM tag_month_totals t WHERE ${s.of('t')}TRUE GROUP BY tag_key, tag_value`;

/** The values of a tag key with lines up to a month (`?` the key, `?` the month), in order. */
export const tagValuesSql = (s: Scope): string =>
  `SELECT DISTINCT tag_value AS value FROM tag_month_totals t
   WHERE ${s.of('t')}tag_key = ? AND month <= ? ORDER BY 1`;

/** A text as an SQL literal (a tag value: printable text, no NUL). */
const literal = (v: string) => `'${v.replace(/'/g, "''")}'`;

/** Whether a line (`l`, with its stored effective tags) meets one condition, as SQL. */
export function lineMeets(s: Scope, w: TagCondition): string {
  if (!TAG_KEY.test(w.key)) throw new Error(`not a tag key: ${w.key}`);
  const v = s.jsonText('l.tags', w.key);
  if (w.op === 'none') return `${v} IS NULL`;
  if (w.op === 'eq') return `${v} = ${literal(w.value!)}`;
  return `(${v} IS NULL OR ${v} <> ${literal(w.value!)})`;
}

/** A line's conditions as one SQL condition (TRUE for none). */
export const linesMeet = (s: Scope, where: readonly TagCondition[]): string =>
  where.length ? where.map((w) => lineMeets(s, w)).join(' AND ') : 'TRUE';

/**
 * The month totals of the lines that meet the conditions, as a FROM item with account_month_totals'
 * columns: for one condition from the derived totals (KEY=VALUE its own rows; KEY= and KEY!=VALUE
 * every line's totals less those), never the journal; for more, a scan of the lines, which the
 * derived totals cannot answer (they hold each key apart).
 */
export function filteredTotals(s: Scope, where: readonly TagCondition[]): string {
  const t = (alias: string) => `${s.of(alias)}`;
  if (where.length === 1) {
    const w = where[0]!;
    const tagged = `tag_key = ${literal(w.key)}${w.op === 'none' ? '' : ` AND tag_value = ${literal(w.value!)}`}`;
    if (w.op === 'eq')
      return `(SELECT account_key, month, net_atoms, line_count, adj_net_atoms, adj_line_count
        FROM tag_month_totals g WHERE ${t('g')}${tagged})`;
    // Each total less its tagged rows, summed in one aggregate: a file's SUM that passes 2^63 - 1
    // on the way is summed again exactly (summingExactly), where a difference of sums would not be.
    // A tagged sum of -2^63, which a store may hold, has no 64-bit negative: such a row (there is
    // hardly ever one) is taken away in two halves.
    const MIN = '-9223372036854775808';
    const least = `(g.net_atoms = ${MIN} OR g.adj_net_atoms = ${MIN})`;
    const half = (c: string) => `CASE WHEN h.n = 1 THEN g.${c} / 2 ELSE g.${c} - g.${c} / 2 END`;
    return `(SELECT account_key, month, SUM(net_atoms) AS net_atoms, SUM(line_count) AS line_count,
        SUM(adj_net_atoms) AS adj_net_atoms, SUM(adj_line_count) AS adj_line_count
      FROM (SELECT account_key, month, net_atoms, line_count, adj_net_atoms, adj_line_count
              FROM account_month_totals m WHERE ${t('m')}TRUE
            UNION ALL
            SELECT account_key, month, -net_atoms, -line_count, -adj_net_atoms, -adj_line_count
              FROM tag_month_totals g WHERE ${t('g')}${tagged} AND NOT ${least}
            UNION ALL
            SELECT g.account_key, g.month, -(${half('net_atoms')}),
                   CASE WHEN h.n = 1 THEN -g.line_count ELSE 0 END, -(${half('adj_net_atoms')}),
                   CASE WHEN h.n = 1 THEN -g.adj_line_count ELSE 0 END
              FROM tag_month_totals g CROSS JOIN (SELECT 1 AS n UNION ALL SELECT 2) h
              WHERE ${t('g')}${tagged} AND ${least}) x
      GROUP BY account_key, month)`;
  }
  return `(SELECT l.account_key, substr(e.entry_date, 1, 7) AS month, SUM(${LINE_NET}) AS net_atoms,
      COUNT(*) AS line_count, COALESCE(SUM(${LINE_NET}) FILTER (WHERE e.is_adjusting), 0) AS adj_net_atoms,
      COUNT(*) FILTER (WHERE e.is_adjusting) AS adj_line_count
    FROM journal_lines l JOIN journal_entries e ON ${s.joined('e', 'l')}e.seq = l.entry_seq
    WHERE ${s.of('l')}${linesMeet(s, where)} GROUP BY 1, 2)`;
}
