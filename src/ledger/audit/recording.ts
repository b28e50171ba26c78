import type { EventNamer } from './trail.js';
import { tagsText } from '../../domain/tags.js';
import { EntriesDigest, type Amended, type EventDraft, type Who } from '../../domain/audit.js';
import type { ValidEntry } from '../../domain/entry.js';
import { atomsToDecimal, exponentOf } from '../../domain/money.js';
import type { NumberedEntry } from '../../domain/jeNumber.js';
import type { EntryMeta, EntrySink, Inserted, WriteTx } from '../journal/store.js';

/**
 * The audit event a write is making: what it names, and the digest of the entries it writes, in the
 * order it writes them. A write that writes entries and names nothing makes an `entries.posted`
 * event; one that names nothing and writes none makes no event.
 */
export class Recording implements EventNamer {
  private readonly digest = new EntriesDigest();
  private count = 0;
  /** The digest as taken where the entries' rows were written (see digestedElsewhere). */
  private elsewhere: { hex: string | null } | null = null;
  private named: { action: string; objects: string[]; summary: string } | null = null;
  private numbers: string[] = [];
  /** Entries an import renumbered or gave another memo after writing them (see EventDraft). */
  amended: Record<string, Amended> | undefined;

  constructor(readonly who: Who) {}

  /** Names the event; the last name given counts. */
  name(action: string, objects: string[], summary: string): void {
    this.named = { action, objects, summary };
  }

  /** An entry written, as written. */
  entry(entry: ValidEntry, numbered: NumberedEntry, meta: EntryMeta, inserted: Inserted): void {
    this.count++;
    if (!this.elsewhere) writtenInto(this.digest, entry, numbered, meta, inserted);
    if (this.numbers.length < 2) this.numbers.push(inserted.je_number);
    else this.numbers[1] = inserted.je_number;
  }

  /**
   * The entries' digest is taken where their rows are written (an import's writer thread): given by
   * `digested` before the event is drafted, for as many entries as this counted.
   */
  digestedElsewhere(): void {
    if (this.count > 0) throw new Error('the digest moved after entries were written');
    this.elsewhere = { hex: null };
  }

  /** The digest of the entries as their writer took it. */
  digested(d: { count: number; hex: string | null }): void {
    if (!this.elsewhere || d.count !== this.count)
      throw new Error(`the writer digested ${d.count} entries of ${this.count} written`);
    this.elsewhere.hex = d.hex;
  }

  /** An entry it wrote took another number (an import's): the event names the one it has now. */
  renumbered(from: string, to: string): void {
    this.numbers = this.numbers.map((n) => (n === from ? to : n));
  }

  /** How many entries it wrote; the first and last JE numbers. */
  get entries(): { count: number; first: string | undefined; last: string | undefined } {
    return { count: this.count, first: this.numbers[0], last: this.numbers.at(-1) };
  }

  /** The event, or null for a write that changed nothing the trail records. */
  draft(): EventDraft | null {
    const count = this.count;
    if (!this.named && count === 0) return null;
    const { first, last } = this.entries;
    const named = this.named ?? {
      action: 'entries.posted',
      objects: [...new Set([first!, last!])],
      summary: `${count} ${count === 1 ? 'entry' : 'entries'} posted (${first}…${last})`,
    };
    return {
      who: this.who,
      ...named,
      entries: count,
      record: this.elsewhere ? this.elsewhere.hex : this.digest.hex(),
      ...(this.amended ? { amended: this.amended } : {}),
    };
  }
}

/** An entry as a write has it, into a digest (domain/audit.ts EntriesDigest). */
export function writtenInto(
  digest: EntriesDigest,
  entry: ValidEntry,
  numbered: NumberedEntry,
  meta: EntryMeta,
  inserted: Inserted,
): void {
  digest.add(
    {
      id: inserted.id,
      je_number: numbered.je_number,
      entry_date: entry.entry_date,
      currency: entry.currency,
      memo: entry.memo,
      source: meta.source,
      is_adjusting: entry.is_adjusting,
      manual_entry_reason: entry.manual_entry_reason,
      total_atoms: entry.total_atoms,
      original_id: meta.originalId ?? null,
      fingerprint: meta.fingerprint,
      created_at: inserted.ts,
      tags: tagsText(entry.tags),
    },
    entry.lines.map((l) => ({
      account_id: l.account.id,
      line_type: l.line_type,
      amount_atoms: l.amount_atoms,
      memo: l.memo,
      counterparty_id: l.counterparty?.id ?? null,
      fx: l.fx,
      system: l.system ?? null,
      tags: tagsText(l.tags),
    })),
  );
}

/** A write transaction whose entry writes feed a recording. */
export function recordingWrites<W extends Pick<WriteTx, 'write'>>(tx: W, rec: Recording): W {
  return {
    ...tx,
    write: async (...a: Parameters<WriteTx['write']>) => {
      const inserted = await tx.write(...a);
      rec.entry(a[0], a[1], a[2], inserted);
      return inserted;
    },
  };
}

/** An import's sink whose writes feed a recording. */
export function recordingSink(sink: EntrySink, rec: Recording): EntrySink {
  return {
    write: (entry, numbered, meta) => {
      const inserted = sink.write(entry, numbered, meta);
      rec.entry(entry, numbered, meta, inserted);
      return inserted;
    },
    renumber: (from, to) => sink.renumber(from, to),
    setMemo: (jeNumber, memo) => sink.setMemo(jeNumber, memo),
    flush: () => sink.flush(),
  };
}

/** A store's own write transaction, before the trail's layer gives it its event. */
export type Unrecorded<W extends WriteTx> = Omit<W, 'event'>;

/**
 * Runs a feature's write as the trail records it (both stores' `write` call this inside their
 * transaction): a ledger whose entries predate its trail starts it first; the entries fn writes feed
 * its event, which is appended before the transaction (or its savepoint) ends.
 */
export async function recorded<W extends WriteTx, T>(
  tx: Unrecorded<W>,
  who: Who,
  fn: (tx: W) => Promise<T>,
): Promise<T> {
  await tx.trail.start(who);
  const event = new Recording(who);
  const recording = recordingWrites(tx, event) as Unrecorded<W> & { event?: Recording };
  recording.event = event;
  const result = await fn(recording as unknown as W);
  const draft = event.draft();
  if (draft) await tx.trail.append([draft]);
  return result;
}

/** An amount for a summary: `1,234.50 USD` as a plain decimal. */
export const amountText = (atoms: number, currency: string): string =>
  `${atomsToDecimal(atoms, exponentOf(currency))} ${currency}`;
