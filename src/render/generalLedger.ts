import type { GlEvent, GlLine } from '../domain/generalLedger.js';
import { toJson } from '../domain/json.js';
import { atomsToDecimal, exponentOf, formatAmount } from '../domain/money.js';
import { csvField, spreadsheetText } from './csv.js';
import { printedDate } from './statementTable.js';
import { cell } from './text.js';

type Atoms = number | bigint | null;

export interface GlHead {
  entity: string;
  start_date: string;
  end_date: string;
  reporting_currency: string;
}

/**
 * The general ledger written as its events come: the text before the first, a piece per event, the
 * text after the last. Nothing is kept between events but the account being written, so memory does
 * not grow with the lines.
 */
export interface GlWriter {
  begin(): string;
  event(e: GlEvent): string;
  end(): string;
}

const MEMO = 30;
const PARTY = 18;
const AMOUNT = 15;

function clip(text: string, width: number): string {
  const t = cell(text);
  return t.length > width ? `${t.slice(0, width - 1)}…` : t;
}

/** A text in pieces of at most `width` characters, broken after a space where one is near. */
export function wrap(text: string, width: number): string[] {
  const t = cell(text);
  const out: string[] = [];
  let rest = t;
  while (rest.length > width) {
    const space = rest.lastIndexOf(' ', width);
    const cut = space > width / 2 ? space + 1 : width;
    out.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut);
  }
  out.push(rest);
  return out;
}

const memoOf = (l: GlLine) => [l.memo, l.line_memo].filter(Boolean).join(' — ');
const partyOf = (l: GlLine) => l.counterparty_name ?? l.counterparty_external_id ?? '';

/**
 * The general ledger as printed: per account, opening, each line with its running balance, closing.
 * On a terminal (`fit`) a long JE number, memo or counterparty is cut to its column; anywhere else
 * (a file, a pipe) nothing is cut: it goes on in its column on the lines below.
 */
export function glTableWriter(head: GlHead, exponent: number, fit = false): GlWriter {
  const row = rowOf(exponent);
  // An account kept in another currency (--show-foreign): the line's amount in it and its rate, and
  // the running balance in it, after the functional columns.
  let foreign: string | null = null;
  const own = (a: Atoms | undefined) =>
    a === undefined || a === null || foreign === null ? '' : formatAmount(a, exponentOf(foreign));
  const balanceOnly = (a: Atoms | undefined) => (foreign === null ? [] : ['', own(a)]);
  const line = (l: GlLine): string => {
    const amounts = [l.debit, l.credit, l.balance];
    const extra =
      foreign === null
        ? []
        : [
            l.fx
              ? `${own(l.debit === null ? -l.fx.amount_atoms : l.fx.amount_atoms)} @ ${l.fx.rate}`
              : '',
            own(l.foreign_balance_atoms),
          ];
    if (fit)
      return row(
        l.entry_date,
        clip(l.je_number, 12),
        clip(memoOf(l), MEMO),
        clip(partyOf(l), PARTY),
        amounts,
        extra,
      );
    const [je, memo, party] = [
      wrap(l.je_number, 12),
      wrap(memoOf(l), MEMO),
      wrap(partyOf(l), PARTY),
    ];
    let out = row(l.entry_date, je[0]!, memo[0]!, party[0]!, amounts, extra);
    for (let i = 1; i < Math.max(je.length, memo.length, party.length); i++)
      out += row('', je[i] ?? '', memo[i] ?? '', party[i] ?? '', []);
    return out;
  };
  return {
    begin: () => {
      const dates = `${printedDate(head.start_date)} – ${printedDate(head.end_date)}`;
      return `${head.entity}\nGeneral Ledger\n${dates} · ${head.reporting_currency}\n`;
    },
    event(e) {
      if (e.kind === 'account') {
        foreign = e.account.foreign_currency ?? null;
        const opening = row(
          '',
          '',
          'Opening balance',
          '',
          [null, null, e.account.opening],
          balanceOnly(e.account.foreign_opening_atoms),
        );
        return `\n${accountTitle(e.account, foreign)}\n${opening}`;
      }
      if (e.kind === 'line') return line(e.line);
      const totals = [e.debit_total, e.credit_total, e.closing];
      return row('', '', 'Closing balance', '', totals, balanceOnly(e.foreign_closing_atoms));
    },
    end: () => '',
  };
}

/** A row of the printed general ledger: its text columns, amounts, and the foreign columns if any. */
function rowOf(exponent: number) {
  const money = (a: Atoms) => (a === null ? '' : formatAmount(a, exponent)).padStart(AMOUNT);
  return (
    date: string,
    je: string,
    memo: string,
    party: string,
    amounts: Atoms[],
    extra: string[] = [],
  ) =>
    [
      date.padEnd(10),
      je.padEnd(12),
      memo.padEnd(MEMO),
      party.padEnd(PARTY),
      ...amounts.map(money),
      ...extra.map((x, i) => (i ? x.padStart(AMOUNT) : x.padStart(AMOUNT + 12))),
    ]
      .join('  ')
      .trimEnd() + '\n';
}

