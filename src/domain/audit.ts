import { createHash, type Hash } from 'node:crypto';
import type { FxSnapshot } from './fx.js';
import { sha256 } from './sha256.js';
import type { Problem } from './errors.js';

/**
 * The audit trail (docs/reliability.md, "The audit trail"): one event per change, written in the
 * change's own transaction, numbered without gaps per entity, each hashing the one before it and
 * what it records (the entries it wrote), so that an edit made outside books breaks the chain.
 */

/** The hash before the first event. */
export const GENESIS = '0'.repeat(64);

/** Who made a change and through what: an API key over HTTP, the system user at a terminal. */
export interface Who {
  /** `key:ID NAME` over HTTP; `cli:USER` at a terminal. */
  actor: string;
  /** `cli je post`, `POST /v1/journal-entries`… */
  via: string;
}

/**
 * What an event says of its change, before the trail numbers and hashes it. `entries` entries were
 * written by it, the next in storage order after the previous event's; `record` is their digest.
 */
export interface EventDraft {
  who: Who;
  action: string;
  /** The ids and numbers of what changed (JE-5, je_…, an account's external id). */
  objects: string[];
  summary: string;
  entries: number;
  record: string | null;
  /**
   * Entries an import renumbered or whose memo it set after writing them, by their number now: the
   * number and memo as the record hashed them.
   */
  amended?: Record<string, Amended>;
}

export interface Amended {
  je_number?: string;
  memo?: string | null;
  /** The memo the import left it with (an accrual's reversal renamed with its accrual). */
  memo_now?: string | null;
}

/** An event as stored. */
export interface AuditEvent {
  seq: number;
  /** The database's clock, ISO 8601 in UTC. */
  at: string;
  actor: string;
  via: string;
  action: string;
  objects: string[];
  summary: string;
  entries: number;
  record: string | null;
  amended: Record<string, Amended> | null;
  hash: string;
  /** Read back from a row whose objects or amendments are not JSON books wrote. */
  unreadable?: true;
}

/** The event's canonical text, as its hash covers it. */
export function eventText(e: Omit<AuditEvent, 'hash'>): string {
  return JSON.stringify([
    e.seq,
    e.at,
    e.actor,
    e.via,
    e.action,
    e.objects,
    e.summary,
    e.entries,
    e.record,
    e.amended,
  ]);
}

/** SHA-256 of the previous event's hash and this event's canonical text, in hex. */
export function chainHash(previous: string, e: Omit<AuditEvent, 'hash'>): string {
  return sha256(`${previous}\n${eventText(e)}`);
}

/** Numbers and hashes drafts after the head of the chain, at the database's time `at`. */
export function sealed(
  head: { seq: number; hash: string },
  at: string,
  drafts: EventDraft[],
): AuditEvent[] {
  let { seq, hash } = head;
  return drafts.map((d) => {
    const e: AuditEvent = {
      seq: ++seq,
      at,
      actor: d.who.actor,
      via: d.who.via,
      action: d.action,
      objects: d.objects,
      summary: d.summary,
      entries: d.entries,
      record: d.record,
      amended: d.amended && Object.keys(d.amended).length ? d.amended : null,
      hash: '',
    };
    e.hash = hash = chainHash(hash, e);
    return e;
  });
}

/** An entry's fields that never change once written, as both a write and the stored rows give them. */
export interface RecordedEntry {
  id: string;
  je_number: string;
  entry_date: string;
  currency: string;
  memo: string | null;
  source: string;
  is_adjusting: boolean;
  manual_entry_reason: string | null;
  total_atoms: number;
  original_id: string | null;
  fingerprint: string | null;
  created_at: string;
  /** Its tags' canonical text (domain/tags.ts tagsText), null for none. */
  tags: string | null;
}

export interface RecordedLine {
  account_id: string;
  line_type: string;
  amount_atoms: number;
  memo: string | null;
  counterparty_id: string | null;
  fx: FxSnapshot | null | undefined;
  system: string | null | undefined;
  tags: string | null;
}

/** An entry as stored, with its lines, as the trail reads it back. */
export interface StoredRecord extends RecordedEntry {
  lines: RecordedLine[];
}

