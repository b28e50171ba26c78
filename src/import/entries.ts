import { hash } from 'node:crypto';
import type { GlAccount } from '../domain/accounts.js';
import { readAmount } from '../domain/input.js';
import { parseBool } from '../domain/chartColumns.js';
import { isIsoDate } from '../domain/dates.js';
import type { Problem } from '../domain/errors.js';
import { normaliseJeNumber } from '../domain/jeNumber.js';
import { currencyExponent, MAX_ATOMS } from '../domain/money.js';
import type { CsvBatch, CsvRecord } from './csv.js';
import { cell, ENTRY_LEVEL, layoutOf, type AmountForm, type Layout } from './layout.js';
import { fxOf } from './fxCells.js';
import { tagCells } from './tagCells.js';
import { base64urlKey, KeyTable, textKey } from './keyTable.js';

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

const NO_PROBLEMS: Problem[] = Object.freeze([]) as unknown as Problem[];

/**
 * Groups CSV rows into draft entries, contiguously by `entry` (or `je_number`); checks each cell that
 * must be turned into the body (dates, decimals, booleans, agreement of entry-level values) and names
 * its row and column. Entry rules themselves are left to the ledger's validation.
 */
export async function* groupEntries(
  batches: AsyncIterable<CsvBatch>,
  opts: { file: string; accounts: GlAccount[]; currency: string },
): AsyncGenerator<DraftEntry[] | { fatal: Problem[] }> {
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
    const content = hash('sha256', JSON.stringify(fingerprinted(d.body)), 'base64url').slice(0, 24);
    const n = occurrences.get(base64urlKey(content, key128)) + 1;
    occurrences.set(key128, n);
    // The date leads so that a date-ordered file writes the fingerprint index in order.
    d.fingerprint = `${String(d.body.entry_date)}:${content}.${n}`;
    ended.set(textKey(g.key, key128), g.records[g.records.length - 1]!.row);
    return d;
  };

  for await (const { header, records } of batches) {
    if (layout === null) {
      const found = layoutOf(header, opts);
      if (Array.isArray(found)) {
        yield { fatal: found };
        return;
      }
      layout = found;
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
      const endedAt = key ? ended.get(textKey(groupKey, key128)) : 0;
      groupKeyProblems(rec, l, key, endedAt);
    }
    if (done.length) yield done;
  }
  if (current && layout) yield [finish(current, layout)];
}

/** Memo fields: kept as the file gives them, surrounding spaces included (a blank cell is no memo). */
const TEXT_LEVEL: ReadonlySet<string> = new Set(['memo', 'manual_entry_reason']);
const untrimmed = (text: string) => text.trim() !== text;

/**
 * The body as its fingerprint reads it: memos trimmed, as imports stored them before memos were kept
 * as given, so that re-running a file imported then still finds its entries already posted.
 */
function fingerprinted(body: Record<string, unknown>): Record<string, unknown> {
  const lines = body.lines as Record<string, unknown>[];
  const spaced = (t: unknown) => typeof t === 'string' && untrimmed(t);
  let any = spaced(body.memo) || spaced(body.manual_entry_reason);
  for (let i = 0; !any && i < lines.length; i++) any = spaced(lines[i]!.memo);
  if (!any) return body;
  const trimmed = (o: Record<string, unknown>, fields: string[]) => {
    const out = { ...o };
    for (const f of fields) {
      const t = typeof o[f] === 'string' ? (o[f] as string).trim() : undefined;
      if (t) out[f] = t;
      else delete out[f];
    }
    return out;
  };
  return {
    ...trimmed(body, ['memo', 'manual_entry_reason']),
    lines: lines.map((l) => trimmed(l, ['memo'])),
  };
}

/** A blank group key, or one that comes back after its group ended. */
function groupKeyProblems(rec: CsvRecord, l: Layout, key: string, endedAt: number): void {
  const at = { file: l.file, row: rec.row, path: l.groupBy, code: 'invalid_input' };
  if (!key) {
    const message = `${l.groupBy} is blank; it groups rows into entries`;
    (rec.problems ??= []).push({ ...at, reason: 'missing_field', message });
  }
  if (endedAt !== 0) {
    const message =
      `${l.groupBy} '${key}' comes back on row ${rec.row} after its rows ended on row ${endedAt}; ` +
      "a group's rows must be contiguous";
    (rec.problems ??= []).push({ ...at, reason: 'group_not_contiguous', message });
  }
}