/** An account's title and its column heads (with the foreign columns of an account kept in another currency). */
function accountTitle(
  a: { account_number: string | null; name: string },
  foreign: string | null,
): string {
  const title = `${a.account_number ? `${a.account_number} ` : ''}${cell(a.name)}`;
  const heads = [
    'Date'.padEnd(10),
    'JE'.padEnd(12),
    'Memo'.padEnd(MEMO),
    'Counterparty'.padEnd(PARTY),
  ];
  const columns = ['Debit', 'Credit', 'Balance'].map((c) => c.padStart(AMOUNT));
  const foreignHeads =
    foreign === null
      ? []
      : [`${foreign} @ rate`.padStart(AMOUNT + 12), `${foreign} balance`.padStart(AMOUNT)];
  return `${title}\n${[...heads, ...columns, ...foreignHeads].join('  ')}`;
}

/** A text cell of the general ledger's CSV: guarded for spreadsheets, quoted when it must be. */
const text = (s: string | null) => (s === null ? '' : csvField(spreadsheetText(s)));

/** The general ledger as CSV: one row per journal line, with an opening and a closing row per account. */
export function glCsvWriter(exponent: number, atoms: boolean, showForeign = false): GlWriter {
  const amount = (a: Atoms) => (a === null ? '' : atoms ? String(a) : atomsToDecimal(a, exponent));
  // The account's columns, the same on each of its rows, made once per account.
  let account = '';
  // With --show-foreign: an account kept in another currency, and its amounts in it.
  let foreign: string | null = null;
  const own = (a: Atoms | undefined) =>
    a === undefined || a === null || foreign === null
      ? ''
      : atoms
        ? String(a)
        : atomsToDecimal(a, exponentOf(foreign));
  const fxCells = (amountText: string, rate: string, balance: Atoms | undefined) =>
    showForeign ? `,${foreign ?? ''},${amountText},${rate},${own(balance)}` : '';
  return {
    begin: () =>
      [
        'account_id',
        'account_number',
        'account_name',
        'account_type',
        'row',
        'entry_date',
        'je_number',
        'memo',
        'line_memo',
        'counterparty_type',
        'counterparty_id',
        'counterparty_name',
        'debit',
        'credit',
        'balance',
        ...(showForeign ? ['foreign_currency', 'foreign_amount', 'rate', 'foreign_balance'] : []),
      ].join(',') + '\n',
    event(e) {
      if (e.kind === 'account') {
        const a = e.account;
        account = `${text(a.account_id)},${text(a.account_number)},${text(a.name)},${a.account_type}`;
        foreign = a.foreign_currency ?? null;
        return `${account},opening,,,,,,,,,,${amount(a.opening)}${fxCells('', '', a.foreign_opening_atoms)}\n`;
      }
      if (e.kind === 'line') {
        const l = e.line;
        const party = `${l.counterparty_type ?? ''},${text(l.counterparty_external_id)},${text(l.counterparty_name)}`;
        const entry = `${l.entry_date},${text(l.je_number)},${text(l.memo)},${text(l.line_memo)}`;
        // The line's foreign amount signed as its balance runs: a credit is negative.
        const signed = l.fx ? (l.debit === null ? -l.fx.amount_atoms : l.fx.amount_atoms) : null;
        const fx = fxCells(
          signed === null ? '' : own(signed),
          l.fx?.rate ?? '',
          l.foreign_balance_atoms,
        );
        return `${account},line,${entry},${party},${amount(l.debit)},${amount(l.credit)},${amount(l.balance)}${fx}\n`;
      }
      const closing = fxCells('', '', e.foreign_closing_atoms);
      const totals = `${amount(e.debit_total)},${amount(e.credit_total)},${amount(e.closing)}`;
      return `${account},closing,,,,,,,,${totals}${closing}\n`;
    },
    end: () => '',
  };
}

/** The general ledger as one JSON document, the API's pages put together, written as it comes. */
export function glJsonWriter(head: GlHead): GlWriter {
  let accounts = 0;
  let lines = 0;
  const indent = (text: string, by: string) => text.replace(/\n/g, `\n${by}`);
  return {
    begin: () =>
      `{\n  "start_date": ${JSON.stringify(head.start_date)},\n  "end_date": ${JSON.stringify(head.end_date)},\n` +
      `  "reporting_currency": ${JSON.stringify(head.reporting_currency)},\n  "accounts": [`,
    event(e) {
      if (e.kind === 'account') {
        lines = 0;
        const fields = toJson(e.account, 2).slice(0, -2); // without its closing brace
        return `${accounts++ ? ',' : ''}\n    ${indent(fields, '    ')},\n      "lines": [`;
      }
      if (e.kind === 'line')
        return `${lines++ ? ',' : ''}\n        ${indent(toJson(e.line, 2), '        ')}`;
      const tail = [`"closing": ${toJson(e.closing)}`, `"debit_total": ${toJson(e.debit_total)}`];
      tail.push(`"credit_total": ${toJson(e.credit_total)}`);
      if (e.foreign_closing_atoms !== undefined)
        tail.push(`"foreign_closing_atoms": ${toJson(e.foreign_closing_atoms)}`);
      return `${lines ? '\n      ' : ''}],\n      ${tail.join(',\n      ')}\n    }`;
    },
    end: () => `${accounts ? '\n  ' : ''}]\n}\n`,
  };
}
