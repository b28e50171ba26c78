import { BooksError, type Problem } from '../domain/errors.js';
import type { StatementIn, StatementLineIn } from '../domain/reconcile.js';
import type { Target } from './bankColumns.js';
import { readBankCsv, type CsvRead } from './bankCsv.js';
import { decodeBankFile, EncodingError, type Encoding } from './bankText.js';
import { bankAtoms } from './bankValues.js';
import { findAll, leaf, looksLikeOfx, parseOfx, type OfxNode } from './ofx.js';
import type { DateOrder } from './presets.js';
import type { KnownSource, StatementSource } from '../domain/statementLayout.js';

/** How a statement file is read: the flags of `reconcile import` (or the account's layout). */
export interface StatementReading {
  file: string;
  /** null: found from the file (dates, decimal mark, delimiter). */
  dateOrder: DateOrder | null;
  decimalComma: boolean | null;
  /** The file's amounts are in the other sign than the account's (`--negate`). */
  negate: boolean;
  /** The account is a liability: OFX's amounts (the holder's view) are flipped to its sign. */
  liability: boolean;
  exponent: number;
  delimiter: string | null;
  encoding?: Encoding | null;
  skipRows?: number | null;
  noHeader?: boolean;
  map?: Map<string, Target>;
  /** The statement of an OFX file of several: its ACCTID, or `#N`. */
  ofxAccount?: string | null;
  /** The bank account the account's statements are of: picks its statement from a file of several. */
  known?: KnownSource | null;
  /** This year, for two-digit years. */
  nowYear?: number;
}

/** The statement's own account, as an OFX file names it. */
type StatementAccount = StatementSource & { type: 'bank' | 'credit_card' };

/** A statement file as read: its lines, and how it was read (said after an import). */
export interface StatementRead extends StatementIn {
  format: 'csv' | 'ofx';
  encoding: string;
  skippedZero: number;
  /** CSV: the columns read and passed over, the rows that hold no line, how dates and amounts read. */
  csv?: Omit<CsvRead, 'lines' | 'skippedZero' | 'currency'>;
  /** The statement's own account as the file names it (an OFX's; a CSV's currency column). */
  source: StatementSource | null;
  /** OFX: a LEDGERBAL that holds no balance. */
  emptyClosing?: boolean;
}

/**
 * Reads a statement file (CSV or OFX, told apart by content) into the API's statement body; an OFX
 * is read with `ofx` when given (an account's remembered CSV layout says nothing of its OFX files).
 */
export function readStatement(
  input: Uint8Array | string,
  r: StatementReading,
  ofx: StatementReading = r,
): StatementRead {
  let text: string;
  let encoding = 'utf-8';
  if (typeof input === 'string') text = input;
  else {
    try {
      ({ text, encoding } = decodeBankFile(input, r.encoding ?? null));
    } catch (e) {
      if (!(e instanceof EncodingError)) throw e;
      refuse(r.file, [problemAt(r.file, e.line, '', 'invalid_encoding', e.message)]);
    }
  }
  return looksLikeOfx(text)
    ? { ...readOfx(text, ofx), encoding }
    : { ...readCsvStatement(text, r), encoding };
}

/** A problem of the file, named by row (CSV) or by transaction in its message (OFX). */
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

function readCsvStatement(text: string, r: StatementReading): Omit<StatementRead, 'encoding'> {
  const problems: Problem[] = [];
  const read = readBankCsv(
    text,
    {
      delimiter: r.delimiter,
      dateOrder: r.dateOrder,
      decimalComma: r.decimalComma,
      skipRows: r.skipRows ?? null,
      noHeader: r.noHeader ?? false,
      map: r.map ?? new Map(),
    },
    {
      exponent: r.exponent,
      liability: r.liability,
      negate: r.negate,
      nowYear: r.nowYear ?? new Date().getFullYear(),
    },
    (row, path, reason, message) => problems.push(problemAt(r.file, row, path, reason, message)),
  );
  if (read && read.lines.length === 0 && problems.length === 0 && read.skippedZero === 0)
    problems.push(problemAt(r.file, 1, '', 'empty_file', 'the file has no statement lines'));
  if (problems.length || !read) refuse(r.file, problems);
  const { lines, skippedZero, currency, ...csv } = read;
  const source = currency ? { type: null, acctid: null, bankid: null, currency } : null;
  return { format: 'csv', lines, closing: null, skippedZero, csv, source };
}

/** An OFX date (YYYYMMDD, then time and zone) as YYYY-MM-DD, or null. */
function ofxDate(v: string | null): string | null {
  const m = v ? /^(\d{4})(\d{2})(\d{2})/.exec(v) : null;
  return m ? `${m[1]}-${m[2]}-${m[3]}` : null;
}

