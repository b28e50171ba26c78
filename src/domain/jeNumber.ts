export const JE_NUMBER_MAX = 64;

/** A JE-n sequence number: a number while it is exact as one, a bigint beyond. */
export type JeSeq = number | bigint;

/**
 * The largest n of a caller's JE-n that moves the automatic numbering. Larger numbers are kept as
 * given but do not count, so that numbering always has room to go on (2^62 more entries) and never
 * leaves 64-bit integers: no number a caller gives can stop it.
 */
export const MAX_COUNTED_SEQ = 2n ** 62n;

/** The largest n a store keeps as a number (a signed 64-bit integer); beyond, JE-n is only text. */
export const MAX_STORED_SEQ = 2n ** 63n - 1n;

export type JeNumber =
  | {
      ok: true;
      value: string;
      /** n of JE-n, when a store can keep it as a number */ seq: JeSeq | null;
    }
  | { ok: false; message: string };

/**
 * Normalises a caller's journal-entry number: trim, collapse inner white space, upper-case;
 * `JE`, optional `-` or space, digits (or bare digits) become `JE-<n>` without leading zeros.
 */
export function normaliseJeNumber(raw: string): JeNumber {
  const v = raw.trim().replace(/\s+/g, ' ').toUpperCase();
  if (!v) return { ok: false, message: 'je_number is empty' };
  if (v.includes('\u0000'))
    return {
      ok: false,
      message: 'je_number holds a NUL character (U+0000), which a ledger cannot keep',
    };
  const m = /^(?:JE[- ]?)?(\d+)$/.exec(v);
  let value = v;
  let seq: JeSeq | null = null;
  if (m) {
    const digits = m[1]!.replace(/^0+(?=\d)/, '');
    value = `JE-${digits}`;
    seq =
      digits.length <= 15
        ? Number(digits)
        : BigInt(digits) <= MAX_STORED_SEQ
          ? BigInt(digits)
          : null;
  }
  if (value.length > JE_NUMBER_MAX) {
    return { ok: false, message: `je_number is longer than ${JE_NUMBER_MAX} characters` };
  }
  return { ok: true, value, seq };
}

/** The number after a sequence number, exactly (past 2^53 in bigint). */
export function nextSeq(seq: JeSeq): JeSeq {
  return typeof seq === 'number' && seq < Number.MAX_SAFE_INTEGER ? seq + 1 : BigInt(seq) + 1n;
}

/** A sequence number as SQLite returned it (bigint when read with safe integers) in its usual form. */
export function seqOf(v: number | bigint | null): JeSeq {
  if (v === null) return 0;
  return typeof v === 'bigint' && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
}

/** Where an entry's JE-n sits in the numbering: the n that counts, or the n that is only taken. */
export interface NumberedEntry {
  je_number: string;
  /** n of JE-n when it moves the automatic numbering (automatic numbers, and callers' up to 2^62). */
  counted: JeSeq | null;
  /** n of JE-n when it is taken without moving it (numbers from files, callers' beyond 2^62). */
  uncounted: JeSeq | null;
}

/**
 * The numbering of entries as one writer assigns them: automatic numbers go on from the largest
 * number that counts, and pass over every number already taken, whatever callers chose, so that
 * numbering never collides and never stops. A number a caller gives through the API or the CLI
 * counts (docs/api.md, "Decisions": JE-(largest n + 1)) up to 2^62; a number from an imported file is kept but
 * never steers the next one (a QuickBooks "Journal No." 5001 does not make the next entry JE-5002).
 */
export class JeNumbering {
  /** Numbers above `last` that entries numbered here took without counting (a file's own). */
  private readonly own = new Set<string>();
  private readonly first: JeSeq;
  /** The store's smallest taken number at or above `obstacleFrom` (null: none), asked again past it. */
  private obstacle: JeSeq | null = null;
  private obstacleFrom: JeSeq | null = null;

  /**
   * @param last the largest n that counts so far
   * @param nextTaken the smallest n at or above `from` that an entry took without counting (the
   *   store's index answers it): automatic numbers pass over it. Asked only when numbering reaches
   *   past the last answer, so that a ledger holding many such numbers costs a post nothing.
   */
  constructor(
    private last: JeSeq,
    private readonly nextTaken: (from: JeSeq) => JeSeq | null,
  ) {
    this.first = last;
  }

  /**
   * True when this numbering has given the number away (or passed over it as taken): every n from
   * the first `last` to the current one.
   */
  used(seq: JeSeq): boolean {
    return seq > this.first && seq <= this.last;
  }

  /** True for a number this numbering gave automatically (not one it passed over as taken). */
  gave(seq: JeSeq): boolean {
    return this.used(seq) && !this.own.has(String(seq)) && !this.takenInStore(seq);
  }

  /** The number the next automatic entry would get, without taking it (a dry run's). */
  peek(): string {
    return `JE-${this.free()}`;
  }

  /** Numbers an entry: its own number (counted or not), or the next free automatic one. */
  assign(number: string | null, seq: JeSeq | null, fromFile: boolean): NumberedEntry {
    if (number === null) {
      const n = this.free();
      this.last = n;
      return { je_number: `JE-${n}`, counted: n, uncounted: null };
    }
    if (seq === null) return { je_number: number, counted: null, uncounted: null };
    if (fromFile || BigInt(seq) > MAX_COUNTED_SEQ) {
      if (seq > this.last) this.own.add(String(seq));
      return { je_number: number, counted: null, uncounted: seq };
    }
    if (seq > this.last) this.last = seq;
    return { je_number: number, counted: seq, uncounted: null };
  }

  private free(): JeSeq {
    let n = nextSeq(this.last);
    while (this.own.has(String(n)) || this.takenInStore(n)) n = nextSeq(n);
    return n;
  }

  /** Whether the store holds n as a number that does not count (its answers kept until passed). */
  private takenInStore(n: JeSeq): boolean {
    const known =
      this.obstacleFrom !== null &&
      this.obstacleFrom <= n &&
      (this.obstacle === null || this.obstacle >= n);
    if (!known) {
      this.obstacle = this.nextTaken(n);
      this.obstacleFrom = n;
    }
    return this.obstacle !== null && BigInt(this.obstacle) === BigInt(n);
  }
}

/**
 * What is wrong with how an entry's JE-n is kept for numbering, or null: its n must sit in exactly
 * one of the two places (counted up to 2^62, or taken without counting), and nowhere for a number
 * that is not JE-n. Automatic numbering relies on it to pass over taken numbers (books check).
 */
export function numberingProblem(
  jeNumber: string,
  counted: bigint | null,
  uncounted: bigint | null,
): string | null {
  const m = /^JE-(0|[1-9]\d*)$/.exec(jeNumber);
  const n = m && BigInt(m[1]!) <= MAX_STORED_SEQ ? BigInt(m[1]!) : null;
  const kept = counted ?? uncounted;
  if (n === null) {
    return kept === null ? null : `${jeNumber} is kept for numbering as ${kept}, but is not JE-n`;
  }
  if (counted !== null && uncounted !== null)
    return `${jeNumber} is kept for numbering twice (${counted} and ${uncounted})`;
  if (kept !== n) {
    const as = kept === null ? 'not at all' : `as ${kept}`;
    return `${jeNumber} is kept for numbering ${as}: automatic numbering could give it again`;
  }
  return null;
}
