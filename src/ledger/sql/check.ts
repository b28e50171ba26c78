import { chartProblems } from '../../domain/chart.js';
import { tagTotalsDrift } from './tagTotals.js';
import {
  brokenReversal,
  currencyReadable,
  entityProblems,
  entryProblems,
  type EntitySettings,
  type EntryFacts,
  invalidLine,
  totalsDrift,
  unbalancedEntry,
  type TotalsDrift,
} from '../../domain/check.js';
import type { Problem } from '../../domain/errors.js';
import { fxLineProblem, type StoredFxLine } from '../../domain/fx.js';
import { numberingProblem } from '../../domain/jeNumber.js';
import { exponentOf, MAX_ATOMS } from '../../domain/money.js';
import { chartShapes } from './chartTables.js';
import { wholeOf, type Session } from './dialect.js';
import { monthTotalsFromLines } from './totals.js';
import { guardProblems, verifiedTrail } from './auditTables.js';

export type Add = (p: Problem) => void;

/** What a store checks of its own storage, around the checks of the rows every store keeps. */
export interface OwnChecks {
  /** Before the rows: false when the storage is damaged, and what it holds cannot be believed. */
  storage(add: Add): Promise<boolean>;
  /** After the derived totals: the store's own derived structures. */
  derived(add: Add): Promise<void>;
}

/** Every invariant of the entity's rows that `books check` proves, read in the session's transaction. */
export async function journalProblems(s: Session, own: OwnChecks): Promise<Problem[]> {
  const problems: Problem[] = [];
  const add: Add = (p) => problems.push(p);
  await s.sql.wholeReads();
  if (!(await own.storage(add))) return problems;
  const currency = await entityRow(s, add);
  await balances(s, add);
  if (currency !== null) await foreignLines(s, add, currency);
  await derivedTotals(s, add);
  await own.derived(add);
  await links(s, add);
  await numbering(s, add);
  if (currency !== null)
    for (const p of chartProblems(await chartShapes(s), exponentOf(currency))) add(p);
  for (const p of await guardProblems(s)) add(p);
  for (const p of (await verifiedTrail(s)).problems) add(p);
  return problems;
}

/** How many rows check read, by kind. */
export async function checkedCounts({ sql, scope }: Session): Promise<Record<string, number>> {
  const n = (table: string) => `(SELECT COUNT(*) FROM ${table} x WHERE ${scope.of('x')}TRUE)`;
  const [counts] = await sql.all<Record<string, number>>(
    `SELECT ${n('journal_entries')} AS entries, ${n('journal_lines')} AS lines,
            ${n('accounts')} AS accounts, ${n('counterparties')} AS counterparties,
            ${n('account_month_totals')} AS totals`,
    [],
  );
  return counts!;
}

/** The entity's one settings row, sound, and no entry before its books start; its currency if readable. */
async function entityRow({ sql, scope }: Session, add: Add): Promise<string | null> {
  const rows = await sql.all<EntitySettings>(
    `SELECT name, currency, books_start, fiscal_year_start_month, lock_date FROM ${scope.settings}`,
    [],
  );
  if (rows.length !== 1) {
    add({
      path: 'entity',
      reason: 'invalid_entity',
      message: `the file holds ${rows.length} entity rows, not one`,
    });
    return null;
  }
  const entries = `FROM journal_entries e WHERE ${scope.of('e')}TRUE`;
  const [first] = await sql.all<{ je_number: string; entry_date: string }>(
    `SELECT je_number, entry_date ${entries} ORDER BY entry_date, seq LIMIT 1`,
    [],
  );
  const problems = entityProblems(rows[0]!, first);
  for (const p of problems) add(p);
  if (!currencyReadable(problems)) return null;
  const facts: EntryFacts = {
    dates: await sql.all(
      `SELECT entry_date, MIN(je_number) AS je_number, COUNT(*) AS n ${entries} GROUP BY entry_date`,
      [],
    ),
    currencies: await sql.all(
      `SELECT currency, MIN(je_number) AS je_number, COUNT(*) AS n ${entries} GROUP BY currency`,
      [],
    ),
  };
  for (const p of entryProblems(facts, rows[0]!.currency as string)) add(p);
  return rows[0]!.currency as string;
}

