import { accrualWrites } from './accrual.js';
import type { ValidEntry } from '../../domain/entry.js';
import { errors } from '../../domain/errors.js';
import { contextOf, importGates, reversalMemo, wantsOf } from '../../domain/posting.js';
import { JeNumbering, normaliseJeNumber, type NumberedEntry } from '../../domain/jeNumber.js';
import { rebuildRunning, type Processes } from '../../domain/rebuild.js';
import { BatchCheck } from './batchCheck.js';
import { hintsFor } from './journal.js';
import type { BatchResult, ImportBatch, ImportEntry, ImportOptions } from './port.js';
import type {
  BatchWrites,
  EntityState,
  EntryMeta,
  EntrySink,
  Facts,
  ImportStore,
} from './store.js';
import { Recording, recordingSink } from '../audit/recording.js';
import { whoNow } from '../runtime/actor.js';

/**
 * How long the checking of a chunk runs before it lets the event loop turn: a database's rows leave
 * on its socket, and its answers are read, only when the loop turns, so a writer idled while a
 * chunk was checked (a 1M-line import on PostgreSQL spent a tenth of its time so).
 */
const TURN_MS = 1;

/**
 * One all-or-nothing import into a ledger, on any store. The file comes in chunks; each chunk's
 * look-ups (accounts, counterparties, JE numbers, fingerprints) are fetched at once, then every
 * entry is checked by the domain's rules. The write lock is held for writing only: the store's
 * batch transaction is begun when the first entry is ready to be written, and given back at once
 * when an entry turns out invalid (validation goes on, to list every problem, without it). Entries
 * are written as they come while the batch is clean; commit makes the batch visible only when
 * nothing was wrong. A number or fingerprint that another writer takes meanwhile is refused by the
 * store's unique keys, and the import fails whole.
 */
export class ImportSession implements ImportBatch {
  private check = new BatchCheck();
  private writes: BatchWrites | null = null;
  private sink: EntrySink | null = null;
  private numbering: JeNumbering | null = null;
  /** Valid entries waiting for the write lock (at most one chunk of the file). */
  private pending: Pending[] = [];
  private done = false;
  /** Numbers this batch gave automatically that the file then claimed for its own entries (few). */
  private readonly claimed = new Set<string>();
  /** The JE number of each accrual written in this batch, and its reversal's. */
  private readonly reversals = new Map<string, string>();
  /** What accounts unknown to the ledger resemble, for messages, asked once per reference. */
  private readonly hints = new Map<string, string[]>();
  /**
   * The next chunk's look-ups (`add`'s `next`), asked for while this one is checked and written: a
   * database answers them meanwhile. `locked`: asked for while the batch held the lock.
   */
  private ahead: {
    chunk: ImportEntry[];
    lookups: Promise<[Facts, Set<string>]>;
    locked: boolean;
  } | null = null;
  /** When the event loop last turned while entries were checked (TURN_MS). */
  private turned = 0;
  /** The import's one audit event, by whoever began it. */
  private readonly event = new Recording(whoNow());

  private constructor(
    private readonly store: ImportStore,
    private entity: EntityState,
    private readonly options: ImportOptions,
    private readonly processes: Processes,
    private readonly nowMs: () => number,
  ) {}

  /** Starts an import, refused at once when nothing could post (no First Month of Books, a rebuild). */
  static async begin(
    store: ImportStore,
    options: ImportOptions,
    nowMs: () => number,
    processes: Processes,
  ): Promise<ImportSession> {
    const entity = await store.entity();
    importGates(entity, rebuildRunning(entity, nowMs(), processes));
    return new ImportSession(store, entity, options, processes, nowMs);
  }

  async add(chunk: ImportEntry[], next?: ImportEntry[]): Promise<BatchResult[]> {
    const bodies = chunk.map((e) => e.body);
    const ahead = this.ahead;
    this.ahead = null;
    // Read before the lock and used under it, they may be stale: they are read again.
    const usable = ahead?.chunk === chunk && (ahead.locked || this.writes === null);
    const [stored, taken] = await (usable ? ahead.lookups : this.lookups(chunk));
    if (next) {
      const lookups = this.lookups(next);
      lookups.catch(() => {});
      this.ahead = { chunk: next, lookups, locked: this.writes !== null };
    }
    // A number this batch gave automatically is the file's to take (the entry that had it moves on),
    // though a store that reads its own batch's rows finds it taken. (The store's facts may be kept
    // for other writes: they are not changed.)
    const facts = {
      ...stored,
      takenNumbers: { has: (n: string) => !this.automatic(n) && stored.takenNumbers.has(n) },
    };
    let ctx = this.check.context(contextOf(this.entity, facts, (ref) => this.hints.get(ref) ?? []));
    let results: BatchResult[] = [];
    for (const e of chunk) {
      if (performance.now() - this.turned >= TURN_MS) await this.turn();
      results.push(this.one(e, taken.has(e.fingerprint), ctx));
    }
    // Accounts a reference resembles are read only for a message (an error's path): the chunk's
    // refusals are checked again with them.
    if (
      results.some(
        (r) => r.status === 'invalid' && r.problems.some((p) => p.reason === 'unknown_account'),
      )
    ) {
      const wants = wantsOf(bodies);
      for (const [ref, near] of await hintsFor(this.store, facts.accounts, wants.accounts))
        if (this.hints.size < 10_000) this.hints.set(ref, near);
      ctx = this.check.context(contextOf(this.entity, facts, (ref) => this.hints.get(ref) ?? []));
      results = results.map((r, i) =>
        r.status === 'invalid' ? this.one(chunk[i]!, taken.has(chunk[i]!.fingerprint), ctx) : r,
      );
    }
    await this.ready();
    return results;
  }

