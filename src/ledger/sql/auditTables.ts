import type { AuditFilter, Trail } from '../audit/trail.js';
import { storedRecords } from './auditRecords.js';
import type { Problem } from '../../domain/errors.js';
import {
  EntriesDigest,
  GENESIS,
  pagedEvents,
  sealed,
  verifyTrail,
  type Anchor,
  type AuditEvent,
  type EventDraft,
  type Verified,
  type Who,
} from '../../domain/audit.js';
import type { RunWrite } from '../journal/entryRows.js';
import type { HeldEvents } from './heldEvents.js';
import type { Column, Scope, Session, Sql } from './dialect.js';

/** An event's row, in AUDIT_COLUMNS' order. */
export const eventRow = (e: AuditEvent): unknown[] => [
  e.seq,
  e.at,
  e.actor,
  e.via,
  e.action,
  JSON.stringify(e.objects),
  e.summary,
  e.entries,
  e.record,
  e.amended === null ? null : JSON.stringify(e.amended),
  e.hash,
];

/** The columns of an audit event's row, in order. */
export const AUDIT_COLUMNS: Column[] = [
  { name: 'seq', type: 'int8' },
  ...['at', 'actor', 'via', 'action', 'objects', 'summary'].map((name) => ({
    name,
    type: 'text' as const,
  })),
  { name: 'entries', type: 'int8' },
  ...['record', 'amended', 'hash'].map((name) => ({ name, type: 'text' as const })),
];

/** The insert of one event, in a file (no entity column) and in a database. */
export const insertOne = (scope: Scope): string => {
  const columns = scope.columns(AUDIT_COLUMNS);
  return `INSERT INTO audit_events (${columns.map((c) => c.name).join(', ')})
    VALUES (${columns.map(() => '?').join(', ')})`;
};
const INSERT_ONE = { file: '', database: '' };

type Row = Omit<AuditEvent, 'objects' | 'amended'> & { objects: string; amended: string | null };

/** JSON text as stored, or undefined where it is none (a row changed outside books). */
function parsed(text: unknown): unknown {
  try {
    return JSON.parse(String(text));
  } catch {
    return undefined;
  }
}

/** An event as read; a row whose JSON columns cannot be read is marked, for verify to name. */
function eventOf(r: Row): AuditEvent {
  const objects = parsed(r.objects);
  const amended = r.amended === null ? null : parsed(r.amended);
  const readable =
    Array.isArray(objects) &&
    (amended === null ||
      (typeof amended === 'object' &&
        amended !== null &&
        Object.values(amended).every((a) => typeof a === 'object' && a !== null)));
  return {
    seq: Number(r.seq),
    at: r.at,
    actor: r.actor,
    via: r.via,
    action: r.action,
    objects: Array.isArray(objects) ? (objects as string[]) : [],
    summary: r.summary,
    entries: Number(r.entries),
    record: r.record,
    amended: readable ? (amended as AuditEvent['amended']) : null,
    hash: r.hash,
    ...(readable ? {} : { unreadable: true }),
  };
}

const SELECTED = 'seq, at, actor, via, action, objects, summary, entries, record, amended, hash';

/**
 * The entity's audit events as every store keeps them, on a transaction's connection: the chain's
 * head, appending under the entity's write lock (which makes `seq` gapless), and reading in order.
 * `run`, when given, writes instead of `sql` (an import's writer thread), which then only reads.
 */
export class AuditTables implements Trail {
  /**
   * `epoch`, when given, says which transaction (or savepoint) the writes are in: the head this last
   * wrote is known without reading it while the epoch stays the same (a file's group commit moves it
   * when a transaction begins or a write is undone). Writes through `run` keep theirs for good: `sql`
   * does not see them until commit.
   */
  constructor(
    private readonly sql: Sql,
    private readonly scope: Scope,
    private readonly run?: RunWrite,
    private readonly epoch?: () => number,
    /** Where a ledger file's group commit holds the events its writes seal (HeldEvents). */
    private readonly held?: HeldEvents,
  ) {}

  /** The head as this last wrote it (or a write's facts read it), and in which epoch. */
  private wrote: { seq: number; hash: string; at: string; epoch: number } | null = null;

  private get now(): number {
    return this.epoch?.() ?? 0;
  }

  /** The last event's seq and hash (0 and GENESIS before the first), and the database's time. */
  async head(): Promise<{ seq: number; hash: string; at: string }> {
    const [r] = await this.sql.all<{ seq: number | null; hash: string | null; at: string }>(
      `SELECT h.seq, h.hash, ${this.scope.clock} AS at FROM (SELECT 1 AS one) x LEFT JOIN (
         SELECT seq, hash FROM audit_events a WHERE ${this.scope.of('a')}TRUE ORDER BY seq DESC LIMIT 1
       ) h ON TRUE`,
      [],
    );
    return { seq: Number(r!.seq ?? 0), hash: r!.hash ?? GENESIS, at: r!.at };
  }