function normaliseOrRaw(v: string): string {
  const n = normaliseJeNumber(v);
  return n.ok ? n.value : v;
}

/** A problem of a cell, in the shape every import problem takes. */
export function problem(
  file: string,
  row: number,
  path: string,
  reason: string,
  message: string,
  code = 'CAPI33',
): Problem {
  return { file, row, path, reason, message, code };
}

export type Add = (
  row: number,
  path: string,
  reason: string,
  message: string,
  code?: string,
) => void;

function toDraft(records: CsvRecord[], l: Layout): DraftEntry {
  const first = records[0]!;
  let problems = NO_PROBLEMS;
  const add: Add = (row, path, reason, message, code) => {
    if (problems === NO_PROBLEMS) problems = [];
    problems.push(problem(l.file, row, path, reason, message, code));
  };
  for (const r of records) {
    if (!r.problems) continue;
    if (problems === NO_PROBLEMS) problems = [];
    problems.push(...r.problems);
  }
  const { body, currency } = entryBody(records, l, add);
  const exponent = currencyExponent(currency) ?? currencyExponent(l.currency) ?? 2;
  const lines: Record<string, unknown>[] = [];
  const lineRows: number[] = [];
  for (const r of records) {
    lines.push(lineOf(r, l, exponent, currency, add));
    lineRows.push(r.row);
  }
  if (l.tags.length || l.tagsAt >= 0) tagCells(records, l, body, lines);
  body.lines = lines;
  return { row: first.row, lineRows, body, problems, fingerprint: '', form: l.form };
}

type Level = Partial<Record<(typeof ENTRY_LEVEL)[number], { value: string; row: number }>>;

/** Entry-level values: the first non-blank wins; a different non-blank value later is an error. */
function entryLevel(records: CsvRecord[], l: Layout, add: Add): Level {
  const level: Level = {};
  for (const r of records) {
    for (const [col, i] of l.level) {
      const v = TEXT_LEVEL.has(col) ? cell(r, i) : cell(r, i).trim();
      if (v === '') continue;
      const seen = level[col];
      if (!seen) level[col] = { value: v, row: r.row };
      else if (seen.value === v) continue;
      else if (col === 'currency') {
        const message = `currency ${v} differs from ${seen.value} on row ${seen.row}; an entry has one currency`;
        add(r.row, col, 'mixed_currency', message);
      } else {
        const message =
          `'${v}' differs from '${seen.value}' on row ${seen.row}; entry-level values must agree ` +
          "across the entry's rows (or be blank after the first)";
        add(r.row, col, 'entry_values_disagree', message, 'invalid_input');
      }
    }
  }
  return level;
}

/** The entry's own fields (all but its lines), and its currency. */
function entryBody(
  records: CsvRecord[],
  l: Layout,
  add: Add,
): { body: Record<string, unknown>; currency: string } {
  const first = records[0]!;
  const level = entryLevel(records, l, add);
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
  const jeNumber =
    l.groupBy === 'je_number' ? cell(first, l.at.je_number).trim() : level.je_number?.value;
  if (jeNumber) body.je_number = jeNumber;
  if (level.memo) body.memo = level.memo.value;
  if (level.manual_entry_reason) body.manual_entry_reason = level.manual_entry_reason.value;
  // Checked with the entry, as its other fields are (its date, after the entry's).
  const reverseOn = level.auto_reverse_on?.value.trim();
  if (reverseOn) body.auto_reverse_on = reverseOn;
  const adjusting = level.is_adjusting;
  if (adjusting) {
    const b = parseBool(adjusting.value, false);
    if (b === null)
      add(
        adjusting.row,
        'is_adjusting',
        'invalid_type',
        `'${adjusting.value}' is not true or false`,
      );
    else if (b) body.is_adjusting = true;
  }
  return { body, currency: currency ?? l.currency };
}

