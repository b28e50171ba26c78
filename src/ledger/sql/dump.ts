import { AuditTables } from './auditTables.js';
import { tagsOf } from '../../domain/tags.js';
import type { CashFlowKind } from '../../domain/accounts.js';
import { noCounts, type DumpCounts, type DumpEntry, type DumpRecord } from '../../domain/dump.js';
import { withFx, type FxColumns } from '../../domain/fx.js';
import { seqOf } from '../../domain/jeNumber.js';
import type { Permission } from '../../domain/keys.js';
import { flag, type Session } from './dialect.js';
import { reconRecords } from './reconTransfer.js';

/** Entries read per page of a dump: their lines come in one range read. */
const PAGE = 1000;

type Of<T extends DumpRecord['type']> = Omit<Extract<DumpRecord, { type: T }>, 'type'>;

/**
 * The entity as a dump (domain/dump.ts), read through a session on a consistent snapshot, streamed
 * with memory that holds a page of entries.
 */
export async function* dumpRecords(s: Session): AsyncGenerator<DumpRecord> {
  const { sql, scope } = s;
  const all = <T>(text: string, params: unknown[] = []) => sql.all<T>(text, params);
  const where = (alias: string) => `WHERE ${scope.of(alias)}TRUE`;
  yield { type: 'ledger', format: 1 };
  yield await entityRecord(s);
  for (const x of await all<{ name: string; value: Buffer }>(
    `SELECT name, value FROM ledger_secrets x ${where('x')} ORDER BY name`,
  ))
    yield { type: 'secret', name: x.name, value: Buffer.from(x.value).toString('base64') };
  const counts = noCounts();
  for (const a of await all<Record<string, unknown>>(
    `SELECT a.id, a.external_id, a.account_number, a.name, a.account_type, p.id AS parent_id,
            a.is_postable, a.is_active, a.currency, a.monetary, a.cash_flow, a.created_at, a.updated_at
     FROM accounts a LEFT JOIN accounts p ON ${scope.joined('p', 'a')}p.key = a.parent_key
     ${where('a')} ORDER BY a.key`,
  )) {
    counts.accounts++;
    const { monetary, cash_flow: cashFlow, ...rest } = a;
    const flags = { is_postable: flag(a.is_postable), is_active: flag(a.is_active) };
    // Set only where the chart said: a ledger that never did dumps as before.
    const kept = {
      ...(monetary === null || monetary === undefined ? {} : { monetary: flag(monetary) }),
      ...(cashFlow ? { cash_flow: cashFlow as CashFlowKind } : {}),
    };
    yield { type: 'account', ...(rest as Of<'account'>), ...flags, ...kept };
  }
  for (const c of await all<Record<string, unknown>>(
    `SELECT id, counterparty_type, external_id, name, is_active, created_at, updated_at
     FROM counterparties c ${where('c')} ORDER BY counterparty_type, external_id`,
  )) {
    counts.counterparties++;
    yield { type: 'counterparty', ...(c as Of<'counterparty'>), is_active: flag(c.is_active) };
  }
  for (const r of await all<Of<'exchange_rate'>>(
    `SELECT currency, rate_date AS date, rate FROM exchange_rates r ${where('r')} ORDER BY currency, rate_date`,
  )) {
    counts.exchange_rates!++;
    yield { type: 'exchange_rate', ...r };
  }
  yield* entryRecords(s, counts);
  for (const k of await all<Of<'idempotency_key'>>(
    `SELECT key, request_hash, journal_entry_id, created_at_ms FROM idempotency_keys k ${where('k')}
     ORDER BY key`,
  )) {
    counts.idempotency_keys++;
    yield { type: 'idempotency_key', ...k };
  }
  for (const k of await all<Record<string, unknown>>(
    `SELECT id, name, key_hash, permissions, created_at, revoked_at FROM api_keys k ${where('k')}
     ORDER BY created_at, id`,
  )) {
    counts.api_keys++;
    const permissions = JSON.parse(k.permissions as string) as Permission[];
    yield { type: 'api_key', ...(k as Omit<Of<'api_key'>, 'permissions'>), permissions };
  }
  const accounts = await all<{ key: number; id: string }>(
    `SELECT key, id FROM accounts a ${where('a')}`,
  );
  yield* reconRecords(
    sql,
    scope.reconId,
    {
      accountIds: new Map(accounts.map((a) => [Number(a.key), a.id])),
      entryIds: async (seqs) => {
        const any = sql.anyOf('seq', seqs, 'int8');
        const rows = await all<{ seq: number; id: string }>(
          `SELECT seq, id FROM journal_entries e WHERE ${scope.of('e')}${any.sql}`,
          [any.param],
        );
        return new Map(rows.map((r) => [Number(r.seq), r.id]));
      },
    },
    counts,
  );
  yield* auditRecords(s, counts);
  yield { type: 'end', counts };
}

