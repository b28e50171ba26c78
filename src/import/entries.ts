import { hash } from 'node:crypto';
import type { GlAccount } from '../domain/accounts.js';
import { parseBool } from '../domain/chart.js';
import { isIsoDate } from '../domain/dates.js';
import type { Problem } from '../domain/errors.js';
import { normaliseJeNumber } from '../domain/jeNumber.js';
import { currencyExponent, MAX_ATOMS, parseDecimal, plainDecimalAtoms } from '../domain/money.js';
import type { CsvBatch, CsvRecord, CsvSpec } from './csv.js';
import { base64urlKey, KeyTable, textKey } from './keyTable.js';

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
] as const;

/** Columns whose value belongs to the entry, not the line: they must agree across a group's rows. */
const ENTRY_LEVEL = [
  'entry_date',
  'je_number',
  'currency',
  'memo',
  'is_adjusting',
  'manual_entry_reason',
] as const;

export type AmountForm = 'line_type+amount' | 'line_type+amount_atoms' | 'debit/credit';

/** One entry of the file: the request body it stands for, where its lines came from, and its fingerprint. */
export interface DraftEntry {
  /** Row of the group's first line. */
  row: number;
  /** Row of each line, in order. */
  lineRows: number[];
  body: Record<string, unknown>;
  /** Problems found in the rows themselves (cells that cannot become a body). */
  problems: Problem[];
  /** Stable identity: normalised content plus occurrence among identical entries in the file. */
  fingerprint: string;
  /** The file's amount form, to name the right column in problems. */
  form: AmountForm;
}

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
});

type Column = (typeof ENTRY_COLUMNS)[number];
type Shape = { form: AmountForm; groupBy: 'entry' | 'je_number' };

/** Where each column sits in the file (-1 when absent), worked out once from the header. */
interface Layout extends Shape {
  at: Record<Column, number>;
  /** Entry-level columns the file has, with their positions. */
  level: [(typeof ENTRY_LEVEL)[number], number][];
  file: string;
  currency: string;
  resolve: (ref: string) => string | undefined;
}

const NO_PROBLEMS: Problem[] = Object.freeze([]) as unknown as Problem[];

const cell = (r: CsvRecord, i: number): string => (i < 0 ? '' : (r.cells[i] ?? ''));

/**
 * Groups CSV rows into draft entries, contiguously by `entry` (or `je_number`); checks each cell that
 * must be turned into the body (dates, decimals, booleans, agreement of entry-level values) and names
 * its row and column. Entry rules themselves are left to the ledger's validation.
 */
export async function* groupEntries(
  batches: AsyncIterable<CsvBatch>,
  opts: { file: string; accounts: GlAccount[]; currency: string },
): AsyncGenerator<DraftEntry[] | { fatal: Problem[] }> {
  const byExt = new Map(opts.accounts.map((a) => [a.external_id, a.external_id]));
  const byNumber = new Map(
    opts.accounts.filter((a) => a.account_number).map((a) => [a.account_number!, a.external_id]),
  );
  const resolve = (ref: string) => byExt.get(ref) ?? byNumber.get(ref);
  // Every group key that ended (with its last row), and every content seen (with its count).
  const ended = new KeyTable();
  const occurrences = new KeyTable();
  const key128 = new Int32Array(4);
  let layout: Layout | null = null;
  let current: { key: string; records: CsvRecord[] } | null = null;

  const finish = (g: { key: string; records: CsvRecord[] }, l: Layout): DraftEntry => {
    const d = toDraft(g.records, l);
    // 24 characters of the SHA-256 of the body's JSON: toDraft builds bodies field by field in a fixed
    // order, so equal content gives equal JSON.
    const content = hash('sha256', JSON.stringify(d.body), 'base64url').slice(0, 24);
    const n = occurrences.get(base64urlKey(content, key128)) + 1;
    occurrences.set(key128, n);
    // The date leads so that a date-ordered file writes the fingerprint index in order.
    d.fingerprint = `${String(d.body.entry_date)}:${content}.${n}`;
    ended.set(textKey(g.key, key128), g.records[g.records.length - 1]!.row);
    return d;
  };

  for await (const { header, records } of batches) {
    if (layout === null) {
      const shape = entryFileShape(header, opts.file);
      if (Array.isArray(shape)) {
        yield { fatal: shape };
        return;
      }
      const at = Object.fromEntries(ENTRY_COLUMNS.map((c) => [c, header.indexOf(c)])) as Record<
        Column,
        number
      >;
      const level = ENTRY_LEVEL.filter(
        (c) => at[c] >= 0 && !(shape.groupBy === 'je_number' && c === 'je_number'),
      ).map((c) => [c, at[c]] as [(typeof ENTRY_LEVEL)[number], number]);
      layout = { ...shape, at, level, file: opts.file, currency: opts.currency, resolve };
    }
    const l = layout;
    const groupAt = l.at[l.groupBy];
    const done: DraftEntry[] = [];
    for (const rec of records) {
      const key = cell(rec, groupAt).trim();
      const groupKey = l.groupBy === 'je_number' ? normaliseOrRaw(key) : key;
      if (current && current.key === groupKey) {
        current.records.push(rec);
        continue;
      }
      if (current) done.push(finish(current, l));
      current = { key: groupKey, records: [rec] };
      if (!key)
        (rec.problems ??= []).push({
          file: l.file,
          row: rec.row,
          path: l.groupBy,
          reason: 'missing_field',
          message: `${l.groupBy} is blank; it groups rows into entries`,
          code: 'invalid_input',
        });
      const endedAt = key ? ended.get(textKey(groupKey, key128)) : 0;
      if (endedAt !== 0) {
        (rec.problems ??= []).push({
          file: l.file,
          row: rec.row,
          path: l.groupBy,
          reason: 'group_not_contiguous',
          code: 'invalid_input',
          message: `${l.groupBy} '${key}' comes back on row ${rec.row} after its rows ended on row ${endedAt}; a group's rows must be contiguous`,
        });
      }
    }
    if (done.length) yield done;
  }
  if (current && layout) yield [finish(current, layout)];
}

