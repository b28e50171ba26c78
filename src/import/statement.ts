import { BooksError, type Problem } from '../domain/errors.js';
import { parseDecimal } from '../domain/money.js';
import type { StatementIn, StatementLineIn } from '../domain/reconcile.js';
import { decimalComma, readDate, signed } from './adapt.js';
import { CsvParser, CsvSyntaxError } from './csvParser.js';
import { findAll, leaf, looksLikeOfx, parseOfx, type OfxNode } from './ofx.js';
import type { DateOrder } from './presets.js';

/** How a statement file is read: the flags of `reconcile import` and the account's currency. */
export interface StatementReading {
  file: string;
  dateOrder: DateOrder;
  decimalComma: boolean;
  /** The file's amounts are in the other sign than the account's (`--negate`). */
  negate: boolean;
  /** The account is a liability: OFX's amounts (the holder's view) are flipped to its sign. */
  liability: boolean;
  exponent: number;
  delimiter: string;
}

/** The names a column goes by in banks' exports, by what it holds. */
const COLUMNS: Record<string, readonly string[]> = {
  date: ['date', 'posted', 'transaction date', 'posting date', 'posted date'],
  amount: ['amount'],
  deposit: ['deposit', 'money in', 'credit', 'paid in'],
  withdrawal: ['withdrawal', 'money out', 'debit', 'paid out'],
  description: ['description', 'payee', 'details', 'name', 'memo'],
  reference: ['reference', 'check number', 'cheque number', 'ref'],
  id: ['id', 'fitid', 'transaction id'],
  balance: ['balance', 'running balance'],
};

/** Reads a statement file (CSV or OFX, told apart by content) into the API's statement body. */
export function readStatement(text: string, r: StatementReading): StatementIn {
  return looksLikeOfx(text) ? readOfx(text, r) : readCsvStatement(text, r);
}

/** A problem of the file, named by row (CSV) or transaction (OFX). */
const problemAt = (
  file: string,
  row: number | undefined,
  path: string,
  reason: string,
  message: string,
): Problem => ({
  file,
  ...(row !== undefined ? { row } : {}),
  path,
  reason,
  message,
  code: 'invalid_input',
});

function refuse(file: string, problems: Problem[]): never {
  const first = problems[0]!;
  throw new BooksError(
    'invalid_input',
    problems.length === 1
      ? `${file}${first.row ? `:${first.row}` : ''}: ${first.message}`
      : `${file}: ${problems.length} problems; nothing was imported`,
    problems,
  );
}

/** An amount cell in atoms, or a problem's message. */
function atomsOf(text: string, r: StatementReading): { atoms: number } | { message: string } {
  let t = text.trim().replace(/^[$€£¥]|[$€£¥]$/g, '');
  if (r.decimalComma) t = decimalComma(t) ?? t;
  const s = signed(t);
  const parsed = s ? parseDecimal(s.amount, r.exponent) : null;
  if (!s || !parsed?.ok)
    return {
      message:
        parsed && !parsed.ok && parsed.reason === 'too_many_decimals'
          ? parsed.message
          : `'${text}' is not an amount${r.decimalComma ? '' : ' (a decimal comma needs --decimal-comma)'}`,
    };
  const atoms = Number(s.credit ? -parsed.atoms : parsed.atoms);
  if (!Number.isSafeInteger(atoms)) return { message: `'${text}' is too large` };
  return { atoms };
}

/** The file's records, the header first; refused when it cannot be read or holds no rows. */
function csvRecords(text: string, r: StatementReading) {
  const parser = new CsvParser(r.delimiter);
  try {
    const [head, ...rows] = [...parser.push(text), ...parser.end()];
    if (!head) refuse(r.file, [problemAt(r.file, 1, '', 'empty_file', 'the file is empty')]);
    return { header: head.cells.map((c) => c.trim().toLowerCase()), rows };
  } catch (e) {
    if (!(e instanceof CsvSyntaxError)) throw e;
    refuse(r.file, [problemAt(r.file, e.row, '', e.reason, e.message)]);
  }
}

