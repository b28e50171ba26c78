import {
  journalEntryOf,
  linesOfValid,
  type JournalEntry,
  type ValidEntry,
} from '../../domain/entry.js';
import type { Counterparty, GlAccount } from '../../domain/accounts.js';
import { entryInvalid, errors, isBooksError, type Problem, refusal } from '../../domain/errors.js';
import { accountIndex, counterpartyProblem, unknownAccounts } from '../../domain/input.js';
import { idempotencyKeyProblem, requestHash } from '../../domain/idempotency.js';
import { JeNumbering } from '../../domain/jeNumber.js';
import { contextOf, reversalBody, wantsOf, writeGates } from '../../domain/posting.js';
import { rebuildRunning, type Processes } from '../../domain/rebuild.js';
import { validateEntry } from '../../domain/validation.js';
import { ImportSession } from './importSession.js';
import type {
  EntryFilter,
  ImportBatch,
  ImportOptions,
  JournalOps,
  PostOptions,
  ReverseOptions,
} from './port.js';
import { accrualWrites } from './accrual.js';
import type {
  EntryMeta,
  FactsRequest,
  GroupWriteTx,
  Inserted,
  JournalStore,
  ReadTx,
  WriteFacts,
  WriteTx,
} from './store.js';
import type { UsedKey } from '../../domain/posting.js';
import {
  apiKeysOf,
  groupable,
  keyLive,
  PostQueue,
  type PostOutcome,
  type WaitingPost,
  waitedTooLong,
} from './postGroup.js';
import { settledGuard } from './settledGuard.js';
import { AsyncResource } from 'node:async_hooks';
import type { EventDraft } from '../../domain/audit.js';
import { Recording, recordingWrites } from '../audit/recording.js';
import { postedEvent, reversedEvent } from './events.js';
import { whoNow } from '../runtime/actor.js';

/** What the posts of a group share, read once: the facts, the numbering, the keys as the group left them. */
interface GroupFacts {
  facts: WriteFacts;
  numbering: JeNumbering;
  keys: Map<string, UsedKey>;
}

/**
 * The journal of any store: posting, reversing and importing as the domain's rules say, over what
 * the store looks up and writes. Every check a write depends on (the entity's state, the idempotency
 * key, JE numbers) is read inside the write's own transaction, which holds the entity's write lock.
 */
export class JournalFromStore implements JournalOps {
  private readonly posts = new PostQueue((take, early) => this.postGroup(take, early));

  constructor(
    private readonly store: JournalStore,
    private readonly processes: Processes,
    /** The entity's chart: a listing's filter must name its accounts and counterparties. */
    private readonly chart: {
      accounts(): Promise<GlAccount[]>;
      counterparties(): Promise<Counterparty[]>;
    },
  ) {}

  async post(body: unknown, options: PostOptions): Promise<JournalEntry> {
    const keyProblem = idempotencyKeyProblem(options.idempotencyKey);
    if (keyProblem) throw errors.idempotencyKeyRefused(keyProblem);
    if (options.dryRun) return this.store.read((tx) => this.postWithin(tx, body, options));
    const post = this.posting(body, options);
    const who = options.who ?? whoNow();
    if (!this.store.groupsPosts) return this.store.write(post, 'entries', who);
    // In the queue of the entity's posts, in the order asked: in a group, or on its own in its turn.
    if (groupable(body, options)) return this.posts.add({ body, options, who });
    return this.posts.addAlone(() => this.store.write(post, 'entries', who));
  }

  /** A post's write: the entry, and its event named. */
  private posting(body: unknown, options: PostOptions) {
    return async (tx: WriteTx) => {
      const entry = await this.postWithin(tx, body, options);
      tx.event.name(...postedEvent(entry));
      return entry;
    };
  }

