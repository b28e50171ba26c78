import type { AccountType } from '../../domain/accounts.js';
import type { AccountRef, CounterpartyRef } from '../../domain/entry.js';
import { closeMatches, describeAccount } from '../../domain/input.js';
import type { ReportAccount } from '../../domain/statement.js';
import { accountsSql, ChartTables, glAccount } from '../sql/chartTables.js';
import type { ChartOps } from '../port.js';
import { Scope, type Tables } from '../sql/dialect.js';
import type { Facts, Wants } from '../journal/store.js';
import { storedAtoms } from '../../domain/money.js';
import type { FxHistoryLine } from '../../domain/settlement.js';
import { prepared, type PgDb, type Query } from './db.js';

const REF = `key, id, external_id, account_number, name, account_type, is_active, is_postable, currency`;

/** The chart of accounts and the counterparties of one entity in a database. */
export class PgChart extends ChartTables implements ChartOps {
  private readonly scope: Scope;

  constructor(
    private readonly db: PgDb,
    private readonly entityId: string,
    tables: Tables,
  ) {
    super(tables);
    this.scope = new Scope(entityId);
  }

  /** The chart as reports read it. */
  async reportAccounts(q: Query = this.db.query): Promise<ReportAccount[]> {
    return q<ReportAccount>(
      `SELECT key, id, external_id, account_number, name, account_type, parent_key, is_postable,
              cash_flow
       FROM accounts WHERE entity_id = $1`,
      [this.entityId],
    );
  }

  /**
   * The statement (prepared) and values that read what validation of some entries needs, for what
   * they name: one row, a LookupRow (lookupsOf).
   */
  factsStatement(wants: Wants): [string, unknown[]] {
    const fx = wantsFx(wants);
    return [fx ? LOOKUPS_FX : LOOKUPS, [this.entityId, ...lookupParams(wants, fx)]];
  }

  /** The accounts a reference that names none resembles, described for a message. */
  async resembling(ref: string, q: Query = this.db.query): Promise<string[]> {
    const accounts = await q<Record<string, unknown>>(accountsSql(this.scope));
    return closeMatches(ref, accounts.map(glAccount)).map(describeAccount);
  }
}

/** The look-ups' columns of one row, as JSON: what a write reads goes in one round trip. */
export interface LookupRow {
  accounts: AccountRef[] | null;
  counterparties: CounterpartyRef[] | null;
  numbers: string[] | null;
  rates: { k: string; rate: string | null }[] | null;
  settlements:
    { k: string; lines: [string, unknown, unknown, unknown, string, unknown][] | null }[] | null;
}

/**
 * The look-ups as columns of one SELECT ($1 the entity, then lookupParams from $at): the accounts
 * named by external id or number, the counterparties by type and external id, the JE numbers taken;
 * with `fx` (entries with a foreign line to convert or settle), the rates and the settlements'
 * histories too, and the entity's realised gain/loss account. A post without one runs the statement
 * without them: a ledger without foreign lines reads what it always read.
 */
export function lookupColumns(at: number, fx = false): string {
  const [refs, types, ids, numbers] = [`$${at}`, `$${at + 1}`, `$${at + 2}`, `$${at + 3}`];
  const [currencies, dates] = [`$${at + 4}`, `$${at + 5}`];
  const [sAccounts, sTypes, sIds, sDates] = [6, 7, 8, 9].map((n) => `$${at + n}`);
  // A settlement's realised gain or loss goes to the entity's account, which no line names.
  const realized = fx
    ? `OR external_id = (SELECT COALESCE(e.fx_realized, 'fx-realized') FROM entities e WHERE e.entity_id = $1)`
    : '';
  const base = `(SELECT json_agg(a) FROM (SELECT ${REF} FROM accounts WHERE entity_id = $1
      AND (external_id = ANY(${refs}::text[]) OR account_number = ANY(${refs}::text[]) ${realized})) a) AS accounts,
    (SELECT json_agg(c) FROM (SELECT id, counterparty_type, external_id, name, is_active
      FROM counterparties WHERE entity_id = $1 AND (counterparty_type, external_id) IN
        (SELECT * FROM unnest(${types}::text[], ${ids}::text[]))) c) AS counterparties,
    (SELECT json_agg(v) FROM (${journalHolds('je_number', numbers)}) n) AS numbers`;
  if (!fx) return base;
  return `${base},
    (SELECT json_agg(json_build_object('k', w.c || chr(1) || w.d, 'rate', (SELECT r.rate FROM exchange_rates r
        WHERE r.entity_id = $1 AND r.currency = w.c AND r.rate_date <= w.d ORDER BY r.rate_date DESC LIMIT 1)))
      FROM unnest(${currencies}::text[], ${dates}::text[]) AS w(c, d)) AS rates,
    (SELECT json_agg(json_build_object('k', concat_ws(chr(1), w.r, w.t, w.x, w.d), 'lines',
        (SELECT json_agg(json_build_array(l.line_type, l.fx_amount_atoms, l.amount_atoms, l.entry_seq, l.entry_date,
                  (SELECT e.original_seq FROM journal_entries e WHERE e.entity_id = $1 AND e.seq = l.entry_seq))
                  ORDER BY l.entry_date, l.entry_seq, l.line_no)
         FROM journal_lines l WHERE l.entity_id = $1 AND l.fx_currency IS NOT NULL
           AND l.account_key = (SELECT a.key FROM accounts a WHERE a.entity_id = $1
                                  AND (a.external_id = w.r OR a.account_number = w.r)
                                ORDER BY a.external_id = w.r DESC LIMIT 1)
           AND l.counterparty_id = (SELECT c.id FROM counterparties c WHERE c.entity_id = $1
                                      AND c.counterparty_type = w.t AND c.external_id = w.x))))
      FROM unnest(${sAccounts}::text[], ${sTypes}::text[], ${sIds}::text[], ${sDates}::text[])
        AS w(r, t, x, d)) AS settlements`;
}

