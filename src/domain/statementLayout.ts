import type { AccountType } from './accounts.js';
import { DATE_ORDERS, type DateOrder } from './dates.js';
import { BooksError, type Problem } from './errors.js';

/**
 * How an account's statements are read, remembered from the first import that needed flags
 * (docs/reconciliation.md, "Remembered per account"), and the statement's own account as its file names it
 * (an OFX's ACCTID, its type and currency), checked against the ledger's account at every import.
 */

/** A column's role in a bank CSV, as `--map SOURCE=TARGET` names it (`-`: not read). */
export const TARGETS = [
  'date',
  'amount',
  'deposit',
  'withdrawal',
  'direction',
  'description',
  'reference',
  'id',
  'balance',
  'currency',
  '-',
] as const;
export type Target = (typeof TARGETS)[number];

export const ENCODINGS = ['utf-8', 'utf-16', 'latin1', 'windows-1252'] as const;
export type Encoding = (typeof ENCODINGS)[number];

/** The flags of `reconcile import` an account keeps; an absent one is found from the file. */
export interface StatementLayout {
  map?: [string, Target][];
  skip_rows?: number;
  no_header?: boolean;
  delimiter?: string;
  encoding?: Encoding;
  date_format?: DateOrder;
  decimal_comma?: boolean;
  negate?: boolean;
}

const KEYS = [
  'map',
  'skip_rows',
  'no_header',
  'delimiter',
  'encoding',
  'date_format',
  'decimal_comma',
  'negate',
] as const;

/** The layout an import reads with: the remembered one, each flag given in its place. */
export function mergeLayout(kept: StatementLayout | null, given: StatementLayout): StatementLayout {
  const out: StatementLayout = { ...(kept ?? {}) };
  for (const k of KEYS) if (given[k] !== undefined) (out as Record<string, unknown>)[k] = given[k];
  return out;
}

/** The remembered flags that given ones replace (for saying so). */
export function overridden(kept: StatementLayout, given: StatementLayout): StatementLayout {
  const out: StatementLayout = {};
  for (const k of KEYS)
    if (
      given[k] !== undefined &&
      kept[k] !== undefined &&
      JSON.stringify(given[k]) !== JSON.stringify(kept[k])
    )
      (out as Record<string, unknown>)[k] = kept[k];
  return out;
}

export const isEmptyLayout = (l: StatementLayout): boolean => KEYS.every((k) => l[k] === undefined);

