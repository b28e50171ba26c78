import { afterEach, describe, expect, it } from 'vitest';
import { HttpLedger } from '../../src/ledger/http/ledger.js';
import { SqliteLedger } from '../../src/ledger/sqlite/ledger.js';
import { ROUTES } from '../../src/server/routes.js';
import { copyTemplate } from '../support/ledgers.js';
import { conformance, outcome, servedStore, setEntity, type OpenedStore } from './stores.js';

// The local ledger has no keys and no request bodies, so these exist on HTTP alone: each status of
// docs/api.md ("Decisions") as served, and the error value the HTTP ledger turns it into (the CLI's exit code
// follows from that value, as for the local ledger).

const body = (extra: Record<string, unknown> = {}) => ({
  entry_date: '2025-03-02',
  lines: [
    { gl_account_id: 'rent', line_type: 'debit', amount_atoms: 100 },
    { gl_account_id: 'checking', line_type: 'credit', amount_atoms: 100 },
  ],
  ...extra,
});

let opened: Required<OpenedStore> | null = null;
afterEach(async () => {
  await opened?.close();
  opened = null;
});

async function served(): Promise<Required<OpenedStore>> {
  opened = await servedStore(copyTemplate('standard').ledger);
  return opened;
}

let n = 0;

describe('statuses as served, and as the HTTP ledger reads them', () => {
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
      { body: body({ memo: 'x'.repeat(2 * 1024 * 1024) }) },
      413,
      'payload_too_large',
    ],
    ['400 CAPI34 without an idempotency key', { idempotencyKey: null }, 400, 'CAPI34'],
    ['400 CAPI33 for an invalid entry', { body: body({ lines: [] }) }, 400, 'CAPI33'],
    ['201 for a posted entry', {}, 201, null],
  ] as const)(
    'POST: %s',
    async (_n, c: { key?: string | null; body?: unknown; idempotencyKey?: null }, status, code) => {
      const s = await served();
      const bearer =
        c.key === undefined ? s.http.keys.both : c.key === 'read' ? s.http.keys.read : c.key;
      const idem = c.idempotencyKey === null ? null : `http-only-${++n}`;
      const r = await fetch(`${s.http.url}/v1/journal-entries`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          ...(bearer ? { Authorization: `Bearer ${bearer}` } : {}),
          ...(idem ? { 'X-Idempotency-Key': idem } : {}),
        },
        body: JSON.stringify(c.body ?? body()),
      });
      expect(r.status).toBe(status);
      expect(r.headers.get('content-type')).toBe(
        code ? 'application/problem+json' : 'application/json',
      );
      if (!code) return;
      expect(((await r.json()) as { code: string }).code).toBe(code);
      const client = new HttpLedger({
        baseUrl: s.http.url,
        apiKey: bearer ?? undefined,
        apiKeyEnv: 'BOOKS_API_KEY',
        currency: 'USD',
        attempts: 1,
      });
      // Over the wire unchecked: the HTTP ledger itself refuses a missing key before sending.
      const read = await outcome(() =>
        client.journal.post(c.body ?? body(), {
          idempotencyKey: idem ?? (undefined as unknown as string),
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
    const s = await served();
    const r = await fetch(`${s.http.url}/v1/reports/balance-sheet?${query}`, {
      headers: { Authorization: `Bearer ${s.http.keys[which]}` },
    });
    expect(r.status).toBe(status);
    if (code) expect(((await r.json()) as { code: string }).code).toBe(code);
  });

  it('409 CAPI34 for a key used within the hour, 409 CAPI67, and 409 CAPI73 with Retry-After', async () => {
    const s = await served();
    const post = (idem: string) =>
      fetch(`${s.http.url}/v1/journal-entries`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Authorization: `Bearer ${s.http.keys.both}`,
          'X-Idempotency-Key': idem,
        },
        body: JSON.stringify(body()),
      });
    expect((await post('statuses-1')).status).toBe(201);
    const dup = await post('statuses-1');
    expect([dup.status, ((await dup.json()) as { code: string }).code]).toEqual([409, 'CAPI34']);
    setEntity(s.file, 'rebuild_started_at = ?', new Date().toISOString());
    const rebuilding = await post('statuses-2');
    const problem = (await rebuilding.json()) as { code: string; retryable: boolean };
    expect([rebuilding.status, rebuilding.headers.get('retry-after'), problem.retryable]).toEqual([
      409,
      '1',
      true,
    ]);
    setEntity(s.file, 'rebuild_started_at = NULL, books_start = NULL');
    const noStart = await post('statuses-3');
    expect([noStart.status, ((await noStart.json()) as { code: string }).code]).toEqual([
      409,
      'CAPI67',
    ]);
  });
});

describe('the OpenAPI description', () => {
  it('is served to anyone at GET /v1/openapi.json, with every route', async () => {
    const s = await servedStore(copyTemplate('standard').ledger);
    try {
      const res = await fetch(`${s.http.url}/v1/openapi.json`);
      expect(res.status).toBe(200);
      const doc = (await res.json()) as {
        openapi: string;
        paths: Record<string, Record<string, unknown>>;
      };
      expect(doc.openapi).toBe('3.1.0');
      const described = Object.entries(doc.paths).flatMap(([path, ops]) =>
        Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
      );
      expect(described.sort()).toEqual(ROUTES.map((r) => `${r.method} ${r.path}`).sort());
    } finally {
      await s.close();
    }
  });

  it('describes every answer this file saw from books serve', async () => {
    expect(await conformance()).toBeGreaterThan(10);
  });
});

