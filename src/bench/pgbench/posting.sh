#!/bin/sh
# PostgreSQL's own ceiling for posting on one entity, without books: pgbench runs the statements a
# post makes (the entity's row FOR UPDATE, the facts' read of the last numbers, the idempotency key and
# the accounts, the one-statement write of a 4-line entry with its totals and key), prepared, with 8
# clients, for 10 s each: one entry per transaction, 8 and 32 per transaction (as group commit makes
# them), and 8 without the entity's lock. docs/benchmarks.md has the figures.
#
#   sh src/bench/pgbench/posting.sh 'postgresql://postgres@/bench?host=/tmp/dir' bench-0
#
# The entity must use the bench chart (bench-data/1m/accounts.csv: bank-0-0, credit_card-0-0,
# expense-0-0, expense-0-1). Rows it writes are numbered PGB-n, out of JE numbering: use a copy.
set -eu
url=$1
slug=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
entity=$(psql "$url" -AtXc "SELECT entity_id FROM entities WHERE slug = '$slug'")
key() { psql "$url" -AtXc "SELECT key FROM accounts WHERE entity_id = '$entity' AND external_id = '$1'"; }
bank=$(key bank-0-0) card=$(key credit_card-0-0) rent=$(key expense-0-0) util=$(key expense-0-1)
e="'$entity'"
s="10000000 + :r::int8"
refs="'{bank-0-0,expense-0-0,expense-0-1,credit_card-0-0}'::text[]"
cat > "$dir/entry.sql" <<SQL
\set r random(1, 1000000000000)
WITH top AS (SELECT MAX(je_seq) AS last, COALESCE(MAX(seq), 0) AS seq FROM journal_entries WHERE entity_id = $e) SELECT top.last, top.seq, (SELECT row_to_json(u) FROM (SELECT k.request_hash, k.journal_entry_id FROM idempotency_keys k WHERE k.entity_id = $e AND k.key = 'pgb' || :r) u) AS used, (SELECT json_agg(a) FROM (SELECT key, id, external_id, account_number, name, account_type, is_active, is_postable, currency FROM accounts WHERE entity_id = $e AND (external_id = ANY($refs) OR account_number = ANY($refs))) a) AS accounts FROM top;
WITH w0 AS (INSERT INTO journal_entries (entity_id, seq, id, je_number, je_seq, je_seq_uncounted, entry_date, currency, memo, source, status, is_adjusting, manual_entry_reason, total_atoms, line_count, original_seq, fingerprint, created_at, updated_at) VALUES ($e, $s, 'je_pgb' || :r, 'PGB-' || :r, NULL, NULL, '2025-03-15', 'USD', 'w', 'manual_api', 'posted', false, NULL, 1500, 4, NULL, NULL, '2026-11-25T00:00:00.000Z', '2026-11-25T00:00:00.000Z')), w1 AS (INSERT INTO journal_lines (entity_id, entry_seq, line_no, account_key, line_type, amount_atoms, memo, counterparty_id, entry_date) VALUES ($e, $s, 1, $rent, 'debit', 1000, NULL, NULL, '2025-03-15'), ($e, $s, 2, $util, 'debit', 500, NULL, NULL, '2025-03-15'), ($e, $s, 3, $bank, 'credit', 1000, NULL, NULL, '2025-03-15'), ($e, $s, 4, $card, 'credit', 500, NULL, NULL, '2025-03-15')), w2 AS (INSERT INTO account_month_totals AS t (entity_id, account_key, month, net_atoms, line_count, adj_net_atoms, adj_line_count) VALUES ($e, $bank, '2025-03', -1000, 1, 0, 0), ($e, $card, '2025-03', -500, 1, 0, 0), ($e, $rent, '2025-03', 1000, 1, 0, 0), ($e, $util, '2025-03', 500, 1, 0, 0) ON CONFLICT (entity_id, account_key, month) DO UPDATE SET net_atoms = t.net_atoms + excluded.net_atoms, line_count = t.line_count + excluded.line_count) INSERT INTO idempotency_keys (entity_id, key, request_hash, journal_entry_id, created_at_ms) VALUES ($e, 'pgb' || :r, 'h', 'je_pgb' || :r, 0);
SQL
script() { # name, entries per transaction, lock or not
  { echo 'BEGIN;'
    [ "$3" = lock ] && echo "SELECT entity_id FROM entities WHERE entity_id = $e FOR UPDATE;"
    i=0; while [ $i -lt "$2" ]; do cat "$dir/entry.sql"; i=$((i + 1)); done
    echo 'COMMIT;'; } > "$dir/$1.sql"
}
script one 1 lock; script group8 8 lock; script group32 32 lock; script nolock8 8 none
for name in one group8 group32 nolock8; do
  printf '%s: ' "$name"
  pgbench -n -M prepared -c 8 -j 2 -T 10 -f "$dir/$name.sql" "$url" 2>&1 | grep -E '^tps' || true
done
