export const JE_NUMBER_MAX = 64;

export type JeNumber =
  | {
      ok: true;
      value: string;
      /** n of JE-n when it is a safe integer, for auto-numbering */ seq: number | null;
    }
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
  let seq: number | null = null;
  if (m) {
    const digits = m[1]!.replace(/^0+(?=\d)/, '');
    value = `JE-${digits}`;
    const n = Number(digits);
    seq = Number.isSafeInteger(n) ? n : null;
  }
  if (value.length > JE_NUMBER_MAX) {
    return { ok: false, message: `je_number is longer than ${JE_NUMBER_MAX} characters` };
  }
  return { ok: true, value, seq };
}
