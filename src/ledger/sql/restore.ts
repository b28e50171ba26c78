import { sealed, type AuditEvent } from '../../domain/audit.js';
import { AuditTables, verifiedTrail } from './auditTables.js';
import { whoNow } from '../runtime/actor.js';
import { DumpReader, type DumpCounts, type DumpEntry, type DumpRecord } from '../../domain/dump.js';
import { tagsText } from '../../domain/tags.js';
import { rewriteTagTotals } from './tagTotals.js';
import { BooksError } from '../../domain/errors.js';
import { ENTRY_COLUMNS, LINE_COLUMNS, type RowTarget } from '../journal/entryRows.js';
import { flag, type Column, type Session } from './dialect.js';
import { ReconRestore } from './reconTransfer.js';
import { monthTotalsFromLines, TOTALS_COLUMNS } from './totals.js';

/** What a restore needs of the store beyond statements. */
export interface RestoreTarget {
  /** The journal's rows as the store inserts them fastest. */
  rows: RowTarget;
  /** What the store is called in the refusal of one that holds something ("the entity", a path). */
  name: string;
  /** What a restore goes into ("ledger", "entity"). */
  kind: string;
  /** The entity (its slug) that holds an API key of this id already, in a store of many. */
  keyHolder(id: string): Promise<string | null>;
  /** Derived data computed from the restored lines, before the transaction commits. */
  derive(s: Session): Promise<void>;
}

/**
 * Restores a dump into an entity that holds nothing yet (no account, counterparty, entry or key: a
 * ledger just made by books init without a chart), inside the session's write transaction: all of
 * it or nothing. The entity takes the dump's settings (a file its identity too); derived data is
 * computed from the lines before it commits.
 */
export async function restoreInto(
  s: Session,
  target: RestoreTarget,
  records: AsyncIterable<unknown>,
): Promise<DumpCounts> {
  await refuseUnlessEmpty(s, target);
  const reader = new DumpReader();
  const restore = new Restore(s, target);
  let counts: DumpCounts | null = null;
  for await (const record of records) {
    const r = reader.read(record);
    if (r.type === 'end') counts = r.counts;
    else await restore.record(r);
  }
  reader.finish();
  await restore.finish();
  return counts!;
}

async function refuseUnlessEmpty({ sql, scope }: Session, target: RestoreTarget): Promise<void> {
  const tables = ['accounts', 'counterparties', 'journal_entries', 'api_keys', 'audit_events'];
  const [row] = await sql.all<Record<string, unknown>>(
    `SELECT ${tables
      .map((t) => `EXISTS (SELECT 1 FROM ${t} x WHERE ${scope.of('x')}TRUE) AS ${t}`)
      .join(', ')}`,
    [],
  );
  const held = tables
    .filter((t) => flag(row![t]))
    .map((t) => t.replace('journal_entries', 'entries').replace('audit_events', 'an audit trail'));
  if (held.length)
    throw new BooksError(
      'invalid_input',
      `${target.name} already holds ${held.join(', ')}: a dump is restored into a new ${target.kind} ` +
        '(books init without --chart)',
    );
}

const text = (name: string): Column => ({ name, type: 'text' });
const int = (name: string): Column => ({ name, type: 'int8' });
const bool = (name: string): Column => ({ name, type: 'bool' });

const COLUMNS = {
  secret: [text('name'), { name: 'value', type: 'bytea' }],
  account: [
    int('key'),
    ...['id', 'external_id', 'account_number', 'name', 'account_type'].map(text),
    ...[bool('is_postable'), bool('is_active')],
    ...['currency', 'created_at', 'updated_at'].map(text),
    bool('monetary'),
    text('cash_flow'),
  ],
  counterparty: [
    ...['id', 'counterparty_type', 'external_id', 'name'].map(text),
    ...[bool('is_active'), text('created_at'), text('updated_at')],
  ],
  idempotency_key: [...['key', 'request_hash', 'journal_entry_id'].map(text), int('created_at_ms')],
  exchange_rate: ['currency', 'rate_date', 'rate'].map(text),
  api_key: ['id', 'name', 'key_hash', 'permissions', 'created_at', 'revoked_at'].map(text),
} satisfies Record<string, Column[]>;

/** The rows of a dump as they go in: accounts' keys and entries' sequence numbers by id. */
class Restore {
  /** API keys of the dump that another entity holds: their ids and names, and the entity's slug. */
  private readonly keysTaken: string[] = [];
  private readonly accountKeys = new Map<string, number>();
  private readonly parents: [string, string][] = [];
  private readonly entrySeqs = new Map<string, number>();
  private entries: unknown[] = [];
  private lines: unknown[] = [];
  /** Reconciliation's and the plans' records, written once the journal is in. */
  private readonly recon: ReconRestore;
  private readonly entryColumns: string[];
  private readonly lineColumns: string[];
  /** The dump's audit trail, inserted as it was, then verified against the entries restored. */
  private readonly trail: AuditTables;
  private events: AuditEvent[] = [];
  private anyEvents = false;