/** The entity's record; the settings a ledger without foreign currencies never set are left out. */
async function entityRecord({ sql, scope }: Session): Promise<DumpRecord> {
  const [settings] = await sql.all<
    Of<'entity'> & { fx_realized: string | null; fx_unrealized: string | null }
  >(
    `SELECT id, name, currency, books_start, fiscal_year_start_month, lock_date, created_at, updated_at,
       fx_realized, fx_unrealized
     FROM ${scope.settings}`,
    [],
  );
  const { fx_realized, fx_unrealized, ...e } = settings!;
  return {
    type: 'entity',
    ...e,
    ...(fx_realized !== null ? { fx_realized } : {}),
    ...(fx_unrealized !== null ? { fx_unrealized } : {}),
  };
}

/** The entries in storage order, a page at a time, each with its lines. */
export async function* entryRecords(
  { sql, scope }: Session,
  counts: DumpCounts,
): AsyncGenerator<DumpRecord> {
  const seq = (v: unknown) => (v === null ? null : seqOf(BigInt(v as number | bigint)));
  for (let after = 0; ;) {
    const rows = await sql.all<Record<string, unknown>>(
      `SELECT e.seq, e.id, e.je_number, e.je_seq, e.je_seq_uncounted, e.entry_date, e.currency, e.memo,
              e.source, e.status, e.is_adjusting, e.manual_entry_reason, e.total_atoms,
              o.id AS original_id, e.fingerprint, e.created_at, e.updated_at, e.tags
       FROM journal_entries e LEFT JOIN journal_entries o ON ${scope.joined('o', 'e')}o.seq = e.original_seq
       WHERE ${scope.of('e')}e.seq > ? ORDER BY e.seq LIMIT ${PAGE}`,
      [after],
    );
    if (rows.length === 0) return;
    const last = Number(rows[rows.length - 1]!.seq);
    const lines = await sql.all<DumpLineRow>(
      `SELECT l.entry_seq, a.id AS account_id, l.line_type, l.amount_atoms, l.memo, l.counterparty_id,
              l.fx_currency, l.fx_amount_atoms, l.fx_rate, l.system, l.tags
       FROM journal_lines l JOIN accounts a ON ${scope.joined('a', 'l')}a.key = l.account_key
       WHERE ${scope.of('l')}l.entry_seq > ? AND l.entry_seq <= ? ORDER BY l.entry_seq, l.line_no`,
      [after, last],
    );
    const bySeq = new Map<number, DumpEntry['lines']>();
    for (const { entry_seq, tags, ...line } of lines) {
      let list = bySeq.get(Number(entry_seq));
      if (!list) bySeq.set(Number(entry_seq), (list = []));
      // Tags only where there are some: a ledger without them dumps as before.
      list.push({ ...withFx(line), ...(tags ? { tags: tagsOf(tags) } : {}) });
    }
    for (const { seq: at, tags, ...r } of rows) {
      const entryLines = bySeq.get(Number(at)) ?? [];
      counts.entries++;
      counts.lines += entryLines.length;
      yield {
        type: 'entry',
        ...(r as Omit<DumpEntry, 'type' | 'lines'>),
        je_seq: seq(r.je_seq),
        je_seq_uncounted: seq(r.je_seq_uncounted),
        is_adjusting: flag(r.is_adjusting),
        ...(tags ? { tags: tagsOf(tags) } : {}),
        lines: entryLines,
      };
    }
    after = last;
  }
}

type DumpLineRow = Omit<DumpEntry['lines'][number], 'fx' | 'system' | 'tags'> &
  FxColumns & { entry_seq: number; tags: string | null };

/** The audit trail, in seq order. */
async function* auditRecords(s: Session, counts: DumpCounts): AsyncGenerator<DumpRecord> {
  for await (const e of new AuditTables(s.sql, s.scope).events()) {
    counts.audit_events!++;
    yield { type: 'audit_event', ...e };
  }
}