  /**
   * Posts a group in one write: one reading of the facts for all; each post's gates and rules on its
   * own (a refusal fails it alone, before anything is written), the numbering and the keys carried
   * from one post to the next in memory; every row in one round trip. A write the database refuses
   * fails the group's transaction: its posts are then posted one by one, and the refused one fails
   * alone. Each is answered after the commit that holds it. The group is taken once the transaction
   * holds the entity's lock, or, `early`, before: then the store may read its facts with the lock.
   */
  private async postGroup(take: () => WaitingPost[], early: boolean): Promise<PostOutcome[]> {
    let refused = false;
    const factsOf = (group: WaitingPost[]): FactsRequest => ({
      bodies: group.map((p) => p.body),
      fingerprint: null,
      idempotencyKeys: group.map((p) => p.options.idempotencyKey),
      automatic: 2 * group.length,
      ...apiKeysOf(group.map((p) => p.options)),
    });
    const asked = early ? factsOf(take()) : undefined;
    try {
      return await this.store.write(
        async (wtx) => {
          const tx = wtx as GroupWriteTx;
          const group = take();
          const facts = await tx.facts(asked ?? factsOf(group));
          const shared = { facts, numbering: numberingOf(facts), keys: new Map(facts.usedKeys) };
          const batch = tx.batch();
          const batched: WriteTx = { ...tx, write: async (...a) => batch.write(...a) };
          const outcomes: PostOutcome[] = [];
          // Each post is an event of its own, by whoever asked for it.
          const events: EventDraft[] = [];
          for (const p of group) {
            // Taken before the lock: its wait for the lock adds to its wait in the queue.
            if (asked && waitedTooLong(p)) {
              outcomes.push({ error: errors.locked() });
              continue;
            }
            const rec = new Recording(p.who);
            const mine = recordingWrites(batched, rec);
            outcomes.push(
              await this.postWithin(mine, p.body, p.options, shared).then(
                (ok) => {
                  rec.name(...postedEvent(ok));
                  events.push(rec.draft()!);
                  return { ok };
                },
                (error: unknown) => ({ error }),
              ),
            );
          }
          batch.record(await tx.trail.seal(events));
          await batch.flush(true).catch((e: unknown) => {
            // Not a refusal: the answer was lost (the rows may be committed, with the COMMIT sent
            // with them), or the lock. Every post of the group is then answered "retry".
            refused = !(isBooksError(e) && e.code === 'unavailable');
            throw e;
          });
          return outcomes;
        },
        'entries',
        undefined,
        asked,
      );
    } catch (e) {
      if (!refused) throw e;
      const group = take();
      const alone = (p: WaitingPost) =>
        this.store.write(this.posting(p.body, p.options), 'entries', p.who);
      return Promise.all(
        group.map((p) =>
          alone(p).then(
            (ok) => ({ ok }),
            (error: unknown) => ({ error }),
          ),
        ),
      );
    }
  }

  /**
   * Posts one entry inside a transaction the caller holds (a write, or a read for a dry run): what a
   * run of several entries that post together or not at all (reconciliation's) is made of.
   */
  async postWithin(
    tx: ReadTx | WriteTx,
    body: unknown,
    options: Omit<PostOptions, 'dryRun'>,
    group?: GroupFacts,
  ): Promise<JournalEntry> {
    const source = options.source ?? 'manual_api';
    const hash = requestHash('POST /v1/journal-entries', body);
    const fingerprint = options.fingerprint ?? null;
    const key = { key: options.idempotencyKey, hash };
    const facts = group
      ? { ...group.facts, usedKey: group.keys.get(key.key), fingerprinted: undefined }
      : await tx.facts({
          bodies: [body],
          idempotencyKey: key.key,
          fingerprint,
          ...apiKeysOf([options]),
        });
    keyLive(options, facts);
    this.gates(facts, hash);
    // An earlier import posted this entry of the file (its key may have expired, or be another's).
    if (facts.fingerprinted) throw errors.idempotencyKeyUsed(facts.fingerprinted, true);
    const entry = await this.validated(tx, facts, body);
    const meta = { source, fingerprint, originalSeq: null };
    const numbering = group?.numbering ?? numberingOf(facts);
    // The key counts as used for the group's later posts once this one is written.
    const used = (e: JournalEntry) => {
      const record = { request_hash: hash, journal_entry_id: e.id, je_number: e.je_number };
      group?.keys.set(key.key, { ...record, created_at_ms: facts.nowMs });
      return e;
    };
    if (!entry.auto_reverse_on)
      return used((await this.written(tx, numbering, entry, meta, null, key)).entry);
    // An accrual and its reversal: written together, in this transaction, linked as a reversal is
    // (the reversal numbered next; the key names the accrual).
    const accrual = accrualWrites(entry, meta);
    const posted = await this.written(tx, numbering, entry, accrual.meta, null, key);
    const mirror = accrual.reversal({
      je_number: posted.entry.je_number,
      seq: posted.seq,
      id: posted.entry.id,
    });
    const original = { id: posted.entry.id, date: posted.entry.entry_date };
    const reversal = await this.written(tx, numbering, mirror.entry, mirror.meta, original, null);
    if (posted.seq === null) return posted.entry;
    return used({ ...posted.entry, reversed_by_journal_entry_ids: [reversal.entry.id] });
  }

