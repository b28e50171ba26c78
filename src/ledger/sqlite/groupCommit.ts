import type Database from 'better-sqlite3';
import { errors } from '../../domain/errors.js';
import type { GroupTotals } from '../journal/groupTotals.js';
import { BUSY_TIMEOUT_MS, storageError } from './connection.js';

interface Waiting {
  op: () => unknown;
  /** Writes entries and reads no totals: their totals may wait for the group's end (GroupTotals). */
  entries: boolean;
  resolve: (value: never) => void;
  reject: (e: unknown) => void;
}

/** First and longest pause between attempts to take the write lock while another process holds it. */
const RETRY_FIRST_MS = 2;
const RETRY_MAX_MS = 50;

type Outcome = { ok: unknown } | { error: unknown };

/** What a group's writes leave to be written together, between their savepoints (HeldEvents). */
interface Held {
  write(): void;
  begin(): void;
  ended(held: boolean): void;
  drop(): void;
}

/**
 * Writes that arrive together (requested in the same turn of the event loop: concurrent requests to
 * books serve) share one transaction, each in a savepoint of its own, and are answered only after
 * the one COMMIT. A commit costs more than a small entry's inserts (it appends every page the entry
 * touched to the WAL), so sharing it doubles the posting rate under load. A write that fails rolls
 * back its savepoint alone; a transaction that cannot begin or commit, or that SQLite rolls back on
 * its own (a full disk, an I/O error), fails every write in it, and none of them is in the ledger.
 *
 * While another process holds the write lock (a long import), the lock is asked for again on a
 * timer instead of in SQLite's busy handler, which would stop the event loop: a server keeps
 * answering reads meanwhile. After the connection's busy timeout the waiting writes fail as
 * unavailable (exit 4, HTTP 503).
 */
export class GroupCommit {
  private waiting: Waiting[] = [];
  private scheduled = false;
  /** A group's transaction is open (its writes may await; no other group may begin meanwhile). */
  private flushing = false;
  private waitingSince = 0;
  private pause = RETRY_FIRST_MS;
  /**
   * The connection's busy timeout: how long writes may wait for the lock in all. Read once, at the
   * first group: only begin() changes it, and puts it back.
   */
  private timeout: number | null = null;
  private readonly statements = new Map<string, Database.Statement>();
  /** The totals entry writes leave to the group. */
  private totals: GroupTotals | null = null;
  /** What the group's writes leave to be written together: the totals, the audit events. */
  private readonly held: Held[] = [];
  /** The write running in the group's transaction. */
  private current: Waiting | null = null;

  constructor(
    private readonly db: Database.Database,
    private readonly location: string,
    /** Checked before each transaction: an error when the ledger must not be written now. */
    private readonly guard: () => Error | null = () => null,
    /** What the connection keeps between requests: told of the lock taken and of changes. */
    private readonly kept: {
      locked(): void;
      released(): void;
      changed(): void;
      changes(): string;
    },
  ) {}

