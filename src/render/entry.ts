import type { JournalEntry } from '../domain/entry.js';
import type { LineStates } from '../ledger/port.js';
import { exponentOf, formatAmount } from '../domain/money.js';
import { grid } from './table.js';
import { cell } from './text.js';

/**
 * An entry as a bookkeeper reads it: header facts, then its lines in debit and credit columns. Linked
 * entries are named by their JE numbers, given in `numbers` by id (an id not there is shown as is).
 */
export function entryText(
  e: JournalEntry,
  exponent: number,
  heading = '',
  numbers: ReadonlyMap<string, string> = new Map(),
  states: LineStates = {},
): string {
  // The state column is shown once a line of the entry is cleared in a bank reconciliation.
  const stated = e.lines.some((l) => states[l.id]);
  const named = (id: string) => cell(numbers.get(id) ?? id);
  const facts = [
    `${heading}${cell(e.je_number)}${e.id ? ` (${e.id})` : ''}  ${e.entry_date}  ${e.status}` +
      `${e.is_adjusting ? '  adjusting' : ''}`,
    e.memo ? `memo: ${cell(e.memo)}` : null,
    e.manual_entry_reason ? `reason: ${cell(e.manual_entry_reason)}` : null,
    Object.keys(e.tags).length ? `tags: ${cell(tagText(e.tags))}` : null,
    e.original_journal_entry_id
      ? `reverses: ${named(e.original_journal_entry_id)} (${e.original_journal_entry_date})`
      : null,
    e.reversed_by_journal_entry_ids.length
      ? `reversed by: ${e.reversed_by_journal_entry_ids.map(named).join(', ')}`
      : null,
  ].filter((x): x is string => x !== null);
  // A foreign line's own amount and rate, in a column only an entry with one has.
  const foreign = e.lines.some((l) => l.fx);
  const fxText = (l: JournalEntry['lines'][number]) =>
    l.fx
      ? `${l.fx.currency} ${formatAmount(l.fx.amount_atoms, exponentOf(l.fx.currency))} @ ${l.fx.rate}`
      : '';
  // A line's own tags (beyond the entry's), in a column only an entry with some has.
  const tagged = e.lines.some((l) => l.tags);
  // Line numbers as `reconcile --line JE-12:2` takes them.
  const rows = e.lines.map((l, i) => [
    String(i + 1),
    l.account_number ?? '',
    l.account_name,
    l.line_type === 'debit' ? formatAmount(l.amount_atoms, exponent) : '',
    l.line_type === 'credit' ? formatAmount(l.amount_atoms, exponent) : '',
    ...(foreign ? [fxText(l)] : []),
    l.counterparty_external_id ? `${l.counterparty_type}:${l.counterparty_external_id}` : '',
    l.memo ?? '',
    ...(stated ? [states[l.id]?.state ?? ''] : []),
    ...(tagged ? [cell(tagText(l.tags ?? {}))] : []),
  ]);
  rows.push([
    '',
    '',
    'Total',
    formatAmount(e.total_debit_atoms, exponent),
    formatAmount(e.total_credit_atoms, exponent),
    ...(foreign ? [''] : []),
    '',
    '',
    ...(stated ? [''] : []),
    ...(tagged ? [''] : []),
  ]);
  return (
    facts.join('\n') +
    '\n' +
    grid(
      [
        'Line',
        'Account',
        'Name',
        'Debit',
        'Credit',
        ...(foreign ? ['Foreign'] : []),
        'Counterparty',
        'Memo',
        ...(stated ? ['State'] : []),
        ...(tagged ? ['Tags'] : []),
      ],
      rows,
      ['right', 'left', 'left', 'right', 'right', ...(foreign ? ['right' as const] : [])],
    )
  );
}

/** Tags as typed: `location=nyc project=alpha`. */
const tagText = (t: Record<string, string>) =>
  Object.entries(t)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
