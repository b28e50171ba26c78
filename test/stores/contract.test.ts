import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import type { GlEvent } from '../../src/domain/generalLedger.js';
import { HttpLedger } from '../../src/ledger/http/ledger.js';
import type { Ledger } from '../../src/ledger/port.js';
import { writeFile } from '../support/helpers.js';
import { cli } from '../support/cli.js';
import { copyTemplate } from '../support/ledgers.js';
import { conformance, contract, setEntity } from './stores.js';

// Every case runs against each store of the fixture list (SQLite, and HTTP through a real books serve), each on
// a fresh copy of one base ledger: the cases do not depend on one another, and every outcome must be
// the same, ids and timestamps aside.

let base = '';
const both = contract(() => base);

beforeAll(async () => {
  const { dir, ledger } = copyTemplate('standard');
  // An inactive account, a euro account, and the books closed through January.
  const extra = writeFile(
    dir,
    'extra.csv',
    'external_id,account_number,name,account_type,parent_external_id,is_postable,is_active,currency\n' +
      'old-rent,6150,Old Rent,expense,expenses,true,false,\neur-bank,1040,Euro Account,bank,cash,true,true,EUR\n',
  );
  for (const args of [
    ['accounts', 'import', extra],
    ['close', '--through', '2025-01-31'],
  ]) {
    expect((await cli([...args, '--ledger', ledger], { cwd: dir })).exitCode).toBe(0);
  }
  base = ledger;
});

let k = 0;
const key = () => `contract-${++k}`;
const line = (
  gl_account_id: string,
  line_type: string,
  amount_atoms: unknown,
  extra: Record<string, unknown> = {},
) => ({
  gl_account_id,
  line_type,
  amount_atoms,
  ...extra,
});
const entry = (extra: Record<string, unknown> = {}) => ({
  entry_date: '2025-03-02',
  lines: [line('rent', 'debit', 100), line('checking', 'credit', 100)],
  ...extra,
});
const customer = (id: string) => ({ counterparty_type: 'customer', counterparty_external_id: id });

