import { auditEventShaped, type AuditEvent } from './audit.js';
import {
  ACCOUNT_TYPES,
  CASH_FLOW_KINDS,
  COUNTERPARTY_TYPES,
  type CashFlowKind,
} from './accounts.js';
import { entityProblems } from './check.js';
import { isIsoDate } from './dates.js';
import { BooksError } from './errors.js';
import { isPermission, type Permission } from './keys.js';
import { isPeriodId } from './budget.js';
import { isFxSnapshot, parseRate } from './fx.js';
import { readTags } from './tags.js';
import { checkTemplate } from './recurring.js';
import { isLayout } from './statementLayout.js';

/**
 * One entity's whole ledger as a stream of records, in the same words on every store: what
 * `dump()` writes and `restore()` reads, the basis of moving a ledger from one store to another.
 * Everything `books check` verifies travels (ids, JE numbers and how numbering counts them,
 * fingerprints, idempotency keys, API keys' hashes, the lock date); derived data (monthly totals,
 * indexes) does not: the restoring store computes it from the lines. Records come in the order
 * below; an entry follows every account, counterparty and entry it names.
 */
export type DumpRecord =
  | { type: 'ledger'; format: 1 }
  | {
      type: 'entity';
      id: string;
      name: string;
      currency: string;
      books_start: string | null;
      fiscal_year_start_month: number;
      lock_date: string | null;
      created_at: string;
      updated_at: string;
      /** The exchange gain/loss accounts' external ids, when set (docs/currency.md). */
      fx_realized?: string;
      fx_unrealized?: string;
    }
  | { type: 'secret'; name: string; value: string }
  | {
      type: 'account';
      id: string;
      external_id: string;
      account_number: string | null;
      name: string;
      account_type: string;
      parent_id: string | null;
      is_postable: boolean;
      is_active: boolean;
      currency: string | null;
      /** Set by the chart (absent: as the account's type says). */
      monetary?: boolean;
      /** Set by the chart (absent: as the account's type says). */
      cash_flow?: CashFlowKind;
      created_at: string;
      updated_at: string;
    }
  | {
      type: 'counterparty';
      id: string;
      counterparty_type: string;
      external_id: string;
      name: string;
      is_active: boolean;
      created_at: string;
      updated_at: string;
    }
  | { type: 'exchange_rate'; currency: string; date: string; rate: string }
  | DumpEntry
  | {
      type: 'idempotency_key';
      key: string;
      request_hash: string;
      journal_entry_id: string;
      created_at_ms: number;
    }
  | {
      type: 'api_key';
      id: string;
      name: string | null;
      key_hash: string;
      permissions: Permission[];
      created_at: string;
      revoked_at: string | null;
    }
  | ReconRecord
  | PlanRecord
  | ({ type: 'audit_event' } & AuditEvent)
  | { type: 'end'; counts: DumpCounts };

import {
  noCounts,
  type DumpCounts,
  type DumpEntry,
  type PlanRecord,
  type ReconRecord,
} from './dumpRecords.js';
export type { DumpCounts, DumpEntry, PlanRecord, ReconRecord } from './dumpRecords.js';
export { noCounts } from './dumpRecords.js';

export const DUMP_ORDER = [
  'ledger',
  'entity',
  'secret',
  'account',
  'counterparty',
  'exchange_rate',
  'entry',
  'idempotency_key',
  'api_key',
  'reconciliation',
  'statement_closing',
  'statement_source',
  'statement_line',
  'cleared_line',
  'budget',
  'recurring_template',
  'audit_event',
  'end',
] as const;

/**
 * Reads a dump's records as they come, checking each one's shape and place: the kinds in their
 * order, accounts and counterparties before the entries that name them, each entry after the one it
 * reverses, and the counts of the last record equal to what came. A record that is not so is
 * refused (invalid_input) naming its number; nothing is restored from a dump that fails.
 */
export class DumpReader {
  private at = 0;
  private place = 0;
  private readonly accounts = new Set<string>();
  private readonly counterparties = new Set<string>();
  private readonly entries = new Set<string>();
  private readonly counts = noCounts();
  /** What cleared lines may name: the dump's entries' line counts, statement lines, reconciliations. */
  private readonly lineCounts = new Map<string, number>();
  private readonly statementLines = new Set<string>();
  private readonly reconciliations = new Set<string>();
  private ended = false;