  /** The head to append after: as this wrote it in this epoch, else read. */
  private async appendHead(): Promise<{ seq: number; hash: string; at: string }> {
    const known = this.wrote;
    const kept = known && (this.run !== undefined || (this.epoch && known.epoch === this.now));
    if (!kept) return this.head();
    // A file's clock is the process's: the time of a kept head is taken here; a database's is the
    // time its facts were read, under the lock.
    return { ...known, at: this.scope.entityId === null ? new Date().toISOString() : known.at };
  }

  /** Appends events after the head, in order; the caller holds the entity's write lock. */
  async append(drafts: EventDraft[]): Promise<AuditEvent[]> {
    const events = await this.seal(drafts);
    await this.insert(events);
    return events;
  }

  /**
   * Numbers and hashes events after the head, for the caller to insert in this transaction (a
   * group's, with its rows): the head moves past them.
   */
  async seal(drafts: EventDraft[]): Promise<AuditEvent[]> {
    if (drafts.length === 0) return [];
    const head = await this.appendHead();
    const events = sealed(head, head.at, drafts);
    const last = events[events.length - 1]!;
    this.wrote = { seq: last.seq, hash: last.hash, at: head.at, epoch: this.now };
    return events;
  }

  /** The head as a write's facts read it, under the lock, in this transaction. */
  seed(head: { seq: number; hash: string; at: string }): void {
    this.wrote = { ...head, epoch: this.now };
  }

  /** Whether the trail is known started (events are never deleted: it stays so). */
  private started = false;

  /**
   * Starts the trail of a ledger file whose entries predate it (written by an older books): a
   * `trail.started` event records them, so that from then on each entry is in an event. A write
   * calls it before it writes, under the lock. A database's entities are started by the schema's
   * upgrade (pg/schema.ts, with `upgrade`), and a restore starts its own.
   */
  async start(who: Who, upgrade = false): Promise<void> {
    // Events held for this transaction's end follow the start (this transaction's, at least).
    if (this.started || this.held?.any || (this.scope.entityId !== null && !upgrade)) return;
    const head = await this.head();
    if (head.seq === 0) await this.insert(sealed(head, head.at, await this.startOf(who)));
    // Known for good only once read back: the write that started it may yet be undone.
    this.started = head.seq > 0;
  }

  /** The `trail.started` event of a ledger with entries and no events yet, or nothing. */
  async startOf(who: Who): Promise<EventDraft[]> {
    const [n] = await this.sql.all<{ n: number }>(
      `SELECT COUNT(*) AS n FROM journal_entries e WHERE ${this.scope.of('e')}TRUE`,
      [],
    );
    if (Number(n!.n) === 0) return [];
    const digest = new EntriesDigest();
    let first = '';
    let last = '';
    for await (const r of storedRecords({ sql: this.sql, scope: this.scope })) {
      digest.add(r, r.lines);
      first ||= r.je_number;
      last = r.je_number;
    }
    return [startDraft(who, digest, first, last)];
  }

  /** Inserts sealed events (a restore's, as the dump carries them). */
  async insert(events: AuditEvent[]): Promise<void> {
    if (events.length === 0) return;
    const rows = events.map((e) => this.scope.row(eventRow(e)));
    const columns = this.scope.columns(AUDIT_COLUMNS);
    // A write's one event (nearly always) goes in by one statement, prepared once.
    const kind = this.scope.entityId === null ? 'file' : 'database';
    const one = (INSERT_ONE[kind] ||= insertOne(this.scope));
    if (this.held) this.held.hold(rows);
    else if (this.run) for (const row of rows) await this.run(one, row);
    else if (rows.length > 1) await this.sql.insert('audit_events', columns, rows);
    else await this.sql.run(one, rows[0]!);
    const last = events[events.length - 1]!;
    this.wrote = { seq: last.seq, hash: last.hash, at: last.at, epoch: this.now };
  }

