import { bool, command, list, str, type FlagSpec } from '../cli/command.js';
import { wholeFlag } from '../cli/flags.js';
import { ACCOUNT_TYPES } from '../domain/accounts.js';
import {
  isEmptyLayout,
  layoutFlags,
  mergeLayout,
  overridden,
  type StatementLayout,
} from '../domain/statementLayout.js';
import { BooksError, errors, isBooksError } from '../domain/errors.js';
import { formatAmount, toJsonInteger } from '../domain/money.js';
import { checkStatement } from '../domain/reconcile.js';
import { TARGETS, type Target } from '../import/bankColumns.js';
import { ENCODINGS, encodingOf } from '../import/bankText.js';
import { delimiterOf } from '../import/csv.js';
import { DATE_ORDERS, type DateOrder } from '../import/presets.js';
import { readStatement, type StatementRead } from '../import/statement.js';
import { importText } from '../render/reconcile.js';
import { readBytes } from './io.js';
import { ACCOUNT_FLAG, accountOf, DRY_RUN, exponentOfLedger } from './reconcile.js';

/** The most a statement file may hold (a decade of a busy account is far less). */
const MAX_STATEMENT_BYTES = 64 * 1024 * 1024;

const ENCODING_FLAG: FlagSpec = {
  flags: '--encoding <name>',
  description: "the file's text encoding when it is not UTF-8: latin1, windows-1252, utf-16",
};

