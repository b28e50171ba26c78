import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isBooksError } from '../../src/domain/errors.js';
import { HttpLedger } from '../../src/ledger/http/ledger.js';
import type { Ledger } from '../../src/ledger/port.js';
import { SqliteLedger } from '../../src/ledger/sqlite/ledger.js';
import { serve, standardLedger, type Served } from '../e2e/helpers.js';

// The same cases against the SQLite ledger and the HTTP ledger talking to a real `books serve` over an
// identical ledger file: every outcome must be the same, ids and timestamps aside.

type Outcome = { ok: unknown } | { error: { code: string; reasons: string[]; message: string; details: string[] } };

function normalise(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v), (k, x) => {
    if (typeof x === 'string' && /^(je|jel|acct)_/.test(x)) return '<id>';
    if (['created_at', 'updated_at', 'id', 'account_id', 'journal_entry_id', 'original_journal_entry_id', 'existing_journal_entry_id'].includes(k) && x !== null) return '<id>';
    if (k === 'reversed_by_journal_entry_ids') return (x as unknown[]).map(() => '<id>');
    return x;
  });
}

async function outcome(f: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: normalise(await f()) };
  } catch (e) {
    if (!isBooksError(e)) throw e;
    return { error: { code: e.code, reasons: e.errors.map((p) => `${p.path}:${p.reason}`), message: e.message.replace(/\bje_[\w-]+/g, '<id>'), details: Object.keys(e.details).filter((k) => k !== 'already_posted').sort() } };
  }
}