/** The statements of an OFX file (a bank's STMTRS, a card's CCSTMTRS), and the one to import. */
function ofxStatement(
  text: string,
  r: StatementReading,
): { node: OfxNode; account: StatementAccount } {
  let ofx: OfxNode;
  try {
    ofx = parseOfx(text);
  } catch (e) {
    const message = `not an OFX file: ${(e as Error).message}`;
    refuse(r.file, [problemAt(r.file, undefined, '', 'invalid_ofx', message)]);
  }
  const statements = [
    ...findAll(ofx, 'STMTRS').map((node) => ({ node, type: 'bank' as const })),
    ...findAll(ofx, 'CCSTMTRS').map((node) => ({ node, type: 'credit_card' as const })),
  ].map((s) => {
    const from = findAll(s.node, s.type === 'bank' ? 'BANKACCTFROM' : 'CCACCTFROM')[0];
    return {
      node: s.node,
      account: {
        type: s.type,
        acctid: (from && leaf(from, 'ACCTID')) ?? null,
        bankid: (from && leaf(from, 'BANKID')) ?? null,
        currency: leaf(s.node, 'CURDEF')?.toUpperCase() ?? null,
      },
    };
  });
  const refuseWhy = (path: string, reason: string, message: string): never =>
    refuse(r.file, [problemAt(r.file, undefined, path, reason, message)]);
  if (statements.length === 0)
    refuseWhy(
      'STMTRS',
      findAll(ofx, 'INVSTMTRS').length ? 'investment_statement' : 'statements',
      findAll(ofx, 'INVSTMTRS').length
        ? 'the file is an investment statement (INVSTMTRS), which books does not import'
        : 'the file holds no bank or card statement (STMTRS, CCSTMTRS)',
    );
  // The account's own statement, by the ACCTID it remembers (and its bank id, where two share one).
  const mine = (bank: boolean) =>
    statements.filter(
      (s) =>
        r.known &&
        s.account.acctid === r.known.acctid &&
        (!bank || s.account.bankid === r.known.bankid),
    );
  const known = mine(false).length > 1 ? mine(true) : mine(false);
  const pick =
    r.ofxAccount?.trim() || (known.length === 1 ? `#${statements.indexOf(known[0]!) + 1}` : null);
  if (!pick && statements.length > 1) {
    const listed = statements
      .map((s, i) => `#${i + 1} ${s.account.acctid ?? '(no ACCTID)'} (${s.account.type})`)
      .join(', ');
    refuseWhy(
      'ACCTID',
      'statements',
      `the file holds ${statements.length} statements: ${listed}; give --ofx-account ACCTID (or #N)`,
    );
  }
  if (!pick) return statements[0]!;
  const n = /^#(\d+)$/.exec(pick);
  const chosen = n
    ? statements[Number(n[1]) - 1]
    : statements.filter((s) => s.account.acctid === pick).length === 1
      ? statements.find((s) => s.account.acctid === pick)
      : undefined;
  if (!chosen) {
    const ids = statements
      .map((s, i) => `#${i + 1} ${s.account.acctid ?? '(no ACCTID)'}`)
      .join(', ');
    const twice = statements.filter((s) => s.account.acctid === pick).length > 1;
    refuseWhy(
      'ACCTID',
      'statements',
      twice
        ? `--ofx-account: ${statements.length} statements have ACCTID '${pick}': give #N (${ids})`
        : `--ofx-account: no statement of ACCTID '${pick}' in the file (${ids})`,
    );
  }
  return chosen!;
}

function readOfx(text: string, r: StatementReading): Omit<StatementRead, 'encoding'> {
  const { node: statement, account } = ofxStatement(text, r);
  // OFX gives amounts as the account holder sees them: money out is negative, on a card too.
  const flip = (r.liability ? -1 : 1) * (r.negate ? -1 : 1);
  // A decimal comma where no amount has a point (`-12,50`): some banks write their own locale's.
  const amounts = findAll(statement, 'TRNAMT').map((t) => t.value ?? '');
  const comma =
    r.decimalComma ??
    (amounts.some((a) => a.includes(',')) && !amounts.some((a) => a.includes('.')));
  const problems: Problem[] = [];
  const lines: StatementLineIn[] = [];
  let skippedZero = 0;
  findAll(statement, 'STMTTRN').forEach((t, i) => {
    const n = i + 1;
    const at = (path: string, message: string) =>
      problems.push(
        problemAt(r.file, undefined, path, 'invalid_ofx', `transaction ${n}: ${message}`),
      );
    const posted = leaf(t, 'DTPOSTED');
    const date = ofxDate(posted);
    const value = leaf(t, 'TRNAMT') ?? '';
    const amount = bankAtoms(value, comma, r.exponent);
    if (!date) at('DTPOSTED', `DTPOSTED '${posted ?? ''}' is not a date`);
    if ('message' in amount) at('TRNAMT', `TRNAMT ${amount.message}`);
    if (!date || 'message' in amount) return;
    const { atoms } = amount;
    if (atoms === 0) return void skippedZero++;
    const description = [leaf(t, 'NAME'), leaf(t, 'MEMO')].filter(Boolean).join(' ');
    lines.push({
      row: n,
      date,
      amount_atoms: flip * atoms,
      description: description || null,
      reference: leaf(t, 'CHECKNUM') ?? leaf(t, 'REFNUM'),
      bank_id: leaf(t, 'FITID'),
      balance_atoms: null,
    });
  });
  const bal = findAll(statement, 'LEDGERBAL')[0];
  let closing: StatementIn['closing'] = null;
  const asOf = bal && leaf(bal, 'DTASOF');
  const balAmt = bal && leaf(bal, 'BALAMT');
  if (balAmt) {
    const date = ofxDate(asOf ?? null);
    const amount = bankAtoms(
      balAmt,
      comma || (balAmt.includes(',') && !balAmt.includes('.')),
      r.exponent,
    );
    const refused = (message: string) =>
      problems.push(problemAt(r.file, undefined, 'LEDGERBAL', 'invalid_ofx', message));
    if (!date) refused(`LEDGERBAL's DTASOF '${asOf ?? ''}' is not a date`);
    if ('message' in amount) refused(`LEDGERBAL's BALAMT ${amount.message}`);
    if (date && !('message' in amount)) closing = { date, balance_atoms: flip * amount.atoms };
  }
  if (lines.length === 0 && problems.length === 0 && skippedZero === 0 && !closing)
    problems.push(problemAt(r.file, undefined, 'STMTTRN', 'empty_file', 'no transactions'));
  if (problems.length) refuse(r.file, problems);
  return { format: 'ofx', lines, closing, skippedZero, source: account, emptyClosing: !closing };
}
