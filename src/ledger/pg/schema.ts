import { AuditTables } from '../sql/auditTables.js';
import { Scope } from '../sql/dialect.js';
import { whoNow } from '../runtime/actor.js';
import { pgSql } from './tables.js';
import { errors } from '../../domain/errors.js';
import type { Query } from './db.js';

/**
 * The PostgreSQL schema, as migrations (entry i takes the schema from version i to i + 1; never edit
 * a shipped one). Every table carries entity_id first in every key and index, and no statement of
 * the store reads across entities, so the schema distributes by entity_id (Citus) unchanged.
 * Dates and times are text, as in a ledger file, so that both stores give byte-identical output.
 */
export const PG_MIGRATIONS: string[] = [
  `
  CREATE TABLE entities (
    entity_id text COLLATE "C" PRIMARY KEY,
    slug text COLLATE "C" NOT NULL UNIQUE,
    name text COLLATE "C" NOT NULL,
    currency text COLLATE "C" NOT NULL,
    books_start text COLLATE "C",
    fiscal_year_start_month integer NOT NULL DEFAULT 1,
    lock_date text COLLATE "C",
    rebuild_started_at text COLLATE "C",
    rebuild_owner text COLLATE "C",
    created_at text COLLATE "C" NOT NULL,
    updated_at text COLLATE "C" NOT NULL
  );

  CREATE TABLE ledger_secrets (
    entity_id text COLLATE "C" NOT NULL REFERENCES entities,
    name text COLLATE "C" NOT NULL,
    value bytea NOT NULL,
    PRIMARY KEY (entity_id, name)
  );

  CREATE TABLE accounts (
    entity_id text COLLATE "C" NOT NULL REFERENCES entities,
    key integer NOT NULL,
    id text COLLATE "C" NOT NULL,
    external_id text COLLATE "C" NOT NULL,
    account_number text COLLATE "C",
    name text COLLATE "C" NOT NULL,
    account_type text COLLATE "C" NOT NULL,
    parent_key integer,
    is_postable boolean NOT NULL,
    is_active boolean NOT NULL,
    currency text COLLATE "C",
    created_at text COLLATE "C" NOT NULL,
    updated_at text COLLATE "C" NOT NULL,
    PRIMARY KEY (entity_id, key),
    UNIQUE (entity_id, id),
    UNIQUE (entity_id, external_id),
    UNIQUE (entity_id, account_number),
    FOREIGN KEY (entity_id, parent_key) REFERENCES accounts (entity_id, key)
  );

  CREATE TABLE counterparties (
    entity_id text COLLATE "C" NOT NULL REFERENCES entities,
    id text COLLATE "C" NOT NULL,
    counterparty_type text COLLATE "C" NOT NULL,
    external_id text COLLATE "C" NOT NULL,
    name text COLLATE "C" NOT NULL,
    is_active boolean NOT NULL,
    created_at text COLLATE "C" NOT NULL,
    updated_at text COLLATE "C" NOT NULL,
    PRIMARY KEY (entity_id, id),
    UNIQUE (entity_id, counterparty_type, external_id)
  );

  -- The journal's references (entity, account, counterparty, entry) carry no foreign keys: the store
  -- writes only what it has looked up under the entity's lock, an import's rows go in at the speed
  -- of the indexes (foreign keys cost a third of it), and books check proves every reference.
  CREATE TABLE journal_entries (
    entity_id text COLLATE "C" NOT NULL,
    seq bigint NOT NULL,
    id text COLLATE "C" NOT NULL,
    je_number text COLLATE "C" NOT NULL,
    je_seq bigint,
    je_seq_uncounted bigint,
    entry_date text COLLATE "C" NOT NULL,
    currency text COLLATE "C" NOT NULL,
    memo text COLLATE "C",
    source text COLLATE "C" NOT NULL,
    status text COLLATE "C" NOT NULL,
    is_adjusting boolean NOT NULL,
    manual_entry_reason text COLLATE "C",
    total_atoms bigint NOT NULL,
    line_count integer NOT NULL,
    original_seq bigint,
    fingerprint text COLLATE "C",
    created_at text COLLATE "C" NOT NULL,
    updated_at text COLLATE "C" NOT NULL,
    PRIMARY KEY (entity_id, seq),
    UNIQUE (entity_id, id),
    UNIQUE (entity_id, je_number)
  );
  CREATE INDEX journal_entries_je_seq ON journal_entries (entity_id, je_seq);
  CREATE INDEX journal_entries_je_seq_uncounted ON journal_entries (entity_id, je_seq_uncounted)
    WHERE je_seq_uncounted IS NOT NULL;
  CREATE INDEX journal_entries_date ON journal_entries (entity_id, entry_date, seq);
  CREATE INDEX journal_entries_original ON journal_entries (entity_id, original_seq)
    WHERE original_seq IS NOT NULL;
  CREATE UNIQUE INDEX journal_entries_fingerprint ON journal_entries (entity_id, fingerprint)
    WHERE fingerprint IS NOT NULL;

  CREATE TABLE journal_lines (
    entity_id text COLLATE "C" NOT NULL,
    entry_seq bigint NOT NULL,
    line_no integer NOT NULL,
    account_key integer NOT NULL,
    line_type text COLLATE "C" NOT NULL,
    amount_atoms bigint NOT NULL,
    memo text COLLATE "C",
    counterparty_id text COLLATE "C",
    entry_date text COLLATE "C" NOT NULL,
    PRIMARY KEY (entity_id, entry_seq, line_no)
  );
  -- The general ledger's order within an account: one range per account and window, no sort.
  CREATE INDEX journal_lines_account ON journal_lines (entity_id, account_key, entry_date, entry_seq, line_no);

  -- Derived per-account, per-month totals, upserted in the posting transaction (books check proves
  -- them equal to the lines). net_atoms is debits minus credits; adj_ the part adjusting entries make.
  CREATE TABLE account_month_totals (
    entity_id text COLLATE "C" NOT NULL,
    account_key integer NOT NULL,
    month text COLLATE "C" NOT NULL,
    net_atoms bigint NOT NULL,
    line_count bigint NOT NULL,
    adj_net_atoms bigint NOT NULL DEFAULT 0,
    adj_line_count bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (entity_id, account_key, month)
  );

  CREATE TABLE idempotency_keys (
    entity_id text COLLATE "C" NOT NULL,
    key text COLLATE "C" NOT NULL,
    request_hash text COLLATE "C" NOT NULL,
    journal_entry_id text COLLATE "C" NOT NULL,
    created_at_ms bigint NOT NULL,
    PRIMARY KEY (entity_id, key)
  );

  CREATE TABLE api_keys (
    entity_id text COLLATE "C" NOT NULL REFERENCES entities,
    id text COLLATE "C" NOT NULL,
    name text COLLATE "C",
    key_hash text COLLATE "C" NOT NULL,
    permissions text COLLATE "C" NOT NULL,
    created_at text COLLATE "C" NOT NULL,
    revoked_at text COLLATE "C",
    PRIMARY KEY (entity_id, id)
  );
  -- A key names its id, not its entity: this finds the entity of a key a request presents.
  CREATE UNIQUE INDEX api_keys_id ON api_keys (id);
  `,
  `
  -- Reconciliation (ledger/reconcile/store.ts): statement lines, cleared journal lines, finished
  -- reconciliations, the closing balance of an account's last OFX statement.
  CREATE TABLE statement_lines (
    entity_id text COLLATE "C" NOT NULL,
    id text COLLATE "C" NOT NULL,
    account_key integer NOT NULL,
    ordinal bigint NOT NULL,
    line_date text COLLATE "C" NOT NULL,
    amount_atoms bigint NOT NULL,
    description text COLLATE "C",
    reference text COLLATE "C",
    bank_id text COLLATE "C",
    identity text COLLATE "C" NOT NULL,
    state text COLLATE "C" NOT NULL,
    reconciliation_id text COLLATE "C",
    imported_at text COLLATE "C" NOT NULL,
    PRIMARY KEY (entity_id, id),
    UNIQUE (entity_id, account_key, identity)
  );
  CREATE INDEX statement_lines_account ON statement_lines (entity_id, account_key, line_date);
  CREATE TABLE line_marks (
    entity_id text COLLATE "C" NOT NULL,
    entry_seq bigint NOT NULL,
    line_no integer NOT NULL,
    account_key integer NOT NULL,
    entry_date text COLLATE "C" NOT NULL,
    net_atoms bigint NOT NULL,
    cleared_date text COLLATE "C" NOT NULL,
    statement_line_id text COLLATE "C",
    reconciliation_id text COLLATE "C",
    PRIMARY KEY (entity_id, entry_seq, line_no)
  );
  CREATE INDEX line_marks_account ON line_marks (entity_id, account_key, entry_date);
  CREATE INDEX line_marks_cleared ON line_marks (entity_id, account_key, cleared_date);
  CREATE INDEX line_marks_statement ON line_marks (entity_id, statement_line_id);
  CREATE TABLE reconciliations (
    entity_id text COLLATE "C" NOT NULL,
    id text COLLATE "C" NOT NULL,
    account_key integer NOT NULL,
    statement_date text COLLATE "C" NOT NULL,
    statement_balance_atoms bigint NOT NULL,
    line_count bigint NOT NULL,
    finished_at text COLLATE "C" NOT NULL,
    PRIMARY KEY (entity_id, id)
  );
  CREATE TABLE statement_closings (
    entity_id text COLLATE "C" NOT NULL,
    account_key integer NOT NULL,
    closing_date text COLLATE "C" NOT NULL,
    balance_atoms bigint NOT NULL,
    PRIMARY KEY (entity_id, account_key)
  );
  `,
  `
  -- The close's plans (ledger/sql/planTables.ts): budget cells and recurring entries' templates.
  CREATE TABLE budgets (
    entity_id text COLLATE "C" NOT NULL,
    account_key integer NOT NULL,
    period text COLLATE "C" NOT NULL,
    amount_atoms bigint NOT NULL,
    PRIMARY KEY (entity_id, account_key, period)
  );
  CREATE TABLE recurring_templates (
    entity_id text COLLATE "C" NOT NULL,
    name text COLLATE "C" NOT NULL,
    every text COLLATE "C" NOT NULL,
    day integer,
    start_date text COLLATE "C" NOT NULL,
    end_date text COLLATE "C",
    entry text NOT NULL,
    created_at text COLLATE "C" NOT NULL,
    PRIMARY KEY (entity_id, name)
  );
  `,
  `
  -- How an account's statements are read, and the bank account they come from (reconTables.ts).
  CREATE TABLE statement_sources (
    entity_id text COLLATE "C" NOT NULL,
    account_key integer NOT NULL,
    layout text,
    acctid text COLLATE "C",
    bankid text COLLATE "C",
    PRIMARY KEY (entity_id, account_key)
  );
  `,
  `
  -- Foreign currencies: a line's snapshot, the rates, the entity's gain/loss accounts (see the file
  -- ledger's schema).
  ALTER TABLE journal_lines ADD COLUMN fx_currency text COLLATE "C";
  ALTER TABLE journal_lines ADD COLUMN fx_amount_atoms bigint;
  ALTER TABLE journal_lines ADD COLUMN fx_rate text COLLATE "C";
  ALTER TABLE journal_lines ADD COLUMN system text COLLATE "C";
  CREATE INDEX journal_lines_fx ON journal_lines (entity_id, account_key, counterparty_id, entry_date,
    entry_seq, line_no) INCLUDE (line_type, fx_currency, fx_amount_atoms, amount_atoms)
    WHERE fx_currency IS NOT NULL;
  CREATE TABLE exchange_rates (
    entity_id text COLLATE "C" NOT NULL,
    currency text COLLATE "C" NOT NULL,
    rate_date text COLLATE "C" NOT NULL,
    rate text COLLATE "C" NOT NULL,
    PRIMARY KEY (entity_id, currency, rate_date)
  );
  ALTER TABLE accounts ADD COLUMN monetary boolean;
  ALTER TABLE entities ADD COLUMN fx_realized text COLLATE "C";
  ALTER TABLE entities ADD COLUMN fx_unrealized text COLLATE "C";
  `,
  `
  ALTER TABLE accounts ADD COLUMN cash_flow text COLLATE "C";
  `,
  `
  ALTER TABLE journal_entries ADD COLUMN tags text;
  ALTER TABLE journal_lines ADD COLUMN tags text;
  CREATE TABLE tag_month_totals (
    entity_id text COLLATE "C" NOT NULL,
    tag_key text COLLATE "C" NOT NULL,
    tag_value text COLLATE "C" NOT NULL,
    account_key integer NOT NULL,
    month text COLLATE "C" NOT NULL,
    net_atoms bigint NOT NULL,
    line_count bigint NOT NULL,
    adj_net_atoms bigint NOT NULL,
    adj_line_count bigint NOT NULL,
    PRIMARY KEY (entity_id, tag_key, tag_value, account_key, month)
  );
  `,
  `
  -- The audit trail (docs/reliability.md): one event per change, gapless per entity, each hashing
  -- the one before it and the entries it wrote. Nothing changes or deletes an event.
  CREATE TABLE audit_events (
    entity_id text COLLATE "C" NOT NULL,
    seq bigint NOT NULL,
    at text COLLATE "C" NOT NULL,
    actor text COLLATE "C" NOT NULL,
    via text COLLATE "C" NOT NULL,
    action text COLLATE "C" NOT NULL,
    objects text COLLATE "C" NOT NULL,
    summary text COLLATE "C" NOT NULL,
    entries bigint NOT NULL,
    record text COLLATE "C",
    amended text COLLATE "C",
    hash text COLLATE "C" NOT NULL,
    PRIMARY KEY (entity_id, seq)
  );
  CREATE FUNCTION audit_events_kept() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN RAISE EXCEPTION 'audit events are never changed or deleted'; END $$;
  CREATE TRIGGER audit_events_kept BEFORE UPDATE OR DELETE ON audit_events
    FOR EACH ROW EXECUTE FUNCTION audit_events_kept();
  `,
];