  async reverse(idOrNumber: string, options: ReverseOptions): Promise<JournalEntry> {
    const keyProblem = idempotencyKeyProblem(options.idempotencyKey);
    if (keyProblem) throw errors.idempotencyKeyRefused(keyProblem);
    const reverse = async (tx: ReadTx | WriteTx) => {
      const original = await tx.entry(idOrNumber);
      if (!original) throw errors.notFound(`no journal entry '${idOrNumber}'`);
      const endpoint = `POST /v1/journal-entries/${original.id}/reverse`;
      const hash = requestHash(endpoint, { entry_date: options.entryDate ?? null });
      const key = { key: options.idempotencyKey, hash };
      // The gates come before the reversal's own checks: their facts are read without a body first.
      const gated = await tx.facts({
        bodies: [],
        idempotencyKey: key.key,
        fingerprint: null,
        ...apiKeysOf([options]),
      });
      keyLive(options, gated);
      this.gates(gated, hash);
      const body = reversalBody(original, options.entryDate);
      await settledGuard(tx, original);
      const facts = {
        ...gated,
        lookups: (await tx.facts({ bodies: [body], fingerprint: null })).lookups,
      };
      const checked = await this.validated(tx, facts, body);
      // A reversal's snapshots are its original's, rate and all (the body gave both amounts).
      const entry = {
        ...checked,
        lines: checked.lines.map((l, i) => {
          const { fx, system } = original.lines[i] ?? {};
          return { ...l, fx: fx ?? l.fx, ...(system ? { system } : {}) };
        }),
      };
      const link = { id: original.id, date: original.entry_date };
      const meta = {
        source: 'manual_api',
        fingerprint: null,
        originalSeq: original.seq,
        originalId: original.id,
      };
      const reversal = (await this.written(tx, numberingOf(facts), entry, meta, link, key)).entry;
      if ('event' in tx) tx.event.name(...reversedEvent(original, reversal));
      return reversal;
    };
    if (options.dryRun) return this.store.read(reverse);
    const write = AsyncResource.bind(() => this.store.write(reverse, 'entries'));
    return this.store.groupsPosts ? this.posts.addAlone(write) : write();
  }

  /** The checks before an entry's content, in the order docs/api.md gives ("Decisions"), over what its write read. */
  private gates(facts: WriteFacts, hash: string): void {
    const now = facts.nowMs;
    const rebuilding = rebuildRunning(facts.entity, now, this.processes);
    writeGates(facts.entity, rebuilding, facts.usedKey, hash, now);
  }

  /** The entry as every rule of the ledger reads it, or the refusal with all of its problems. */
  private async validated(tx: ReadTx, facts: WriteFacts, body: unknown): Promise<ValidEntry> {
    let result = validateEntry(body, contextOf(facts.entity, facts.lookups));
    // Accounts a reference resembles are read only for a message (an error's path).
    if (result.problems.some((p) => p.reason === 'unknown_account')) {
      const hints = await hintsFor(tx, facts.lookups.accounts, wantsOf([body]).accounts);
      result = validateEntry(
        body,
        contextOf(facts.entity, facts.lookups, (ref) => hints.get(ref) ?? []),
      );
    }
    if (!result.entry) throw entryInvalid(result.problems);
    return result.entry;
  }