  /** The record, checked; throws naming it when it is not one of a dump, or not in its place. */
  read(record: unknown): DumpRecord {
    this.at++;
    const r = record as DumpRecord;
    const type = (record as { type?: unknown } | null)?.type;
    const kind = (DUMP_ORDER as readonly unknown[]).indexOf(type);
    if (kind < 0) this.refuse(`is not a record of a ledger's dump`);
    if (this.ended) this.refuse('comes after the end of the dump');
    if (kind < this.place)
      this.refuse(`a ${r.type} record comes after the ${DUMP_ORDER[this.place]} records`);
    if (this.at === 1 && r.type !== 'ledger') this.refuse('a dump starts with its ledger record');
    this.place = kind;
    this.check(r);
    return r;
  }

  /** Throws unless the dump ended with its end record and every count it gives. */
  finish(): void {
    if (!this.ended)
      this.refuse('the dump ends before its end record: it was cut off', this.at + 1);
  }

  private check(r: DumpRecord): void {
    const text = (v: unknown) => typeof v === 'string';
    const ok = (cond: boolean, what: string) => cond || this.refuse(what);
    switch (r.type) {
      case 'ledger':
        ok(r.format === 1, `format ${String(r.format)} is not one this books reads`);
        break;
      case 'entity':
        ok(
          text(r.id) && text(r.name) && text(r.currency),
          'the entity lacks its id, name or currency',
        );
        for (const p of entityProblems(r)) this.refuse(p.message);
        break;
      case 'secret':
        ok(text(r.name) && text(r.value), 'a secret lacks its name or value');
        break;
      case 'account':
        ok(
          text(r.id) && text(r.external_id) && r.account_type in ACCOUNT_TYPES,
          'an account is malformed',
        );
        ok(
          r.parent_id === null || this.accounts.has(r.parent_id) || text(r.parent_id),
          'bad parent',
        );
        ok(r.cash_flow === undefined || CASH_FLOW_KINDS.includes(r.cash_flow), 'bad cash_flow');
        this.accounts.add(r.id);
        this.counts.accounts++;
        break;
      case 'counterparty':
        ok(
          text(r.id) && (COUNTERPARTY_TYPES as readonly string[]).includes(r.counterparty_type),
          'a counterparty is malformed',
        );
        this.counterparties.add(r.id);
        this.counts.counterparties++;
        break;
      case 'exchange_rate':
        ok(
          /^[A-Z]{3}$/.test(r.currency) && isIsoDate(r.date) && parseRate(r.rate).ok,
          'a rate is malformed',
        );
        this.counts.exchange_rates!++;
        break;
      case 'entry':
        this.entry(r, ok);
        break;
      case 'idempotency_key':
        ok(text(r.key) && this.entries.has(r.journal_entry_id), 'a key names no entry of the dump');
        this.counts.idempotency_keys++;
        break;
      case 'api_key':
        ok(
          text(r.id) && text(r.key_hash) && r.permissions.every(isPermission),
          'a key is malformed',
        );
        this.counts.api_keys++;
        break;
      case 'end':
        for (const [k, v] of Object.entries(this.counts)) {
          const said = r.counts[k as keyof DumpCounts] ?? 0;
          ok(said === v, `the dump says ${k} ${said}, and holds ${v}`);
        }
        this.ended = true;
        break;
      case 'budget':
      case 'recurring_template':
      case 'audit_event':
        this.closing(r, ok);
        break;
      default:
        this.recon(r, ok);
    }
  }

  /** The records after the books and reconciliation: the plans, the audit trail. */
  private closing(
    r: PlanRecord | ({ type: 'audit_event' } & AuditEvent),
    ok: (cond: boolean, what: string) => void,
  ): void {
    switch (r.type) {
      case 'budget':
        ok(this.accounts.has(r.account_id), `names account ${r.account_id}, not in the dump`);
        ok(isPeriodId(r.period), `a budget's period ${String(r.period)} is not a report period`);
        ok(Number.isSafeInteger(r.amount_atoms), 'an amount is not whole atoms');
        this.counts.budgets!++;
        break;
      case 'recurring_template':
        ok(
          'template' in checkTemplate(r) && typeof r.created_at === 'string',
          'a recurring entry is malformed',
        );
        this.counts.recurring_templates!++;
        break;
      case 'audit_event':
        ok(auditEventShaped(r), 'an audit event is malformed');
        ok(r.seq === ++this.counts.audit_events!, `audit event ${r.seq} is out of order`);
    }
  }

