import type { Entity, GlAccount } from '../domain/accounts.js';
import type { JournalEntry } from '../domain/entry.js';
import type { LineStates } from '../ledger/port.js';
import { atomsToDecimal, exponentOf } from '../domain/money.js';
import {
  peerTagName,
  plainCode,
  plainDescription,
  ROOTS,
  tagsText,
  type Peer,
} from '../domain/peerJournal.js';

export { peerAccountNames, type Peer } from '../domain/peerJournal.js';

const quoted = (s: string) =>
  `"${s
    .replace(/\\/g, '\\\\')
    .replace(/"/g, '\\"')
    .replace(/[\r\n]+/g, ' ')}"`;
// Control characters are what this expression is for.
// eslint-disable-next-line no-control-regex
const oneLine = (s: string) => s.replace(/[\u0000-\u001f\u007f\u0085\u2028\u2029]+/g, ' ');

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
  // The currencies accounts are kept in besides the functional one, each declared too.
  const foreign = [
    ...new Set(
      accounts
        .map((a) => a.currency)
        .filter((c): c is string => c !== null && c !== entity.currency),
    ),
  ].sort();
  const currencyOf = (a: GlAccount) =>
    a.currency !== null && a.currency !== entity.currency
      ? `${a.currency},${entity.currency}`
      : entity.currency;
  if (peer === 'hledger') {
    lines.push(
      `; ${oneLine(entity.name)}: the journal of books, exported`,
      `commodity ${sample} ${entity.currency}`,
      // hledger writes a commodity of three letters before its amount, as books's export does.
      ...foreign.map((c) => {
        const e = exponentOf(c);
        return `commodity ${c} ${atomsToDecimal(100_000 * 10 ** e, e)}${e === 0 ? '.' : ''}`;
      }),
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
      // A foreign account also takes the functional amounts of its revaluations.
      lines.push(`${opened} open ${names.get(a.id)!} ${currencyOf(a)}`);
      lines.push(`  books_id: ${quoted(a.external_id)}`);
      if (a.account_number) lines.push(`  number: ${quoted(a.account_number)}`);
    }
  }
  return lines.join('\n') + '\n';
}

/**
 * One entry as a transaction: the JE number as hledger's code (beancount: metadata), the memo as
 * its description, lines as postings with exact amounts (debits positive, credits negative),
 * counterparties and line memos as tags or metadata, adjusting entries tagged. hledger's tags carry
 * every value exactly (see tagValue): a memo or JE number that its description or code cannot hold
 * as it is goes in a tag too, and the reason always does, so that the import reads the entry back.
 */
export function exportEntry(
  peer: Peer,
  e: JournalEntry,
  names: Map<string, string>,
  states: LineStates = {},
): string {
  const exponent = exponentOf(e.currency);
  const functional = (atoms: number, side: string) =>
    `${atomsToDecimal(side === 'debit' ? atoms : -atoms, exponent)} ${e.currency}`;
  // A foreign line at its cost: the foreign amount, and the functional amount as its total price
  // (`EUR 1000.00 @@ 1105.00 USD`; Beancount writes the number first). A revaluation's line, of no
  // foreign amount, is its functional amount alone.
  const amount = (l: JournalEntry['lines'][number]) => {
    if (!l.fx || l.fx.amount_atoms === 0) return functional(l.amount_atoms, l.line_type);
    const x = exponentOf(l.fx.currency);
    const qty = atomsToDecimal(l.line_type === 'debit' ? l.fx.amount_atoms : -l.fx.amount_atoms, x);
    const cost = `@@ ${atomsToDecimal(l.amount_atoms, exponent)} ${e.currency}`;
    return peer === 'hledger'
      ? `${l.fx.currency} ${qty} ${cost}`
      : `${qty} ${l.fx.currency} ${cost}`;
  };
  // A posting's tags are its effective ones: the entry's, overridden by its own.
  const effective = (l: JournalEntry['lines'][number]) =>
    Object.entries({ ...e.tags, ...l.tags }).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const flagged = e.lines.some((l) => states[l.id]);
  const width =
    Math.max(...e.lines.map((l) => names.get(l.account_id)!.length)) + 4 + (flagged ? 2 : 0);
  const out: string[] = [];
  if (peer === 'hledger') {
    const memo = e.memo ?? '';
    const code = plainCode(e.je_number) ? ` (${e.je_number})` : '';
    // A description that would not read back as the memo is only for people: the tag carries it.
    const description = plainDescription(memo)
      ? memo
      : oneLine(memo)
          .replace(/;/g, ',')
          .replace(/^[\s*!(]+/, '')
          .trim();
    const tags: [string, string][] = [];
    if (e.is_adjusting) tags.push(['adjusting', '']);
    if (!code) tags.push(['je', e.je_number]);
    if (description !== memo) tags.push(['memo', memo]);
    if (e.manual_entry_reason !== null) tags.push(['reason', e.manual_entry_reason]);
    const head = `${e.entry_date}${code} ${description}`.trimEnd();
    out.push(tags.length ? `${head}  ; ${tagsText(tags)}` : head);
    for (const l of e.lines) {
      const tag: [string, string][] = [];
      if (l.counterparty_type) tag.push([l.counterparty_type, l.counterparty_external_id ?? '']);
      if (l.memo) tag.push(['memo', l.memo]);
      const st = states[l.id];
      // The bank's date goes on the posting (hledger's posting date), so that `hledger bal -C`
      // at a statement date reads the statement's balance.
      if (st && st.cleared_date !== e.entry_date) tag.push(['date', st.cleared_date]);
      for (const [k, v] of effective(l)) tag.push([peerTagName(k), v]);
      const name = `${flagOf(st)}${names.get(l.account_id)!}`;
      const posting = `    ${name.padEnd(width)}${amount(l)}`;
      out.push(tag.length ? `${posting}  ; ${tagsText(tag)}` : posting);
    }
  } else {
    out.push(`${e.entry_date} * ${quoted(e.memo ?? '')}${e.is_adjusting ? ' #adjusting' : ''}`);
    out.push(`  je_number: ${quoted(e.je_number)}`);
    if (e.manual_entry_reason !== null) out.push(`  reason: ${quoted(e.manual_entry_reason)}`);
    for (const l of e.lines) {
      const name = `${flagOf(states[l.id])}${names.get(l.account_id)!}`;
      out.push(`  ${name.padEnd(width)}${amount(l)}`);
      if (l.counterparty_type)
        out.push(`    ${l.counterparty_type}: ${quoted(l.counterparty_external_id ?? '')}`);
      if (l.memo) out.push(`    memo: ${quoted(l.memo)}`);
      for (const [k, v] of effective(l)) out.push(`    ${peerTagName(k)}: ${quoted(v)}`);
    }
  }
  return '\n' + out.join('\n') + '\n';
}

/** A posting's flag: `*` reconciled, `!` cleared (matched or ticked, not yet reconciled). */
const flagOf = (st: LineStates[string] | undefined): string =>
  st ? (st.state === 'reconciled' ? '* ' : '! ') : '';