  run<T>(op: () => T | Promise<T>, entries = false): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ op, entries, resolve: resolve as (value: never) => void, reject });
      this.schedule(0);
    });
  }

  /** Sums the totals of the group's entry writes in `totals`, written by `write` once per group. */
  deferTotals(totals: GroupTotals, write: () => void): void {
    this.totals = totals;
    this.held.push({
      write,
      begin: () => {},
      ended: (held) => totals.ended(held),
      drop: () => totals.drop(),
    });
  }

  /** What the group's writes hold to write together (their audit events), written as totals are. */
  hold(held: Held): void {
    this.held.push(held);
  }

  private writeHeld(): void {
    for (const h of this.held) h.write();
  }

  private dropHeld(): void {
    for (const h of this.held) h.drop();
  }

  /** The group's sums, when the running write may leave its entries' totals to them. */
  get groupTotals(): GroupTotals | null {
    return this.current?.entries ? this.totals : null;
  }

  private schedule(ms: number): void {
    if (this.scheduled) return;
    this.scheduled = true;
    const go = () => {
      this.scheduled = false;
      if (this.flushing) return this.schedule(RETRY_FIRST_MS);
      this.flushing = true;
      void this.flush().finally(() => (this.flushing = false));
    };
    if (ms === 0) setImmediate(go);
    else setTimeout(go, ms);
  }

  private async flush(): Promise<void> {
    if (this.waiting.length === 0) return;
    const refused = this.guard();
    const locked = refused ?? this.begin();
    if (locked !== true) return this.notBegun(locked);
    this.waitingSince = 0;
    this.pause = RETRY_FIRST_MS;
    const group = this.waiting;
    this.waiting = [];
    const results: Outcome[] = [];
    try {
      for (const w of group) {
        if (!w.entries) this.writeHeld();
        this.current = w;
        // A write other than a post may change what the connection keeps (the entity's settings):
        // it and the writes after it read them anew.
        if (!w.entries) this.kept.changed();
        // A savepoint even for a lone write: one that fails half-way (a full disk) must leave nothing behind.
        results.push(await this.inSavepoint(w.op));
        if (!w.entries) this.kept.changed();
        this.current = null;
        if (!this.db.inTransaction) {
          this.committed = null;
          this.dropHeld();
          this.kept.changed();
          return this.lost(group, results[results.length - 1]!);
        }
      }
      this.writeHeld();
      this.sql('COMMIT').run();
      this.committed = this.kept.changes();
    } catch (e) {
      this.committed = null;
      this.current = null;
      this.dropHeld();
      this.kept.changed();
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      for (const w of group) w.reject(storageError(e, this.location));
      return;
    } finally {
      this.kept.released();
    }
    // Past the commit: nothing it does can fail a write already committed.
    this.afterCommit?.();
    group.forEach((w, i) => {
      const r = results[i]!;
      if ('ok' in r) w.resolve(r.ok as never);
      else w.reject(storageError(r.error, this.location));
    });
  }

  /** The lock could not be taken: wait and ask again while it is only busy, else fail the waiting writes. */
  private notBegun(locked: 'busy' | unknown): void {
    const now = Date.now();
    this.waitingSince ||= now;
    if (locked === 'busy' && now - this.waitingSince < (this.timeout ?? BUSY_TIMEOUT_MS)) {
      this.schedule(this.pause);
      this.pause = Math.min(this.pause * 2, RETRY_MAX_MS);
      return;
    }
    const group = this.waiting;
    this.waiting = [];
    this.waitingSince = 0;
    const e = locked === 'busy' ? errors.locked() : storageError(locked, this.location);
    for (const w of group) w.reject(e);
  }

  /**
   * SQLite rolled the whole transaction back on its own: every write of the group is lost, including
   * those whose savepoints were already released into it. Each is answered as unavailable, to retry;
   * the writes after the failing one are not attempted outside a transaction.
   */
  private lost(group: Waiting[], last: Outcome): void {
    const cause = 'error' in last ? storageError(last.error, this.location) : null;
    const message =
      cause instanceof Error && cause.message
        ? cause.message
        : `the transaction on ${this.location} was rolled back; nothing of this request was written`;
    for (const w of group) w.reject(errors.unavailable(message));
  }

  /** Takes the write lock without waiting for it: true, 'busy', or the error that stopped it. */
  private begin(): true | 'busy' | unknown {
    this.timeout ??= this.sql('PRAGMA busy_timeout').pluck().get() as number;
    this.sql('PRAGMA busy_timeout = 0').run();
    try {
      this.sql('BEGIN IMMEDIATE').run();
      this.kept.locked();
      if (this.kept.changes() !== this.committed) this.epoch++;
      return true;
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' ? 'busy' : e;
    } finally {
      this.sql(`PRAGMA busy_timeout = ${this.timeout}`).run();
    }
  }

  /**
   * Moves when a write is undone, and when a transaction begins after anything but this connection's
   * committed groups wrote the ledger: what a write learnt of the ledger in an epoch (the audit
   * trail's head) holds while it stays the same. A server posting alone reads the head once.
   */
  epoch = 0;
  /** Told after each group commits (a server's checkpoints on their own thread: Checkpointer). */
  afterCommit: (() => void) | undefined;
  /** The connection's changes (Db.changes) as this connection's last group committed them. */
  private committed: string | null = null;

  private async inSavepoint(op: () => unknown): Promise<Outcome> {
    this.sql('SAVEPOINT grouped').run();
    for (const h of this.held) h.begin();
    const r = await attempt(op);
    // SQLite may have rolled the transaction back already (then the savepoint is gone with it).
    if (!this.db.inTransaction) return r;
    if ('error' in r) {
      this.epoch++;
      this.sql('ROLLBACK TO grouped').run();
    }
    this.sql('RELEASE grouped').run();
    for (const h of this.held) h.ended(!('error' in r));
    // A write undone leaves the next to read the trail's head: it finds every event held before.
    if ('error' in r) this.writeHeld();
    return r;
  }

  /** The few statements of every group, prepared once: compiling them cost more than running them. */
  private sql(text: string): Database.Statement {
    let s = this.statements.get(text);
    if (!s) this.statements.set(text, (s = this.db.prepare(text)));
    return s;
  }
}

async function attempt(op: () => unknown): Promise<Outcome> {
  try {
    return { ok: await op() };
  } catch (error) {
    return { error };
  }
}
