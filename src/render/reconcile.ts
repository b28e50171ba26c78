import { atomsToDecimal, formatAmount } from '../domain/money.js';
import {
  jeLineOf,
  type ReconLine,
  type Reconciliation,
  type StatementLine,
} from '../domain/reconcile.js';
import type {
  MatchOutcome,
  ReconcileStatus,
  ReconciliationReport,
  StatementImportSummary,
  StatementSourceView,
} from '../ledger/port.js';
import { layoutFlags } from '../domain/statementLayout.js';
import { csvLine, spreadsheetText } from './csv.js';
import { longGrid as grid } from './table.js';
import { cell } from './text.js';

/** Money as the reconciliation screens print it (the account's sign, grouped thousands). */
export const money = (atoms: number | bigint | null, exponent: number): string =>
  atoms === null ? '—' : formatAmount(atoms, exponent);

export function importText(s: StatementImportSummary, exponent: number, dryRun: boolean): string {
  const verb = dryRun ? 'Would import' : 'Imported';
  const closing =
    s.closing_balance === null ? '' : `; closing balance ${money(s.closing_balance, exponent)}`;
  return (
    `${verb} ${s.imported} statement line(s), ${s.start} to ${s.end}` +
    `${s.skipped ? ` (${s.skipped} already imported, skipped)` : ''}${closing}`
  );
}

export function statementLinesTable(lines: StatementLine[], exponent: number): string {
  return grid(
    ['Statement line', 'Date', 'Amount', 'Description', 'Reference', 'State'],
    lines.map((l) => [
      l.id,
      l.date,
      money(l.amount_atoms, exponent),
      cell(l.description ?? ''),
      cell(l.reference ?? ''),
      l.state + (l.line_ids.length ? ` ${l.line_ids.join(' ')}` : ''),
    ]),
    ['left', 'left', 'right'],
  );
}

export function ledgerLinesTable(lines: ReconLine[], exponent: number): string {
  return grid(
    ['Line', 'Date', 'JE line', 'Amount', 'Memo', 'State'],
    lines.map((l) => [
      l.line_id,
      l.entry_date,
      jeLineOf(l),
      money(l.amount_atoms, exponent),
      cell([l.memo, l.line_memo, l.counterparty_name].filter(Boolean).join(' · ')),
      l.state,
    ]),
    ['left', 'left', 'left', 'right'],
  );
}

export function matchText(m: MatchOutcome, exponent: number, dryRun: boolean): string {
  const out = [`${dryRun ? 'Would match' : 'Matched'} ${m.matched.length} statement line(s)`];
  if (m.matched.length)
    out.push(
      grid(
        ['Statement line', 'Date', 'Amount', 'Description', 'Ledger lines', 'Days'],
        m.matched.map((x) => [
          x.statement_line_id,
          x.date ?? '',
          x.amount_atoms === undefined ? '' : money(x.amount_atoms, exponent),
          cell(x.description ?? ''),
          (x.ledger_lines ?? x.line_ids).join(' '),
          String(x.days),
        ]),
        ['left', 'left', 'right', 'left', 'left', 'right'],
      ),
    );
  if (m.unmatched_statement_lines.length)
    out.push(
      `\nUnmatched statement lines (${m.unmatched_statement_lines.length}):`,
      statementLinesTable(m.unmatched_statement_lines, exponent),
    );
  if (m.uncleared_lines.length)
    out.push(
      `\nUncleared ledger lines near the statement (${m.uncleared_lines.length}):`,
      ledgerLinesTable(m.uncleared_lines, exponent),
    );
  return out.join('\n');
}

export function reconciliationsTable(list: Reconciliation[], exponent: number): string {
  if (list.length === 0) return 'No finished reconciliation.';
  return grid(
    ['Reconciliation', 'Statement date', 'Statement balance', 'Lines', 'Finished at'],
    list.map((r) => [
      r.id,
      r.statement_date,
      money(r.statement_balance_atoms, exponent),
      String(r.line_count),
      r.finished_at,
    ]),
    ['left', 'left', 'right', 'right'],
  );
}

export function statusText(s: ReconcileStatus, exponent: number): string {
  const last = s.last_reconciliation;
  const rows: [string, string][] = [
    [
      'Last reconciliation',
      last
        ? `${last.statement_date}, balance ${money(last.statement_balance_atoms, exponent)}`
        : 'none',
    ],
    [
      'Statement',
      s.statement
        ? `closing balance ${money(s.statement.balance_atoms, exponent)} on ${s.statement.date}`
        : 'no closing balance imported',
    ],
    [
      'Cleared balance',
      s.through ? `${money(s.cleared_balance, exponent)} through ${s.through}` : '—',
    ],
    ['Difference', money(s.difference, exponent)],
    ['Matched lines', String(s.matched)],
  ];
  const out = [rows.map(([k, v]) => `${k.padEnd(21)}${v}`).join('\n')];
  if (s.unmatched_statement_lines.length)
    out.push(
      `\nUnmatched statement lines (${s.unmatched_statement_lines.length}):`,
      statementLinesTable(s.unmatched_statement_lines, exponent),
    );
  if (s.ignored_statement_lines.length)
    out.push(
      `\nIgnored statement lines (${s.ignored_statement_lines.length}):`,
      statementLinesTable(s.ignored_statement_lines, exponent),
    );
  if (s.uncleared_lines.length)
    out.push(
      `\nUncleared ledger lines${s.through ? ` through ${s.through}` : ''} (${s.uncleared_lines.length}):`,
      ledgerLinesTable(s.uncleared_lines, exponent),
    );
  out.push(...reversedSaid(s.reversed_pairs, exponent));
  return out.join('\n');
}

