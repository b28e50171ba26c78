import { createHmac, timingSafeEqual } from 'node:crypto';
import { conditionText } from '../domain/tags.js';
import { BooksError } from '../domain/errors.js';
import type { GlAccountHead, GlEvent, GlLine, GlPosition } from '../domain/generalLedger.js';
import type { GeneralLedgerQuery } from '../domain/reportQueries.js';
import type { ReportOps } from '../ledger/port.js';
import type { GlCursor } from '../ledger/reports/reports.js';

export const MAX_GL_LIMIT = 10_000;

type Block = GlAccountHead & {
  lines: GlLine[];
  closing?: number | bigint;
  debit_total?: number | bigint;
  credit_total?: number | bigint;
};

/** One page of the general ledger: up to `limit` lines, and the cursor of the rest (null at the end). */
export interface GlPage {
  object: 'general_ledger_page';
  start_date: string;
  end_date: string;
  accounts: Block[];
  next_cursor: string | null;
}

/**
 * What a cursor is signed with: the ledger's own secret (every server over the ledger has it, so a
 * cursor is good on any of them) and the entity it was given for (never another's, on a database of
 * many entities).
 */
export interface CursorKey {
  secret: Buffer;
  scope: string;
}

/** What a cursor is good for: the query it was given under (the same window, accounts, counterparty). */
function queryText(q: GeneralLedgerQuery): string {
  const base = [q.start_date, q.end_date, q.accounts, q.counterparty];
  // A filter by tag is part of the query its running balances belong to.
  const where = q.where?.length ? [q.where.map((w) => conditionText(w, ':'))] : [];
  return JSON.stringify([...base, ...where]);
}

function signature(payload: string, q: GeneralLedgerQuery, key: CursorKey): string {
  return createHmac('sha256', key.secret)
    .update(`${payload}\n${key.scope}\n${queryText(q)}`)
    .digest('base64url');
}

/**
 * A cursor as the API hands it out: opaque text, the position it stands for (base64url JSON) and a
 * signature over it and the query, so that it cannot be forged or used with another query.
 */
export function encodeCursor(c: GlCursor, q: GeneralLedgerQuery, key: CursorKey): string {
  const plain =
    'seq' in c
      ? { ...c, balance: String(c.balance), debits: String(c.debits), credits: String(c.credits) }
      : c;
  const payload = Buffer.from(JSON.stringify(plain)).toString('base64url');
  return `${payload}.${signature(payload, q, key)}`;
}

export function decodeCursor(text: string, q: GeneralLedgerQuery, signer: CursorKey): GlCursor {
  const bad = () =>
    new BooksError('invalid_parameters', 'cursor is not one this service gave for this query', [
      {
        path: 'cursor',
        reason: 'invalid_cursor',
        message: 'cursor is not one this service gave for this query',
      },
    ]);
  const [payload, sig, more] = text.split('.');
  if (!payload || !sig || more !== undefined) throw bad();
  const expected = Buffer.from(signature(payload, q, signer));
  const given = Buffer.from(sig);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw bad();
  let c: Record<string, unknown>;
  try {
    c = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    throw bad();
  }
  if (typeof c !== 'object' || c === null || !Number.isSafeInteger(c.key)) throw bad();
  const key = c.key as number;
  if (!('seq' in c)) return { key };
  const int = /^-?\d+$/;
  if (typeof c.date !== 'string' || typeof c.seq !== 'number' || typeof c.line_no !== 'number')
    throw bad();
  if (![c.balance, c.debits, c.credits].every((v) => typeof v === 'string' && int.test(v)))
    throw bad();
  const big = (v: unknown) => BigInt(v as string);
  return {
    key,
    date: c.date,
    seq: c.seq,
    line_no: c.line_no,
    balance: big(c.balance),
    debits: big(c.debits),
    credits: big(c.credits),
  };
}

/**
 * Reads the general ledger from a cursor until `limit` lines: each account's block carries its lines
 * on this page, and its closing balance and totals on the page where it ends. The cursor names the
 * line a page stopped after (with the account's sums so far), or the next account to start.
 */
export async function generalLedgerPage(
  reports: ReportOps,
  query: GeneralLedgerQuery,
  limit: number,
  cursor?: string,
): Promise<GlPage> {
  const key = await reports.cursorKey();
  const from = cursor === undefined ? undefined : decodeCursor(cursor, query, key);
  const events = reports.generalLedger(query, from)[Symbol.asyncIterator]();
  const accounts: Block[] = [];
  let lines = 0;
  let last: GlPosition | null = null;
  let next_cursor: string | null = null;
  try {
    for (let e = await events.next(); !e.done; e = await events.next()) {
      const ev: GlEvent = e.value;
      if (lines >= limit && ev.kind !== 'end') {
        next_cursor = encodeCursor(ev.kind === 'account' ? { key: ev.key } : last!, query, key);
        break;
      }
      if (ev.kind === 'account') accounts.push({ ...ev.account, lines: [] });
      else if (ev.kind === 'line') {
        accounts[accounts.length - 1]!.lines.push(ev.line);
        last = ev.at;
        lines++;
      } else
        Object.assign(accounts[accounts.length - 1]!, {
          closing: ev.closing,
          debit_total: ev.debit_total,
          credit_total: ev.credit_total,
        });
    }
  } finally {
    await events.return?.();
  }
  return {
    object: 'general_ledger_page',
    start_date: query.start_date,
    end_date: query.end_date,
    accounts,
    next_cursor,
  };
}