describe('the Ledger contract: SQLite and HTTP give identical results', () => {
  let sqlite: SqliteLedger;
  let http: HttpLedger;
  let server: Served;
  let files: string[];
  let both: (name: string, f: (l: Ledger) => Promise<unknown>) => Promise<Outcome>;

  beforeAll(async () => {
    const [a, b] = await Promise.all([standardLedger(), standardLedger()]);
    files = [a.ledger, b.ledger];
    const key = JSON.parse((await b.run(['keys', 'create', '--permission', 'customer_api:post_journal_entries', '--permission', 'customer_api:read', '--format', 'json'])).stdout).key as string;
    server = await serve(b.ledger);
    sqlite = SqliteLedger.open(a.ledger);
    http = new HttpLedger({ baseUrl: server.url, apiKey: key, apiKeyEnv: 'BOOKS_API_KEY', currency: 'USD', attempts: 1 });
    both = async (_name, f) => {
      const [x, y] = [await outcome(() => f(sqlite)), await outcome(() => f(http))];
      expect(y).toEqual(x);
      return x;
    };
  });
  afterAll(async () => {
    await sqlite?.close();
    await server?.stop();
  });

  let k = 0;
  const key = () => `contract-${++k}`;
  const line = (gl_account_id: string, line_type: string, amount_atoms: unknown, extra: Record<string, unknown> = {}) => ({ gl_account_id, line_type, amount_atoms, ...extra });
  const entry = (extra: Record<string, unknown> = {}) => ({ entry_date: '2025-03-02', lines: [line('rent', 'debit', 100), line('checking', 'credit', 100)], ...extra });

  it('posts entries with the same numbers and fields', async () => {
    const r = await both('post', (l) => l.post(entry({ memo: 'one' }), { idempotencyKey: key() }));
    expect(r).toMatchObject({ ok: { je_number: 'JE-1', status: 'posted', memo: 'one' } });
    await both('post numbered', (l) => l.post(entry({ je_number: 'je-0042' }), { idempotencyKey: key() }));
    await both('post after', (l) => l.post(entry({ lines: [line('ar', 'debit', 5, { counterparty_type: 'customer', counterparty_external_id: 'C002' }), line('sales', 'credit', 5)] }), { idempotencyKey: key() }));
  });

  it.each([
    ['unbalanced', { lines: [line('rent', 'debit', 100), line('checking', 'credit', 90)] }, 'lines:unbalanced'],
    ['unknown account', { lines: [line('nope', 'debit', 100), line('checking', 'credit', 100)] }, 'lines[0].gl_account_id:unknown_account'],
    ['header account', { lines: [line('cash', 'debit', 100), line('checking', 'credit', 100)] }, 'lines[0].gl_account_id:unpostable_account'],
    ['missing counterparty', { lines: [line('ar', 'debit', 100), line('sales', 'credit', 100)] }, 'lines[0].counterparty_external_id:invalid_counterparty'],
    ['inactive counterparty', { lines: [line('ap', 'credit', 100, { counterparty_type: 'vendor', counterparty_external_id: 'V005' }), line('rent', 'debit', 100)] }, 'lines[0].counterparty_external_id:invalid_counterparty'],
    ['invalid amount', { lines: [line('rent', 'debit', 0), line('checking', 'credit', 0)] }, 'lines[0].amount_atoms:invalid_amount'],
    ['amount beyond 2^53', { lines: [line('rent', 'debit', 2 ** 53), line('checking', 'credit', 2 ** 53)] }, 'lines[0].amount_atoms:invalid_amount'],
    ['other currency', { currency: 'EUR' }, 'currency:currency_mismatch'],
    ['one line', { lines: [line('rent', 'debit', 100)] }, 'lines:line_count'],
    ['before the books start', { entry_date: '2024-12-31' }, 'entry_date:before_books_start'],
    ['duplicate number', { je_number: 'JE 42' }, 'je_number:duplicate_je_number'],
    ['unknown field', { colour: 'red' }, 'colour:unknown_field'],
  ])('refuses %s with the same CAPI33 problems', async (_n, extra, reason) => {
    const r = await both('refuse', (l) => l.post(entry(extra), { idempotencyKey: key() }));
    expect(r).toMatchObject({ error: { code: 'CAPI33' } });
    expect((r as { error: { reasons: string[] } }).error.reasons).toContain(reason);
  });

  it('refuses a missing key and a repeated one (CAPI34) the same way', async () => {
    expect(await both('empty key', (l) => l.post(entry(), { idempotencyKey: '' }))).toMatchObject({ error: { code: 'CAPI34' } });
    await both('first', (l) => l.post(entry({ memo: 'keyed' }), { idempotencyKey: 'same-key' }));
    expect(await both('again', (l) => l.post(entry({ memo: 'keyed' }), { idempotencyKey: 'same-key' }))).toMatchObject({ error: { code: 'CAPI34', details: ['existing_journal_entry_id'] } });
  });

  it('reverses once, then refuses', async () => {
    expect(await both('reverse', (l) => l.reverse('JE-1', { idempotencyKey: key(), entryDate: '2025-03-05' }))).toMatchObject({ ok: { memo: 'Reversal of JE-1', entry_date: '2025-03-05' } });
    expect(await both('reverse again', (l) => l.reverse('JE-1', { idempotencyKey: key() }))).toMatchObject({ error: { code: 'CAPI33', reasons: ['id:already_reversed'] } });
    expect(await both('reverse unknown', (l) => l.reverse('JE-999', { idempotencyKey: key() }))).toMatchObject({ error: { code: 'not_found' } });
  });

  it('lists the same chart and computes the same balance sheet; refuses a long window (CAPI69)', async () => {
    await both('accounts', (l) => l.accounts());
    const sheet = await both('sheet', (l) => l.balanceSheet({ start_date: '2025-01-01', end_date: '2025-06-30', period_type: 'monthly' }));
    expect(sheet).toMatchObject({ ok: { reporting_currency: 'USD' } });
    expect(await both('long', (l) => l.balanceSheet({ start_date: '2020-01-01', end_date: '2025-01-01', period_type: 'yearly' }))).toMatchObject({ error: { code: 'CAPI69' } });
    expect(await both('backwards', (l) => l.balanceSheet({ start_date: '2025-02-01', end_date: '2025-01-01', period_type: 'monthly' }))).toMatchObject({ error: { code: 'invalid_parameters', reasons: ['end_date:end_before_start'] } });
  });

  it('refuses posts during a rebuild (CAPI73) the same way', async () => {
    for (const f of files) new Database(f).prepare('UPDATE entity SET rebuild_started_at = ?').run(new Date().toISOString());
    try {
      expect(await both('rebuilding', (l) => l.post(entry(), { idempotencyKey: key() }))).toMatchObject({ error: { code: 'CAPI73' } });
    } finally {
      for (const f of files) new Database(f).prepare('UPDATE entity SET rebuild_started_at = NULL').run();
    }
  });

  it('refuses everything with CAPI67 before the First Month of Books', async () => {
    for (const f of files) new Database(f).prepare('UPDATE entity SET books_start = NULL').run();
    try {
      expect(await both('no books start', (l) => l.post(entry({ lines: [] }), { idempotencyKey: key() }))).toMatchObject({ error: { code: 'CAPI67' } });
    } finally {
      for (const f of files) new Database(f).prepare(`UPDATE entity SET books_start = '2025-01-01'`).run();
    }
  });
});