export const importCommand = command({
  args: [{ name: 'path', description: "statement file: CSV, OFX or QFX ('-' for standard input)" }],
  flags: [
    ACCOUNT_FLAG,
    { flags: '--negate', description: 'the file gives amounts in the other sign than the account' },
    {
      flags: '--date-format <order>',
      description: 'CSV dates: ISO, DMY, MDY or YMD (found from the dates when they tell)',
    },
    {
      flags: '--decimal-comma',
      description: 'amounts are written 1.250,00 (found when they tell)',
    },
    {
      flags: '--delimiter <char>',
      description: "CSV field delimiter: ',', ';', 'tab' or '|' (found)",
    },
    ENCODING_FLAG,
    {
      flags: '--map <SOURCE=TARGET>',
      description: `a column's role (repeatable): ${TARGETS.join(', ')}`,
      repeat: true,
    },
    { flags: '--skip-rows <n>', description: 'lines before the header (found when absent)' },
    { flags: '--no-header', description: 'the file has no header: --map names columns 1, 2, …' },
    {
      flags: '--ofx-account <ACCTID>',
      description: 'the statement of an OFX file of several (or #N)',
    },
    {
      flags: '--ofx-account-change',
      description: "the account's statements now come from another bank account (ACCTID)",
    },
    DRY_RUN,
  ],
  help: `CSV columns are found by their names as banks write them, in English, German, French, Spanish or
Dutch (case, spaces, punctuation and accents aside): the posting date (else the date, else the
transaction date); the amount (signed), or deposit + withdrawal, or an amount and a direction
(debit/credit, D/C, S/H, Af/Bij); descriptions (joined); a reference (check number); an id; the
running balance (checked, and its last value taken as the closing balance). Lines before the header,
section headings and lines of zero are passed over and said. --map SOURCE=TARGET names a column's
role (SOURCE a header name, or with --no-header a column number; TARGET - leaves it out).
Amounts are in the account's own sign: money in is positive for a bank account, a charge is positive
for a credit card (OFX files, which give the holder's view, are turned so for a card account).
A line already imported (the same bank id, or the same date, amount, description, reference and
occurrence) is skipped; nothing is imported unless the whole file is good.
The flags a CSV needed are remembered for the account: next month's file needs none (books
reconcile layout shows or forgets them); flags given win, and are remembered in their place.
An OFX file's bank account (ACCTID) is remembered too: a file of another account, a card's
statement into a bank account (or the other way), or another currency than the account's, is
refused; --ofx-account-change takes a new bank account.`,
  examples: [
    'books reconcile import fixtures/reconcile/checking-2025-01.csv --account checking',
    'books reconcile import fixtures/statements/giro-de.csv --account checking --encoding windows-1252',
  ],
  options: (raw) => {
    const given = str(raw, 'dateFormat');
    const order = given?.toUpperCase();
    if (order !== undefined && !DATE_ORDERS.includes(order as DateOrder))
      throw errors.usage(`--date-format: '${given}' is not one of ${DATE_ORDERS.join(', ')}`);
    const encodingName = str(raw, 'encoding');
    const encoding = encodingName === undefined ? null : encodingOf(encodingName);
    if (encodingName !== undefined && encoding === null)
      throw errors.usage(`--encoding: '${encodingName}' is not one of ${ENCODINGS.join(', ')}`);
    const delimiter = str(raw, 'delimiter');
    const skipRows = wholeFlag('--skip-rows', str(raw, 'skipRows'), 0, 1000);
    const map = mapOf(list(raw, 'map'));
    // The flags of a layout, as given: what an import remembers for the account.
    const layout: StatementLayout = {
      ...(map.length ? { map } : {}),
      ...(skipRows !== undefined ? { skip_rows: skipRows } : {}),
      ...(raw.flags.header === false ? { no_header: true } : {}),
      ...(delimiter !== undefined ? { delimiter: delimiterOf(delimiter) } : {}),
      ...(encoding ? { encoding } : {}),
      ...(order ? { date_format: order as DateOrder } : {}),
      ...(bool(raw, 'decimalComma') ? { decimal_comma: true } : {}),
      ...(bool(raw, 'negate') ? { negate: true } : {}),
    };
    return {
      path: raw.args[0]!,
      account: accountOf(raw),
      layout,
      ofxAccount: str(raw, 'ofxAccount') ?? null,
      ofxAccountChange: bool(raw, 'ofxAccountChange'),
      dryRun: bool(raw, 'dryRun'),
    };
  },
  async run(ctx, o) {
    const ledger = await ctx.ledger();
    const bytes = await readBytes(ctx, o.path, MAX_STATEMENT_BYTES);
    const accounts = await ledger.chart.accounts();
    const acct = accounts.find(
      (a) => a.external_id === o.account || a.account_number === o.account,
    );
    const kept = await ledger.reconcile.layout({ account: o.account });
    const layout = mergeLayout(kept.layout, o.layout);
    const exponent = await exponentOfLedger(ledger, o.account);
    const file = o.path === '-' ? 'stdin' : o.path;
    const reading = (l: StatementLayout) => ({
      file,
      dateOrder: l.date_format ?? null,
      decimalComma: l.decimal_comma ?? null,
      negate: l.negate ?? false,
      delimiter: l.delimiter ?? null,
      encoding: l.encoding ?? null,
      skipRows: l.skip_rows ?? null,
      noHeader: l.no_header ?? false,
      map: new Map(l.map ?? []),
      ofxAccount: o.ofxAccount,
      known: kept.statement_account,
      liability: acct ? ACCOUNT_TYPES[acct.account_type].section === 'liabilities' : false,
      exponent,
      nowYear: ctx.now().getFullYear(),
    });
    // The remembered layout is a CSV's: an OFX is read by its own header and the flags given.
    const statement = readStatement(bytes, reading(layout), reading(o.layout));
    const csv = statement.format === 'csv';
    // Checked here too, so that a refusal reads the same whichever store answers, by row.
    namedByRow(() => checkStatement(statement, file, exponent), statement, file);
    const summary = await ledger.reconcile.importStatement({
      account: o.account,
      statement: { lines: statement.lines, closing: statement.closing },
      dry_run: o.dryRun,
      file,
      source: statement.source,
      ...(csv && !isEmptyLayout(o.layout) ? { layout: remembered(layout, statement) } : {}),
      ...(o.ofxAccountChange ? { ofx_account_change: true } : {}),
    });
    const read = readSummary(statement);
    if (ctx.json)
      return ctx.outJson({ ...summary, skipped_zero: read.skipped_zero, columns: read.columns });
    ctx.out(importText(summary, exponent, o.dryRun));
    ctx.out(readSaid(statement, read, exponent));
    const said = csv
      ? layoutSaid(o.account, kept.layout, o.layout, remembered(layout, statement), o.dryRun)
      : null;
    if (said) ctx.out(said);
  },
});

/**
 * What an import says of the account's layout: the remembered flags it read with, the flags given
 * in their place, and what it now remembers.
 */
function layoutSaid(
  account: string,
  kept: StatementLayout | null,
  given: StatementLayout,
  keeps: StatementLayout,
  dryRun: boolean,
): string | null {
  const out: string[] = [];
  const keptFlags = kept ? layoutFlags(kept) : [];
  const givenFlags = layoutFlags(given);
  const over = kept ? layoutFlags(overridden(kept, given)) : [];
  if (keptFlags.length && !givenFlags.length)
    out.push(`Read with ${account}'s remembered layout: ${keptFlags.join(' ')}`);
  if (over.length) out.push(`Given in place of the remembered ${over.join(' ')}`);
  if (givenFlags.length)
    out.push(
      `${dryRun ? 'Would remember' : 'Remembered'} for ${account}: ` +
        `${layoutFlags(keeps).join(' ')} (books reconcile layout --account ` +
        `${account} --clear forgets it)`,
    );
  return out.length ? out.join('\n') : null;
}