  /** Lets the event loop turn (see TURN_MS). */
  private async turn(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    this.turned = performance.now();
  }

  /** A chunk's look-ups: the facts its entries need and which of their fingerprints are posted. */
  private lookups(chunk: ImportEntry[]): Promise<[Facts, Set<string>]> {
    return this.store.lookups(
      chunk.map((e) => e.body),
      chunk.map((e) => e.fingerprint),
    );
  }

  /** Checks one entry and, while the batch is clean and not a dry run, writes or queues it. */
  private one(e: ImportEntry, fpTaken: boolean, ctx: ReturnType<typeof contextOf>): BatchResult {
    if (fpTaken && !this.options.allowDuplicates) return { status: 'skipped' };
    const checked = this.check.entry(e.body, e.hasRowProblems, ctx);
    if ('problems' in checked) return { status: 'invalid', problems: checked.problems };
    if (this.check.failed || this.options.dryRun) return { status: 'would_post' };
    // A duplicate posted on purpose (--allow-duplicates) carries no fingerprint: the first one keeps it.
    const meta = {
      source: 'csv_import',
      fingerprint: fpTaken ? null : e.fingerprint,
      originalSeq: null,
    };
    const result = { status: 'posted' as const };
    if (this.sink) this.write(checked.entry, meta);
    else this.pending.push({ body: e.body, entry: checked.entry, meta, result });
    return result;
  }

  /**
   * Numbers and writes an entry. A number the file gives that this import already gave to an earlier
   * entry of its own (without a number) stays the file's: that earlier entry takes the next free
   * number instead, so that the outcome does not depend on where the file's chunks fall.
   */
  private write(entry: ValidEntry, meta: EntryMeta): void {
    const numbering = this.numbering!;
    // Only a number this batch gave: one another writer took meanwhile fails on the unique key.
    if (entry.je_number !== null && this.automatic(entry.je_number))
      this.renumber(entry.je_number, numbering.assign(null, null, true));
    const numbered = numbering.assign(entry.je_number, entry.je_seq, true);
    if (!entry.auto_reverse_on) {
      this.check.written.add(this.sink!.write(entry, numbered, meta).seq);
      return;
    }
    // An accrual and its reversal, written one after the other in the batch, linked.
    const accrual = accrualWrites(entry, meta);
    const posted = this.sink!.write(entry, numbered, accrual.meta);
    const mirror = accrual.reversal(posted);
    const reversal = this.sink!.write(
      mirror.entry,
      numbering.assign(null, null, true),
      mirror.meta,
    );
    this.check.written.add(posted.seq).add(reversal.seq);
    this.reversals.set(posted.je_number, reversal.je_number);
  }

  /** Whether a JE number is one this batch gave automatically and still holds (an entry, a reversal). */
  private automatic(jeNumber: string): boolean {
    const n = normaliseJeNumber(jeNumber);
    return (
      this.numbering !== null &&
      n.ok &&
      n.seq !== null &&
      !this.claimed.has(jeNumber) &&
      this.numbering.gave(n.seq)
    );
  }

  /** Renumbers an earlier entry of the batch; an accrual's reversal names its new number. */
  private renumber(from: string, to: NumberedEntry): void {
    this.sink!.renumber(from, to);
    this.claimed.add(from);
    // The event records the entries as written: it keeps their number and memo from then.
    const amended = (this.event.amended ??= {});
    const was = amended[from] ?? {};
    delete amended[from];
    amended[to.je_number] = { ...was, je_number: was.je_number ?? from };
    this.event.renumbered(from, to.je_number);
    const reversal = this.reversals.get(from);
    if (reversal !== undefined) {
      this.reversals.delete(from);
      this.reversals.set(to.je_number, reversal);
      this.sink!.setMemo(reversal, reversalMemo(to.je_number));
      const its = (amended[reversal] ??= {});
      if (!('memo' in its)) its.memo = reversalMemo(from);
      its.memo_now = reversalMemo(to.je_number);
    }
    for (const [accrual, r] of this.reversals)
      if (r === from) this.reversals.set(accrual, to.je_number);
  }

