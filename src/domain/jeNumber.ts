export const JE_NUMBER_MAX = 64;

/** A JE-n sequence number: a number while it is exact as one, a bigint beyond. */
export type JeSeq = number | bigint;

/**
 * The largest n of a caller's JE-n that moves the automatic numbering. Larger numbers are kept as
 * given but do not count, so that numbering always has room to go on (2^62 more entries) and never
 * leaves SQLite's 64-bit integers: no number a caller gives can stop it.
 */
export const MAX_COUNTED_SEQ = 2n ** 62n;

export type JeNumber =
  | { ok: true; value: string; /** n of JE-n when it moves auto-numbering */ seq: JeSeq | null }
  | { ok: false; message: string };

/**
 * Normalises a caller's journal-entry number: trim, collapse inner white space, upper-case;
 * `JE`, optional `-` or space, digits (or bare digits) become `JE-<n>` without leading zeros.
 */
export function normaliseJeNumber(raw: string): JeNumber {
  const v = raw.trim().replace(/\s+/g, ' ').toUpperCase();
  if (!v) return { ok: false, message: 'je_number is empty' };
  const m = /^(?:JE[- ]?)?(\d+)$/.exec(v);
  let value = v;
  let seq: JeSeq | null = null;
  if (m) {
    const digits = m[1]!.replace(/^0+(?=\d)/, '');
    value = `JE-${digits}`;
    seq =
      digits.length <= 15
        ? Number(digits)
        : BigInt(digits) <= MAX_COUNTED_SEQ
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
