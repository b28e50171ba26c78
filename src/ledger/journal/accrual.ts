import type { ValidEntry } from '../../domain/entry.js';
import { autoReversalOf } from '../../domain/posting.js';
import type { EntryMeta } from './store.js';

/**
 * The two writes of an accrual that reverses itself (`auto_reverse_on`), as a post and an import
 * both make them: the accrual, marked reversed; then, once it has its number and place, its
 * reversal on the reversal date, linked to it as a reversal is, under no key or fingerprint of its
 * own (the accrual's name it).
 */
export function accrualWrites(
  entry: ValidEntry,
  meta: EntryMeta,
): {
  meta: EntryMeta;
  reversal(accrual: { je_number: string; seq: number | null; id: string }): {
    entry: ValidEntry;
    meta: EntryMeta;
  };
} {
  return {
    meta: { ...meta, status: 'reversed' },
    reversal: (accrual) => ({
      entry: autoReversalOf(entry, accrual.je_number),
      meta: {
        source: meta.source,
        fingerprint: null,
        originalSeq: accrual.seq,
        originalId: accrual.id,
      },
    }),
  };
}