  /** Events in seq order after `after`, at most `limit`, as a filter keeps them. */
  async page(filter: AuditFilter, after: number, limit: number): Promise<AuditEvent[]> {
    const where = [`${this.scope.of('a')}a.seq > ?`];
    const params: unknown[] = [after];
    if (filter.since) {
      where.push('a.at >= ?');
      params.push(filter.since);
    }
    if (filter.until) {
      // A date takes its whole day.
      where.push('a.at < ?');
      params.push(/^\d{4}-\d{2}-\d{2}$/.test(filter.until) ? `${filter.until}T99` : filter.until);
    }
    if (filter.actor) {
      where.push('a.actor = ?');
      params.push(filter.actor);
    }
    if (filter.action) {
      where.push('a.action = ?');
      params.push(filter.action);
    }
    if (filter.object) {
      // One element of the JSON array, whole: first, between two others, or last.
      const one = JSON.stringify(filter.object);
      const c = this.scope.contains('a.objects');
      where.push(`(${c} > 0 OR ${c} > 0 OR ${c} > 0 OR ${c} > 0)`);
      params.push(`[${one}]`, `[${one},`, `,${one},`, `,${one}]`);
    }
    const rows = await this.sql.all<Row>(
      `SELECT ${SELECTED} FROM audit_events a WHERE ${where.join(' AND ')} ORDER BY a.seq LIMIT ${limit}`,
      params,
    );
    return rows.map(eventOf);
  }

  /** Every event in seq order, a page at a time. */
  events(filter: AuditFilter = {}): AsyncGenerator<AuditEvent> {
    return pagedEvents((after) => this.page(filter, after, 1000), 1000);
  }

  /** The chain recomputed over this transaction's reading (domain/audit.ts verifyTrail). */
  verified(anchor?: Anchor): Promise<Verified> {
    return verifiedTrail({ sql: this.sql, scope: this.scope }, anchor);
  }

  /** The event that wrote an entry (by its position in storage order), for `je show`. */
  async writerOf(entrySeq: number): Promise<AuditEvent | null> {
    const rows = await this.sql.all<Row & { upto: number }>(
      `SELECT ${SELECTED} FROM (
         SELECT a.*, SUM(a.entries) OVER (ORDER BY a.seq) AS upto FROM audit_events a
         WHERE ${this.scope.of('a')}a.entries > 0
       ) x WHERE x.upto >= (SELECT COUNT(*) FROM journal_entries e WHERE ${this.scope.of('e')}e.seq <= ?)
       ORDER BY x.seq LIMIT 1`,
      [entrySeq],
    );
    const r = rows[0];
    return r ? eventOf(r) : null;
  }
}

/** The trail recomputed over the session's reading (domain/audit.ts verifyTrail). */
export function verifiedTrail(s: Session, anchor?: Anchor): Promise<Verified> {
  return verifyTrail(new AuditTables(s.sql, s.scope).events(), storedRecords(s), anchor);
}

/**
 * Appends the event of a change that writes no entries (the chart, keys, settings), in the session's
 * write transaction: what the neutral code of every store calls beside its change.
 */
export async function recordChange(
  s: Session,
  who: Who,
  action: string,
  objects: string[],
  summary: string,
): Promise<void> {
  const trail = new AuditTables(s.sql, s.scope);
  await trail.start(who);
  await trail.append([{ who, action, objects, summary, entries: 0, record: null }]);
}

/** The event of a First Month of Books set. */
export const recordBooksStart = async (
  s: Session,
  who: Who,
  was: string | null,
  now: string | null,
) => {
  // The same month again changes nothing, and makes no event.
  if (was === now) return;
  await recordChange(
    s,
    who,
    'books_start.set',
    [],
    `First Month of Books ${was ?? 'unset'} → ${now ?? 'unset'}`,
  );
};

/** The event of a lock date moved (a close, or a reopening). */
export const recordLockDate = async (s: Session, who: Who, was: string | null, now: string) => {
  if (was === now) return;
  await recordChange(
    s,
    who,
    'lock_date.set',
    [],
    `lock date ${was ?? 'none'} → ${now}${was !== null && now < was ? ' (reopened)' : ''}`,
  );
};

/** The `trail.started` event of a ledger's entries written before its trail, digested. */
export const startDraft = (
  who: Who,
  digest: EntriesDigest,
  first: string,
  last: string,
): EventDraft => ({
  who,
  action: 'trail.started',
  objects: [first, last],
  summary: `the audit trail starts; it records the ${digest.count} entries written before it (${first}…${last})`,
  entries: digest.count,
  record: digest.hex(),
});

/** The trail's guard (the triggers that refuse UPDATE and DELETE) is missing or turned off. */
export async function guardProblems({ sql, scope }: Session): Promise<Problem[]> {
  const [r] = await sql.all<{ n: number }>(
    scope.entityId === null
      ? `SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'trigger'
           AND name IN ('audit_events_kept_on_update', 'audit_events_kept_on_delete')`
      : `SELECT 2 * COUNT(*) AS n FROM pg_trigger WHERE tgname = 'audit_events_kept'
           AND tgrelid = 'audit_events'::regclass AND tgenabled <> 'D'`,
    [],
  );
  if (Number(r!.n) === 2) return [];
  const message =
    "the audit trail's guard (the triggers that refuse changing or deleting an event) was dropped or " +
    'turned off outside books';
  return [{ path: 'audit_events', reason: 'audit_guard_missing', message }];
}