function normaliseOrRaw(v: string): string {
  const n = normaliseJeNumber(v);
  return n.ok ? n.value : v;
}

/** A problem of a cell, in the shape every import problem takes. */
function problem(
  file: string,
  row: number,
  path: string,
  reason: string,
  message: string,
  code = 'CAPI33',
): Problem {
  return { file, row, path, reason, message, code };
}

function toDraft(records: CsvRecord[], l: Layout): DraftEntry {
  const first = records[0]!;
  const file = l.file;
  let problems = NO_PROBLEMS;
  const add = (row: number, path: string, reason: string, message: string, code?: string) => {
    if (problems === NO_PROBLEMS) problems = [];
    problems.push(problem(file, row, path, reason, message, code));
  };
  for (const r of records) {
    if (!r.problems) continue;
    if (problems === NO_PROBLEMS) problems = [];
    problems.push(...r.problems);
  }

  // Entry-level values: the first non-blank wins; a different non-blank value later is an error.
  const level: Partial<Record<(typeof ENTRY_LEVEL)[number], { value: string; row: number }>> = {};
  for (const r of records) {
    for (const [col, i] of l.level) {
      const v = cell(r, i).trim();
      if (v === '') continue;
      const seen = level[col];
      if (!seen) level[col] = { value: v, row: r.row };
      else if (seen.value !== v) {
        if (col === 'currency')
          add(
            r.row,
            col,
            'mixed_currency',
            `currency ${v} differs from ${seen.value} on row ${seen.row}; an entry has one currency`,
          );
        else
          add(
            r.row,
            col,
            'entry_values_disagree',
            `'${v}' differs from '${seen.value}' on row ${seen.row}; entry-level values must agree across the entry's rows (or be blank after the first)`,
            'invalid_input',
          );
      }
    }
  }
  const body: Record<string, unknown> = {};
  const entryDate = level.entry_date?.value ?? '';
  if (!entryDate) add(first.row, 'entry_date', 'missing_field', 'entry_date is required');
  else if (!isIsoDate(entryDate))
    add(
      level.entry_date!.row,
      'entry_date',
      'invalid_date',
      `'${entryDate}' is not a date (YYYY-MM-DD)`,
    );
  body.entry_date = entryDate;
  const currency = level.currency?.value.toUpperCase();
  if (currency) body.currency = currency;
  const exponent = currencyExponent(currency ?? l.currency) ?? currencyExponent(l.currency) ?? 2;
  const jeNumber =
    l.groupBy === 'je_number' ? cell(first, l.at.je_number).trim() : level.je_number?.value;
  if (jeNumber) body.je_number = jeNumber;
  if (level.memo) body.memo = level.memo.value;
  if (level.manual_entry_reason) body.manual_entry_reason = level.manual_entry_reason.value;
  if (level.is_adjusting) {
    const b = parseBool(level.is_adjusting.value, false);
    if (b === null)
      add(
        level.is_adjusting.row,
        'is_adjusting',
        'invalid_type',
        `'${level.is_adjusting.value}' is not true or false`,
      );
    else if (b) body.is_adjusting = true;
  }

  const at = l.at;
  const lines: Record<string, unknown>[] = [];
  const lineRows: number[] = [];
  for (const r of records) {
    const line: Record<string, unknown> = {};
    const ref = cell(r, at.gl_account_id).trim();
    line.gl_account_id = l.resolve(ref) ?? ref;
    let side = cell(r, at.line_type).trim().toLowerCase();
    let amountCol: string = l.form === 'line_type+amount' ? 'amount' : 'amount_atoms';
    let text = cell(r, l.form === 'line_type+amount' ? at.amount : at.amount_atoms).trim();
    if (l.form === 'debit/credit') {
      const dr = cell(r, at.debit).trim();
      const cr = cell(r, at.credit).trim();
      if ((dr === '') === (cr === '')) {
        add(
          r.row,
          'debit',
          'invalid_amount',
          dr
            ? 'both debit and credit are filled; give exactly one'
            : 'neither debit nor credit is filled; give exactly one',
        );
        side = 'debit';
        text = '';
      } else if (dr) [side, amountCol, text] = ['debit', 'debit', dr];
      else [side, amountCol, text] = ['credit', 'credit', cr];
    }
    line.line_type = side;
    if (l.form === 'line_type+amount_atoms') {
      const n = /^\d+$/.test(text) ? Number(text) : NaN;
      if (!Number.isSafeInteger(n) || n < 1)
        add(
          r.row,
          amountCol,
          'invalid_amount',
          text === ''
            ? 'amount_atoms is blank'
            : `'${text}' is not a whole number of atoms from 1 to ${MAX_ATOMS}`,
        );
      line.amount_atoms = Number.isSafeInteger(n) ? n : 0;
    } else if (text !== '' || l.form !== 'debit/credit') {
      line.amount_atoms = decimalCell(text, exponent, amountCol, (reason, message) =>
        add(r.row, amountCol, reason, message),
      );
    }
    const memo = cell(r, at.line_memo).trim();
    if (memo) line.memo = memo;
    const cpType = cell(r, at.counterparty_type).trim().toLowerCase();
    const cpId = cell(r, at.counterparty_external_id).trim();
    if (cpType) line.counterparty_type = cpType;
    if (cpId) line.counterparty_external_id = cpId;
    lines.push(line);
    lineRows.push(r.row);
  }
  body.lines = lines;
  return { row: first.row, lineRows, body, problems, fingerprint: '', form: l.form };
}