/** Whether some entries' look-ups need the foreign columns (a rate to find, a settlement to value). */
export const wantsFx = (wants: Wants) => wants.rates.size > 0 || wants.settlements.size > 0;

/**
 * Which of the values in the text[] parameter `param` an entry of entity $1 holds in `column` (a
 * column of a unique index): one probe of that index per value, as a subquery run for each value
 * (which PostgreSQL does not turn into a join). Asked as `column = ANY(param)` or with EXISTS, it
 * read every row of an entity its statistics did not know yet (an import's, into a new entity) to
 * filter or hash them: a 1M-line import spent 28 of its 40 s there.
 */
export function journalHolds(column: 'fingerprint' | 'je_number', param: string): string {
  return `SELECT v FROM unnest(${param}::text[]) v
    WHERE (SELECT true FROM journal_entries j WHERE j.entity_id = $1 AND j.${column} = v)`;
}

/** The parameters lookupColumns reads. */
export function lookupParams(wants: Wants, fx = wantsFx(wants)): unknown[] {
  const base = [[...wants.accounts], ...splitKeys(wants.counterparties, 2), [...wants.jeNumbers]];
  return fx ? [...base, ...splitKeys(wants.rates, 2), ...splitKeys(wants.settlements, 4)] : base;
}

/** The look-ups of a LookupRow. */
export function lookupsOf(row: LookupRow): Facts {
  const accounts = row.accounts ?? [];
  // By external id first, else by account number, as the chart keeps the two from naming two accounts.
  const byRef = new Map<string, AccountRef>();
  for (const a of accounts) if (a.account_number !== null) byRef.set(a.account_number, a);
  for (const a of accounts)
    byRef.set(a.external_id, { ...a, account_type: a.account_type as AccountType });
  const byParty = new Map(
    (row.counterparties ?? []).map((c) => [`${c.counterparty_type}\u0000${c.external_id}`, c]),
  );
  const numbers = new Set(row.numbers ?? []);
  // Keyed with \u0001 in SQL (a text cannot hold NUL), as the domain keys with \u0000.
  const rates = new Map<string, string>();
  for (const r of row.rates ?? [])
    if (r.rate !== null) rates.set(r.k.replace('\u0001', '\u0000'), r.rate);
  const history = new Map<string, FxHistoryLine[]>();
  for (const h of row.settlements ?? [])
    history.set(
      h.k.replaceAll('\u0001', '\u0000'),
      (h.lines ?? []).map(([side, foreign, functional, seq, date, original]) => ({
        side: side as 'debit' | 'credit',
        foreign: storedAtoms(foreign),
        functional: storedAtoms(functional),
        seq: Number(seq),
        date,
        original: original === null ? null : Number(original),
      })),
    );
  return {
    accounts: { get: (r) => byRef.get(r), has: (r) => byRef.has(r) },
    counterparties: { get: (k) => byParty.get(k), has: (k) => byParty.has(k) },
    takenNumbers: { has: (n) => numbers.has(n) },
    rates: { get: (k) => rates.get(k) },
    fxHistory: { get: (k) => history.get(k) },
  };
}

/**
 * Keys of `n` parts joined by NUL (`type\u0000external_id`, `currency\u0000date`, …) as `n` lists:
 * PostgreSQL's text holds no NUL.
 */
function splitKeys(keys: Set<string>, n: number): string[][] {
  const out = Array.from({ length: n }, () => [] as string[]);
  for (const k of keys) k.split('\u0000').forEach((part, i) => out[i]!.push(part));
  return out;
}

/** The look-ups of an import's chunk, prepared: read on generic plans (importBatch.ts). */
const LOOKUPS = prepared(`SELECT ${lookupColumns(2)}`);
const LOOKUPS_FX = prepared(`SELECT ${lookupColumns(2, true)}`);
