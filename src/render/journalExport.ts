import type { AccountType, Entity, GlAccount } from '../domain/accounts.js';
import type { JournalEntry } from '../domain/entry.js';
import { atomsToDecimal, exponentOf } from '../domain/money.js';

export type Peer = 'hledger' | 'beancount';

/** The peer's top-level account of each type, and hledger's type letter for its declaration. */
const ROOTS: Record<AccountType, { hledger: string; beancount: string; type: string }> = {
  bank: { hledger: 'Assets', beancount: 'Assets', type: 'C' },
  accounts_receivable: { hledger: 'Assets', beancount: 'Assets', type: 'A' },
  other_current_asset: { hledger: 'Assets', beancount: 'Assets', type: 'A' },
  fixed_asset: { hledger: 'Assets', beancount: 'Assets', type: 'A' },
  other_asset: { hledger: 'Assets', beancount: 'Assets', type: 'A' },
  accounts_payable: { hledger: 'Liabilities', beancount: 'Liabilities', type: 'L' },
  credit_card: { hledger: 'Liabilities', beancount: 'Liabilities', type: 'L' },
  other_current_liability: { hledger: 'Liabilities', beancount: 'Liabilities', type: 'L' },
  long_term_liability: { hledger: 'Liabilities', beancount: 'Liabilities', type: 'L' },
  equity: { hledger: 'Equity', beancount: 'Equity', type: 'E' },
  income: { hledger: 'Revenues', beancount: 'Income', type: 'R' },
  other_income: { hledger: 'Revenues', beancount: 'Income', type: 'R' },
  cost_of_goods_sold: { hledger: 'Expenses', beancount: 'Expenses', type: 'X' },
  expense: { hledger: 'Expenses', beancount: 'Expenses', type: 'X' },
  other_expense: { hledger: 'Expenses', beancount: 'Expenses', type: 'X' },
};

/**
 * One name component in the peer's rules. hledger: any text but `:` and runs of two spaces (which
 * end an account name) or a tab. Beancount: a capital letter or digit, then letters, digits and dashes.
 */
function component(peer: Peer, text: string): string {
  if (peer === 'hledger')
    return (
      text
        .replace(/[:\t\r\n;]/g, '-')
        .replace(/ {2,}/g, ' ')
        .trim() || 'Unnamed'
    );
  const word = text
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const first = word.charAt(0);
  return !first ? 'Unnamed' : /[0-9]/.test(first) ? word : first.toUpperCase() + word.slice(1);
}

/**
 * Each account's full name in the peer's language: its root by type, then the names of its parents
 * and its own. Names that would collide are told apart by the account number (or external id).
 */
export function peerAccountNames(peer: Peer, accounts: GlAccount[]): Map<string, string> {
  const byId = new Map(accounts.map((a) => [a.id, a]));
  const names = new Map<string, string>();
  const used = new Set<string>();
  const nameOf = (a: GlAccount): string => {
    const known = names.get(a.id);
    if (known) return known;
    const parent = a.parent_id ? byId.get(a.parent_id) : undefined;
    const base = parent ? nameOf(parent) : ROOTS[a.account_type][peer];
    let name = `${base}:${component(peer, a.name)}`;
    if (used.has(name))
      name = `${base}:${component(peer, `${a.account_number ?? a.external_id} ${a.name}`)}`;
    used.add(name);
    names.set(a.id, name);
    return name;
  };
  for (const a of accounts) nameOf(a);
  return names;
}

const quoted = (s: string) =>
  `"${s
    .replace(/\\/g, '\\\\')
    .replace(/"/g, '\\"')
    .replace(/[\r\n]+/g, ' ')}"`;
const oneLine = (s: string) => s.replace(/[\r\n]+/g, ' ');

/** The text before the first entry: a header, the currency, and every account declared with its type. */
export function exportHead(
  peer: Peer,
  entity: Entity,
  accounts: GlAccount[],
  names: Map<string, string>,
): string {
  const exponent = exponentOf(entity.currency);
  // hledger wants a decimal mark in a commodity's format, even with no decimals (`100000. JPY`).
  const sample = atomsToDecimal(100_000 * 10 ** exponent, exponent) + (exponent === 0 ? '.' : '');
  const opened = entity.books_start ?? '1970-01-01';
  const lines: string[] = [];
  if (peer === 'hledger') {
    lines.push(
      `; ${oneLine(entity.name)}: the journal of books, exported`,
      `commodity ${sample} ${entity.currency}`,
      '',
    );
    for (const a of accounts) {
      const meta = [`type: ${ROOTS[a.account_type].type}`, `books_id: ${a.external_id}`];
      if (a.account_number) meta.push(`number: ${a.account_number}`);
      lines.push(`account ${names.get(a.id)!}  ; ${meta.join(', ')}`);
    }
  } else {
    lines.push(
      `option "title" ${quoted(entity.name)}`,
      `option "operating_currency" "${entity.currency}"`,
      '',
    );
    for (const a of accounts) {
      lines.push(`${opened} open ${names.get(a.id)!} ${entity.currency}`);
      lines.push(`  books_id: ${quoted(a.external_id)}`);
      if (a.account_number) lines.push(`  number: ${quoted(a.account_number)}`);
    }
  }
  return lines.join('\n') + '\n';
}

/**
 * One entry as a transaction: the JE number as hledger's code (beancount: metadata), the memo as
 * its description, lines as postings with exact amounts (debits positive, credits negative),
 * counterparties and line memos as tags or metadata, adjusting entries tagged.
 */
export function exportEntry(peer: Peer, e: JournalEntry, names: Map<string, string>): string {
  const exponent = exponentOf(e.currency);
  const amount = (atoms: number, side: string) =>
    `${atomsToDecimal(side === 'debit' ? atoms : -atoms, exponent)} ${e.currency}`;
  const width = Math.max(...e.lines.map((l) => names.get(l.account_id)!.length)) + 4;
  const out: string[] = [];
  if (peer === 'hledger') {
    // A code ends at `)` and a description at `;` (a comment): neither may hold them.
    const code = e.je_number.replace(/\)/g, ']');
    const head = `${e.entry_date} (${code}) ${oneLine(e.memo ?? '').replace(/;/g, ',')}`.trimEnd();
    out.push(e.is_adjusting ? `${head}  ; adjusting:` : head);
    for (const l of e.lines) {
      const tag = [
        ...(l.counterparty_type ? [`${l.counterparty_type}: ${l.counterparty_external_id}`] : []),
        ...(l.memo ? [`memo: ${oneLine(l.memo).replace(/,/g, ';')}`] : []),
      ];
      const posting = `    ${names.get(l.account_id)!.padEnd(width)}${amount(l.amount_atoms, l.line_type)}`;
      out.push(tag.length ? `${posting}  ; ${tag.join(', ')}` : posting);
    }
  } else {
    out.push(`${e.entry_date} * ${quoted(e.memo ?? '')}${e.is_adjusting ? ' #adjusting' : ''}`);
    out.push(`  je_number: ${quoted(e.je_number)}`);
    for (const l of e.lines) {
      out.push(`  ${names.get(l.account_id)!.padEnd(width)}${amount(l.amount_atoms, l.line_type)}`);
      if (l.counterparty_type)
        out.push(`    ${l.counterparty_type}: ${quoted(l.counterparty_external_id ?? '')}`);
      if (l.memo) out.push(`    memo: ${quoted(l.memo)}`);
    }
  }
  return '\n' + out.join('\n') + '\n';
}