  /** Takes the write lock for the entries waiting, or gives it back once the batch has failed. */
  private async ready(): Promise<void> {
    if (this.check.failed || this.options.dryRun) {
      this.pending = [];
      await this.release();
      return;
    }
    if (this.pending.length > 0 && !this.writes)
      await this.takeLock().catch(async (e: unknown) => {
        // Refused once the lock was taken: it is given back at once, not when the caller rolls back.
        await this.release().catch(() => {});
        throw e;
      });
    await this.writes?.ready();
  }

  /** Opens the batch's writes, checks the entity again under its lock, and writes what waited. */
  private async takeLock(): Promise<void> {
    const writes = (this.writes = await this.store.openWrites());
    const entity = await writes.entity();
    importGates(entity, rebuildRunning(entity, this.nowMs(), this.processes));
    if (
      entity.lock_date !== this.entity.lock_date ||
      entity.books_start !== this.entity.books_start
    )
      throw errors.unavailable(
        'the lock date or the First Month of Books changed while the import waited for the ledger; ' +
          'nothing was posted: run it again',
      );
    // Another import may have posted some of the first entries while this one waited for the lock:
    // those are skipped, as they would be now.
    const taken = await writes.taken(this.pending.flatMap((p) => p.meta.fingerprint ?? []));
    const posted = (p: Pending) => p.meta.fingerprint !== null && taken.has(p.meta.fingerprint);
    const waiting = this.pending.filter((p) => !posted(p) || this.options.allowDuplicates);
    this.entity = entity;
    if (await this.checkedAgain(entity, waiting)) return this.release();
    const facts = await writes.numbering();
    this.numbering = new JeNumbering(facts.last, facts.nextTaken);
    await writes.trail.start(this.event.who);
    if (writes.digest) this.event.digestedElsewhere();
    this.sink = recordingSink(writes.sink(), this.event);
    for (const p of this.pending) {
      if (!posted(p)) this.write(p.entry, p.meta);
      else if (this.options.allowDuplicates) this.write(p.entry, { ...p.meta, fingerprint: null });
      else p.result.status = 'skipped';
    }
    this.pending = [];
  }

  /**
   * Checks the entries that waited for the lock again, under it, as they would be checked now: another
   * writer may have taken a number the file gives, or changed an account, a counterparty, the
   * exchange accounts, a rate or the open items they settle meanwhile. One now refused fails the
   * batch (nothing posts: true), as it would have been refused after that writer; the others are
   * written as now checked, and the file's later entries are checked after them.
   */
  private async checkedAgain(entity: EntityState, waiting: Pending[]): Promise<boolean> {
    // With none waiting (all posted meanwhile), the file's later entries follow none of them.
    const facts = await this.store.facts(waiting.map((p) => p.body));
    const check = new BatchCheck();
    const ctx = check.context(contextOf(entity, facts, (ref) => this.hints.get(ref) ?? []));
    for (const p of waiting) {
      const checked = check.entry(p.body, false, ctx);
      if ('problems' in checked)
        Object.assign(p.result, { status: 'invalid', problems: checked.problems });
      else p.entry = checked.entry;
    }
    this.check = check;
    if (check.failed) this.pending = [];
    return check.failed;
  }

  /** Makes the batch visible (or, for a dry run or a failed batch, discards it). */
  async commit(): Promise<{ alreadyPosted: number[] }> {
    if (this.done) return { alreadyPosted: [] };
    await this.ready();
    this.done = true;
    if (!this.writes || this.check.failed || this.options.dryRun) {
      await this.release();
      return { alreadyPosted: [] };
    }
    try {
      const { count, first, last } = this.event.entries;
      const file = this.options.file ? ` from ${this.options.file}` : '';
      this.event.name(
        'entries.imported',
        [...new Set([first!, last!])],
        `${count} ${count === 1 ? 'entry' : 'entries'} imported (${first}…${last})${file}`,
      );
      await this.sink!.flush();
      if (count > 0 && this.writes.digest) this.event.digested(await this.writes.digest());
      if (count > 0) await this.writes.trail.append([this.event.draft()!]);
      await this.writes.commit();
    } catch (e) {
      await this.release().catch(() => {});
      throw e;
    }
    return { alreadyPosted: [] };
  }

  async rollback(): Promise<void> {
    this.done = true;
    this.pending = [];
    await this.release();
  }

  private async release(): Promise<void> {
    const writes = this.writes;
    this.writes = null;
    this.sink = null;
    await writes?.rollback();
  }
}

/** An entry checked before the import had the lock, waiting for it. */
interface Pending {
  body: unknown;
  entry: ValidEntry;
  meta: EntryMeta;
  result: { status: string };
}
