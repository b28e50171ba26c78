import type { Counterparty, GlAccount } from '../domain/accounts.js';
import type { JournalEntry } from '../domain/entry.js';
import { convert, parseRate, rateOf } from '../domain/fx.js';
import { atomsToDecimal, exponentOf } from '../domain/money.js';
import { csvField, csvLine } from './csv.js';
import { tagOf, type Tags } from '../domain/tags.js';

/**
 * The import formats, written exactly (no spreadsheet guard: these files are meant to be imported
 * again and must round-trip byte for byte in their values).
 */

export const JOURNAL_COLUMNS = [
  'entry',
  'je_number',
  'entry_date',
  'memo',
  'is_adjusting',
  'manual_entry_reason',
  'currency',
  'gl_account_id',
  'debit',
  'credit',
  'line_memo',
  'counterparty_type',
  'counterparty_external_id',
];

/** The columns of a line's foreign-currency snapshot, after the others. */
export const FX_JOURNAL_COLUMNS = ['fx_currency', 'fx_amount', 'fx_rate'];

/**
 * An entry as rows of `books je import`'s CSV: one per line, grouped by its JE number; with `fx`, the
 * snapshot's columns too. A rate is written where it gives the functional amount back; one the
 * amounts implied (and that, rounded to 10 digits, may not) is left for the import to imply again.
 */
export function journalRows(
  e: JournalEntry,
  externalId: (accountId: string) => string,
  exponent: number,
  fx = false,
  tagKeys: readonly string[] = [],
): string {
  // The entry's own cells are the same on each of its rows: made once.
  const n = csvField(e.je_number);
  const reason = csvField(e.manual_entry_reason ?? '');
  const head = `${n},${n},${e.entry_date},${csvField(e.memo ?? '')},${e.is_adjusting},${reason},${e.currency}`;
  let out = '';
  for (const l of e.lines) {
    const amount = atomsToDecimal(l.amount_atoms, exponent);
    const [debit, credit] = l.line_type === 'debit' ? [amount, ''] : ['', amount];
    const party = `${l.counterparty_type ?? ''},${csvField(l.counterparty_external_id ?? '')}`;
    const snapshot = fx ? fxCells(l, e.currency) : '';
    const account = csvField(externalId(l.account_id));
    const tags = tagKeys.length ? tagCells(e.tags, l.tags, tagKeys) : '';
    out += `${head},${account},${debit},${credit},${csvField(l.memo ?? '')},${party}${snapshot}${tags}\n`;
  }
  return out;
}

/** A line's effective tags in the file's `tag:KEY` columns (blank where it has none). */
function tagCells(entry: Tags, own: Tags | undefined, keys: readonly string[]): string {
  const tags = { ...entry, ...own };
  return keys.map((k) => `,${csvField(tagOf(tags, k) ?? '')}`).join('');
}

function fxCells(l: JournalEntry['lines'][number], functional: string): string {
  if (!l.fx) return ',,,';
  const { currency, amount_atoms, rate } = l.fx;
  const amount = atomsToDecimal(amount_atoms, exponentOf(currency));
  const exact =
    amount_atoms > 0 &&
    parseRate(rate).ok &&
    convert(amount_atoms, rateOf(rate), currency, functional) === BigInt(l.amount_atoms);
  return `,${currency},${amount},${exact ? rate : ''}`;
}

/** The chart in `books accounts import`'s format. */
export function accountsCsv(accounts: GlAccount[]): string {
  const byId = new Map(accounts.map((a) => [a.id, a]));
  // The monetary column where the chart set it: a chart that never did writes the file it always did.
  const monetary = accounts.some((a) => a.monetary !== undefined);
  const cashFlow = accounts.some((a) => a.cash_flow !== undefined);
  const head =
    'external_id,account_number,name,account_type,parent_external_id,is_postable,is_active,currency' +
    (monetary ? ',monetary' : '') +
    (cashFlow ? ',cash_flow' : '');
  const rows = accounts.map((a) =>
    csvLine([
      a.external_id,
      a.account_number ?? '',
      a.name,
      a.account_type,
      a.parent_id ? (byId.get(a.parent_id)?.external_id ?? '') : '',
      String(a.is_postable),
      String(a.is_active),
      a.currency ?? '',
      ...(monetary ? [a.monetary === undefined ? '' : String(a.monetary)] : []),
      ...(cashFlow ? [a.cash_flow ?? ''] : []),
    ]),
  );
  return [head, ...rows].join('\n') + '\n';
}

/** Counterparties in `books counterparties import`'s format. */
export function counterpartiesCsv(list: Counterparty[]): string {
  const rows = list.map((c) =>
    csvLine([c.counterparty_type, c.external_id, c.name, String(c.is_active)]),
  );
  return ['counterparty_type,external_id,name,is_active', ...rows].join('\n') + '\n';
}
