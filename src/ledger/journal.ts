import {
  journalEntryOf,
  linesOfValid,
  type JournalEntry,
  type ValidEntry,
} from '../domain/entry.js';
import { entryInvalid, errors } from '../domain/errors.js';
import { idempotencyKeyProblem, requestHash } from '../domain/idempotency.js';
import { JeNumbering } from '../domain/jeNumber.js';
import { contextOf, reversalBody, wantsOf, writeGates } from '../domain/posting.js';
import { rebuildRunning, type Processes } from '../domain/rebuild.js';
import { validateEntry } from '../domain/validation.js';
import { ImportSession } from './importSession.js';
import type {
  EntryFilter,
  ImportBatch,
  ImportOptions,
  JournalOps,
  PostOptions,
  ReverseOptions,
} from './port.js';
import type { EntryMeta, Inserted, JournalStore, ReadTx, WriteTx } from './store.js';

/**
 * The journal of any store: posting, reversing and importing as the domain's rules say, over what
 * the store looks up and writes. Every check a write depends on (the entity's state, the idempotency
 * key, JE numbers) is read inside the write's own transaction, which holds the entity's write lock.
 */
export class JournalFromStore implements JournalOps {
  constructor(
    private readonly store: JournalStore,
    private readonly processes: Processes,
  ) {}

  async post(body: unknown, options: PostOptions): Promise<JournalEntry> {
    const keyProblem = idempotencyKeyProblem(options.idempotencyKey);
    if (keyProblem) throw errors.idempotencyKeyRefused(keyProblem);
    const source = options.source ?? 'manual_api';
    const hash = requestHash('POST /v1/journal-entries', body);
    const fingerprint = options.fingerprint ?? null;
    const post = async (tx: ReadTx | WriteTx) => {
      await this.gates(tx, options.idempotencyKey, hash);
      // An earlier import posted this entry of the file (its key may have expired, or be another's).
      const earlier = fingerprint === null ? undefined : await tx.fingerprinted(fingerprint);
      if (earlier) throw errors.idempotencyKeyUsed(earlier, true);
      const entry = await this.validated(tx, body);
      return this.written(tx, entry, { source, fingerprint, originalSeq: null }, null, {
        key: options.idempotencyKey,
        hash,
      });
    };
    return options.dryRun ? this.store.read(post) : this.store.write(post);
  }

  async reverse(idOrNumber: string, options: ReverseOptions): Promise<JournalEntry> {
    const keyProblem = idempotencyKeyProblem(options.idempotencyKey);
    if (keyProblem) throw errors.idempotencyKeyRefused(keyProblem);
    const reverse = async (tx: ReadTx | WriteTx) => {
      const original = await tx.entry(idOrNumber);
      if (!original) throw errors.notFound(`no journal entry '${idOrNumber}'`);
      const endpoint = `POST /v1/journal-entries/${original.id}/reverse`;
      const hash = requestHash(endpoint, { entry_date: options.entryDate ?? null });
      await this.gates(tx, options.idempotencyKey, hash);
      const entry = await this.validated(tx, reversalBody(original, options.entryDate));
      const link = { id: original.id, date: original.entry_date };
      const meta = { source: 'manual_api', fingerprint: null, originalSeq: original.seq };
      const answer = await this.written(tx, entry, meta, link, {
        key: options.idempotencyKey,
        hash,
      });
      if ('markReversed' in tx && answer.id) await tx.markReversed(original.seq);
      return answer;
    };
    return options.dryRun ? this.store.read(reverse) : this.store.write(reverse);
  }

  /** The checks before an entry's content (decisions.md's order), read inside its transaction. */
  private async gates(tx: ReadTx, key: string, hash: string): Promise<void> {
    const entity = await tx.entity();
    const now = this.store.now().getTime();
    const rebuilding = rebuildRunning(entity, now, this.processes);
    if (!entity.books_start || rebuilding)
      return writeGates(entity, rebuilding, undefined, hash, now);
    writeGates(entity, rebuilding, await tx.usedKey(key), hash, now);
  }

  /** The entry as every rule of the ledger reads it, or the refusal with all of its problems. */
  private async validated(tx: ReadTx, body: unknown): Promise<ValidEntry> {
    const entity = await tx.entity();
    const facts = await tx.facts(wantsOf([body]));
    let result = validateEntry(body, contextOf(entity, facts));
    // Accounts a reference resembles are read only for a message (an error's path).
    if (result.problems.some((p) => p.reason === 'unknown_account')) {
      const hints = await hintsFor(tx, facts.accounts, wantsOf([body]).accounts);
      result = validateEntry(
        body,
        contextOf(entity, facts, (ref) => hints.get(ref) ?? []),
      );
    }
    if (!result.entry) throw entryInvalid(result.problems);
    return result.entry;
  }

  /**
   * Writes a valid entry (numbered by the domain from the numbering the store reads under the
   * lock) and records its key; in a read transaction (a dry run), only numbers it as it would post.
   */
  private async written(
    tx: ReadTx | WriteTx,
    entry: ValidEntry,
    meta: EntryMeta,
    original: { id: string; date: string } | null,
    key: { key: string; hash: string },
  ): Promise<JournalEntry> {
    const facts = await tx.numbering();
    const numbering = new JeNumbering(facts.last, facts.nextTaken);
    let inserted: Inserted | null = null;
    if ('sink' in tx) {
      const sink = tx.sink();
      const numbered = numbering.assign(
        entry.je_number,
        entry.je_seq,
        meta.source === 'csv_import',
      );
      inserted = sink.write(entry, numbered, meta);
      await sink.flush();
      await tx.recordKey(key.key, key.hash, inserted.id);
    }
    const ts = inserted?.ts ?? this.store.now().toISOString();
    return journalEntryOf(
      {
        id: inserted?.id ?? '',
        seq: inserted?.seq ?? null,
        je_number: inserted?.je_number ?? entry.je_number ?? numbering.peek(),
        entry_date: entry.entry_date,
        currency: entry.currency,
        memo: entry.memo,
        source: meta.source,
        status: inserted ? 'posted' : 'draft',
        is_adjusting: entry.is_adjusting,
        manual_entry_reason: entry.manual_entry_reason,
        total_atoms: entry.total_atoms,
        created_at: ts,
        updated_at: ts,
        original,
        reversed_by: [],
      },
      linesOfValid(entry),
    );
  }

  get(idOrNumber: string): Promise<JournalEntry> {
    return this.store.get(idOrNumber);
  }

  list(filter: EntryFilter): AsyncIterable<JournalEntry> {
    return this.store.list(filter);
  }

  async beginImport(options: ImportOptions): Promise<ImportBatch> {
    const store = await this.store.importStore(options.sizeHint);
    return ImportSession.begin(store, options, () => this.store.now().getTime(), this.processes);
  }
}

/** The accounts each reference that names none resembles, for the messages of its refusal. */
export async function hintsFor(
  tx: Pick<ReadTx, 'resembling'>,
  found: ReadonlyMap<string, unknown>,
  refs: Iterable<string>,
): Promise<Map<string, string[]>> {
  const hints = new Map<string, string[]>();
  for (const ref of refs) if (!found.has(ref)) hints.set(ref, await tx.resembling(ref));
  return hints;
}