  constructor(
    private readonly s: Session,
    private readonly target: RestoreTarget,
  ) {
    this.recon = new ReconRestore(s.sql, s.scope.reconId);
    this.trail = new AuditTables(s.sql, s.scope);
    const lead = s.scope.entityId === null ? [] : ['entity_id'];
    this.entryColumns = [...lead, ...ENTRY_COLUMNS];
    this.lineColumns = [...lead, ...LINE_COLUMNS];
  }

  private insert(table: string, columns: Column[], values: unknown[]): Promise<void> {
    const { sql, scope } = this.s;
    return sql.insert(table, scope.columns(columns), [scope.row(values)]);
  }

  async record(r: Exclude<DumpRecord, { type: 'end' }>): Promise<void> {
    const { sql, scope } = this.s;
    switch (r.type) {
      case 'ledger':
        return;
      case 'entity': {
        const { table, where } = scope.settingsRow;
        // A file takes the dump's identity; an entity of a database keeps its own.
        const id = scope.entityId === null ? 'id = ?, ' : '';
        await sql.run(
          `UPDATE ${table} SET ${id}name = ?, currency = ?, books_start = ?, fiscal_year_start_month = ?,
             lock_date = ?, created_at = ?, updated_at = ?, rebuild_started_at = NULL, rebuild_owner = NULL,
             fx_realized = ?, fx_unrealized = ?
           WHERE ${where}`,
          [
            ...(id ? [r.id] : []),
            ...[r.name, r.currency, r.books_start, r.fiscal_year_start_month, r.lock_date],
            ...[r.created_at, r.updated_at, r.fx_realized ?? null, r.fx_unrealized ?? null],
          ],
        );
        return;
      }
      case 'secret': {
        const value = Buffer.from(r.value, 'base64');
        await sql.run(`DELETE FROM ledger_secrets WHERE ${scope.of('ledger_secrets')}name = ?`, [
          r.name,
        ]);
        return this.insert('ledger_secrets', COLUMNS.secret, [r.name, value]);
      }
      case 'account': {
        const key = this.accountKeys.size + 1;
        this.accountKeys.set(r.id, key);
        if (r.parent_id) this.parents.push([r.id, r.parent_id]);
        const { account_number: number, is_postable: postable, is_active: active } = r;
        const row = [key, r.id, r.external_id, number, r.name, r.account_type, +postable, +active];
        return this.insert('accounts', COLUMNS.account, [
          ...row,
          r.currency,
          r.created_at,
          r.updated_at,
          r.monetary === undefined ? null : +r.monetary,
          r.cash_flow ?? null,
        ]);
      }
      case 'counterparty':
        return this.insert('counterparties', COLUMNS.counterparty, [
          ...[r.id, r.counterparty_type, r.external_id, r.name, +r.is_active],
          ...[r.created_at, r.updated_at],
        ]);
      case 'exchange_rate':
        return this.insert('exchange_rates', COLUMNS.exchange_rate, [r.currency, r.date, r.rate]);
      case 'entry':
        return this.entry(r);
      case 'idempotency_key':
        return this.insert('idempotency_keys', COLUMNS.idempotency_key, [
          ...[r.key, r.request_hash, r.journal_entry_id, r.created_at_ms],
        ]);
      case 'api_key': {
        const holder = await this.target.keyHolder(r.id);
        // The id is part of the key a client holds, and a key opens one entity: said once all are read.
        if (holder !== null)
          return void this.keysTaken.push(`${r.id}${r.name ? ` (${r.name})` : ''} of '${holder}'`);
        const permissions = JSON.stringify(r.permissions);
        return this.insert('api_keys', COLUMNS.api_key, [
          ...[r.id, r.name, r.key_hash, permissions, r.created_at, r.revoked_at],
        ]);
      }
      case 'audit_event': {
        const { type: _type, ...event } = r;
        this.anyEvents = true;
        this.events.push(event);
        if (this.events.length >= 1000) await this.flushEvents();
        return;
      }
      default:
        this.recon.add(r);
    }
  }

  private async flushEvents(): Promise<void> {
    await this.trail.insert(this.events);
    this.events = [];
  }