  /**
   * Writes a valid entry (numbered by the domain from the numbering the store read under the lock)
   * with the key it was posted under; in a read transaction (a dry run), only numbers it as it
   * would post.
   */
  private async written(
    tx: ReadTx | WriteTx,
    numbering: JeNumbering,
    entry: ValidEntry,
    meta: EntryMeta,
    original: { id: string; date: string } | null,
    key: { key: string; hash: string } | null,
  ): Promise<{ entry: JournalEntry; seq: number | null }> {
    let inserted: Inserted | null = null;
    if ('write' in tx) {
      const numbered = numbering.assign(
        entry.je_number,
        entry.je_seq,
        meta.source === 'csv_import',
      );
      inserted = await tx.write(entry, numbered, meta, key);
    }
    const ts = inserted?.ts ?? this.store.now().toISOString();
    const answer = journalEntryOf(
      {
        id: inserted?.id ?? '',
        seq: inserted?.seq ?? null,
        je_number: inserted?.je_number ?? entry.je_number ?? numbering.peek(),
        entry_date: entry.entry_date,
        currency: entry.currency,
        memo: entry.memo,
        source: meta.source,
        status: inserted ? (meta.status ?? 'posted') : 'draft',
        is_adjusting: entry.is_adjusting,
        manual_entry_reason: entry.manual_entry_reason,
        total_atoms: entry.total_atoms,
        created_at: ts,
        updated_at: ts,
        original,
        reversed_by: [],
        tags: entry.tags ?? {},
      },
      linesOfValid(entry),
    );
    return { entry: answer, seq: inserted?.seq ?? null };
  }

  get(idOrNumber: string): Promise<JournalEntry> {
    return this.store.get(idOrNumber);
  }

  /**
   * Entries by a filter; the accounts (by external id or number) and the counterparty it names must
   * be the ledger's, as in reports.
   */
  list(filter: EntryFilter): AsyncIterable<JournalEntry> {
    // Naming nothing, the store's own stream, with no layer between it and the reader.
    return filter.counterparty || filter.accounts?.length
      ? this.listOf(filter)
      : this.store.list(filter);
  }

  private async *listOf(filter: EntryFilter): AsyncIterable<JournalEntry> {
    const problems: Problem[] = [];
    let accounts = filter.accounts;
    if (accounts?.length) {
      const chart = await this.chart.accounts();
      const index = accountIndex(chart);
      problems.push(...unknownAccounts(accounts, chart));
      accounts = accounts.map((ref) => index.get(ref.trim())?.external_id ?? ref);
    }
    if (filter.counterparty) {
      const problem = counterpartyProblem(filter.counterparty, await this.chart.counterparties());
      if (problem) problems.push(problem);
    }
    if (problems.length) throw refusal('invalid_parameters', problems);
    yield* this.store.list({ ...filter, ...(accounts ? { accounts } : {}) });
  }

  async beginImport(options: ImportOptions): Promise<ImportBatch> {
    const store = await this.store.importStore(options.sizeHint);
    return ImportSession.begin(store, options, () => this.store.now().getTime(), this.processes);
  }
}

/** Numbering from where a write's facts found it: an accrual's reversal is numbered after the accrual. */
const numberingOf = (facts: WriteFacts) =>
  new JeNumbering(facts.numbering.last, facts.numbering.nextTaken);

/** The accounts each reference that names none resembles, for the messages of its refusal. */
export async function hintsFor(
  tx: Pick<ReadTx, 'resembling'>,
  found: { has(ref: string): boolean },
  refs: Iterable<string>,
): Promise<Map<string, string[]>> {
  const hints = new Map<string, string[]>();
  for (const ref of refs) if (!found.has(ref)) hints.set(ref, await tx.resembling(ref));
  return hints;
}
