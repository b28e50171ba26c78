import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isBooksError } from '../../src/domain/errors.js';
import { HttpLedger } from '../../src/ledger/http/ledger.js';
import type { Ledger } from '../../src/ledger/port.js';
import { SqliteLedger } from '../../src/ledger/sqlite/ledger.js';
import { serve, standardLedger, writeFile, type Served } from '../e2e/helpers.js';

// The same cases against the SQLite ledger and the HTTP ledger talking to a real `books serve` over an
// identical ledger file: every outcome must be the same, ids and timestamps aside.

type Outcome =
  | { ok: unknown }
  | { error: { code: string; reasons: string[]; message: string; details: string[] } };

function normalise(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v), (k, x) => {
    if (typeof x === 'string' && /^(je|jel|acct)_/.test(x)) return '<id>';
    if (
      [
        'created_at',
        'updated_at',
        'id',
        'account_id',
        'journal_entry_id',
        'original_journal_entry_id',
        'existing_journal_entry_id',
      ].includes(k) &&
      x !== null
    )
      return '<id>';
    if (k === 'reversed_by_journal_entry_ids') return (x as unknown[]).map(() => '<id>');
    return x;
  });
}

async function outcome(f: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: normalise(await f()) };
  } catch (e) {
    if (!isBooksError(e)) throw e;
    return {
      error: {
        code: e.code,
        reasons: e.errors.map((p) => `${p.path}:${p.reason}`),
        message: e.message.replace(/\bje_[\w-]+/g, '<id>'),
        details: Object.keys(e.details)
          .filter((k) => k !== 'already_posted')
          .sort(),
      },
    };
  }
}

