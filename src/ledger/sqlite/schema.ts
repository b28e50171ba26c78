/** 'book' in ASCII: marks a SQLite file as a books ledger. */
export const APPLICATION_ID = 0x626f6f6b;

/**
 * Migrations by `PRAGMA user_version`: entry i takes the schema from version i to i + 1. Never edit a
 * shipped migration; append a new one.
 */
/** The schema version whose migration made the audit trail's table (a file below it has none). */
export const AUDIT_VERSION = 15;

export const MIGRATIONS: string[] = [
  `
  CREATE TABLE entity (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    currency TEXT NOT NULL,
    books_start TEXT,
    fiscal_year_start_month INTEGER NOT NULL DEFAULT 1,
    lock_date TEXT,
    rebuild_started_at TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );

  CREATE TABLE accounts (
    key INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    external_id TEXT NOT NULL UNIQUE,
    account_number TEXT UNIQUE,
    name TEXT NOT NULL,
    account_type TEXT NOT NULL,
    parent_key INTEGER REFERENCES accounts(key),
    is_postable INTEGER NOT NULL,
    is_active INTEGER NOT NULL,
    currency TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );

  CREATE TABLE counterparties (
    id TEXT PRIMARY KEY,
    counterparty_type TEXT NOT NULL,
    external_id TEXT NOT NULL,
    name TEXT NOT NULL,
    is_active INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (counterparty_type, external_id)
  );

  CREATE TABLE journal_entries (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    je_number TEXT NOT NULL UNIQUE,
    je_seq INTEGER,
    entry_date TEXT NOT NULL,
    currency TEXT NOT NULL,
    memo TEXT,
    source TEXT NOT NULL,
    status TEXT NOT NULL,
    is_adjusting INTEGER NOT NULL,
    manual_entry_reason TEXT,
    total_atoms INTEGER NOT NULL,
    line_count INTEGER NOT NULL,
    original_seq INTEGER REFERENCES journal_entries(seq),
    fingerprint TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  -- Not partial: MAX(je_seq), run for every auto-numbered entry, needs a plain index to be O(log n).
  CREATE INDEX journal_entries_je_seq ON journal_entries (je_seq);
  CREATE INDEX journal_entries_date ON journal_entries (entry_date);
  CREATE INDEX journal_entries_original ON journal_entries (original_seq) WHERE original_seq IS NOT NULL;
  CREATE UNIQUE INDEX journal_entries_fingerprint ON journal_entries (fingerprint) WHERE fingerprint IS NOT NULL;

  -- Lines are stored with their entry (clustered by entry_seq), so an entry reads in one range scan.
  CREATE TABLE journal_lines (
    entry_seq INTEGER NOT NULL REFERENCES journal_entries(seq),
    line_no INTEGER NOT NULL,
    account_key INTEGER NOT NULL REFERENCES accounts(key),
    line_type TEXT NOT NULL,
    amount_atoms INTEGER NOT NULL,
    memo TEXT,
    counterparty_id TEXT REFERENCES counterparties(id),
    PRIMARY KEY (entry_seq, line_no)
  ) WITHOUT ROWID;

  -- Derived per-account, per-month totals, kept in the posting transaction so reports never rescan
  -- the lines; books check proves them equal to the lines. net_atoms is debits minus credits.
  CREATE TABLE account_month_totals (
    account_key INTEGER NOT NULL,
    month TEXT NOT NULL,
    net_atoms INTEGER NOT NULL,
    line_count INTEGER NOT NULL,
    PRIMARY KEY (account_key, month)
  ) WITHOUT ROWID;

  CREATE TABLE idempotency_keys (
    key TEXT PRIMARY KEY,
    request_hash TEXT NOT NULL,
    journal_entry_id TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL
  );
  `,
  `
  -- API keys for books serve: only a SHA-256 of each key is stored; the key is shown once.
  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    name TEXT,
    key_hash TEXT NOT NULL,
    permissions TEXT NOT NULL,
    created_at TEXT NOT NULL,
    revoked_at TEXT
  );
  `,
  `
  -- Who runs a rebuild (host:pid:start time), so that the mark of a killed one is known dead at once.
  ALTER TABLE entity ADD COLUMN rebuild_owner TEXT;
  `,
  `
  -- The part of each derived total that adjusting entries make, for the trial balance's unadjusted
  -- and worksheet columns without a scan of the lines.
  ALTER TABLE account_month_totals ADD COLUMN adj_net_atoms INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE account_month_totals ADD COLUMN adj_line_count INTEGER NOT NULL DEFAULT 0;
  CREATE TEMP TABLE adjusting_totals AS
    SELECT l.account_key, substr(e.entry_date, 1, 7) AS month,
           SUM(CASE WHEN l.line_type = 'debit' THEN l.amount_atoms ELSE -l.amount_atoms END) AS net, COUNT(*) AS n
    FROM journal_entries e JOIN journal_lines l ON l.entry_seq = e.seq WHERE e.is_adjusting = 1 GROUP BY 1, 2;
  UPDATE account_month_totals AS t SET adj_net_atoms = a.net, adj_line_count = a.n
    FROM adjusting_totals a WHERE a.account_key = t.account_key AND a.month = t.month;
  DROP TABLE adjusting_totals;
  `,
  `
  -- Each line carries its entry's date (entries are never redated), so that the lines of one account
  -- in a window come from one index range in the general ledger's order: no scan, no sort.
  ALTER TABLE journal_lines ADD COLUMN entry_date TEXT NOT NULL DEFAULT '';
  UPDATE journal_lines SET entry_date = (SELECT e.entry_date FROM journal_entries e WHERE e.seq = entry_seq);
  CREATE INDEX journal_lines_account ON journal_lines (account_key, entry_date, entry_seq, line_no);
  `,
  `
  -- The same order kept behind the journal (see glIndex.ts): posting no longer writes an index entry
  -- per line into the middle of a b-tree; the lines after through_seq are moved in, sorted, in bulk.
  DROP INDEX journal_lines_account;
  CREATE TABLE gl_index (
    account_key INTEGER NOT NULL,
    entry_date TEXT NOT NULL,
    entry_seq INTEGER NOT NULL,
    line_no INTEGER NOT NULL,
    PRIMARY KEY (account_key, entry_date, entry_seq, line_no)
  ) WITHOUT ROWID;
  CREATE TABLE gl_index_state (through_seq INTEGER NOT NULL);
  INSERT INTO gl_index SELECT account_key, entry_date, entry_seq, line_no FROM journal_lines ORDER BY 1, 2, 3, 4;
  INSERT INTO gl_index_state SELECT COALESCE(MAX(seq), 0) FROM journal_entries;
  `,
  `
  -- A JE-n that does not move the automatic numbering (a number from an imported file, or a caller's
  -- beyond 2^62) keeps its n here, so that automatic numbering passes over it instead of colliding.
  ALTER TABLE journal_entries ADD COLUMN je_seq_uncounted INTEGER;
  UPDATE journal_entries SET je_seq_uncounted = CAST(substr(je_number, 4) AS INTEGER)
    WHERE je_seq IS NULL AND je_number GLOB 'JE-[1-9]*' AND NOT substr(je_number, 4) GLOB '*[^0-9]*'
      AND (length(je_number) < 22 OR (length(je_number) = 22 AND substr(je_number, 4) <= '9223372036854775807'));
  CREATE INDEX journal_entries_je_seq_uncounted ON journal_entries (je_seq_uncounted)
    WHERE je_seq_uncounted IS NOT NULL;
  `,
  `
  -- Secrets of the ledger itself, made once: the key general-ledger cursors are signed with lives
  -- here, so that a cursor one books serve gave is good on every server over the same ledger.
  CREATE TABLE ledger_secrets (name TEXT PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;
  INSERT INTO ledger_secrets VALUES ('gl_cursor', randomblob(32));
  `,
  `
  -- Reconciliation: a statement's lines as the bank gave them (identity finds a line again in an
  -- overlapping file), the journal lines cleared against them or ticked by hand, and the
  -- reconciliations finished. Tables carry the entity as a database's do, so that one set of
  -- statements serves both stores (ledger/reconcile/store.ts).
  CREATE TABLE IF NOT EXISTS statement_lines (
    entity_id TEXT NOT NULL,
    id TEXT NOT NULL PRIMARY KEY,
    account_key INTEGER NOT NULL,
    ordinal INTEGER NOT NULL,
    line_date TEXT NOT NULL,
    amount_atoms INTEGER NOT NULL,
    description TEXT,
    reference TEXT,
    bank_id TEXT,
    identity TEXT NOT NULL,
    state TEXT NOT NULL,
    reconciliation_id TEXT,
    imported_at TEXT NOT NULL,
    UNIQUE (entity_id, account_key, identity)
  );
  CREATE INDEX IF NOT EXISTS statement_lines_account ON statement_lines (entity_id, account_key, line_date);
  CREATE TABLE IF NOT EXISTS line_marks (
    entity_id TEXT NOT NULL,
    entry_seq INTEGER NOT NULL,
    line_no INTEGER NOT NULL,
    account_key INTEGER NOT NULL,
    entry_date TEXT NOT NULL,
    net_atoms INTEGER NOT NULL,
    cleared_date TEXT NOT NULL,
    statement_line_id TEXT,
    reconciliation_id TEXT,
    PRIMARY KEY (entity_id, entry_seq, line_no)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS line_marks_account ON line_marks (entity_id, account_key, entry_date);
  CREATE INDEX IF NOT EXISTS line_marks_cleared ON line_marks (entity_id, account_key, cleared_date);
  CREATE INDEX IF NOT EXISTS line_marks_statement ON line_marks (entity_id, statement_line_id);
  CREATE TABLE IF NOT EXISTS reconciliations (
    entity_id TEXT NOT NULL,
    id TEXT NOT NULL PRIMARY KEY,
    account_key INTEGER NOT NULL,
    statement_date TEXT NOT NULL,
    statement_balance_atoms INTEGER NOT NULL,
    line_count INTEGER NOT NULL,
    finished_at TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS statement_closings (
    entity_id TEXT NOT NULL,
    account_key INTEGER NOT NULL,
    closing_date TEXT NOT NULL,
    balance_atoms INTEGER NOT NULL,
    PRIMARY KEY (entity_id, account_key)
  );
  `,
  `
  -- The close's plans (ledger/sql/planTables.ts): budget cells by account and report period, and
  -- recurring entries' templates, whose occurrences post with a fingerprint of their own.
  CREATE TABLE IF NOT EXISTS budgets (
    entity_id TEXT NOT NULL,
    account_key INTEGER NOT NULL,
    period TEXT NOT NULL,
    amount_atoms INTEGER NOT NULL,
    PRIMARY KEY (entity_id, account_key, period)
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS recurring_templates (
    entity_id TEXT NOT NULL,
    name TEXT NOT NULL,
    every TEXT NOT NULL,
    day INTEGER,
    start_date TEXT NOT NULL,
    end_date TEXT,
    entry TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (entity_id, name)
  ) WITHOUT ROWID;
  `,
  `
  -- How an account's statements are read (a remembered layout, JSON), and the bank account they
  -- come from (an OFX's ACCTID and bank id), once an import has named them.
  CREATE TABLE IF NOT EXISTS statement_sources (
    entity_id TEXT NOT NULL,
    account_key INTEGER NOT NULL,
    layout TEXT,
    acctid TEXT,
    bankid TEXT,
    PRIMARY KEY (entity_id, account_key)
  ) WITHOUT ROWID;
  `,
  `
  -- Foreign currencies (docs/currency.md): a line on a foreign account keeps its amount in that
  -- currency and the rate beside the functional amount_atoms; the rates a ledger was given, by
  -- currency and date; and the entity's exchange gain/loss accounts (external ids, null: the
  -- standard chart's fx-realized and fx-unrealized).
  ALTER TABLE journal_lines ADD COLUMN fx_currency TEXT;
  ALTER TABLE journal_lines ADD COLUMN fx_amount_atoms INTEGER;
  ALTER TABLE journal_lines ADD COLUMN fx_rate TEXT;
  -- A line books added itself (the realised exchange gain/loss of a settlement): 'fx_realized'.
  ALTER TABLE journal_lines ADD COLUMN system TEXT;
  -- Only foreign lines are in it (a ledger without them writes nothing more per line), with all that
  -- their balances and a settlement's history read, so that those never visit the lines themselves.
  CREATE INDEX IF NOT EXISTS journal_lines_fx ON journal_lines (account_key, counterparty_id, entry_date,
    entry_seq, line_no, line_type, fx_currency, fx_amount_atoms, amount_atoms) WHERE fx_currency IS NOT NULL;
  CREATE TABLE IF NOT EXISTS exchange_rates (
    entity_id TEXT NOT NULL,
    currency TEXT NOT NULL,
    rate_date TEXT NOT NULL,
    rate TEXT NOT NULL,
    PRIMARY KEY (entity_id, currency, rate_date)
  ) WITHOUT ROWID;
  -- Whether a foreign account is revalued at period end; null: as its type says.
  ALTER TABLE accounts ADD COLUMN monetary INTEGER;
  ALTER TABLE entity ADD COLUMN fx_realized TEXT;
  ALTER TABLE entity ADD COLUMN fx_unrealized TEXT;
  `,
  `
  -- The cash-flow statement's section of a balance-sheet account (operating, investing, financing,
  -- cash); null: as its type says (docs/close.md).
  ALTER TABLE accounts ADD COLUMN cash_flow TEXT;
  `,
  `
  -- Tags (docs/close.md): an entry's own, and each line's effective ones (the entry's overridden by
  -- the line's), as canonical JSON; null for none, so a ledger without tags writes nothing more.
  ALTER TABLE journal_entries ADD COLUMN tags TEXT;
  ALTER TABLE journal_lines ADD COLUMN tags TEXT;
  -- Derived totals by tag, kept in the posting transaction as account_month_totals are: a report
  -- by one tag reads these, never the lines. books check proves them equal to the lines.
  CREATE TABLE IF NOT EXISTS tag_month_totals (
    tag_key TEXT NOT NULL,
    tag_value TEXT NOT NULL,
    account_key INTEGER NOT NULL,
    month TEXT NOT NULL,
    net_atoms INTEGER NOT NULL,
    line_count INTEGER NOT NULL,
    adj_net_atoms INTEGER NOT NULL,
    adj_line_count INTEGER NOT NULL,
    PRIMARY KEY (tag_key, tag_value, account_key, month)
  ) WITHOUT ROWID;
  `,
  `
  -- The audit trail (docs/reliability.md): one event per change, gapless, each hashing the one
  -- before it and the entries it wrote. Nothing changes or deletes an event.
  CREATE TABLE IF NOT EXISTS audit_events (
    seq INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    actor TEXT NOT NULL,
    via TEXT NOT NULL,
    action TEXT NOT NULL,
    objects TEXT NOT NULL,
    summary TEXT NOT NULL,
    entries INTEGER NOT NULL,
    record TEXT,
    amended TEXT,
    hash TEXT NOT NULL
  );
  CREATE TRIGGER IF NOT EXISTS audit_events_kept_on_update BEFORE UPDATE ON audit_events
  BEGIN SELECT RAISE(ABORT, 'audit events are never changed'); END;
  CREATE TRIGGER IF NOT EXISTS audit_events_kept_on_delete BEFORE DELETE ON audit_events
  BEGIN SELECT RAISE(ABORT, 'audit events are never deleted'); END;
  `,
  `
  -- Totals are 64-bit integers. SQLite adds two past that into a real number, which a STRICT table
  -- refuses to keep (connection.ts, writeRefusal): the write fails rather than keeping an inexact total. A
  -- total a file kept inexact before was summed again from its lines (wholeTotals.ts).
  CREATE TABLE account_month_totals_strict (
    account_key INTEGER NOT NULL,
    month TEXT NOT NULL,
    net_atoms INTEGER NOT NULL,
    line_count INTEGER NOT NULL,
    adj_net_atoms INTEGER NOT NULL DEFAULT 0,
    adj_line_count INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (account_key, month)
  ) WITHOUT ROWID, STRICT;
  INSERT INTO account_month_totals_strict
    SELECT account_key, month, CAST(net_atoms AS INTEGER), CAST(line_count AS INTEGER),
           CAST(adj_net_atoms AS INTEGER), CAST(adj_line_count AS INTEGER)
    FROM account_month_totals;
  DROP TABLE account_month_totals;
  ALTER TABLE account_month_totals_strict RENAME TO account_month_totals;
  CREATE TABLE tag_month_totals_strict (
    tag_key TEXT NOT NULL,
    tag_value TEXT NOT NULL,
    account_key INTEGER NOT NULL,
    month TEXT NOT NULL,
    net_atoms INTEGER NOT NULL,
    line_count INTEGER NOT NULL,
    adj_net_atoms INTEGER NOT NULL,
    adj_line_count INTEGER NOT NULL,
    PRIMARY KEY (tag_key, tag_value, account_key, month)
  ) WITHOUT ROWID, STRICT;
  INSERT INTO tag_month_totals_strict
    SELECT tag_key, tag_value, account_key, month, CAST(net_atoms AS INTEGER),
           CAST(line_count AS INTEGER), CAST(adj_net_atoms AS INTEGER), CAST(adj_line_count AS INTEGER)
    FROM tag_month_totals;
  DROP TABLE tag_month_totals;
  ALTER TABLE tag_month_totals_strict RENAME TO tag_month_totals;
  `,
];