describe('the Ledger contract: every store gives the same results', () => {
  it('posts entries with the same numbers and fields', async () => {
    const r = await both(async (l) => [
      await l.journal.post(entry({ memo: 'one' }), { idempotencyKey: key() }),
      await l.journal.post(entry({ je_number: 'je-0042' }), { idempotencyKey: key() }),
      await l.journal.post(
        entry({ lines: [line('ar', 'debit', 5, customer('C002')), line('sales', 'credit', 5)] }),
        { idempotencyKey: key() },
      ),
    ]);
    expect(r).toMatchObject({
      ok: [
        { je_number: 'JE-1', status: 'posted', memo: 'one' },
        { je_number: 'JE-42' },
        { je_number: 'JE-43' },
      ],
    });
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
    ['unknown field', { colour: 'red' }, 'colour:unknown_field'],
    [
      'inactive account',
      { lines: [line('old-rent', 'debit', 100), line('checking', 'credit', 100)] },
      'lines[0].gl_account_id:inactive_account',
    ],
    [
      'account in another currency, without its snapshot',
      { lines: [line('eur-bank', 'debit', 100), line('checking', 'credit', 100)] },
      'lines[0].fx:fx_missing',
    ],
    [
      'snapshot in another currency than its account',
      {
        lines: [
          line('eur-bank', 'debit', 100, { fx: { currency: 'GBP', amount_atoms: 90 } }),
          line('checking', 'credit', 100),
        ],
      },
      'lines[0].fx.currency:currency_conflict',
    ],
    [
      'snapshot on an account in the functional currency',
      {
        lines: [
          line('rent', 'debit', 100, { fx: { currency: 'EUR', amount_atoms: 90 } }),
          line('checking', 'credit', 100),
        ],
      },
      'lines[0].fx:fx_not_allowed',
    ],
    [
      'snapshot whose rate gives another amount',
      {
        lines: [
          line('eur-bank', 'debit', 100, {
            fx: { currency: 'EUR', amount_atoms: 90, rate: '1.2' },
          }),
          line('checking', 'credit', 100),
        ],
      },
      'lines[0].amount_atoms:fx_mismatch',
    ],
    [
      'snapshot converting at a rate the ledger does not have',
      {
        lines: [
          line('eur-bank', 'debit', undefined, { fx: { currency: 'EUR', amount_atoms: 90 } }),
          line('checking', 'credit', 100),
        ],
      },
      'lines[0].fx.rate:fx_rate_missing',
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
      { lines: [line('ar', 'debit', 100, customer('C999')), line('sales', 'credit', 100)] },
      'lines[0].counterparty_external_id:invalid_counterparty',
    ],
    ['number over 64 characters', { je_number: 'X'.repeat(65) }, 'je_number:invalid_je_number'],
    ['memo over 1000 characters', { memo: 'm'.repeat(1001) }, 'memo:too_long'],
  ])('refuses %s with the same CAPI33 problems', async (_n, extra, reason) => {
    const r = await both((l) => l.journal.post(entry(extra), { idempotencyKey: key() }));
    expect(r).toMatchObject({ error: { code: 'CAPI33' } });
    expect((r as { error: { reasons: string[] } }).error.reasons).toContain(reason);
  });

  it('refuses a number already used', async () => {
    const r = await both(async (l) => {
      await l.journal.post(entry({ je_number: 'JE-42' }), { idempotencyKey: key() });
      return l.journal.post(entry({ je_number: 'JE 42' }), { idempotencyKey: key() });
    });
    expect(r).toMatchObject({
      error: { code: 'CAPI33', reasons: ['je_number:duplicate_je_number'] },
    });
  });

  it('refuses a missing key, and a repeated one naming what it posted (CAPI34)', async () => {
    expect(await both((l) => l.journal.post(entry(), { idempotencyKey: '' }))).toMatchObject({
      error: { code: 'CAPI34' },
    });
    const again = await both(async (l) => {
      await l.journal.post(entry({ memo: 'keyed' }), { idempotencyKey: 'same-key' });
      return l.journal.post(entry({ memo: 'keyed' }), { idempotencyKey: 'same-key' });
    });
    expect(again).toMatchObject({
      error: {
        code: 'CAPI34',
        details: ['existing_je_number', 'existing_journal_entry_id'],
        message: expect.stringContaining('it posted JE-1'),
      },
    });
  });

  it('reverses once, then refuses; refuses a reversal dated before the original', async () => {
    const r = await both(async (l) => {
      await l.journal.post(entry(), { idempotencyKey: key() });
      const early = await l.journal
        .reverse('JE-1', { idempotencyKey: key(), entryDate: '2025-03-01' })
        .catch((e: Error) => e.message);
      const reversed = await l.journal.reverse('JE-1', {
        idempotencyKey: key(),
        entryDate: '2025-03-05',
      });
      const again = await l.journal
        .reverse('JE-1', { idempotencyKey: key() })
        .catch((e: Error) => e.message);
      const unknown = await l.journal
        .reverse('JE-999', { idempotencyKey: key() })
        .catch((e: Error) => e.message);
      return { early, reversed, again, unknown };
    });
    expect(r).toMatchObject({
      ok: {
        early: expect.stringContaining("2025-03-01 is before JE-1's own date"),
        reversed: { memo: 'Reversal of JE-1', entry_date: '2025-03-05', je_number: 'JE-2' },
        again: 'JE-1 is already reversed by JE-2',
        unknown: "no journal entry 'JE-999'",
      },
    });
  });

  it('lists the same chart and computes the same balance sheet; refuses a long window (CAPI69)', async () => {
    await both((l) => l.chart.accounts());
    const sheet = await both(async (l) => {
      await l.journal.post(entry(), { idempotencyKey: key() });
      return l.reports.balanceSheet({
        start_date: '2025-01-01',
        end_date: '2025-06-30',
        period_type: 'monthly',
      });
    });
    expect(sheet).toMatchObject({ ok: { reporting_currency: 'USD' } });
    const window = (start_date: string, end_date: string) =>
      both((l) => l.reports.balanceSheet({ start_date, end_date, period_type: 'yearly' }));
    expect(await window('2020-01-01', '2025-01-01')).toMatchObject({ error: { code: 'CAPI69' } });
    expect(await window('2025-02-01', '2025-01-01')).toMatchObject({
      error: { code: 'invalid_parameters', reasons: ['end_date:end_before_start'] },
    });
  });

  it('refuses posts during a rebuild (CAPI73) the same way', async () => {
    const rebuilding = (file: string) =>
      setEntity(file, 'rebuild_started_at = ?', new Date().toISOString());
    expect(
      await both((l) => l.journal.post(entry(), { idempotencyKey: key() }), rebuilding),
    ).toMatchObject({ error: { code: 'CAPI73' } });
  });

  it('refuses a body that is not an object the same way', async () => {
    for (const body of [[entry()], 'text', null]) {
      expect(await both((l) => l.journal.post(body, { idempotencyKey: key() }))).toMatchObject({
        error: { code: 'CAPI33', reasons: [':invalid_body'] },
      });
    }
  });

  it('refuses everything with CAPI67 before the First Month of Books', async () => {
    const noStart = (file: string) => setEntity(file, 'books_start = NULL');
    expect(
      await both((l) => l.journal.post(entry({ lines: [] }), { idempotencyKey: key() }), noStart),
    ).toMatchObject({ error: { code: 'CAPI67' } });
  });
});