describe('general-ledger cursors', () => {
  it('are good only as given and for their query: anything else is 400 invalid_cursor', async () => {
    const s = await servedStore(copyTemplate('standard').ledger);
    try {
      const lines = [
        { gl_account_id: 'rent', line_type: 'debit', amount_atoms: 700 },
        { gl_account_id: 'checking', line_type: 'credit', amount_atoms: 700 },
      ];
      for (const d of ['2025-02-01', '2025-02-02', '2025-02-03'])
        await s.ledger.journal.post({ entry_date: d, lines }, { idempotencyKey: `cursor-${d}` });
      const get = (q: Record<string, string>) =>
        fetch(`${s.http.url}/v1/reports/general-ledger?${new URLSearchParams(q)}`, {
          headers: { authorization: `Bearer ${s.http.keys.read}` },
        });
      const query = { start_date: '2025-01-01', end_date: '2025-12-31', limit: '1' };
      const first = (await (await get(query)).json()) as { next_cursor: string };
      expect(first.next_cursor).toEqual(expect.any(String));
      expect((await get({ ...query, cursor: first.next_cursor })).status).toBe(200);
      const [payload] = first.next_cursor.split('.');
      const forged = JSON.parse(Buffer.from(payload!, 'base64url').toString());
      forged.balance = '123456789';
      const refused = [
        Buffer.from(JSON.stringify(forged)).toString('base64url') +
          '.' +
          first.next_cursor.split('.')[1],
        'bnVsbA',
        `${Buffer.from('null').toString('base64url')}.x`,
      ];
      for (const cursor of refused) {
        const r = await get({ ...query, cursor });
        expect(r.status, cursor).toBe(400);
        expect(((await r.json()) as { errors: { reason: string }[] }).errors[0]!.reason).toBe(
          'invalid_cursor',
        );
      }
      // Another window with the same cursor.
      expect(
        (await get({ ...query, start_date: '2025-02-01', cursor: first.next_cursor })).status,
      ).toBe(400);
      // A counterparty the ledger does not have is refused, as an unknown account is.
      const nobody = await get({ ...query, counterparty: 'customer:NOPE' });
      expect(nobody.status).toBe(400);
      expect(((await nobody.json()) as { errors: { reason: string }[] }).errors[0]!.reason).toBe(
        'unknown_counterparty',
      );
      expect((await get({ ...query, counterparty: 'customer:C001' })).status).toBe(200);
      // An account likewise, named by the ledger with those it resembles (as the CLI says it).
      const typo = await get({ ...query, account: 'ren' });
      expect(typo.status).toBe(400);
      expect(
        ((await typo.json()) as { errors: { reason: string; message: string }[] }).errors,
      ).toEqual([
        expect.objectContaining({
          reason: 'unknown_account',
          message: expect.stringMatching(/did you mean .*\(rent\)/),
        }),
      ]);
    } finally {
      await s.close();
    }
  });

  it('are refused once the chart has moved their account out of the report, never continued elsewhere', async () => {
    const s = await servedStore(copyTemplate('standard').ledger);
    try {
      for (const [d, account] of [
        ['2025-02-01', 'rent'],
        ['2025-02-02', 'rent'],
        ['2025-02-03', 'utilities'],
      ] as const) {
        const lines = [
          { gl_account_id: account, line_type: 'debit', amount_atoms: 700 },
          { gl_account_id: 'checking', line_type: 'credit', amount_atoms: 700 },
        ];
        await s.ledger.journal.post({ entry_date: d, lines }, { idempotencyKey: `moved-${d}` });
      }
      const query = { start_date: '2025-01-01', end_date: '2025-12-31', account: 'expenses' };
      const get = (q: Record<string, string>) =>
        fetch(`${s.http.url}/v1/reports/general-ledger?${new URLSearchParams(q)}`, {
          headers: { authorization: `Bearer ${s.http.keys.read}` },
        });
      const first = (await (await get({ ...query, limit: '1' })).json()) as {
        accounts: { account_id: string }[];
        next_cursor: string;
      };
      expect(first.accounts).toHaveLength(1);
      // Rent leaves Operating Expenses between the pages.
      const header =
        'external_id,account_number,name,account_type,parent_external_id,is_postable,is_active,currency';
      const other = SqliteLedger.open(s.file);
      await other.chart.importAccounts(async () => ({
        name: 'moved.csv',
        records: [
          {
            row: 2,
            values: Object.fromEntries(
              header
                .split(',')
                .map((k, i) => [
                  k,
                  ['rent', '6100', 'Rent', 'expense', '', 'true', 'true', ''][i]!,
                ]),
            ),
          },
        ],
      }));
      await other.close();
      const next = await get({ ...query, limit: '1', cursor: first.next_cursor });
      expect(next.status).toBe(400);
      expect(((await next.json()) as { errors: { reason: string }[] }).errors[0]!.reason).toBe(
        'invalid_cursor',
      );
    } finally {
      await s.close();
    }
  });
});