/**
 * A value's token in an entry's canonical form: text prefixed by its length, a number (or bigint)
 * between # and ;, or ~ for none. Each token ends where it says, so no two entries read the same,
 * and text kept where a number belongs (a damaged file) is not read as the number.
 */
const tok = (v: unknown): string =>
  v === null || v === undefined
    ? '~'
    : typeof v === 'string'
      ? `${v.length}:${v}`
      : `#${String(v)};`;

/**
 * An entry's canonical form: its fields, then each line's, as tokens. Its status and update time are
 * left out (a reversal changes them). Plain concatenation, measured fastest: an import makes a
 * million lines' worth (tokens written into a buffer one by one took three times as long).
 */
function entryText(e: RecordedEntry, lines: readonly RecordedLine[], a: Amended): string {
  let s =
    tok(e.id) +
    tok(a.je_number ?? e.je_number) +
    tok(e.entry_date) +
    tok(e.currency) +
    tok('memo' in a ? a.memo : e.memo) +
    tok(e.source) +
    (e.is_adjusting ? '#1;' : '#0;') +
    tok(e.manual_entry_reason) +
    tok(e.total_atoms) +
    tok(e.original_id) +
    tok(e.fingerprint) +
    tok(e.created_at) +
    tok(e.tags);
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    const fx = l.fx ? tok(l.fx.currency) + tok(l.fx.amount_atoms) + tok(l.fx.rate) : '~~~';
    s +=
      '[' +
      tok(l.account_id) +
      tok(l.line_type) +
      tok(l.amount_atoms) +
      tok(l.memo) +
      tok(l.counterparty_id) +
      fx +
      tok(l.system) +
      tok(l.tags);
  }
  return s;
}

const NONE: Amended = {};

/** The digest of the entries an event wrote (SHA-256 of their canonical forms), fed in storage order. */
export class EntriesDigest {
  private hash: Hash | null = null;
  private pending = '';
  count = 0;

  /** One entry, as written or as stored (amended: fields as an import first wrote them). */
  add(e: RecordedEntry, lines: readonly RecordedLine[], amended: Amended = NONE): void {
    this.count++;
    // Fed in large pieces: an update costs more than its bytes on short ones.
    this.pending += entryText(e, lines, amended) + '\n';
    if (this.pending.length >= 65_536) this.drain();
  }

  private drain(): void {
    (this.hash ??= createHash('sha256')).update(this.pending);
    this.pending = '';
  }

  /** The digest in hex, or null for no entries. */
  hex(): string | null {
    if (this.count === 0) return null;
    // A post's one entry: hashed in one call.
    if (this.hash === null) return sha256(this.pending);
    this.drain();
    return this.hash.digest('hex');
  }
}

/** Where the chain must pass: the hash of event `seq`, kept elsewhere. */
export interface Anchor {
  seq: number;
  hash: string;
}

/** Parses `SEQ:HASH` (`books audit verify --anchor`); null when it is not one. */
export function anchorOf(text: string): Anchor | null {
  const m = /^(\d{1,15}):([0-9a-f]{64})$/.exec(text.trim().toLowerCase());
  return m ? { seq: Number(m[1]), hash: m[2]! } : null;
}

/** What verify found: how many events it followed, the head, and the first that does not follow. */
export interface Verified {
  events: number;
  entries: number;
  head: { seq: number; hash: string };
  problems: Problem[];
}

const broken = (seq: number, message: string): Problem => ({
  path: `audit.${seq}`,
  reason: 'audit_chain_broken',
  message: `audit event ${seq} does not follow: ${message}`,
});

/**
 * Recomputes the chain over the events in seq order and the entries in storage order (each event
 * takes the next `entries` of them), and names the first event that does not follow. An entry no
 * event wrote is named too. With an anchor, the chain must pass through it.
 */