/** One row as a request line: its account, side and amount in the file's amount form, memo, counterparty. */
function lineOf(
  r: CsvRecord,
  l: Layout,
  exponent: number,
  currency: string,
  add: Add,
): Record<string, unknown> {
  const at = l.at;
  const line: Record<string, unknown> = {};
  const ref = cell(r, at.gl_account_id).trim();
  line.gl_account_id = l.resolve(ref) ?? ref;
  let side = cell(r, at.line_type).trim().toLowerCase();
  let amountCol: string = l.form === 'line_type+amount' ? 'amount' : 'amount_atoms';
  let text = cell(r, l.form === 'line_type+amount' ? at.amount : at.amount_atoms).trim();
  const fx = fxOf(r, l, add);
  if (l.form === 'debit/credit') {
    const dr = cell(r, at.debit).trim();
    const cr = cell(r, at.credit).trim();
    if (fx && dr === '' && cr === '') {
      // A foreign line that leaves its functional amount to the snapshot: its side is fx_amount's sign.
      [side, text] = [fx.negative ? 'credit' : 'debit', ''];
    } else if ((dr === '') === (cr === '')) {
      const which = dr ? 'both debit and credit are filled' : 'neither debit nor credit is filled';
      add(r.row, 'debit', 'invalid_amount', `${which}; give exactly one`);
      [side, text] = ['debit', ''];
    } else if (dr) [side, amountCol, text] = ['debit', 'debit', dr];
    else [side, amountCol, text] = ['credit', 'credit', cr];
  }
  line.line_type = side;
  const report = (reason: string, message: string) => add(r.row, amountCol, reason, message);
  if (fx && text === '') {
    // A foreign line may leave its functional amount to the snapshot (a rate, or the rate table).
  } else if (l.form === 'line_type+amount_atoms') line.amount_atoms = atomsCell(text, report);
  else if (text !== '' || l.form !== 'debit/credit') {
    line.amount_atoms = decimalCell(text, exponent, currency, amountCol, report);
  }
  const memo = cell(r, at.line_memo);
  if (memo) line.memo = memo;
  const cpType = cell(r, at.counterparty_type).trim().toLowerCase();
  const cpId = cell(r, at.counterparty_external_id).trim();
  if (cpType) line.counterparty_type = cpType;
  if (cpId) line.counterparty_external_id = cpId;
  if (fx) line.fx = fx.fx;
  return line;
}

/** An amount_atoms cell: a whole number of atoms from 1 (0 when it is not, with the problem reported). */
function atomsCell(text: string, report: (reason: string, message: string) => void): number {
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) {
    report(
      'invalid_amount',
      text === ''
        ? 'amount_atoms is blank'
        : `'${text}' is not a whole number of atoms from 1 to ${MAX_ATOMS}`,
    );
  }
  return Number.isSafeInteger(n) ? n : 0;
}

/** A decimal amount cell as atoms (0 when it is not a valid line amount, with the problem reported). */
function decimalCell(
  text: string,
  exponent: number,
  currency: string,
  column: string,
  report: (reason: string, message: string) => void,
): number {
  if (text === '') {
    report('invalid_amount', `${column} is blank`);
    return 0;
  }
  const r = readAmount(text, exponent, currency);
  if (r.ok) return r.value;
  report(r.reason, r.message);
  return 0;
}

/** The column of each field of a line's snapshot. */
const FX_COLUMN_OF: Record<string, string> = {
  'fx.currency': 'fx_currency',
  'fx.amount_atoms': 'fx_amount',
  'fx.rate': 'fx_rate',
};

/** Where a validation path of a draft's body sits in the file: the row and the column to name. */
export function locate(d: DraftEntry, path: string): { row: number; column: string } {
  const form = d.form;
  // A key's column, or, for too many tags, the row's tag columns.
  const tag = /^(?:lines\[(\d+)\]\.)?tags(?:\.(.+))?$/.exec(path);
  if (tag)
    return {
      row: tag[1] ? (d.lineRows[Number(tag[1])] ?? d.row) : d.row,
      column: tag[2] === undefined ? 'tag columns' : `tag:${tag[2]}`,
    };
  const m = /^lines\[(\d+)\](?:\.([\w.]+))?$/.exec(path);
  if (!m) return { row: d.row, column: path === 'lines' ? 'entry' : path };
  const row = d.lineRows[Number(m[1])] ?? d.row;
  const field = m[2] ?? 'gl_account_id';
  if (field.startsWith('fx')) return { row, column: FX_COLUMN_OF[field] ?? 'fx_amount' };
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