  private recon(r: ReconRecord, ok: (cond: boolean, what: string) => void): void {
    const account = (id: string) =>
      ok(this.accounts.has(id), `names account ${id}, not in the dump`);
    const atoms = (v: unknown) => ok(Number.isSafeInteger(v), 'an amount is not whole atoms');
    const named = (id: string | null, set: Set<string>, what: string) =>
      ok(id === null || set.has(id), `names ${what} ${id}, not before it`);
    account(r.account_id);
    switch (r.type) {
      case 'reconciliation':
        ok(text(r.id) && isIsoDate(r.statement_date), 'a reconciliation is malformed');
        atoms(r.statement_balance_atoms);
        this.reconciliations.add(r.id);
        this.counts.reconciliations!++;
        break;
      case 'statement_closing':
        ok(isIsoDate(r.date), 'a closing balance lacks its date');
        atoms(r.balance_atoms);
        break;
      case 'statement_source':
        ok(r.layout === null || isLayout(r.layout), 'a statement layout is malformed');
        ok(r.acctid === null || text(r.acctid), "a statement's bank account is malformed");
        break;
      case 'statement_line':
        ok(text(r.id) && text(r.identity) && isIsoDate(r.date), 'a statement line is malformed');
        ok(
          ['unmatched', 'matched', 'ignored'].includes(r.state),
          'a statement line state is unknown',
        );
        atoms(r.amount_atoms);
        named(r.reconciliation_id, this.reconciliations, 'reconciliation');
        this.statementLines.add(r.id);
        this.counts.statement_lines!++;
        break;
      case 'cleared_line': {
        const lines = this.lineCounts.get(r.entry_id) ?? 0;
        ok(r.line_no >= 1 && r.line_no <= lines, `names a line of ${r.entry_id} not in the dump`);
        ok(isIsoDate(r.entry_date) && isIsoDate(r.cleared_date), 'a cleared line lacks its dates');
        atoms(r.net_atoms);
        named(r.statement_line_id, this.statementLines, 'statement line');
        named(r.reconciliation_id, this.reconciliations, 'reconciliation');
        this.counts.cleared_lines!++;
      }
    }
  }

  private entry(r: DumpEntry, ok: (cond: boolean, what: string) => void): void {
    ok(
      text(r.id) && text(r.je_number) && isIsoDate(r.entry_date),
      'an entry lacks its id, number or date',
    );
    ok(
      r.original_id === null || this.entries.has(r.original_id),
      'an entry reverses one not before it',
    );
    ok(Array.isArray(r.lines) && r.lines.length >= 2, 'an entry has fewer than two lines');
    const tagsOk = (t: unknown) => t === undefined || readTags(t, 'tags', []) !== null;
    ok(tagsOk(r.tags), 'an entry has bad tags');
    for (const l of r.lines) {
      ok(tagsOk(l.tags), 'a line has bad tags');
      ok(this.accounts.has(l.account_id), `a line names account ${l.account_id}, not in the dump`);
      ok(
        l.counterparty_id === null || this.counterparties.has(l.counterparty_id),
        'a line names an unknown counterparty',
      );
      ok(
        Number.isSafeInteger(l.amount_atoms) && l.amount_atoms >= 1,
        'a line amount is not whole atoms',
      );
      ok(l.line_type === 'debit' || l.line_type === 'credit', 'a line is neither debit nor credit');
      ok(l.fx === undefined || isFxSnapshot(l.fx), 'a line has a damaged fx snapshot');
      ok(l.system === undefined || l.system === 'fx_realized', 'a line has an unknown system mark');
    }
    this.entries.add(r.id);
    this.lineCounts.set(r.id, r.lines.length);
    this.counts.entries++;
    this.counts.lines += r.lines.length;
  }

  private refuse(what: string, at = this.at): never {
    const message = `record ${at} of the dump: ${what}`;
    throw new BooksError('invalid_input', message, [
      { path: `records[${at - 1}]`, reason: 'invalid_dump', message },
    ]);
  }
}

const text = (v: unknown): v is string => typeof v === 'string';
