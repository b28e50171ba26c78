import { DATE_ORDERS, type DateOrder } from '../domain/dates.js';
import { BooksError } from '../domain/errors.js';

/** The fields a source column can be read as (`--map SOURCE=FIELD`), beyond the native columns. */
export const FIELDS = [
  'entry',
  'entry_date',
  'gl_account_id',
  'amount',
  'debit',
  'credit',
  'line_type',
  'memo',
  'line_memo',
  'counterparty_type',
  'counterparty_external_id',
  'counterparty_name',
  'je_number',
  'is_adjusting',
  'currency',
  'signed_amount',
  'manual_entry_reason',
  'amount_atoms',
  'auto_reverse_on',
] as const;
export type Field = (typeof FIELDS)[number];

export { DATE_ORDERS, type DateOrder } from '../domain/dates.js';

/**
 * How another system writes its journal: which of its columns are which field, which it writes that
 * books has no place for (read and ignored, said in the summary), how its rows group into entries,
 * and the order of its dates. Presets are data; one reader serves them all.
 */
export interface Preset {
  /** Source column (as normalised by `columnKey`) → field. */
  columns: Record<string, Field>;
  /** Source columns read and ignored. */
  ignored: readonly string[];
  /** Columns of tax rates or codes: any but a no-tax one is refused (its tax lines would be lost). */
  taxRates?: readonly string[];
  /**
   * `column`: rows with the same `entry` value, contiguous (as the native format). `consecutive`:
   * a new entry where the key columns change; with `continues`, a row whose keys are blank belongs
   * to the entry above.
   */
  grouping:
    | {
        kind: 'column';
        /**
         * Rows whose grouping number is blank form entries by these fields instead, consecutive
         * rows alike (QuickBooks groups a journal without a Journal No. by date and memo).
         */
        blank?: Field[];
      }
    | { kind: 'consecutive'; keys: Field[]; continues: boolean };
  dates: DateOrder;
  /**
   * Comments carry tags as books export hledger writes them: a posting's (`customer: C001, memo:
   * text`) in the line memo, the transaction's (`je`, `memo`, `reason`, `adjusting`) in this column;
   * and account names are first read as that export names the ledger's accounts.
   */
  tags?: { entryColumn: string };
}

/** A header cell as presets name it: case, surrounding spaces, a leading `*` and inner runs of spaces aside. */
export function columnKey(header: string): string {
  return header.trim().replace(/^\*/, '').replace(/\s+/g, ' ').toLowerCase();
}

const range = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`);

export const PRESETS: Record<string, Preset> = {
  xero: {
    columns: {
      narration: 'memo',
      date: 'entry_date',
      description: 'line_memo',
      accountcode: 'gl_account_id',
      amount: 'signed_amount',
    },
    ignored: ['taxrate', ...range('trackingname', 2), ...range('trackingoption', 2)],
    taxRates: ['taxrate'],
    grouping: { kind: 'consecutive', keys: ['memo', 'entry_date'], continues: true },
    dates: 'DMY',
  },
  qbo: {
    columns: {
      'journal no.': 'je_number',
      journalno: 'je_number',
      'journal date': 'entry_date',
      journaldate: 'entry_date',
      'account name': 'gl_account_id',
      accountname: 'gl_account_id',
      account: 'gl_account_id',
      description: 'line_memo',
      debits: 'debit',
      debit: 'debit',
      credits: 'credit',
      credit: 'credit',
      name: 'counterparty_name',
      memo: 'memo',
      currency: 'currency',
      'is adjusting journal entry': 'is_adjusting',
      'is adjusting journal entry?': 'is_adjusting',
    },
    ignored: [
      'class',
      'location',
      'tax code',
      'tax amount',
      'tax rate',
      'sales tax',
      'exchange rate',
    ],
    taxRates: ['tax rate', 'tax code'],
    grouping: { kind: 'column', blank: ['entry_date', 'memo'] },
    dates: 'MDY',
  },
  sage: {
    columns: {
      reference: 'entry',
      date: 'entry_date',
      description: 'memo',
      'ledger account number': 'gl_account_id',
      details: 'line_memo',
      debit: 'debit',
      credit: 'credit',
    },
    ignored: ['tax rate', 'tax amount'],
    taxRates: ['tax rate'],
    grouping: { kind: 'consecutive', keys: ['entry'], continues: false },
    dates: 'MDY',
  },
  hledger: {
    columns: {
      txnidx: 'entry',
      date: 'entry_date',
      description: 'memo',
      code: 'je_number',
      account: 'gl_account_id',
      amount: 'signed_amount',
      commodity: 'currency',
      'posting-comment': 'line_memo',
    },
    ignored: ['date2', 'status', 'credit', 'debit', 'posting-status'],
    grouping: { kind: 'column' },
    dates: 'ISO',
    tags: { entryColumn: 'comment' },
  },
};

/** A rate that adds no tax: a line posted without tax lines loses nothing. */
export function noTax(rate: string): boolean {
  const r = rate.trim().toLowerCase();
  return (
    r === '' ||
    [
      'tax exempt',
      'no gst',
      'no vat',
      'bas excluded',
      'exempt',
      'no tax',
      'out of scope',
      'non',
    ].includes(r)
  );
}

/** The reading of a file that the flags ask for: a preset, then --map, --date-format, --decimal-comma. */
export interface Reading {
  preset: string | null;
  columns: Record<string, Field | null>;
  ignored: Set<string>;
  taxRates: ReadonlySet<string>;
  grouping: Preset['grouping'];
  dates: DateOrder | null;
  decimalComma: boolean;
  tags: Preset['tags'] | null;
}

/** Reads `--map SOURCE=FIELD` (or `SOURCE=-` to ignore) flags; a bad one is a usage error naming it. */
export function readingOf(flags: {
  preset?: string | undefined;
  map: string[];
  dateFormat?: string | undefined;
  decimalComma: boolean;
}): Reading | null {
  const { preset, map, dateFormat, decimalComma } = flags;
  if (!preset && map.length === 0 && !dateFormat && !decimalComma) return null;
  const base = preset ? PRESETS[preset] : undefined;
  if (preset && !base)
    throw new BooksError(
      'usage',
      `--preset: '${preset}' is not one of ${Object.keys(PRESETS).join(', ')}`,
    );
  const columns: Record<string, Field | null> = { ...(base?.columns ?? {}) };
  for (const m of map) {
    const eq = m.lastIndexOf('=');
    const [source, field] = eq > 0 ? [m.slice(0, eq), m.slice(eq + 1).trim()] : ['', ''];
    if (!source.trim() || (field !== '-' && !FIELDS.includes(field as Field)))
      throw new BooksError(
        'usage',
        `--map: '${m}' is not SOURCE=FIELD (a field of ${FIELDS.join(', ')}) or SOURCE=-`,
      );
    columns[columnKey(source)] = field === '-' ? null : (field as Field);
  }
  let dates: DateOrder | null = base?.dates ?? null;
  if (dateFormat !== undefined) {
    if (!DATE_ORDERS.includes(dateFormat.toUpperCase() as DateOrder))
      throw new BooksError(
        'usage',
        `--date-format: '${dateFormat}' is not one of ${DATE_ORDERS.join(', ')}`,
      );
    dates = dateFormat.toUpperCase() as DateOrder;
  }
  return {
    preset: preset ?? null,
    columns,
    ignored: new Set(base?.ignored ?? []),
    taxRates: new Set(base?.taxRates ?? []),
    grouping: base?.grouping ?? { kind: 'column' },
    dates,
    decimalComma,
    tags: base?.tags ?? null,
  };
}