/** Entries voided by their reversal: listed once, each pair on a line. */
function reversedSaid(pairs: [ReconLine, ReconLine][], exponent: number): string[] {
  if (pairs.length === 0) return [];
  return [
    `\nReversed, nets to zero (${pairs.length}): left out of the lines above`,
    ...pairs.map(
      ([a, b]) =>
        ` ${jeLineOf(a)} ${a.entry_date} ${money(a.amount_atoms, exponent)}  reversed by ` +
        `${jeLineOf(b)} ${b.entry_date} ${money(b.amount_atoms, exponent)}` +
        (a.memo ? `  ${cell(a.memo)}` : ''),
    ),
  ];
}

/** The report as a bookkeeper files it: the balances, the identity, then each group's lines. */
export function reportText(r: ReconciliationReport, exponent: number, name: string): string {
  const m = (a: number | bigint | null) => money(a, exponent);
  const width = 44;
  const row = (k: string, v: string) => `${k.padEnd(width)}${v.padStart(16)}`;
  const out = [
    `Reconciliation: ${name}, statement date ${r.statement_date} (${r.status})`,
    '',
    row('Statement balance', m(r.statement_balance)),
    row('Cleared balance', m(r.cleared_balance)),
    row('Difference (statement − cleared)', m(r.difference)),
    '',
    row('Cleared balance', m(r.cleared_balance)),
    row('+ Outstanding debits', m(r.outstanding_debits.total)),
    row('+ Outstanding credits', m(r.outstanding_credits.total)),
    row('− Cleared after the statement date', m(r.cleared_after_date.total)),
    row('= Book balance', m(r.book_balance)),
  ];
  const groups: [string, ReconLine[]][] = [
    ['Outstanding debits', r.outstanding_debits.lines],
    ['Outstanding credits', r.outstanding_credits.lines],
    ['Cleared after the statement date', r.cleared_after_date.lines],
  ];
  for (const [title, lines] of groups)
    if (lines.length)
      out.push('', `${title} (${lines.length}):`, ledgerLinesTable(lines, exponent));
  out.push(...reversedSaid(r.reversed_pairs, exponent));
  if (r.unmatched_statement_lines.length)
    out.push(
      '',
      'Unmatched statement lines:',
      statementLinesTable(r.unmatched_statement_lines, exponent),
    );
  if (r.ignored_statement_lines.length)
    out.push(
      '',
      'Ignored statement lines:',
      statementLinesTable(r.ignored_statement_lines, exponent),
    );
  return out.join('\n');
}

export const REPORT_CSV_COLUMNS = [
  'section',
  'line_id',
  'je_number',
  'date',
  'memo',
  'line_memo',
  'counterparty',
  'amount',
];

/** One row per figure and per line, amounts as plain decimals in the account's sign. */
export function reportCsv(r: ReconciliationReport, exponent: number): string {
  const d = (a: number | bigint | null) => (a === null ? '' : atomsToDecimal(a, exponent));
  const rows = [REPORT_CSV_COLUMNS];
  const figure = (name: string, a: number | bigint | null) =>
    rows.push([name, '', '', r.statement_date, '', '', '', d(a)]);
  figure('statement_balance', r.statement_balance);
  figure('cleared_balance', r.cleared_balance);
  figure('difference', r.difference);
  figure('outstanding_debits', r.outstanding_debits.total);
  figure('outstanding_credits', r.outstanding_credits.total);
  figure('cleared_after_date', r.cleared_after_date.total);
  figure('book_balance', r.book_balance);
  const lines = (section: string, ls: ReconLine[]) => {
    for (const l of ls)
      rows.push([
        section,
        l.line_id,
        l.je_number,
        l.entry_date,
        l.memo ?? '',
        l.line_memo ?? '',
        l.counterparty_name ?? '',
        d(l.amount_atoms),
      ]);
  };
  lines('outstanding_debit', r.outstanding_debits.lines);
  lines('outstanding_credit', r.outstanding_credits.lines);
  lines('cleared_after_date', r.cleared_after_date.lines);
  lines('reversed', r.reversed_pairs.flat());
  for (const s of [...r.unmatched_statement_lines, ...r.ignored_statement_lines])
    rows.push([
      `statement_${s.state}`,
      s.id,
      s.reference ?? '',
      s.date,
      s.description ?? '',
      '',
      '',
      d(s.amount_atoms),
    ]);
  return (
    rows.map((r) => csvLine(r.map((c, i) => (i === 7 ? c : spreadsheetText(c))))).join('\n') + '\n'
  );
}

/** `reconcile layout`: the remembered flags and the statements' bank account, or what was forgotten. */
export function layoutText(account: string, v: StatementSourceView): string {
  const out: string[] = [];
  if (v.forgotten !== undefined)
    out.push(
      v.forgotten
        ? `Forgot ${account}'s statement layout: ${layoutFlags(v.forgotten).join(' ')}`
        : `${account} had no statement layout to forget`,
    );
  else
    out.push(
      v.layout
        ? `${account}'s statements are read with: ${layoutFlags(v.layout).join(' ')}`
        : `${account} has no remembered statement layout: its statements are read from the file alone`,
    );
  const k = v.statement_account;
  out.push(
    k
      ? `Its statements are of bank account ${k.acctid}${k.bankid ? ` at bank ${k.bankid}` : ''} ` +
          '(a file of another is refused; --ofx-account-change records a new one)'
      : 'No statement has named its bank account yet',
  );
  return out.join('\n');
}
