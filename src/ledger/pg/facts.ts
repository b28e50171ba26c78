import { wantsOf, type UsedKey } from '../../domain/posting.js';
import type { FactsRequest } from '../journal/store.js';
import { lookupColumns, lookupParams, wantsFx, type LookupRow } from './chart.js';
import { prepared } from './db.js';
import { Scope } from '../sql/dialect.js';

/** The database's clock as audit events keep it (sql/dialect.ts Scope.clock). */
const CLOCK = new Scope('').clock;

/** The database's clock in ms: every server reads the same one (decisions of the key's hour). */
export const DB_MS = `floor(extract(epoch FROM clock_timestamp()) * 1000)::int8`;

/** The numbers taken without counting above `last`, each with its rank among them. */
export const takenAbove = (last: string) => `SELECT je_seq_uncounted AS n,
    row_number() OVER (ORDER BY je_seq_uncounted) AS i
  FROM journal_entries WHERE entity_id = $1 AND je_seq_uncounted > ${last}`;

/** A write's facts as FACTS reads them. */
export interface FactsRow extends LookupRow {
  /** The audit trail's head, and the clock: the events of the write follow it. */
  head: { seq: number; hash: string } | null;
  at: string;
  ms: number;
  last: string | null;
  seq: number;
  used: UsedKey | (UsedKey & { key: string })[] | null;
  fingerprinted: { id: string; je_number: string } | null;
  taken: string[] | null;
  live: string[] | null;
}

/**
 * What a write reads before its rules run, in one statement ($1 entity, $2 key, $3 fingerprint,
 * then the look-ups): the database's clock, the last counted JE number and sequence number, the
 * key's earlier use, the entry with the fingerprint, the look-ups, and the numbers taken without
 * counting that the next two automatic numbers must pass over: an accrual and its reversal are
 * numbered from one reading. Those are the ones below the second free number above the last (u_i -
 * last - i free numbers lie below the i-th of them); a writer asks only about numbers below it, so
 * the answers are final under the entity's lock.
 */
const FINGERPRINTED = `(SELECT row_to_json(f) FROM (SELECT id, je_number FROM journal_entries
  WHERE entity_id = $1 AND fingerprint = $3) f)`;
const factsSql = (fx: boolean, group = false) => `WITH top AS (
    SELECT MAX(je_seq) AS last, COALESCE(MAX(seq), 0) AS seq FROM journal_entries WHERE entity_id = $1)
  SELECT ${DB_MS} AS ms, top.last::text AS last, top.seq,
    (SELECT ${group ? 'json_agg(u)' : 'row_to_json(u)'} FROM (
      SELECT ${group ? 'k.key, ' : ''}k.request_hash, k.journal_entry_id, k.created_at_ms, j.je_number
      FROM idempotency_keys k LEFT JOIN journal_entries j ON j.entity_id = k.entity_id AND j.id = k.journal_entry_id
      WHERE k.entity_id = $1 AND k.key = ${group ? 'ANY($2::text[])' : '$2'}) u) AS used,
    ${group ? 'NULL' : FINGERPRINTED} AS fingerprinted,
    (SELECT row_to_json(h) FROM (SELECT seq, hash FROM audit_events WHERE entity_id = $1
      ORDER BY seq DESC LIMIT 1) h) AS head, ${CLOCK} AS at,
    ${lookupColumns(4, fx)},
    (SELECT json_agg(id) FROM api_keys WHERE entity_id = $1 AND revoked_at IS NULL
      AND id = ANY($${LIVE_KEYS(fx)}::text[])) AS live,
    (SELECT json_agg(n::text ORDER BY n) FROM (${takenAbove('COALESCE(top.last, 0)')}) x
      WHERE n - COALESCE(top.last, 0) - i < ${group ? '$3::int8' : '2'}) AS taken
  FROM top`;
/** The parameter of the API keys to read again: after the look-ups' 4 (10 with foreign amounts). */
const LIVE_KEYS = (fx: boolean) => 4 + (fx ? 10 : 4);
const FACTS = prepared(factsSql(false));
const FACTS_FX = prepared(factsSql(true));
/** FACTS for a group of posts: every key's earlier use ($2, an array), numbers for $3 automatic ones. */
const GROUP_FACTS = prepared(factsSql(false, true));
const GROUP_FACTS_FX = prepared(factsSql(true, true));

/** The statement (prepared) and values that read a request's facts for the entity. */
export function factsStatement(entityId: string, r: FactsRequest): [string, unknown[]] {
  const wants = wantsOf(r.bodies);
  const fx = wantsFx(wants);
  const keys = r.idempotencyKeys;
  return [
    keys ? (fx ? GROUP_FACTS_FX : GROUP_FACTS) : fx ? FACTS_FX : FACTS,
    [
      entityId,
      keys ?? r.idempotencyKey ?? null,
      keys ? (r.automatic ?? 2) : r.fingerprint,
      ...lookupParams(wants, fx),
      r.apiKeys ?? [],
    ],
  ];
}
