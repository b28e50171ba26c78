import { beforeAll, describe, expect, it } from 'vitest';
import type { CashFlowStatement } from '../../src/domain/cashFlow.js';
import type { GlAccount } from '../../src/domain/accounts.js';
import type { JournalEntry } from '../../src/domain/entry.js';
import { oracleCashFlow } from '../support/cashFlowOracle.js';
import { demoLedger, writeFile, type RunResult } from '../support/helpers.js';

type Demo = Awaited<ReturnType<typeof demoLedger>>;
const json = <T>(r: RunResult): T => {
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as T;
};
const big = (v: number | bigint | null | undefined) => BigInt(v ?? 0);

describe('books report cash-flow on the demo ledger', () => {
  let demo: Demo;
  let entries: JournalEntry[];
  beforeAll(async () => {
    demo = await demoLedger();
    entries = json<{ data: JournalEntry[] }>(
      await demo.run(['je', 'list', '--format', 'json']),
    ).data;
  });
  /** The demo's cash flow of 2025, as JSON, with more flags. */
  const cfOf2025 = async (...more: string[]) =>
    json<CashFlowStatement>(
      await demo.run([
        'report',
        'cf',
        '--start',
        '2025-01-01',
        '--end',
        '2025-12-31',
        ...more,
        '--format',
        'json',
      ]),
    );
  const accounts = async () =>
    json<{ data: GlAccount[] }>(await demo.run(['accounts', 'list', '--format', 'json'])).data;

  it('agrees with a computation from je list, section by section, and with the balance sheet', async () => {
    for (const period of ['monthly', 'quarterly', 'yearly']) {
      const window = ['--start', '2025-01-01', '--end', '2025-12-31', '--period', period];
      const cf = json<CashFlowStatement>(
        await demo.run(['report', 'cash-flow', ...window, '--format', 'json']),
      );
      const oracle = oracleCashFlow(entries, await accounts(), cf.periods);
      for (const s of cf.sections) {
        const rows = s.rows.filter((r) => r.kind === 'account');
        const got = Object.fromEntries(
          rows.map((r) => [
            r.account_id,
            Object.fromEntries(
              Object.entries(r.amounts)
                .filter(([, v]) => v !== null)
                .map(([k, v]) => [k, big(v)]),
            ),
          ]),
        );
        expect(got).toEqual(oracle.rows[s.kind] ?? {});
      }
      const end = cf.summary.find((s) => s.kind === 'cash_end')!.amounts;
      for (const p of cf.periods) expect(big(end[p.id])).toBe(oracle.cashAtEnd[p.id]);
    }
  });

  it('adds depreciation back in operating activities, as the standard chart marks it', async () => {
    const cf = await cfOf2025('--period', 'yearly');
    const operating = cf.sections.find((s) => s.kind === 'operating')!;
    const depr = operating.rows.find((r) => r.account_number === '1590')!;
    expect(depr.amounts['2025']).toBe(720000);
    expect(
      cf.sections.find((s) => s.kind === 'investing')!.rows.map((r) => r.account_number),
    ).not.toContain('1590');
  });

  it('prints a table and CSV with the section totals and the cash lines', async () => {
    const window = ['--start', '2025-01-01', '--end', '2025-03-31', '--period', 'monthly'];
    const table = await demo.run(['report', 'cf', ...window]);
    expect(table.exitCode, table.stderr).toBe(0);
    for (const label of [
      'Cash Flow Statement',
      'Net cash from operating activities',
      'Net cash from investing activities',
      'Net cash from financing activities',
      'Net change in cash',
      'Cash at beginning of period',
      'Cash at end of period',
    ])
      expect(table.stdout).toContain(label);
    const csv = await demo.run(['report', 'cf', ...window, '--format', 'csv']);
    expect(csv.stdout.split('\n')[0]).toBe(
      'section,depth,path,account_number,name,account_kind,2025-01,2025-02,2025-03',
    );
    expect(csv.stdout).toMatch(/^,0,Cash at end of period,,Cash at end of period,cash_end,/m);
  });

  it("follows the chart's cash_flow column, and refuses a bad one naming the row (exit 1)", async () => {
    const head = 'external_id,account_number,name,account_type,parent_external_id,cash_flow';
    const moved = writeFile(
      demo.dir,
      'moved.csv',
      `${head}\ndeposits,1800,Security Deposits,other_asset,,operating\n`,
    );
    expect((await demo.run(['accounts', 'import', moved])).exitCode).toBe(0);
    const cf = await cfOf2025();
    const names = (kind: string) =>
      cf.sections.find((s) => s.kind === kind)!.rows.map((r) => r.account_number);
    expect(names('operating')).toContain('1800');
    expect(names('investing')).not.toContain('1800');
    const listed = await accounts();
    expect(listed.find((a) => a.external_id === 'deposits')?.cash_flow).toBe('operating');
    const csv = await demo.run(['accounts', 'list', '--format', 'csv']);
    expect(csv.stdout.split('\n')[0]).toMatch(/,cash_flow$/);

    const before = await demo.run(['accounts', 'list', '--format', 'json']);
    for (const [row, message] of [
      ['deposits,1800,Security Deposits,other_asset,,sideways', "'sideways' is not operating"],
      ['rent,6100,Rent,expense,,operating', 'balance-sheet accounts'],
      ['savings,1020,Savings,bank,cash,investing', 'a bank account is cash'],
    ] as const) {
      const bad = writeFile(demo.dir, 'bad.csv', `${head}\n${row}\n`);
      const r = await demo.run(['accounts', 'import', bad]);
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toContain('bad.csv:2:');
      expect(r.stderr).toContain('cash_flow');
      expect(r.stderr).toContain(message);
    }
    expect((await demo.run(['accounts', 'list', '--format', 'json'])).stdout).toBe(before.stdout);
  });

  it('refuses --compare budget as a bad flag value (exit 2)', async () => {
    const r = await demo.run(['report', 'cf', '--end', '2025-03-31', '--compare', 'budget']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('Allowed choices are previous-period, previous-year');
  });
});
