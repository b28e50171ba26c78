import { AccountMatcher } from './accountMatch.js';
import { TAG_KEY } from './tags.js';
import type { AccountType, GlAccount } from './accounts.js';

/**
 * What `books export` writes for hledger and beancount and `je import --preset hledger` reads back:
 * account names unique by construction, and text carried exactly in tags, so that a journal goes
 * out and comes back the same (export → `hledger print -O csv` → import).
 */
export type Peer = 'hledger' | 'beancount';

/** The peer's top-level account of each type, and hledger's type letter for its declaration. */
export const ROOTS: Record<AccountType, { hledger: string; beancount: string; type: string }> = {
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
        // eslint-disable-next-line no-control-regex
        .replace(/[:;\u0000-\u001f\u007f\u0085\u2028\u2029]/g, '-')
        // hledger reads any white space as a space (and two as the end of the name).
        .replace(/\s+/g, ' ')
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
 * and its own. The names are unique by construction: an account whose name is taken (by another of
 * the same name, or by another's fallback) is told apart by its number, then by its external id,
 * then by a count; the peer never merges two accounts. For hledger, whose journals come back through
 * `je import --preset hledger`, a name is also never one that the import's matching of paths reads
 * as another account, or as several: it names this account there, or none (then the import reads
 * it as this export named it). The same chart always gives the same names.
 */
export function peerAccountNames(peer: Peer, accounts: GlAccount[]): Map<string, string> {
  const byId = new Map(accounts.map((a) => [a.id, a]));
  const names = new Map<string, string>();
  // Names are compared as the peer compares them (beancount's are case-sensitive too, but a name
  // differing only in case from another reads as a mistake): case aside.
  const used = new Set<string>();
  const matcher = peer === 'hledger' ? new AccountMatcher(accounts) : null;
  const readsAs = (name: string, a: GlAccount) => {
    const hits = matcher?.hits(name) ?? [];
    return hits.length === 0 || (hits.length === 1 && hits[0] === a);
  };
  const free = (name: string, a: GlAccount) => !used.has(name.toLowerCase()) && readsAs(name, a);
  const nameOf = (a: GlAccount, seen: Set<string>): string => {
    const known = names.get(a.id);
    if (known) return known;
    const parent = a.parent_id && !seen.has(a.parent_id) ? byId.get(a.parent_id) : undefined;
    const base = parent ? nameOf(parent, new Set([...seen, a.id])) : ROOTS[a.account_type][peer];
    const label = a.account_number ?? a.external_id;
    const candidates = [a.name, `${label} ${a.name}`, `${label} ${a.name} ${a.external_id}`].map(
      (c) => `${base}:${component(peer, c)}`,
    );
    let name = candidates.find((c) => free(c, a));
    for (let n = 2; name === undefined; n++) {
      const counted = `${candidates[2]!}-${n}`;
      if (free(counted, a)) name = counted;
    }
    used.add(name.toLowerCase());
    names.set(a.id, name);
    return name;
  };
  for (const a of accounts) nameOf(a, new Set());
  return names;
}

/** Characters a tag value cannot hold as they are: `%` (the escape), `,` (ends a tag), controls. */
// Control characters are what this expression is for.
// eslint-disable-next-line no-control-regex
const ESCAPED = /[%,\u0000-\u001f\u007f\u0085\u2028\u2029]|^\s|\s$/g;

/**
 * A tag value (hledger `name: value`) that holds any text exactly: `%`, `,`, control characters,
 * line breaks and spaces at either end are written `%XX` (`%uXXXX` beyond U+00FF); anything else
 * as it is, so that the value stays readable.
 */
export function tagValue(text: string): string {
  return text.replace(ESCAPED, (c) => {
    const n = c.charCodeAt(0);
    return n < 0x100
      ? `%${n.toString(16).toUpperCase().padStart(2, '0')}`
      : `%u${n.toString(16).toUpperCase().padStart(4, '0')}`;
  });
}

/** The text of a tag value written by `tagValue` (a `%` that starts no escape is kept). */
export function untagValue(value: string): string {
  return value.replace(/%(?:u([0-9A-F]{4})|([0-9A-F]{2}))/g, (_m, wide?: string, byte?: string) =>
    String.fromCharCode(parseInt(wide ?? byte!, 16)),
  );
}

/** A transaction's or posting's tags, as written in its comment: `name: value, name2: value2`. */
export function tagsText(tags: [string, string][]): string {
  return tags.map(([k, v]) => (v === '' ? `${k}:` : `${k}: ${tagValue(v)}`)).join(', ');
}

/** The tags books export writes of its own (a line's counterparty and memo, an entry's fields, a bank date). */
const BOOKS_TAGS: ReadonlySet<string> = new Set([
  'customer',
  'vendor',
  'employee',
  'memo',
  'date',
  'je',
  'reason',
  'adjusting',
]);

/**
 * The name a line's tag is written under in an exported journal: its key, or `tag-KEY` where the key
 * is one of books' own tags' names, starts with `tag-` (so that every name reads back as one key), or
 * is one letter (Beancount's metadata keys have two at least).
 */
export const peerTagName = (key: string): string =>
  BOOKS_TAGS.has(key) || key.startsWith('tag-') || key.length < 2 ? `tag-${key}` : key;

/** The tag key an exported journal's tag name stands for, or null for books' own tags and other names. */
export function userTagKey(name: string): string | null {
  if (BOOKS_TAGS.has(name)) return null;
  const key = name.startsWith('tag-') ? name.slice(4) : name;
  return TAG_KEY.test(key) ? key : null;
}

/**
 * The tags of a comment (`name: value`, separated by commas) whose names are `known` (or all), values
 * decoded; the rest of the comment (text, or tags of other names) comes back as it is under ''.
 */
export function readTags(comment: string, known: ReadonlySet<string> | 'all'): Map<string, string> {
  const tags = new Map<string, string>();
  const other: string[] = [];
  for (const part of comment.split(',')) {
    const m = /^\s*([A-Za-z][\w-]*):(?:\s(.*)|)$/s.exec(part);
    if (m && (known === 'all' || known.has(m[1]!)))
      tags.set(m[1]!, untagValue((m[2] ?? '').trim()));
    else if (part.trim()) other.push(part.trim());
  }
  if (other.length) tags.set('', other.join(', '));
  return tags;
}

/**
 * True when a memo reads back exactly as a transaction's description: no `;` (a comment starts
 * there), no line break or control character, no space at either end (hledger trims), and no
 * leading `*`, `!` or `(` (a status or a code).
 */
export function plainDescription(text: string): boolean {
  // eslint-disable-next-line no-control-regex
  return !/[;\u0000-\u001f\u007f\u0085\u2028\u2029]|^[\s*!(]|\s$/.test(text);
}

/** True when a JE number reads back exactly as a transaction's code: `(` and `)` cannot be in it. */
export function plainCode(text: string): boolean {
  // eslint-disable-next-line no-control-regex
  return text !== '' && !/[()\u0000-\u001f\u007f\u0085\u2028\u2029;]|^\s|\s$/.test(text);
}
