import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { books, demoLedger, serve, standardLedger, type Served } from '../support/helpers.js';

const POST = 'customer_api:post_journal_entries';
const READ = 'customer_api:read';

async function key(ledger: string, ...permissions: string[]): Promise<{ id: string; key: string }> {
  const r = await books([
    'keys',
    'create',
    '--ledger',
    ledger,
    '--format',
    'json',
    ...permissions.flatMap((p) => ['--permission', p]),
  ]);
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

const entry = (extra: Record<string, unknown> = {}) => ({
  entry_date: '2025-03-02',
  lines: [
    { gl_account_id: 'rent', line_type: 'debit', amount_atoms: 5000 },
    { gl_account_id: 'checking', line_type: 'credit', amount_atoms: 5000 },
  ],
  ...extra,
});

describe('books serve', () => {
  let L: Awaited<ReturnType<typeof standardLedger>>;
  let S: Served;
  let both: string;
  let readOnly: string;
  let postOnly: string;
  let n = 0;

  beforeAll(async () => {
    L = await standardLedger();
    both = (await key(L.ledger, POST, READ)).key;
    readOnly = (await key(L.ledger, READ)).key;
    postOnly = (await key(L.ledger, POST)).key;
    S = await serve(L.ledger);
  });
  afterAll(async () => S?.stop());

  const post = (
    body: unknown,
    headers: Record<string, string> = {},
    path = '/v1/journal-entries',
  ) =>
    fetch(S.url + path, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Authorization: `Bearer ${both}`,
        'X-Idempotency-Key': `k-${++n}`,
        ...headers,
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const get = (path: string, k = both) =>
    fetch(S.url + path, { headers: { Authorization: `Bearer ${k}` } });

  it('posts an entry: 201 with the journal entry', async () => {
    const r = await post(entry({ memo: 'via http' }));
    expect(r.status).toBe(201);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(await r.json()).toMatchObject({
      object: 'journal_entry',
      memo: 'via http',
      status: 'posted',
      source: 'manual_api',
      total_debit_atoms: 5000,
    });
  });

  it.each([
    ['no key', undefined],
    ['an unknown key', 'bk.AAAAAAAAAAAA.BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB'],
    ['a malformed key', 'hunter2'],
  ])('refuses %s with 401 CAPI11 and WWW-Authenticate, before anything else', async (_n, k) => {
    const r = await fetch(S.url + '/v1/journal-entries', {
      method: 'POST',
      headers: k ? { Authorization: `Bearer ${k}` } : {},
      body: 'not json',
    });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe('Bearer');
    expect(r.headers.get('content-type')).toBe('application/problem+json');
    expect(await r.json()).toMatchObject({ code: 'CAPI11', status: 401, retryable: false });
  });

  it('refuses a revoked key at once', async () => {
    const k = await key(L.ledger, READ);
    expect((await get('/v1/gl-accounts', k.key)).status).toBe(200);
    expect((await books(['keys', 'revoke', k.id, '--ledger', L.ledger])).exitCode).toBe(0);
    const r = await get('/v1/gl-accounts', k.key);
    expect(r.status).toBe(401);
  });

  it('checks permissions per endpoint (403 CAPI71) before the idempotency key and the body', async () => {
    const r = await fetch(S.url + '/v1/journal-entries', {
      method: 'POST',
      headers: { Authorization: `Bearer ${readOnly}` },
      body: '{',
    });
    expect(r.status).toBe(403);
    expect(await r.json()).toMatchObject({ code: 'CAPI71' });
    expect(
      (await get('/v1/reports/balance-sheet?start_date=2025-01-01&end_date=2025-01-31', postOnly))
        .status,
    ).toBe(403);
    expect((await get('/v1/gl-accounts', postOnly)).status).toBe(403);
    expect((await get('/v1/gl-accounts', readOnly)).status).toBe(200);
    expect((await post(entry(), { Authorization: `Bearer ${postOnly}` })).status).toBe(201);
  });

  it('refuses a missing, empty or over-long idempotency key with 400 CAPI34', async () => {
    for (const headers of [{ 'X-Idempotency-Key': '' }, { 'X-Idempotency-Key': 'x'.repeat(129) }]) {
      const r = await post(entry(), headers);
      expect(r.status).toBe(400);
      expect(await r.json()).toMatchObject({ code: 'CAPI34' });
    }
    const r = await fetch(S.url + '/v1/journal-entries', {
      method: 'POST',
      headers: { Authorization: `Bearer ${both}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(entry()),
    });
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({ code: 'CAPI34' });
  });

  it('refuses a repeated key within the hour with 409 CAPI34 naming the entry, and posts once', async () => {
    const first = await post(entry({ memo: 'once' }), { 'X-Idempotency-Key': 'rent-2025-03' });
    const id = ((await first.json()) as { id: string }).id;
    const again = await post(entry({ memo: 'once' }), { 'X-Idempotency-Key': 'rent-2025-03' });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ code: 'CAPI34', existing_journal_entry_id: id });
    const other = await post(entry({ memo: 'different' }), { 'X-Idempotency-Key': 'rent-2025-03' });
    expect(other.status).toBe(409);
  });

  it('refuses invalid entries with 400 CAPI33 listing every problem', async () => {
    const r = await post({
      entry_date: '2024-12-31',
      lines: [{ gl_account_id: 'nope', line_type: 'debit', amount_atoms: 1.5 }],
      colour: 'red',
    });
    expect(r.status).toBe(400);
    const p = (await r.json()) as {
      code: string;
      detail: string;
      errors: { path: string; reason: string }[];
    };
    expect(p.code).toBe('CAPI33');
    expect(p.errors.map((e) => e.reason).sort()).toEqual([
      'before_books_start',
      'invalid_amount',
      'line_count',
      'unknown_account',
      'unknown_field',
    ]);
    expect(p.detail).toBe('5 problems');
    const twice = await post(
      JSON.stringify(entry()).replace('"amount_atoms":', '"amount_atoms":1,"amount_atoms":'),
    );
    expect(twice.status).toBe(400);
    expect(await twice.json()).toMatchObject({ errors: [{ reason: 'invalid_json' }] });
    const bad = await post('{"entry_date":');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      code: 'CAPI33',
      errors: [{ reason: 'invalid_json' }],
    });
    const text = await post(JSON.stringify(entry()), { 'Content-Type': 'text/plain' });
    expect(text.status).toBe(400);
  });

  it('refuses a body over 2 MiB with 413', async () => {
    const r = await post(JSON.stringify(entry({ memo: 'x'.repeat(2 * 1024 * 1024) })));
    expect(r.status).toBe(413);
    expect(await r.json()).toMatchObject({ code: 'payload_too_large' });
  });

  it('serves the balance sheet exactly as the CLI computes it, and refuses bad windows', async () => {
    const q = 'start_date=2025-01-01&end_date=2025-06-30&period_type=quarterly';
    const r = await get(`/v1/reports/balance-sheet?${q}`);
    expect(r.status).toBe(200);
    const cli = await books([
      'report',
      'balance-sheet',
      '--ledger',
      L.ledger,
      '--start',
      '2025-01-01',
      '--end',
      '2025-06-30',
      '--period',
      'quarterly',
      '--format',
      'json',
    ]);
    expect(await r.json()).toEqual(JSON.parse(cli.stdout));
    const long = await get('/v1/reports/balance-sheet?start_date=2021-01-01&end_date=2026-01-01');
    expect(long.status).toBe(400);
    expect(await long.json()).toMatchObject({ code: 'CAPI69' });
    for (const bad of [
      'start_date=2025-01-01',
      'start_date=2025-02-30&end_date=2025-03-01',
      'start_date=2025-03-01&end_date=2025-02-01',
      'start_date=2025-01-01&end_date=2025-02-01&period_type=weekly',
    ]) {
      const b = await get(`/v1/reports/balance-sheet?${bad}`);
      expect(b.status, bad).toBe(400);
      expect(await b.json()).toMatchObject({ code: 'invalid_parameters' });
    }
  });

  it('lists GL accounts and reverses an entry once', async () => {
    const list = (await (await get('/v1/gl-accounts')).json()) as {
      object: string;
      data: { external_id: string; object: string }[];
    };
    expect(list.object).toBe('list');
    expect(list.data.find((a) => a.external_id === 'rent')).toMatchObject({
      object: 'gl_account',
      account_kind: 'regular',
      is_postable: true,
    });
    const posted = (await (await post(entry({ memo: 'to reverse' }))).json()) as { id: string };
    const rev = await post(
      { entry_date: '2025-03-05' },
      {},
      `/v1/journal-entries/${posted.id}/reverse`,
    );
    expect(rev.status).toBe(201);
    expect(await rev.json()).toMatchObject({
      original_journal_entry_id: posted.id,
      entry_date: '2025-03-05',
    });
    const again = await post({}, {}, `/v1/journal-entries/${posted.id}/reverse`);
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({
      code: 'CAPI33',
      errors: [{ reason: 'already_reversed' }],
    });
  });

  it('answers unknown routes with 404 and wrong methods with 405, without stack traces', async () => {
    const r = await get('/v1/nope');
    expect(r.status).toBe(404);
    const m = await fetch(S.url + '/v1/gl-accounts', {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${both}` },
    });
    expect(m.status).toBe(405);
    expect(await m.text()).not.toMatch(/at .*\.js:\d+/);
  });

  it('never writes a key to its log or the ledger file', async () => {
    const log = S.log();
    expect(log).toMatch(/POST \/v1\/journal-entries 201/);
    const file =
      readFileSync(L.ledger).toString('latin1') +
      (() => {
        try {
          return readFileSync(L.ledger + '-wal').toString('latin1');
        } catch {
          return '';
        }
      })();
    for (const k of [both, readOnly, postOnly]) {
      expect(log).not.toContain(k);
      expect(file).not.toContain(k);
      expect(log).not.toContain(k.split('.')[2]!);
    }
  });
});

describe('books serve beside other processes', () => {
  it('sees at once what another process changes: the chart, an account made inactive, the lock date', async () => {
    const L = await standardLedger();
    const k = (await key(L.ledger, POST)).key;
    const s = await serve(L.ledger);
    let n = 0;
    const post = async (account: string, date = '2025-03-02') => {
      const body = entry({ entry_date: date });
      body.lines[0]!.gl_account_id = account;
      const r = await fetch(s.url + '/v1/journal-entries', {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${k}`,
          'Content-Type': 'application/json',
          'X-Idempotency-Key': `other-${++n}`,
        },
        body: JSON.stringify(body),
      });
      return { status: r.status, body: (await r.json()) as { code?: string; detail?: string } };
    };
    try {
      // The server has read the chart and the entity for these, and must not answer from memory later.
      expect((await post('rent')).status).toBe(201);
      expect((await post('storage')).body.code).toBe('CAPI33');
      const chart = join(L.dir, 'more.csv');
      writeFileSync(
        chart,
        'external_id,account_number,name,account_type,parent_external_id,is_postable,is_active,currency\n' +
          'storage,6990,Storage,expense,expenses,true,true,\nrent,6100,Rent,expense,expenses,true,false,\n',
      );
      expect((await L.run(['accounts', 'import', chart])).exitCode).toBe(0);
      expect((await post('storage')).status).toBe(201);
      const inactive = await post('rent');
      expect([inactive.status, inactive.body.code]).toEqual([400, 'CAPI33']);
      expect(inactive.body.detail).toMatch(/inactive/);
      expect((await L.run(['close', '--through', '2025-03-31'])).exitCode).toBe(0);
      const closed = await post('storage');
      expect([closed.status, closed.body.code]).toEqual([400, 'CAPI33']);
      expect(closed.body.detail).toMatch(/closed/);
      expect((await post('storage', '2025-04-01')).status).toBe(201);
    } finally {
      await s.stop();
    }
  });
});

describe('two books serve over one ledger file', () => {
  it('a general-ledger cursor from one is good on the other; a tampered one is refused by both', async () => {
    const demo = await demoLedger();
    const k = (await key(demo.ledger, READ)).key;
    const [a, b] = [await serve(demo.ledger), await serve(demo.ledger)];
    const page = async (s: Served, cursor?: string, limit = '12') => {
      const q = new URLSearchParams({
        start_date: '2025-01-01',
        end_date: '2025-03-31',
        account: 'cash',
        limit,
        ...(cursor ? { cursor } : {}),
      });
      const r = await fetch(`${s.url}/v1/reports/general-ledger?${q}`, {
        headers: { Authorization: `Bearer ${k}` },
      });
      return { status: r.status, body: (await r.json()) as any };
    };
    const linesOf = (p: any) =>
      p.accounts.flatMap((x: any) =>
        x.lines.map((l: any) => [x.account_id, l.je_number, l.balance]),
      );
    try {
      const whole = await page(a, undefined, '10000');
      expect(whole.body.next_cursor).toBe(null);
      // Page after page, alternating servers.
      const got: unknown[] = [];
      let cursor: string | undefined;
      for (let i = 0; ; i++) {
        const p = await page(i % 2 ? b : a, cursor);
        expect(p.status, JSON.stringify(p.body)).toBe(200);
        got.push(...linesOf(p.body));
        cursor = p.body.next_cursor ?? undefined;
        if (!cursor) break;
      }
      expect(got.length).toBeGreaterThan(36);
      expect(got).toEqual(linesOf(whole.body));
      const first = await page(a);
      const [payload, sig] = (first.body.next_cursor as string).split('.');
      const forged = JSON.parse(Buffer.from(payload!, 'base64url').toString());
      forged.balance = '1';
      const tampered = `${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${sig}`;
      for (const s of [a, b]) {
        const r = await page(s, tampered);
        expect(r.status).toBe(400);
        expect(r.body.errors[0].reason).toBe('invalid_cursor');
      }
    } finally {
      await a.stop();
      await b.stop();
    }
  });
});

describe('books serve on a ledger without a First Month of Books', () => {
  it('refuses posts with 409 CAPI67', async () => {
    const { ledger } = await standardLedger({ firstMonth: null });
    const k = await key(ledger, POST);
    const s = await serve(ledger);
    try {
      const r = await fetch(s.url + '/v1/journal-entries', {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${k.key}`,
          'Content-Type': 'application/json',
          'X-Idempotency-Key': 'a',
        },
        body: JSON.stringify(entry()),
      });
      expect(r.status).toBe(409);
      expect(await r.json()).toMatchObject({ code: 'CAPI67' });
    } finally {
      await s.stop();
    }
  });
});

describe('books keys', () => {
  it('prints the key once on its own line, lists without it, and refuses unknown permissions', async () => {
    const { run } = await standardLedger();
    const created = await run(['keys', 'create', '--permission', READ, '--name', 'reporting']);
    expect(created.exitCode).toBe(0);
    expect(created.stdout).toMatch(/^bk\.[\w-]+\.[\w-]+\n$/);
    const list = await run(['keys', 'list']);
    expect(list.stdout).toContain('reporting');
    expect(list.stdout).not.toContain(created.stdout.trim());
    const bad = await run(['keys', 'create', '--permission', 'admin']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("not 'admin'");
  });
});
