import type { GlAccount } from '../domain/accounts.js';
import type { Problem } from '../domain/errors.js';
import { accountIndex } from '../domain/input.js';
import type { CsvRecord, CsvSpec } from './csv.js';
import { TAG_KEY } from '../domain/tags.js';

export const ENTRY_COLUMNS = [
  'entry',
  'je_number',
  'entry_date',
  'gl_account_id',
  'line_type',
  'amount',
  'amount_atoms',
  'debit',
  'credit',
  'currency',
  'memo',
  'line_memo',
  'counterparty_type',
  'counterparty_external_id',
  'is_adjusting',
  'manual_entry_reason',
  'auto_reverse_on',
  'fx_currency',
  'fx_amount',
  'fx_rate',
] as const;

/** Columns whose value belongs to the entry, not the line: they must agree across a group's rows. */
export const ENTRY_LEVEL = [
  'entry_date',
  'je_number',
  'currency',
  'memo',
  'is_adjusting',
  'manual_entry_reason',
  'auto_reverse_on',
] as const;

export type AmountForm = 'line_type+amount' | 'line_type+amount_atoms' | 'debit/credit';

/** Reads the header's columns: which amount form and grouping column the file uses. Problems name row 1. */
export function entryFileShape(
  header: string[],
  file: string,
): { form: AmountForm; groupBy: 'entry' | 'je_number' } | Problem[] {
  const has = (c: string) => header.includes(c);
  const problems: Problem[] = [];
  const forms: AmountForm[] = [];
  if (has('debit') || has('credit')) forms.push('debit/credit');
  if (has('amount')) forms.push('line_type+amount');
  if (has('amount_atoms')) forms.push('line_type+amount_atoms');
  const bad = (path: string, message: string) =>
    problems.push({ file, row: 1, path, reason: 'invalid_header', message, code: 'invalid_input' });
  if (forms.length !== 1)
    bad(
      'amount',
      forms.length
        ? `the header mixes amount forms (${forms.join(', ')}); use one`
        : 'the header needs an amount form: line_type + amount, line_type + amount_atoms, or debit and credit',
    );
  const form = forms[0];
  if (form === 'debit/credit' && !(has('debit') && has('credit')))
    bad(
      has('debit') ? 'credit' : 'debit',
      'the debit/credit form needs both a debit and a credit column',
    );
  if (form === 'debit/credit' && has('line_type'))
    bad('line_type', 'line_type does not go with debit and credit columns');
  if (form && form !== 'debit/credit' && !has('line_type'))
    bad('line_type', `the ${form.split('+')[1]} column needs a line_type column`);
  if (!has('entry') && !has('je_number'))
    bad('entry', 'the header needs an entry (or je_number) column to group rows into entries');
  if (problems.length) return problems;
  return { form: form!, groupBy: has('entry') ? 'entry' : 'je_number' };
}

export const entryCsvSpec = (file: string, delimiter: string): CsvSpec => ({
  file,
  delimiter,
  columns: ENTRY_COLUMNS,
  required: ['entry_date', 'gl_account_id'],
  family: TAG_COLUMN,
});

/** A tag's column: `tag:KEY` (docs/close.md, "Tags"). */
export const TAG_COLUMN = /^tag:/;
/**
 * The column a preset's reading writes a row's tags in, as JSON (read from another system's
 * comments); no file's header can name it.
 */
export const TAGS_COLUMN = '\u0000tags';

export type Column = (typeof ENTRY_COLUMNS)[number];
type Shape = { form: AmountForm; groupBy: 'entry' | 'je_number' };

/** Where each column sits in the file (-1 when absent), worked out once from the header. */
export interface Layout extends Shape {
  at: Record<Column, number>;
  /** Entry-level columns the file has, with their positions. */
  level: [(typeof ENTRY_LEVEL)[number], number][];
  file: string;
  currency: string;
  resolve: (ref: string) => string | undefined;
  /** The tag columns: each key with its position. */
  tags: [string, number][];
  /** Where a preset's reading wrote each row's tags (JSON), or -1. */
  tagsAt: number;
}

/** A cell of a record by position, '' where the file has no such column. */
export const cell = (r: CsvRecord, i: number): string => (i < 0 ? '' : (r.cells[i] ?? ''));

/** The layout of a file from its header (lower-cased names), or the header's problems (row 1). */
export function layoutOf(
  header: string[],
  opts: { file: string; accounts: GlAccount[]; currency: string },
): Layout | Problem[] {
  const shape = entryFileShape(header, opts.file);
  if (Array.isArray(shape)) return shape;
  const tags: [string, number][] = [];
  const problems: Problem[] = [];
  header.forEach((h, i) => {
    if (!TAG_COLUMN.test(h)) return;
    const key = h.slice(4);
    if (TAG_KEY.test(key)) tags.push([key, i]);
    else
      problems.push({
        file: opts.file,
        row: 1,
        path: h,
        reason: 'invalid_tag',
        message:
          `'${key}' is not a tag key (lower-case letters, digits, '_' or '-', starting with a ` +
          'letter, at most 32)',
        code: 'invalid_input',
      });
  });
  if (problems.length) return problems;
  const at = Object.fromEntries(ENTRY_COLUMNS.map((c) => [c, header.indexOf(c)])) as Record<
    Column,
    number
  >;
  const level = ENTRY_LEVEL.filter(
    (c) => at[c] >= 0 && !(shape.groupBy === 'je_number' && c === 'je_number'),
  ).map((c) => [c, at[c]] as [(typeof ENTRY_LEVEL)[number], number]);
  const index = accountIndex(opts.accounts);
  const resolve = (ref: string) => index.get(ref)?.external_id;
  const tagsAt = header.indexOf(TAGS_COLUMN);
  return { ...shape, at, level, file: opts.file, currency: opts.currency, resolve, tags, tagsAt };
}