/** Every entry balanced, with its lines counted and its total right; every line sound. */
async function balances({ sql, scope }: Session, add: Add): Promise<void> {
  const side = (s: string) =>
    `COALESCE(SUM(CASE WHEN l.line_type = '${s}' THEN l.amount_atoms END), 0)`;
  const [d, c, n] = [side('debit'), side('credit'), 'COUNT(l.line_no)'];
  // Grouped by the entry's key (its other columns follow from it): SQLite then reads in key order.
  const unbalanced = await sql.all<Parameters<typeof unbalancedEntry>[0]>(
    `SELECT e.je_number, e.total_atoms, e.line_count, ${d} AS d, ${c} AS c, ${n} AS n
     FROM journal_entries e LEFT JOIN journal_lines l ON ${scope.joined('l', 'e')}l.entry_seq = e.seq
     WHERE ${scope.of('e')}TRUE GROUP BY ${scope.key('e', 'seq')}
     HAVING ${d} != ${c} OR ${d} != e.total_atoms OR ${n} != e.line_count OR ${n} < 2
         OR e.total_atoms > ${MAX_ATOMS}`,
    [],
  );
  for (const u of unbalanced) add(unbalancedEntry(u));
  const badLines = await sql.all<{ je_number: string; line_no: number }>(
    `SELECT e.je_number, l.line_no
     FROM journal_lines l JOIN journal_entries e ON ${scope.joined('e', 'l')}e.seq = l.entry_seq
     WHERE ${scope.of('l')}(l.amount_atoms < 1 OR l.amount_atoms > ${MAX_ATOMS}
       OR l.line_type NOT IN ('debit', 'credit') OR l.entry_date != e.entry_date)`,
    [],
  );
  for (const b of badLines) add(invalidLine(b.je_number, b.line_no));
}

/**
 * Every line of an account kept in another currency has a snapshot in that currency whose rate gives
 * its functional amount (or is the rate the two amounts imply); no other line has one.
 */
async function foreignLines({ sql, scope }: Session, add: Add, currency: string): Promise<void> {
  const from = `FROM journal_lines l JOIN accounts a ON ${scope.joined('a', 'l')}a.key = l.account_key
     JOIN journal_entries e ON ${scope.joined('e', 'l')}e.seq = l.entry_seq`;
  const columns = `e.je_number, l.line_no, a.external_id, a.currency AS account_currency, l.fx_currency,
     l.fx_amount_atoms, l.fx_rate, l.amount_atoms`;
  const lines = await sql.all<StoredFxLine>(
    `SELECT ${columns} ${from} WHERE ${scope.of('l')}l.fx_currency IS NOT NULL`,
    [],
  );
  // Lines without a snapshot on a foreign account: read only where the chart has one.
  const [foreign] = await sql.all<{ n: number }>(
    `SELECT COUNT(*) AS n FROM accounts a WHERE ${scope.of('a')}a.currency IS NOT NULL AND a.currency <> ?`,
    [currency],
  );
  if (Number(foreign!.n) > 0)
    lines.push(
      ...(await sql.all<StoredFxLine>(
        `SELECT ${columns} ${from}
         WHERE ${scope.of('l')}l.fx_currency IS NULL AND a.currency IS NOT NULL AND a.currency <> ?`,
        [currency],
      )),
    );
  for (const l of lines) {
    const message = fxLineProblem(l, currency);
    if (message)
      add({ path: `${l.je_number}.lines[${l.line_no - 1}].fx`, reason: 'invalid_fx', message });
  }
}