export async function verifyTrail(
  events: AsyncIterable<AuditEvent>,
  entries: AsyncIterable<StoredRecord>,
  anchor?: Anchor,
): Promise<Verified> {
  const stored = entries[Symbol.asyncIterator]();
  let prev = { seq: 0, hash: GENESIS };
  let count = 0;
  let entryCount = 0;
  let anchored = false;
  const done = (problems: Problem[]): Verified => ({
    events: count,
    entries: entryCount,
    head: prev,
    problems,
  });
  for await (const e of events) {
    const unfit = unfitEvent(e, prev.seq);
    if (unfit) return done([unfit]);
    const digest = new EntriesDigest();
    const numbers: string[] = [];
    for (let i = 0; i < e.entries; i++) {
      const next = await stored.next();
      if (next.done)
        return done([broken(e.seq, `it wrote ${e.entries} entries; fewer are stored`)]);
      entryCount++;
      numbers.push(next.value.je_number);
      const a = e.amended?.[next.value.je_number];
      if (a && 'memo_now' in a && a.memo_now !== next.value.memo)
        return done([broken(e.seq, `${next.value.je_number}'s memo is not as its import left it`)]);
      digest.add(next.value, next.value.lines, e.amended?.[next.value.je_number]);
    }
    if (digest.hex() !== e.record)
      return done([
        broken(
          e.seq,
          `the entries it wrote (${range(numbers)}) are not as it recorded them (changed outside books)`,
        ),
      ]);
    const { hash, ...rest } = e;
    if (chainHash(prev.hash, rest) !== hash)
      return done([broken(e.seq, 'its hash is not that of its content and the event before it')]);
    count++;
    prev = { seq: e.seq, hash };
    if (anchor && anchor.seq === e.seq) {
      if (anchor.hash !== hash)
        return done([
          {
            path: 'anchor',
            reason: 'audit_anchor_differs',
            message: `audit event ${e.seq}'s hash is ${hash}, not the anchor's ${anchor.hash}`,
          },
        ]);
      anchored = true;
    }
  }
  const extra = await stored.next();
  if (!extra.done)
    return done([
      {
        path: `audit.${prev.seq + 1}`,
        reason: 'audit_entry_unrecorded',
        message: `${extra.value.je_number} (${extra.value.id}) is in no audit event (written outside books)`,
      },
    ]);
  if (anchor && !anchored)
    return done([
      {
        path: 'anchor',
        reason: 'audit_anchor_differs',
        message: `the trail has no event ${anchor.seq} (its last is ${prev.seq})`,
      },
    ]);
  return done([]);
}

/** What is wrong with an event's place or shape before its hashes are worked out, if anything. */
function unfitEvent(e: AuditEvent, prevSeq: number): Problem | null {
  if (e.seq !== prevSeq + 1)
    return broken(
      prevSeq + 1,
      `the next event stored is ${e.seq} (an event is missing or out of order)`,
    );
  if (e.unreadable) return broken(e.seq, 'its objects or amendments cannot be read');
  if (!Number.isSafeInteger(e.entries) || e.entries < 0)
    return broken(e.seq, `its count of entries (${String(e.entries)}) is not a count`);
  return null;
}

const range = (numbers: string[]) =>
  numbers.length <= 1 ? (numbers[0] ?? '') : `${numbers[0]}…${numbers[numbers.length - 1]}`;

const HEX64 = /^[0-9a-f]{64}$/;

/** Whether a record has an audit event's shape (a dump's, read back). */
export function auditEventShaped(e: AuditEvent): boolean {
  const texts = [e.at, e.actor, e.via, e.action, e.summary].every((v) => typeof v === 'string');
  return (
    texts &&
    Number.isSafeInteger(e.seq) &&
    e.seq >= 1 &&
    Array.isArray(e.objects) &&
    e.objects.every((o) => typeof o === 'string') &&
    Number.isSafeInteger(e.entries) &&
    e.entries >= 0 &&
    (e.record === null || HEX64.test(e.record)) &&
    (e.amended === null || (typeof e.amended === 'object' && !Array.isArray(e.amended))) &&
    HEX64.test(e.hash)
  );
}

/**
 * Events page after page, each asked after the last seq of the one before. Events are only ever
 * appended: each is read once, in order, in constant memory.
 */
export async function* pagedEvents(
  page: (after: number) => Promise<AuditEvent[]>,
  size: number,
): AsyncGenerator<AuditEvent> {
  for (let after = 0; ;) {
    const events = await page(after);
    yield* events;
    if (events.length < size) return;
    after = events[events.length - 1]!.seq;
  }
}
