import type { JournalEntry } from '../../domain/entry.js';
import { amountText } from '../audit/recording.js';
import type { StoredEntry } from './store.js';

/** The event of a post: the entry (and an accrual's reversal) by id and number, and what it is. */
export function postedEvent(e: JournalEntry): [string, string[], string] {
  const reversal = e.reversed_by_journal_entry_ids[0];
  return [
    'entry.posted',
    [e.id, e.je_number, ...(reversal ? [reversal] : [])],
    `${e.je_number} posted: ${e.entry_date}, ${amountText(e.total_debit_atoms, e.currency)}, ` +
      `${e.lines.length} lines${e.memo ? `, "${e.memo}"` : ''}${reversal ? ', with its reversal' : ''}`,
  ];
}

/** The event of a reversal: the original and the reversing entry. */
export function reversedEvent(
  original: StoredEntry,
  reversal: JournalEntry,
): [string, string[], string] {
  return [
    'entry.reversed',
    [original.id, original.je_number, reversal.id, reversal.je_number],
    `${original.je_number} reversed by ${reversal.je_number} on ${reversal.entry_date}`,
  ];
}
