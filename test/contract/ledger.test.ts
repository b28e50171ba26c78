import { beforeAll, describe, expect, it } from 'vitest';
import { writeFile } from '../e2e/helpers.js';
import { cli } from '../support/cli.js';
import { copyTemplate } from '../support/ledgers.js';
import { contract, setEntity } from './stores.js';

// Every case runs against each store of STORES (SQLite, and HTTP through a real books serve), each on
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