  private async entry(r: DumpEntry): Promise<void> {
    const lead = this.s.scope.row([]);
    const seq = this.entrySeqs.size + 1;
    this.entrySeqs.set(r.id, seq);
    const original = r.original_id === null ? null : this.entrySeqs.get(r.original_id);
    this.entries.push(...lead, seq, r.id, r.je_number, r.je_seq, r.je_seq_uncounted);
    this.entries.push(r.entry_date, r.currency, r.memo, r.source, r.status, +r.is_adjusting);
    this.entries.push(r.manual_entry_reason, r.total_atoms, r.lines.length, original);
    this.entries.push(r.fingerprint, r.created_at, r.updated_at, tagsText(r.tags));
    r.lines.forEach((l, i) => {
      const key = this.accountKeys.get(l.account_id);
      this.lines.push(...lead, seq, i + 1, key, l.line_type, l.amount_atoms, l.memo);
      this.lines.push(l.counterparty_id, r.entry_date);
      this.lines.push(l.fx?.currency ?? null, l.fx?.amount_atoms ?? null, l.fx?.rate ?? null);
      this.lines.push(l.system ?? null, tagsText(l.tags));
    });
    if (this.lines.length >= this.target.rows.perStatement * this.lineColumns.length)
      await this.flush();
  }

  private async flush(): Promise<void> {
    await this.flushRows('journal_entries', this.entryColumns, this.entries);
    await this.flushRows('journal_lines', this.lineColumns, this.lines);
    [this.entries, this.lines] = [[], []];
  }

  /** Rows in statements of at most the store's rows a statement. */
  private async flushRows(table: string, columns: string[], values: unknown[]): Promise<void> {
    const step = this.target.rows.perStatement * columns.length;
    for (let at = 0; at < values.length; at += step) {
      const part = values.slice(at, at + step);
      await this.target.rows.insert(table, columns, part, part.length / columns.length);
    }
  }

  /** Parents, now that every account is in; derived data, from the lines; reconciliation. */
  async finish(): Promise<void> {
    if (this.keysTaken.length) {
      const message =
        `the ledger's API keys ${this.keysTaken.join(', ')} are keys of another entity already: ` +
        "a key opens one entity, so a ledger's keys are copied once; nothing was copied";
      throw new BooksError('invalid_input', message, [
        { path: 'api_keys', reason: 'key_taken', message },
      ]);
    }
    await this.flush();
    const { sql, scope } = this.s;
    for (const [id, parent] of this.parents) {
      const key = this.accountKeys.get(parent);
      if (key === undefined)
        throw new BooksError(
          'invalid_input',
          `account ${id} of the dump names parent ${parent}, not in it`,
        );
      await sql.run(`UPDATE accounts SET parent_key = ? WHERE ${scope.of('accounts')}id = ?`, [
        key,
        id,
      ]);
    }
    await this.target.derive(this.s);
    await this.recon.finish(
      (id) => this.accountKeys.get(id)!,
      (id) => this.entrySeqs.get(id)!,
    );
    await this.finishTrail();
  }

  /**
   * The dump's trail must verify against the entries restored (else the dump is refused); a dump
   * written before the trail starts one that records its entries. A `ledger.migrated` event follows.
   */
  private async finishTrail(): Promise<void> {
    const who = whoNow();
    await this.flushEvents();
    if (!this.anyEvents) {
      const head = await this.trail.head();
      await this.trail.insert(sealed(head, head.at, await this.trail.startOf(who)));
    }
    const verified = await verifiedTrail(this.s);
    if (verified.problems.length) {
      const first = verified.problems[0]!;
      throw new BooksError(
        'invalid_input',
        `the dump's audit trail does not verify: ${first.message}; nothing was restored`,
        verified.problems,
      );
    }
    await this.trail.append([
      {
        who,
        action: 'ledger.migrated',
        objects: [],
        summary: `restored from a dump: ${this.entrySeqs.size} entries, ${verified.events} audit events`,
        entries: 0,
        record: null,
      },
    ]);
  }
}

/** The entity's derived totals (and those by tag), computed again from its lines; how many, over how many lines. */
export async function rewriteTotals({
  sql,
  scope,
}: Session): Promise<{ totals: number; lines: number }> {
  await sql.run(
    `DELETE FROM account_month_totals WHERE ${scope.of('account_month_totals')}TRUE`,
    [],
  );
  const columns = `${scope.entityId === null ? '' : 'entity_id, '}${TOTALS_COLUMNS}`;
  const lead = scope.entityId === null ? '' : '?, ';
  await sql.run(
    `INSERT INTO account_month_totals (${columns})
     SELECT ${lead}account_key, month, net, n, adj_net, adj_n FROM (${monthTotalsFromLines(scope)}) x`,
    scope.row([]),
  );
  await rewriteTagTotals({ sql, scope });
  const [done] = await sql.all<{ totals: number; lines: number | bigint }>(
    `SELECT COUNT(*) AS totals, COALESCE(SUM(line_count), 0) AS lines FROM account_month_totals t
     WHERE ${scope.of('t')}TRUE`,
    [],
  );
  return { totals: Number(done!.totals), lines: Number(done!.lines) };
}