/** A decimal amount cell as atoms (0 when it is not a valid line amount, with the problem reported). */
function decimalCell(
  text: string,
  exponent: number,
  column: string,
  report: (reason: string, message: string) => void,
): number {
  const plain = plainDecimalAtoms(text, exponent);
  if (plain !== null) {
    if (plain >= 1) return plain;
    report('invalid_amount', `'${text}' must be positive and at most ${MAX_ATOMS} atoms`);
    return 0;
  }
  const p = parseDecimal(text, exponent);
  if (!p.ok) report('invalid_amount', text === '' ? `${column} is blank` : p.message);
  else if (p.atoms < 1n || p.atoms > BigInt(MAX_ATOMS))
    report('invalid_amount', `'${text}' must be positive and at most ${MAX_ATOMS} atoms`);
  else return Number(p.atoms);
  return 0;
}

/** Where a validation path of a draft's body sits in the file: the row and the column to name. */
export function locate(d: DraftEntry, path: string): { row: number; column: string } {
  const form = d.form;
  const m = /^lines\[(\d+)\](?:\.(\w+))?$/.exec(path);
  if (!m) return { row: d.row, column: path === 'lines' ? 'entry' : path };
  const row = d.lineRows[Number(m[1])] ?? d.row;
  const field = m[2] ?? 'gl_account_id';
  const column =
    field === 'amount_atoms' || field === 'line_type'
      ? form === 'debit/credit'
        ? 'debit/credit'
        : field === 'line_type'
          ? 'line_type'
          : form === 'line_type+amount'
            ? 'amount'
            : 'amount_atoms'
      : field === 'memo'
        ? 'line_memo'
        : field;
  return { row, column };
}