function readCsvStatement(text: string, r: StatementReading): StatementIn {
  const { header, rows } = csvRecords(text, r);
  const cols = (what: string) => header.flatMap((h, i) => (COLUMNS[what]!.includes(h) ? [i] : []));
  const [date, amount, dep, wd, ref, id, bal] = [
    'date',
    'amount',
    'deposit',
    'withdrawal',
    'reference',
    'id',
    'balance',
  ].map((c) => cols(c)[0]);
  const desc = cols('description');
  const problems: Problem[] = [];
  const at = (row: number, path: string, reason: string, message: string) =>
    problems.push(problemAt(r.file, row, path, reason, message));
  if (date === undefined)
    at(1, 'date', 'missing_column', 'no date column (date, posted or transaction date)');
  if (amount === undefined && (dep === undefined || wd === undefined))
    at(1, 'amount', 'missing_column', 'no amount column: amount, or deposit and withdrawal');
  if (problems.length) refuse(r.file, problems);
  // A header's empty names at its end (`…,Balance,`) name no column: banks end rows with a comma or not.
  let named = header.length;
  while (named > 0 && header[named - 1] === '') named--;
  const lines: StatementLineIn[] = [];
  for (const { row, cells } of rows) {
    if (cells.length === 1 && cells[0] === '') continue;
    if (cells.length < named || cells.slice(named).some((c) => c.trim() !== '')) {
      // Read by position, a row of more cells would put `-1,000.00`'s `000.00` where the amount is.
      at(
        row,
        '',
        'ragged_row',
        `has ${cells.length} cells; the header names ${named} columns (a value that holds ` +
          `'${r.delimiter}' must be in quotes)`,
      );
      continue;
    }
    const cell = (i: number | undefined) => (i === undefined ? '' : (cells[i] ?? '').trim());
    const d = readDate(cell(date), r.dateOrder);
    const order = `in ${r.dateOrder} order (--date-format)`;
    if (!d) at(row, header[date!]!, 'invalid_date', `'${cell(date)}' is not a date ${order}`);
    const value = amountOfRow(cell, { amount, dep, wd }, r);
    if ('message' in value) at(row, value.column ?? 'amount', value.reason, value.message);
    let balance: number | null = null;
    if (bal !== undefined && cell(bal) !== '') {
      const b = atomsOf(cell(bal), r);
      if ('message' in b) at(row, 'balance', 'invalid_amount', b.message);
      else balance = r.negate ? -b.atoms : b.atoms;
    }
    if (!d || 'message' in value) continue;
    const text = desc.map(cell).filter(Boolean).join(' ');
    lines.push({
      row,
      date: d,
      amount_atoms: r.negate ? -value.atoms : value.atoms,
      description: text || null,
      reference: cell(ref) || null,
      bank_id: cell(id) || null,
      balance_atoms: balance,
    });
  }
  if (lines.length === 0 && problems.length === 0)
    at(1, '', 'empty_file', 'the file has no statement lines');
  if (problems.length) refuse(r.file, problems);
  return { lines, closing: null };
}

/** A row's amount: signed, or from the deposit/withdrawal pair (one filled, neither negative). */
function amountOfRow(
  cell: (i: number | undefined) => string,
  c: { amount?: number | undefined; dep?: number | undefined; wd?: number | undefined },
  r: StatementReading,
): { atoms: number } | { message: string; reason: string; column?: string } {
  if (c.amount !== undefined && (c.dep === undefined || cell(c.amount) !== '')) {
    const a = atomsOf(cell(c.amount), r);
    if ('message' in a) return { ...a, reason: 'invalid_amount' };
    return a.atoms === 0 ? { message: 'the amount is zero', reason: 'zero_amount' } : a;
  }
  const [i, o] = [cell(c.dep), cell(c.wd)];
  if ((i === '') === (o === ''))
    return {
      message:
        i === ''
          ? 'neither deposit nor withdrawal is filled'
          : 'both deposit and withdrawal are filled',
      reason: 'one_amount',
    };
  const a = atomsOf(i || o, r);
  if ('message' in a) return { ...a, reason: 'invalid_amount' };
  if (a.atoms <= 0)
    return {
      message: `'${i || o}' must be positive: the column says which way the money went`,
      reason: 'wrong_sign',
      column: i ? 'deposit' : 'withdrawal',
    };
  // The pair says which way the money went for the holder: a card's charge is money out, and
  // positive in the card's own sign.
  const holder = i ? a.atoms : -a.atoms;
  return { atoms: r.liability ? -holder : holder };
}