/**
 * The layout an account keeps: the flags read with, and the date order and decimal mark the file
 * showed, so that next month's file whose dates fit two orders (03/07/2025) reads the same.
 */
function remembered(layout: StatementLayout, s: StatementRead): StatementLayout {
  const found = s.csv;
  if (!found) return layout;
  return {
    ...layout,
    ...(layout.date_format || found.dateOrder === 'ISO' ? {} : { date_format: found.dateOrder }),
    ...(layout.decimal_comma !== undefined || !found.decimalComma ? {} : { decimal_comma: true }),
  };
}

/** `--map SOURCE=TARGET` values, each target one of TARGETS. */
function mapOf(values: string[]): [string, Target][] {
  return values.map((v) => {
    const at = v.lastIndexOf('=');
    const [source, target] = [
      v.slice(0, at).trim(),
      v
        .slice(at + 1)
        .trim()
        .toLowerCase(),
    ];
    if (at < 1 || !TARGETS.includes(target as Target))
      throw errors.usage(`--map: '${v}' is not SOURCE=TARGET, TARGET one of ${TARGETS.join(', ')}`);
    return [source, target as Target];
  });
}

/** What an import says it read, beside the ledger's summary (JSON). */
function readSummary(s: StatementRead): {
  skipped_zero: number;
  columns: { read: string[]; ignored: string[] };
  money_in: number | bigint;
  money_out: number | bigint;
} {
  let moneyIn = 0n;
  let moneyOut = 0n;
  for (const l of s.lines)
    if (l.amount_atoms > 0) moneyIn += BigInt(l.amount_atoms);
    else moneyOut -= BigInt(l.amount_atoms);
  return {
    skipped_zero: s.skippedZero,
    columns: s.csv?.columns ?? { read: OFX_READ, ignored: [] },
    money_in: toJsonInteger(moneyIn),
    money_out: toJsonInteger(moneyOut),
  };
}

const OFX_READ = ['DTPOSTED', 'TRNAMT', 'NAME', 'MEMO', 'FITID', 'CHECKNUM', 'REFNUM', 'LEDGERBAL'];

/** The same, for people: the columns, the money each way, what was passed over. */
function readSaid(s: StatementRead, r: ReturnType<typeof readSummary>, exponent: number): string {
  const out = [
    `Read ${s.format === 'csv' ? 'columns' : 'fields'} ${r.columns.read.join(', ')}` +
      (r.columns.ignored.length ? `; passed over ${r.columns.ignored.join(', ')}` : ''),
    `Money in ${formatAmount(r.money_in, exponent)}, money out ${formatAmount(r.money_out, exponent)} ` +
      "(in the account's sign)",
  ];
  if (s.skippedZero) out.push(`${s.skippedZero} line(s) of zero skipped`);
  if (s.csv?.passedOver.length)
    out.push(`Row(s) ${s.csv.passedOver.join(', ')} hold no line, passed over`);
  if (s.format === 'ofx' && s.emptyClosing)
    out.push('The file gives no closing balance (LEDGERBAL)');
  return out.join('\n');
}

/**
 * Runs a check of the statement's lines, and says its problems as the file's rows (or OFX
 * transactions) and columns, not as the API body's paths.
 */
function namedByRow(check: () => unknown, s: StatementRead, file: string): void {
  try {
    check();
  } catch (e) {
    if (!isBooksError(e)) throw e;
    const field: Record<string, string> = {
      balance_atoms: 'balance',
      amount_atoms: 'amount',
      bank_id: 'id',
      date: 'date',
    };
    const problems = e.errors.map((p) => {
      const m = /^lines\[(\d+)\](?:\.(\w+))?$/.exec(p.path);
      const line = m ? s.lines[Number(m[1])] : undefined;
      if (!line) return { ...p, file };
      const message = p.message.replace(/^row \d+: /, '');
      return s.format === 'csv'
        ? {
            ...p,
            file,
            row: line.row,
            path: field[m![2] ?? ''] ?? m![2] ?? '',
            message,
            code: 'invalid_input',
          }
        : {
            ...p,
            file,
            path: field[m![2] ?? ''] ?? '',
            message: `transaction ${line.row}: ${message}`,
          };
    });
    const first = problems[0]!;
    const where = 'row' in first && first.row ? `${file}:${first.row}` : file;
    throw new BooksError(
      e.code,
      problems.length === 1 ? `${where}: ${first.message}` : e.message,
      problems,
      e.details,
    );
  }
}