/** The flags a layout stands for, as a person types them. */
export function layoutFlags(l: StatementLayout): string[] {
  const q = (v: string) => (/^[\w.,;:/#=()-]+$/.test(v) ? v : `'${v.replace(/'/g, "'\\''")}'`);
  const out: string[] = [];
  if (l.encoding) out.push(`--encoding ${l.encoding}`);
  if (l.skip_rows !== undefined) out.push(`--skip-rows ${l.skip_rows}`);
  if (l.no_header) out.push('--no-header');
  if (l.delimiter !== undefined)
    out.push(`--delimiter ${l.delimiter === '\t' ? 'tab' : q(l.delimiter)}`);
  for (const [source, target] of l.map ?? []) out.push(`--map ${q(`${source}=${target}`)}`);
  if (l.date_format) out.push(`--date-format ${l.date_format}`);
  if (l.decimal_comma) out.push('--decimal-comma');
  if (l.negate) out.push('--negate');
  return out;
}

/** A layout as a request gives it (the API's `layout`), checked; problems name `layout.<flag>`. */
export function checkLayout(raw: unknown): StatementLayout {
  const problems: Problem[] = [];
  const bad = (key: string, message: string) =>
    problems.push({ path: `layout.${key}`, reason: 'invalid_layout', message });
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new BooksError('invalid_input', 'layout must be an object', [
      { path: 'layout', reason: 'invalid_layout', message: 'layout must be an object' },
    ]);
  const r = raw as Record<string, unknown>;
  const out: StatementLayout = {};
  for (const k of Object.keys(r))
    if (!(KEYS as readonly string[]).includes(k))
      bad(k, `unknown: a layout holds ${KEYS.join(', ')}`);
  if (r.map !== undefined) {
    const pairs = Array.isArray(r.map) ? r.map : [];
    const ok = pairs.every(
      (p) =>
        Array.isArray(p) &&
        p.length === 2 &&
        typeof p[0] === 'string' &&
        p[0].trim() !== '' &&
        p[0].length <= 200 &&
        (TARGETS as readonly unknown[]).includes(p[1]),
    );
    if (!Array.isArray(r.map) || !ok || pairs.length > 100)
      bad('map', `a list of [SOURCE, TARGET] pairs, TARGET one of ${TARGETS.join(', ')}`);
    else out.map = pairs as [string, Target][];
  }
  if (r.skip_rows !== undefined) {
    if (!Number.isSafeInteger(r.skip_rows) || (r.skip_rows as number) < 0)
      bad('skip_rows', 'a whole number of lines, 0 or more');
    else out.skip_rows = r.skip_rows as number;
  }
  for (const k of ['no_header', 'decimal_comma', 'negate'] as const)
    if (r[k] !== undefined) {
      if (typeof r[k] !== 'boolean') bad(k, 'true or false');
      else out[k] = r[k];
    }
  if (r.delimiter !== undefined) {
    if (typeof r.delimiter !== 'string' || [...r.delimiter].length !== 1)
      bad('delimiter', 'one character');
    else out.delimiter = r.delimiter;
  }
  if (r.encoding !== undefined) {
    if (!(ENCODINGS as readonly unknown[]).includes(r.encoding))
      bad('encoding', `one of ${ENCODINGS.join(', ')}`);
    else out.encoding = r.encoding as Encoding;
  }
  if (r.date_format !== undefined) {
    if (!(DATE_ORDERS as readonly unknown[]).includes(r.date_format))
      bad('date_format', `one of ${DATE_ORDERS.join(', ')}`);
    else out.date_format = r.date_format as DateOrder;
  }
  if (problems.length)
    throw new BooksError(
      'invalid_input',
      `layout: ${problems[0]!.path}: ${problems[0]!.message}`,
      problems,
    );
  return out;
}

/** The statement's own account, as the file names it: what the ledger's account is checked against. */
export interface StatementSource {
  /** An OFX's kind of statement: a bank's (STMTRS) or a card's (CCSTMTRS); null for a CSV. */
  type: 'bank' | 'credit_card' | null;
  acctid: string | null;
  bankid: string | null;
  /** CURDEF, or a CSV's currency column. */
  currency: string | null;
}

/** The bank account an account's statements come from, once one has named it. */
export interface KnownSource {
  acctid: string;
  bankid: string | null;
}

/**
 * Why a statement is not the ledger account's, if it is not: a card's statement into a bank
 * account (or the other way), another currency, another ACCTID than the one remembered (unless the
 * bookkeeper says the account changed).
 */
export function sourceProblem(
  account: { external_id: string; account_type: AccountType; currency: string },
  s: StatementSource,
  known: KnownSource | null,
  change: boolean,
): Problem | null {
  const kind = (t: 'bank' | 'credit_card') =>
    t === 'bank' ? 'a bank statement' : 'a card statement';
  if (
    s.type !== null &&
    (account.account_type === 'bank' || account.account_type === 'credit_card')
  )
    if (s.type !== account.account_type)
      return {
        path: 'source.type',
        reason: 'statement_type',
        message:
          `the file is ${kind(s.type)} (${s.type === 'bank' ? 'STMTRS' : 'CCSTMTRS'}) and ` +
          `'${account.external_id}' is a ${account.account_type} account`,
      };
  if (s.currency !== null && s.currency !== account.currency)
    return {
      path: 'source.currency',
      reason: 'currency_conflict',
      message: `the statement is in ${s.currency} and '${account.external_id}' is kept in ${account.currency}`,
    };
  if (s.acctid && known && known.acctid !== s.acctid && !change)
    return {
      path: 'source.acctid',
      reason: 'statement_account',
      message:
        `the statement is of account ${s.acctid}${s.bankid ? ` at bank ${s.bankid}` : ''}, and ` +
        `'${account.external_id}' takes the statements of account ${known.acctid}` +
        `${known.bankid ? ` at bank ${known.bankid}` : ''}: give --ofx-account-change if the ` +
        'bank account changed',
    };
  return null;
}

/** Whether a value is a layout as `checkLayout` takes it (a dump's). */
export function isLayout(v: unknown): boolean {
  try {
    checkLayout(v);
    return true;
  } catch {
    return false;
  }
}

/** A request's `source` (null: the file names no account), checked. */
export function checkSource(raw: unknown): StatementSource | null {
  if (raw === undefined || raw === null) return null;
  const r = (typeof raw === 'object' && !Array.isArray(raw) ? raw : {}) as Record<string, unknown>;
  const text = (v: unknown, max: number) =>
    v === undefined || v === null || (typeof v === 'string' && v.length <= max);
  const ok =
    typeof raw === 'object' &&
    !Array.isArray(raw) &&
    (r.type === undefined || r.type === null || r.type === 'bank' || r.type === 'credit_card') &&
    text(r.acctid, 200) &&
    text(r.bankid, 200) &&
    (r.currency === undefined ||
      r.currency === null ||
      (typeof r.currency === 'string' && /^[A-Z]{3}$/.test(r.currency)));
  if (!ok)
    throw new BooksError(
      'invalid_input',
      'source: {type, acctid, bankid, currency} of the statement',
      [
        {
          path: 'source',
          reason: 'invalid_source',
          message: "type 'bank' or 'credit_card', acctid and bankid text, currency an ISO code",
        },
      ],
    );
  const s = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
  return {
    type: (r.type as StatementSource['type']) ?? null,
    acctid: s(r.acctid),
    bankid: s(r.bankid),
    currency: s(r.currency),
  };
}