/** An OFX date (YYYYMMDD, then time and zone) as YYYY-MM-DD, or null. */
function ofxDate(v: string | null): string | null {
  const m = v ? /^(\d{4})(\d{2})(\d{2})/.exec(v) : null;
  return m ? `${m[1]}-${m[2]}-${m[3]}` : null;
}

/** The one statement of an OFX file (a bank's STMTRS or a card's CCSTMTRS). */
function ofxStatement(text: string, r: StatementReading): OfxNode {
  let ofx: OfxNode;
  try {
    ofx = parseOfx(text);
  } catch (e) {
    const message = `not an OFX file: ${(e as Error).message}`;
    refuse(r.file, [problemAt(r.file, undefined, '', 'invalid_ofx', message)]);
  }
  const statements = [...findAll(ofx, 'STMTRS'), ...findAll(ofx, 'CCSTMTRS')];
  if (statements.length !== 1) {
    const message = `the file holds ${statements.length} statements; import one account's at a time`;
    refuse(r.file, [problemAt(r.file, undefined, 'STMTRS', 'statements', message)]);
  }
  return statements[0]!;
}

function readOfx(text: string, r: StatementReading): StatementIn {
  const statement = ofxStatement(text, r);
  // OFX gives amounts as the account holder sees them: money out is negative, on a card too.
  const flip = (r.liability ? -1 : 1) * (r.negate ? -1 : 1);
  const problems: Problem[] = [];
  const lines: StatementLineIn[] = [];
  findAll(statement, 'STMTTRN').forEach((t, i) => {
    const row = i + 1;
    const at = (path: string, message: string) =>
      problems.push(problemAt(r.file, row, path, 'invalid_ofx', `transaction ${row}: ${message}`));
    const date = ofxDate(leaf(t, 'DTPOSTED'));
    const amount = atomsOf(leaf(t, 'TRNAMT') ?? '', r);
    if (!date) at('DTPOSTED', `DTPOSTED '${leaf(t, 'DTPOSTED') ?? ''}' is not a date`);
    if ('message' in amount) at('TRNAMT', amount.message);
    if (!date || 'message' in amount) return;
    const text = [leaf(t, 'NAME'), leaf(t, 'MEMO')].filter(Boolean).join(' ');
    lines.push({
      row,
      date,
      amount_atoms: flip * amount.atoms,
      description: text || null,
      reference: leaf(t, 'CHECKNUM') ?? leaf(t, 'REFNUM'),
      bank_id: leaf(t, 'FITID'),
      balance_atoms: null,
    });
  });
  const bal = findAll(statement, 'LEDGERBAL')[0];
  let closing: StatementIn['closing'] = null;
  if (bal) {
    const date = ofxDate(leaf(bal, 'DTASOF'));
    const amount = atomsOf(leaf(bal, 'BALAMT') ?? '', r);
    if (!date || 'message' in amount)
      problems.push(
        problemAt(
          r.file,
          undefined,
          'LEDGERBAL',
          'invalid_ofx',
          'LEDGERBAL needs BALAMT and DTASOF',
        ),
      );
    else closing = { date, balance_atoms: flip * amount.atoms };
  }
  if (lines.length === 0 && problems.length === 0)
    problems.push(problemAt(r.file, undefined, 'STMTTRN', 'empty_file', 'no transactions'));
  if (problems.length) refuse(r.file, problems);
  return { lines, closing };
}