/** The schema version whose migration made the audit trail's table (a database below it has none). */
const AUDIT_VERSION = 8;

/** The schema's version, without a lock (0 for a database books has not written yet). */
export async function schemaVersion(q: Query): Promise<number> {
  const rows = await q<{ version: number | null }>(
    `SELECT CASE WHEN to_regclass('books_schema') IS NULL THEN 0 END AS version`,
  );
  if (rows[0]!.version === 0) return 0;
  return (await q<{ version: number }>(`SELECT version FROM books_schema`))[0]?.version ?? 0;
}

/** Brings the schema up to date, under a lock so that two processes starting at once migrate once. */
export async function migrate(q: Query, location: string): Promise<void> {
  await q(`SELECT pg_advisory_xact_lock(hashtext('books schema'))`);
  await q(`CREATE TABLE IF NOT EXISTS books_schema (version integer NOT NULL)`);
  const rows = await q<{ version: number }>(`SELECT version FROM books_schema`);
  const version = rows[0]?.version ?? 0;
  if (version > PG_MIGRATIONS.length)
    throw errors.usage(
      `${location} was written by a newer books (schema ${version}); upgrade books`,
    );
  if (version === PG_MIGRATIONS.length) return;
  for (let v = version; v < PG_MIGRATIONS.length; v++) await q(PG_MIGRATIONS[v]!);
  // Entities whose entries predate the audit trail: a trail.started event records them.
  if (version < AUDIT_VERSION)
    for (const { id } of await q<{ id: string }>(`SELECT entity_id AS id FROM entities`))
      await new AuditTables(pgSql(q), new Scope(id)).start(whoNow(), true);
  await q(`DELETE FROM books_schema`);
  await q(`INSERT INTO books_schema VALUES ($1)`, [PG_MIGRATIONS.length]);
}