describe('the close reports: every store gives the same figures', () => {
  /** A few months of entries: sales to customers, rent, an adjusting accrual, a prior-year entry. */
  async function postSome(l: Ledger): Promise<void> {
    const bodies = [
      entry({
        entry_date: '2025-02-03',
        lines: [line('ar', 'debit', 12_000, customer('C001')), line('sales', 'credit', 12_000)],
      }),
      entry({
        entry_date: '2025-02-10',
        lines: [line('rent', 'debit', 3_000), line('checking', 'credit', 3_000)],
      }),
      entry({
        entry_date: '2025-03-15',
        lines: [line('ar', 'debit', 500, customer('C002')), line('sales', 'credit', 500)],
      }),
      entry({
        entry_date: '2025-03-31',
        is_adjusting: true,
        lines: [line('rent', 'debit', 700), line('checking', 'credit', 700)],
      }),
      entry({
        entry_date: '2026-01-05',
        lines: [line('checking', 'debit', 4_000), line('ar', 'credit', 4_000, customer('C001'))],
      }),
    ];
    for (const b of bodies) await l.journal.post(b, { idempotencyKey: key() });
  }
  const events = async (it: AsyncIterable<GlEvent>) => {
    const out: unknown[] = [];
    // The position is each store's own (the service keeps it in its cursor).
    for await (const e of it)
      out.push(e.kind === 'account' ? e.account : e.kind === 'line' ? e.line : e);
    return out;
  };

  it('income statement, trial balance (three ways) and general ledger', async () => {
    const r = await both(async (l) => {
      await postSome(l);
      const query = {
        start_date: '2025-01-01',
        end_date: '2026-03-31',
        period_type: 'quarterly' as const,
      };
      return {
        is: await l.reports.incomeStatement(query),
        tb: await Promise.all(
          (['include', 'exclude', 'worksheet'] as const).map((adjustments) =>
            l.reports.trialBalance({ as_of: '2025-03-31', adjustments }),
          ),
        ),
        nextYear: await l.reports.trialBalance({ as_of: '2026-01-31', adjustments: 'include' }),
        gl: await events(
          l.reports.generalLedger({
            start_date: '2025-03-01',
            end_date: '2026-01-31',
            accounts: [],
            counterparty: null,
          }),
        ),
        glAr: await events(
          l.reports.generalLedger({
            start_date: '2025-03-01',
            end_date: '2026-01-31',
            accounts: ['ar', 'cash'],
            counterparty: { type: 'customer', external_id: 'C001' },
          }),
        ),
      };
    });
    type Tb = {
      totals: Record<string, number>;
      rows: { name: string; debit: number | null; credit: number | null }[];
    };
    const ok = (
      r as {
        ok: { is: { summary: { amounts: Record<string, number> }[] }; tb: Tb[]; nextYear: Tb };
      }
    ).ok;
    expect(ok.is.summary.at(-1)!.amounts).toEqual({
      '2025-Q1': 8_800,
      '2025-Q2': null,
      '2025-Q3': null,
      '2025-Q4': null,
      '2026-Q1': null,
    });
    expect(ok.tb.map((t) => t.totals)).toEqual([
      { debit: 16_200, credit: 16_200 },
      { debit: 15_500, credit: 15_500 },
      {
        unadjusted_debit: 15_500,
        unadjusted_credit: 15_500,
        adjustments_debit: 700,
        adjustments_credit: 700,
        adjusted_debit: 16_200,
        adjusted_credit: 16_200,
      },
    ]);
    // The next fiscal year: 2025's profit is in Retained Earnings (prior years).
    expect(ok.nextYear.totals).toEqual({ debit: 8_800, credit: 8_800 });
    expect(ok.nextYear.rows.map((x) => [x.name, x.debit, x.credit])).toEqual([
      ['Operating Checking', 300, null],
      ['Accounts Receivable', 8_500, null],
      ['Retained Earnings (prior years)', null, 8_800],
    ]);
  });

  it('names general-ledger accounts by external id or number alike', async () => {
    const r = await both(async (l) => {
      await postSome(l);
      const q = (accounts: string[]) =>
        events(
          l.reports.generalLedger({
            start_date: '2025-01-01',
            end_date: '2025-12-31',
            accounts,
            counterparty: null,
          }),
        );
      return { byId: await q(['ar', 'cash']), byNumber: await q(['1100', '1000']) };
    });
    const ok = (r as { ok: { byId: unknown[]; byNumber: unknown[] } }).ok;
    expect(ok.byNumber).toEqual(ok.byId);
    expect(ok.byId.length).toBeGreaterThan(6);
  });

  it('refuses bad parameters the same way', async () => {
    expect(
      await both((l) => l.reports.trialBalance({ as_of: '2025-02-30', adjustments: 'include' })),
    ).toMatchObject({
      error: { code: 'invalid_parameters', reasons: ['as_of:invalid_date'] },
    });
    const gl = (q: Partial<{ accounts: string[]; end_date: string }>) =>
      both((l) =>
        events(
          l.reports.generalLedger({
            start_date: '2020-01-01',
            end_date: '2020-12-31',
            accounts: [],
            counterparty: null,
            ...q,
          }),
        ),
      );
    expect(await gl({ accounts: ['nope'] })).toMatchObject({
      error: { code: 'invalid_parameters', reasons: ['account:unknown_account'] },
    });
    expect(await gl({ end_date: '2025-01-01' })).toMatchObject({ error: { code: 'CAPI69' } });
  });

  it('pages the general ledger by cursor: the pages put together are the whole', async () => {
    const whole = await both(async (l, s) => {
      await postSome(l);
      for (let i = 0; i < 7; i++)
        await l.journal.post(entry({ entry_date: `2025-04-0${i + 1}` }), { idempotencyKey: key() });
      const all = await events(
        l.reports.generalLedger({
          start_date: '2025-01-01',
          end_date: '2025-12-31',
          accounts: [],
          counterparty: null,
        }),
      );
      if (!s.http) return all;
      for (const limit of [1, 2, 5]) {
        const pages: unknown[] = [];
        let cursor: string | null = null;
        do {
          const q = new URLSearchParams({
            start_date: '2025-01-01',
            end_date: '2025-12-31',
            limit: String(limit),
          });
          if (cursor) q.set('cursor', cursor);
          const res = await fetch(`${s.http.url}/v1/reports/general-ledger?${q}`, {
            headers: { authorization: `Bearer ${s.http.keys.read}` },
          });
          expect(res.status).toBe(200);
          const page = (await res.json()) as {
            accounts: {
              lines: unknown[];
              closing?: unknown;
              debit_total?: unknown;
              credit_total?: unknown;
            }[];
            next_cursor: string | null;
          };
          expect(page.accounts.reduce((n, a) => n + a.lines.length, 0)).toBeLessThanOrEqual(limit);
          pages.push(...page.accounts);
          cursor = page.next_cursor;
        } while (cursor);
        // Blocks of one account split across pages join into the account's lines.
        const joined: unknown[] = [];
        for (const b of pages as Record<string, unknown>[]) {
          const { lines, closing, debit_total, credit_total, ...head } = b as {
            lines: unknown[];
          } & Record<string, unknown>;
          const prev = joined.at(-1) as Record<string, unknown> | undefined;
          if (!prev || 'closing' in (prev.end as object))
            joined.push({ ...head, lines: [...lines], end: {} });
          else (prev.lines as unknown[]).push(...lines);
          if (closing !== undefined)
            (joined.at(-1) as Record<string, unknown>).end = { closing, debit_total, credit_total };
        }
        const flat = joined.flatMap((a) => {
          const { lines, end, ...head } = a as { lines: unknown[]; end: object };
          return [head, ...lines, { kind: 'end', ...end }];
        });
        expect(flat).toEqual(all);
      }
      return all;
    });
    expect((whole as { ok: unknown[] }).ok.length).toBeGreaterThan(20);
  });

  it('a service without the reports says they are not offered', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'not_found', message: 'no route' } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const l = new HttpLedger({
      baseUrl: url,
      apiKey: 'k',
      apiKeyEnv: 'BOOKS_API_KEY',
      currency: 'USD',
      attempts: 1,
    });
    try {
      for (const f of [
        () =>
          l.reports.incomeStatement({
            start_date: '2025-01-01',
            end_date: '2025-01-31',
            period_type: 'monthly',
          }),
        () => l.reports.trialBalance({ as_of: '2025-01-31', adjustments: 'include' }),
        () =>
          events(
            l.reports.generalLedger({
              start_date: '2025-01-01',
              end_date: '2025-01-31',
              accounts: [],
              counterparty: null,
            }),
          ),
      ]) {
        await expect(f()).rejects.toMatchObject({
          code: 'usage',
          message: expect.stringContaining('not offered by this profile'),
        });
      }
    } finally {
      await l.close();
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('the OpenAPI description', () => {
  it('describes every answer this file saw from books serve', async () => {
    expect(await conformance()).toBeGreaterThan(20);
  });
});