/** The derived totals equal what the lines say. */
async function derivedTotals({ sql, scope }: Session, add: Add): Promise<void> {
  // The lines' totals once (MATERIALIZED), then each side's rows the other lacks: a FULL JOIN read
  // them three times over in SQLite.
  const drift = await sql.all<TotalsDrift>(
    `WITH actual AS MATERIALIZED (${monthTotalsFromLines(scope)}),
       t AS (SELECT * FROM account_month_totals t WHERE ${scope.of('t')}TRUE)
     SELECT a.external_id, x.* FROM (
       SELECT actual.account_key, actual.month, actual.net, actual.n, actual.adj_net, actual.adj_n,
              t.net_atoms AS tnet, t.line_count AS tn, t.adj_net_atoms AS tadj_net, t.adj_line_count AS tadj_n
         FROM actual LEFT JOIN t ON t.account_key = actual.account_key AND t.month = actual.month
       UNION ALL
       SELECT t.account_key, t.month, NULL, NULL, NULL, NULL, t.net_atoms, t.line_count, t.adj_net_atoms,
              t.adj_line_count
         FROM t WHERE NOT EXISTS
           (SELECT 1 FROM actual WHERE actual.account_key = t.account_key AND actual.month = t.month)) x
     LEFT JOIN accounts a ON ${scope.of('a')}a.key = x.account_key
     WHERE x.net IS DISTINCT FROM x.tnet OR x.n IS DISTINCT FROM x.tn
        OR x.adj_net IS DISTINCT FROM x.tadj_net OR x.adj_n IS DISTINCT FROM x.tadj_n`,
    [],
  );
  for (const d of drift) add(totalsDrift(d));
  for (const p of await tagTotalsDrift({ sql, scope })) add(p);
}

/** Every reversed entry has its reversal. */
async function links({ sql, scope }: Session, add: Add): Promise<void> {
  const reversals = await sql.all<{ je_number: string }>(
    `SELECT o.je_number FROM journal_entries o WHERE ${scope.of('o')}o.status = 'reversed'
       AND NOT EXISTS (SELECT 1 FROM journal_entries r WHERE ${scope.joined('r', 'o')}r.original_seq = o.seq)`,
    [],
  );
  for (const r of reversals) add(brokenReversal(r.je_number));
}

/**
 * Every JE-n kept where automatic numbering looks for it (see numberingProblem). Entries whose
 * number is the one they are kept as are sound and left in the database: a million of them are the
 * rule, not worth reading.
 */
async function numbering({ sql, scope }: Session, add: Add): Promise<void> {
  const starts = Array.from({ length: 9 }, (_, i) => `'JE-${i + 1}'`).join(', ');
  const rows = await sql.all<{
    je_number: string;
    counted: unknown;
    uncounted: unknown;
  }>(
    `SELECT je_number, je_seq AS counted, je_seq_uncounted AS uncounted FROM journal_entries e
     WHERE ${scope.of('e')}(je_seq IS NOT NULL OR je_seq_uncounted IS NOT NULL
       OR substr(je_number, 1, 4) IN (${starts}))
       AND NOT COALESCE(je_number = 'JE-' || CAST(COALESCE(je_seq, je_seq_uncounted) AS TEXT)
                        AND (je_seq IS NULL OR je_seq_uncounted IS NULL), FALSE)`,
    [],
  );
  let found = 0;
  for (const r of rows) {
    // A damaged file can keep 3.5 or text where a number is kept: said, not read as one.
    const counted = r.counted === null ? null : wholeOf(r.counted);
    const uncounted = r.uncounted === null ? null : wholeOf(r.uncounted);
    const odd =
      r.counted !== null && counted === null
        ? r.counted
        : r.uncounted !== null && uncounted === null
          ? r.uncounted
          : undefined;
    const problem =
      odd !== undefined
        ? `${r.je_number} is kept for numbering as ${String(odd)}, which is not a whole number`
        : numberingProblem(r.je_number, counted, uncounted);
    if (problem && found++ < 10)
      add({ path: `journal_entries[${r.je_number}]`, reason: 'je_numbering', message: problem });
  }
  if (found > 10)
    add({ path: 'journal_entries', reason: 'je_numbering', message: `… ${found - 10} more` });
}