describe('the Ledger contract: SQLite and HTTP give identical results', () => {
  let sqlite: SqliteLedger;
  let http: HttpLedger;
  let server: Served;
  let files: string[];
  let keys: { both: string; read: string; post: string };
  let both: (name: string, f: (l: Ledger) => Promise<unknown>) => Promise<Outcome>;

  beforeAll(async () => {
    const [a, b] = await Promise.all([standardLedger(), standardLedger()]);
    files = [a.ledger, b.ledger];
    // Both ledgers also get an inactive account, a euro account, and books closed through January.
    const extra = writeFile(
      a.dir,
      'extra.csv',
      'external_id,account_number,name,account_type,parent_external_id,is_postable,is_active,currency\nold-rent,6150,Old Rent,expense,expenses,true,false,\neur-bank,1040,Euro Account,bank,cash,true,true,EUR\n',
    );
    for (const l of [a, b]) {
      expect((await l.run(['accounts', 'import', extra])).exitCode).toBe(0);
      expect((await l.run(['close', '--through', '2025-01-31'])).exitCode).toBe(0);
    }
    const key = JSON.parse(
      (
        await b.run([
          'keys',
          'create',
          '--permission',
          'customer_api:post_journal_entries',
          '--permission',
          'customer_api:read',
          '--format',
          'json',
        ])
      ).stdout,
    ).key as string;
    keys = {
      both: key,
      read: JSON.parse(
        (await b.run(['keys', 'create', '--permission', 'customer_api:read', '--format', 'json']))
          .stdout,
      ).key,
      post: JSON.parse(
        (
          await b.run([
            'keys',
            'create',
            '--permission',
            'customer_api:post_journal_entries',
            '--format',
            'json',
          ])
        ).stdout,
      ).key,
    };
    server = await serve(b.ledger);
    sqlite = SqliteLedger.open(a.ledger);
    http = new HttpLedger({
      baseUrl: server.url,
      apiKey: key,
      apiKeyEnv: 'BOOKS_API_KEY',
      currency: 'USD',
      attempts: 1,
    });
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
  const line = (
    gl_account_id: string,
    line_type: string,
    amount_atoms: unknown,
    extra: Record<string, unknown> = {},
  ) => ({ gl_account_id, line_type, amount_atoms, ...extra });
  const entry = (extra: Record<string, unknown> = {}) => ({
    entry_date: '2025-03-02',
    lines: [line('rent', 'debit', 100), line('checking', 'credit', 100)],
    ...extra,
  });
  const entryBody = () => entry();

  it('posts entries with the same numbers and fields', async () => {
    const r = await both('post', (l) => l.post(entry({ memo: 'one' }), { idempotencyKey: key() }));
    expect(r).toMatchObject({ ok: { je_number: 'JE-1', status: 'posted', memo: 'one' } });
    await both('post numbered', (l) =>
      l.post(entry({ je_number: 'je-0042' }), { idempotencyKey: key() }),
    );
    await both('post after', (l) =>
      l.post(
        entry({
          lines: [
            line('ar', 'debit', 5, {
              counterparty_type: 'customer',
              counterparty_external_id: 'C002',
            }),
            line('sales', 'credit', 5),
          ],
        }),
        { idempotencyKey: key() },
      ),
    );
  });

  it.each([
    [
      'unbalanced',
      { lines: [line('rent', 'debit', 100), line('checking', 'credit', 90)] },
      'lines:unbalanced',
    ],
    [
      'unknown account',
      { lines: [line('nope', 'debit', 100), line('checking', 'credit', 100)] },
      'lines[0].gl_account_id:unknown_account',
    ],
    [
      'header account',
      { lines: [line('cash', 'debit', 100), line('checking', 'credit', 100)] },
      'lines[0].gl_account_id:unpostable_account',
    ],
    [
      'missing counterparty',
      { lines: [line('ar', 'debit', 100), line('sales', 'credit', 100)] },
      'lines[0].counterparty_external_id:invalid_counterparty',
    ],
    [
      'inactive counterparty',
      {
        lines: [
          line('ap', 'credit', 100, {
            counterparty_type: 'vendor',
            counterparty_external_id: 'V005',
          }),
          line('rent', 'debit', 100),
        ],
      },
      'lines[0].counterparty_external_id:invalid_counterparty',
    ],
    [
      'invalid amount',
      { lines: [line('rent', 'debit', 0), line('checking', 'credit', 0)] },
      'lines[0].amount_atoms:invalid_amount',
    ],
    [
      'amount beyond 2^53',
      { lines: [line('rent', 'debit', 2 ** 53), line('checking', 'credit', 2 ** 53)] },
      'lines[0].amount_atoms:invalid_amount',
    ],
    ['other currency', { currency: 'EUR' }, 'currency:currency_mismatch'],
    ['one line', { lines: [line('rent', 'debit', 100)] }, 'lines:line_count'],
    ['before the books start', { entry_date: '2024-12-31' }, 'entry_date:before_books_start'],
    ['duplicate number', { je_number: 'JE 42' }, 'je_number:duplicate_je_number'],
    ['unknown field', { colour: 'red' }, 'colour:unknown_field'],
    [
      'inactive account',
      { lines: [line('old-rent', 'debit', 100), line('checking', 'credit', 100)] },
      'lines[0].gl_account_id:inactive_account',
    ],
    [
      'account in another currency',
      { lines: [line('eur-bank', 'debit', 100), line('checking', 'credit', 100)] },
      'lines[0].gl_account_id:currency_conflict',
    ],
    ['closed period', { entry_date: '2025-01-15' }, 'entry_date:period_closed'],
    ['impossible date', { entry_date: '2025-02-30' }, 'entry_date:invalid_date'],
    ['missing date', { entry_date: undefined }, 'entry_date:missing_field'],
    ['unknown currency', { currency: 'XYZ' }, 'currency:invalid_currency'],
    [
      'side that is neither',
      { lines: [line('rent', 'sideways', 100), line('checking', 'credit', 100)] },
      'lines[0].line_type:invalid_line_type',
    ],
    [
      'amount as text',
      { lines: [line('rent', 'debit', '100'), line('checking', 'credit', '100')] },
      'lines[0].amount_atoms:invalid_amount',
    ],
    [
      'fractional atoms',
      { lines: [line('rent', 'debit', 1.5), line('checking', 'credit', 1.5)] },
      'lines[0].amount_atoms:invalid_amount',
    ],
    [
      '1001 lines',
      {
        lines: [
          ...Array.from({ length: 1000 }, () => line('rent', 'debit', 1)),
          line('checking', 'credit', 1000),
        ],
      },
      'lines:line_count',
    ],
    [
      'debit total beyond 2^53 - 1',
      {
        lines: [
          line('rent', 'debit', 2 ** 53 - 1),
          line('utilities', 'debit', 1),
          line('checking', 'credit', 2 ** 53 - 1),
          line('savings', 'credit', 1),
        ],
      },
      'lines:total_too_large',
    ],
    ['lines that are not a list', { lines: { 0: line('rent', 'debit', 1) } }, 'lines:invalid_type'],
    [
      'vendor on a receivable',
      {
        lines: [
          line('ar', 'debit', 100, {
            counterparty_type: 'vendor',
            counterparty_external_id: 'V001',
          }),
          line('sales', 'credit', 100),
        ],
      },
      'lines[0].counterparty_type:invalid_counterparty',
    ],
    [
      'unknown customer',
      {
        lines: [
          line('ar', 'debit', 100, {
            counterparty_type: 'customer',
            counterparty_external_id: 'C999',
          }),
          line('sales', 'credit', 100),
        ],
      },
      'lines[0].counterparty_external_id:invalid_counterparty',
    ],
    ['number over 64 characters', { je_number: 'X'.repeat(65) }, 'je_number:invalid_je_number'],
    ['memo over 1000 characters', { memo: 'm'.repeat(1001) }, 'memo:too_long'],
  ])('refuses %s with the same CAPI33 problems', async (_n, extra, reason) => {
    const r = await both('refuse', (l) => l.post(entry(extra), { idempotencyKey: key() }));
    expect(r).toMatchObject({ error: { code: 'CAPI33' } });
    expect((r as { error: { reasons: string[] } }).error.reasons).toContain(reason);
  });

  it('refuses a missing key and a repeated one (CAPI34) the same way', async () => {
    expect(await both('empty key', (l) => l.post(entry(), { idempotencyKey: '' }))).toMatchObject({
      error: { code: 'CAPI34' },
    });
    await both('first', (l) => l.post(entry({ memo: 'keyed' }), { idempotencyKey: 'same-key' }));
    expect(
      await both('again', (l) => l.post(entry({ memo: 'keyed' }), { idempotencyKey: 'same-key' })),
    ).toMatchObject({ error: { code: 'CAPI34', details: ['existing_journal_entry_id'] } });
  });

  it('reverses once, then refuses', async () => {
    expect(
      await both('reverse', (l) =>
        l.reverse('JE-1', { idempotencyKey: key(), entryDate: '2025-03-05' }),
      ),
    ).toMatchObject({ ok: { memo: 'Reversal of JE-1', entry_date: '2025-03-05' } });
    expect(
      await both('reverse again', (l) => l.reverse('JE-1', { idempotencyKey: key() })),
    ).toMatchObject({ error: { code: 'CAPI33', reasons: ['id:already_reversed'] } });
    expect(
      await both('reverse unknown', (l) => l.reverse('JE-999', { idempotencyKey: key() })),
    ).toMatchObject({ error: { code: 'not_found' } });
  });

  it('lists the same chart and computes the same balance sheet; refuses a long window (CAPI69)', async () => {
    await both('accounts', (l) => l.accounts());
    const sheet = await both('sheet', (l) =>
      l.balanceSheet({ start_date: '2025-01-01', end_date: '2025-06-30', period_type: 'monthly' }),
    );
    expect(sheet).toMatchObject({ ok: { reporting_currency: 'USD' } });
    expect(
      await both('long', (l) =>
        l.balanceSheet({ start_date: '2020-01-01', end_date: '2025-01-01', period_type: 'yearly' }),
      ),
    ).toMatchObject({ error: { code: 'CAPI69' } });
    expect(
      await both('backwards', (l) =>
        l.balanceSheet({
          start_date: '2025-02-01',
          end_date: '2025-01-01',
          period_type: 'monthly',
        }),
      ),
    ).toMatchObject({
      error: { code: 'invalid_parameters', reasons: ['end_date:end_before_start'] },
    });
  });

  it('refuses posts during a rebuild (CAPI73) the same way', async () => {
    for (const f of files)
      new Database(f)
        .prepare('UPDATE entity SET rebuild_started_at = ?')
        .run(new Date().toISOString());
    try {
      expect(
        await both('rebuilding', (l) => l.post(entry(), { idempotencyKey: key() })),
      ).toMatchObject({ error: { code: 'CAPI73' } });
    } finally {
      for (const f of files)
        new Database(f).prepare('UPDATE entity SET rebuild_started_at = NULL').run();
    }
  });

  it('refuses a body that is not an object the same way', async () => {
    for (const body of [[entry()], 'text', null]) {
      expect(
        await both('not an object', (l) => l.post(body, { idempotencyKey: key() })),
      ).toMatchObject({ error: { code: 'CAPI33', reasons: [':invalid_body'] } });
    }
  });

  it('refuses everything with CAPI67 before the First Month of Books', async () => {
    for (const f of files) new Database(f).prepare('UPDATE entity SET books_start = NULL').run();
    try {
      expect(
        await both('no books start', (l) =>
          l.post(entry({ lines: [] }), { idempotencyKey: key() }),
        ),
      ).toMatchObject({ error: { code: 'CAPI67' } });
    } finally {
      for (const f of files)
        new Database(f).prepare(`UPDATE entity SET books_start = '2025-01-01'`).run();
    }
  });

  // The local ledger has no keys and no request bodies, so these exist on HTTP alone: each status of
  // decisions.md as served, and the error value the HTTP ledger turns it into (the CLI's exit code
  // follows from that value, as for the local ledger).
  it.each([
    ['401 CAPI11 without a key', { key: null }, 401, 'CAPI11'],
    [
      '401 CAPI11 with an unknown key',
      { key: 'bk.AAAAAAAAAAAA.unknownunknownunknownunknown' },
      401,
      'CAPI11',
    ],
    ['403 CAPI71 with a read-only key', { key: 'read' }, 403, 'CAPI71'],
    [
      '413 for a body over 2 MiB',
      { body: { ...entryBody(), memo: 'x'.repeat(2 * 1024 * 1024) } },
      413,
      'payload_too_large',
    ],
    ['400 CAPI34 without an idempotency key', { idempotencyKey: null }, 400, 'CAPI34'],
    ['400 CAPI33 for an invalid entry', { body: { ...entryBody(), lines: [] } }, 400, 'CAPI33'],
    ['201 for a posted entry', {}, 201, null],
  ] as const)(
    'POST: %s, read back as that error',
    async (_n, c: { key?: string | null; body?: unknown; idempotencyKey?: null }, status, code) => {
      const bearer = c.key === undefined ? keys.both : c.key === 'read' ? keys.read : c.key;
      const idem = c.idempotencyKey === null ? null : `http-only-${++k}`;
      const r = await fetch(`${server.url}/v1/journal-entries`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          ...(bearer ? { Authorization: `Bearer ${bearer}` } : {}),
          ...(idem ? { 'X-Idempotency-Key': idem } : {}),
        },
        body: JSON.stringify(c.body ?? entryBody()),
      });
      expect(r.status).toBe(status);
      expect(r.headers.get('content-type')).toBe(
        code ? 'application/problem+json' : 'application/json',
      );
      if (code) expect(((await r.json()) as { code: string }).code).toBe(code);
      if (!code) return;
      const client = new HttpLedger({
        baseUrl: server.url,
        apiKey: bearer ?? undefined,
        apiKeyEnv: 'BOOKS_API_KEY',
        currency: 'USD',
        attempts: 1,
      });
      const read = await outcome(() =>
        client.post(c.body ?? entryBody(), {
          idempotencyKey:
            c.idempotencyKey === null ? (undefined as unknown as string) : `http-only-${++k}`,
        }),
      );
      expect(read).toMatchObject({ error: { code } });
    },
  );

  it.each([
    ['200 for a report', 'start_date=2025-01-01&end_date=2025-03-31', 'both', 200, null],
    [
      '400 CAPI69 for a window over 5 years',
      'start_date=2021-01-01&end_date=2026-01-01',
      'both',
      400,
      'CAPI69',
    ],
    [
      '400 invalid_parameters for a malformed date',
      'start_date=2025-01-01&end_date=2025-13-01',
      'both',
      400,
      'invalid_parameters',
    ],
    [
      '403 CAPI71 with a post-only key',
      'start_date=2025-01-01&end_date=2025-03-31',
      'post',
      403,
      'CAPI71',
    ],
  ] as const)('GET balance sheet: %s', async (_n, query, which, status, code) => {
    const r = await fetch(`${server.url}/v1/reports/balance-sheet?${query}`, {
      headers: { Authorization: `Bearer ${keys[which]}` },
    });
    expect(r.status).toBe(status);
    if (code) expect(((await r.json()) as { code: string }).code).toBe(code);
  });

  it('409 CAPI34 for a key used within the hour, 409 CAPI67 and 409 CAPI73 with Retry-After', async () => {
    const post = (idem: string) =>
      fetch(`${server.url}/v1/journal-entries`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Authorization: `Bearer ${keys.both}`,
          'X-Idempotency-Key': idem,
        },
        body: JSON.stringify(entryBody()),
      });
    expect((await post('statuses-1')).status).toBe(201);
    const dup = await post('statuses-1');
    expect([dup.status, ((await dup.json()) as { code: string }).code]).toEqual([409, 'CAPI34']);
    const served = files[1]!;
    new Database(served)
      .prepare('UPDATE entity SET rebuild_started_at = ?')
      .run(new Date().toISOString());
    try {
      const r = await post('statuses-2');
      expect([
        r.status,
        r.headers.get('retry-after'),
        ((await r.json()) as { code: string; retryable: boolean }).retryable,
      ]).toEqual([409, '1', true]);
    } finally {
      new Database(served).prepare('UPDATE entity SET rebuild_started_at = NULL').run();
    }
    new Database(served).prepare('UPDATE entity SET books_start = NULL').run();
    try {
      const r = await post('statuses-3');
      expect([r.status, ((await r.json()) as { code: string }).code]).toEqual([409, 'CAPI67']);
    } finally {
      new Database(served).prepare(`UPDATE entity SET books_start = '2025-01-01'`).run();
    }
  });
});
