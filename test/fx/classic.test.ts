import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURES, fromTemplate, type FixtureLedger } from '../support/fixtures.js';
import { tempDir, writeFile } from '../support/helpers.js';
import { conformance } from '../stores/stores.js';
import { okOn } from './fxLedger.js';

/**
 * The classic cases of foreign currencies (docs/currency.md), functional USD, through the real books
 * on every store: the figures are the ones a bookkeeper works out by hand.
 */

type Line = {
  account_id: string;
  account_number: string | null;
  line_type: 'debit' | 'credit';
  amount_atoms: number;
  fx?: { currency: string; amount_atoms: number; rate: string };
  system?: string;
};
type Entry = {
  je_number: string;
  lines: Line[];
  total_debit_atoms: number;
  total_credit_atoms: number;
};

/** The lines of an entry as [account number, side, atoms, system mark]. */
const lines = (e: Entry) =>
  e.lines.map((l) => [l.account_number, l.line_type, l.amount_atoms, l.system ?? null]);

describe.each(FIXTURES.map((f) => [f.name, f] as const))(
  'foreign currencies on %s',
  (_name, fixture) => {
    let L: FixtureLedger | null = null;
    afterEach(async () => {
      await L?.close();
      L = null;
    });

    const fresh = async () => (L = await fromTemplate(fixture, 'fx'));
    const json = async (args: string[]) => JSON.parse(await okOn(L!)(...args, '--format', 'json'));
    const post = (date: string, ...flags: string[]): Promise<Entry> =>
      json(['je', 'post', '--date', date, ...flags]);
    /** Trial balance nets by account number at a date (debit positive). */
    const balances = async (asOf: string) => {
      const tb = await json(['report', 'trial-balance', '--as-of', asOf]);
      const out: Record<string, number> = {};
      for (const r of tb.rows) out[r.account_number] = (r.debit ?? 0) - (r.credit ?? 0);
      return out;
    };

    it('1. a euro invoice paid at another rate: settled at its own rate, the difference realised', async () => {
      await fresh();
      await post(
        '2025-01-10',
        '--debit',
        'ar-eur=EUR 1000.00 @ 1.10@customer:C001',
        '--credit',
        'sales=1100',
      );
      const paid = await post(
        '2025-01-20',
        '--debit',
        'eur-bank=EUR 1000.00 @ 1.12',
        '--credit',
        'ar-eur=EUR 1000.00@customer:C001',
      );
      expect(lines(paid)).toEqual([
        ['1050', 'debit', 112000, null],
        ['1110', 'credit', 110000, null],
        ['7100', 'credit', 2000, 'fx_realized'],
      ]);
      expect(paid.lines[1]!.fx).toEqual({ currency: 'EUR', amount_atoms: 100000, rate: '1.1' });
      // The customer owes nothing in euros or dollars: no foreign balance is left to revalue.
      const fx = await json(['report', 'fx', '--as-of', '2025-01-31']);
      expect(
        fx.rows.filter(
          (r: { counterparty_external_id: string }) => r.counterparty_external_id === 'C001',
        ),
      ).toEqual([]);
      // Partly paid: EUR 400 of another invoice at 1.12 is 440.00 of it at carrying, 8.00 gained.
      await post(
        '2025-01-11',
        '--debit',
        'ar-eur=EUR 1000.00 @ 1.10@customer:C002',
        '--credit',
        'sales=1100',
      );
      const part = await post(
        '2025-01-21',
        '--debit',
        'eur-bank=EUR 400.00 @ 1.12',
        '--credit',
        'ar-eur=EUR 400.00@customer:C002',
      );
      expect(lines(part)).toEqual([
        ['1050', 'debit', 44800, null],
        ['1110', 'credit', 44000, null],
        ['7100', 'credit', 800, 'fx_realized'],
      ]);
      expect(await L!.check()).toEqual([]);
    });

    it('2. two invoices at two rates, one payment: first in, first out', async () => {
      await fresh();
      await post(
        '2025-01-05',
        '--debit',
        'ar-eur=EUR 500.00 @ 1.10@customer:C003',
        '--credit',
        'sales=550',
      );
      await post(
        '2025-01-06',
        '--debit',
        'ar-eur=EUR 500.00 @ 1.20@customer:C003',
        '--credit',
        'sales=600',
      );
      const paid = await post(
        '2025-01-25',
        '--debit',
        'eur-bank=EUR 700.00 @ 1.15',
        '--credit',
        'ar-eur=EUR 700.00@customer:C003',
      );
      // 550.00 of the first and 200 x 1.20 = 240.00 of the second: 790.00 carried, 805.00 received.
      expect(lines(paid)).toEqual([
        ['1050', 'debit', 80500, null],
        ['1110', 'credit', 79000, null],
        ['7100', 'credit', 1500, 'fx_realized'],
      ]);
      const fx = await json(['report', 'fx', '--as-of', '2025-01-25']);
      const open = fx.rows.find(
        (r: { counterparty_external_id: string }) => r.counterparty_external_id === 'C003',
      );
      expect([open.foreign_balance_atoms, open.carrying_atoms]).toEqual([30000, 36000]);
    });

    it('3. month end: the bank revalued at the closing rate on the 31st, reversed on the 1st, once', async () => {
      await fresh();
      await post(
        '2025-01-05',
        '--debit',
        'eur-bank-2=EUR 5000.00 @@ 5450.00',
        '--credit',
        'capital=5450',
      );
      const r = await json(['fx', 'revalue', '--as-of', '2025-01-31']);
      expect(r.status).toBe('posted');
      expect(lines(r.entry)).toEqual([
        ['1070', 'debit', 15000, null],
        ['7200', 'credit', 15000, null],
      ]);
      expect(r.entry.is_adjusting).toBe(true);
      expect(r.entry.source).toBe('fx_revaluation');
      expect(r.entry.lines[0].fx).toEqual({ currency: 'EUR', amount_atoms: 0, rate: '0' });
      const again = await json(['fx', 'revalue', '--as-of', '2025-01-31']);
      expect([again.status, again.je_number]).toEqual(['already_revalued', r.entry.je_number]);
      const bs = async (end: string) => {
        const b = await json(['report', 'balance-sheet', '--end', end]);
        const find = (
          nodes: {
            account_number: string | null;
            balances: Record<string, number>;
            children: unknown[];
          }[],
        ): number | undefined => {
          for (const n of nodes) {
            if (n.account_number === '1070') return Object.values(n.balances).at(-1);
            const inner = find(n.children as typeof nodes);
            if (inner !== undefined) return inner;
          }
          return undefined;
        };
        return find(b.sections.flatMap((s: { children: unknown[] }) => s.children));
      };
      expect(await bs('2025-01-31')).toBe(560000);
      expect(await bs('2025-02-01')).toBe(545000);
      expect(await L!.check()).toEqual([]);
    });

    it('4. a transfer within one currency, and a conversion at the bank’s rate, make no gain', async () => {
      await fresh();
      await post(
        '2025-01-05',
        '--debit',
        'eur-bank=EUR 2000.00 @ 1.10',
        '--credit',
        'capital=2200',
      );
      const within = await post(
        '2025-01-15',
        '--debit',
        'eur-bank-2=EUR 100.00 @ 1.11',
        '--credit',
        'eur-bank=EUR 100.00 @ 1.11',
      );
      expect(lines(within)).toEqual([
        ['1070', 'debit', 11100, null],
        ['1050', 'credit', 11100, null],
      ]);
      const converted = await post(
        '2025-01-16',
        '--debit',
        'checking=1120.00',
        '--credit',
        'eur-bank=EUR 1000.00 @@ 1120.00',
      );
      expect(lines(converted)).toEqual([
        ['1010', 'debit', 112000, null],
        ['1050', 'credit', 112000, null],
      ]);
      expect(converted.lines[1]!.fx!.rate).toBe('1.12');
    });

    it('5. yen (no decimals) and dinars (three) convert half to even, and every entry balances in atoms', async () => {
      await fresh();
      // JPY 12,345 at 0.0067 is 82.7115: 82.71. KWD 1.235 at 3.25 is 4.01375: 4.01.
      const yen = await post(
        '2025-01-05',
        '--debit',
        'jpy-bank=JPY 12345 @ 0.0067',
        '--credit',
        'capital=82.71',
      );
      expect(lines(yen)[0]).toEqual(['1080', 'debit', 8271, null]);
      const dinar = await post(
        '2025-01-05',
        '--debit',
        'kwd-bank=KWD 1.235 @ 3.25',
        '--credit',
        'capital=4.01',
      );
      expect(lines(dinar)[0]).toEqual(['1090', 'debit', 401, null]);
      // KWD 0.030 at 0.5 is 0.015, a tie: to the even 0.02. KWD 0.010 at 0.5 is 0.005: to the even 0.00,
      // which no line may be.
      const tie = await post(
        '2025-01-06',
        '--debit',
        'kwd-bank=KWD 0.030 @ 0.5',
        '--credit',
        'capital=0.02',
      );
      expect(lines(tie)[0]).toEqual(['1090', 'debit', 2, null]);
      const zero = await L!.books([
        'je',
        'post',
        '--date',
        '2025-01-06',
        '--debit',
        'kwd-bank=KWD 0.010 @ 0.5',
        '--credit',
        'capital=0.01',
      ]);
      expect(zero.exitCode).toBe(1);
      expect(zero.stderr).toContain('0.010 KWD at 0.5 is 0 atoms of USD');
      // The table's rate for the date: JPY 0.0067 from 2025-01-01.
      const table = await post(
        '2025-01-07',
        '--debit',
        'jpy-bank=JPY 1000',
        '--credit',
        'capital=6.70',
      );
      expect(table.lines[0]!.fx).toEqual({ currency: 'JPY', amount_atoms: 1000, rate: '0.0067' });
      for (const e of [yen, dinar, tie, table])
        expect(e.total_debit_atoms).toBe(e.total_credit_atoms);
      expect(await balances('2025-01-31')).toMatchObject({ '1080': 8271 + 670, '1090': 401 + 2 });
    });

    it('--show-foreign: trial balance, balance sheet and general ledger name the balance in its currency', async () => {
      await fresh();
      await post(
        '2025-01-05',
        '--debit',
        'eur-bank=EUR 5000.00 @@ 5450.00',
        '--credit',
        'capital=5450',
      );
      await post('2025-02-03', '--debit', 'rent=1120', '--credit', 'eur-bank=EUR 1000.00 @ 1.12');
      const tb = await json(['report', 'trial-balance', '--as-of', '2025-02-28', '--show-foreign']);
      const bank = tb.rows.find((r: { account_number: string }) => r.account_number === '1050');
      expect([bank.debit, bank.foreign_currency, bank.foreign_balance_atoms]).toEqual([
        433000,
        'EUR',
        400000,
      ]);
      const rent = tb.rows.find((r: { account_number: string }) => r.account_number === '6100');
      expect('foreign_currency' in rent).toBe(false);
      const csv = await L!.books([
        'report',
        'tb',
        '--as-of',
        '2025-02-28',
        '--show-foreign',
        '--format',
        'csv',
      ]);
      expect(csv.stdout.split('\n')[0]).toMatch(/,foreign_currency,foreign_balance$/);
      expect(csv.stdout).toMatch(/^1050,.*,4330\.00,,EUR,4000\.00$/m);
      const bs = await json(['report', 'balance-sheet', '--end', '2025-02-28', '--show-foreign']);
      const node = bs.sections[0].children
        .flatMap((g: { children: unknown[] }) => g.children)
        .find((n: { account_number: string }) => n.account_number === '1050');
      expect([node.foreign_currency, node.foreign_balance_atoms]).toEqual([
        'EUR',
        { '2025-01': 500000, '2025-02': 400000 },
      ]);
      const gl = await json([
        'report',
        'gl',
        '--account',
        'eur-bank',
        '--start',
        '2025-02-01',
        '--end',
        '2025-02-28',
        '--show-foreign',
      ]);
      const a = gl.accounts[0];
      expect([a.foreign_currency, a.foreign_opening_atoms, a.foreign_closing_atoms]).toEqual([
        'EUR',
        500000,
        400000,
      ]);
      expect(a.lines[0]).toMatchObject({
        credit: 112000,
        fx: { amount_atoms: 100000, rate: '1.12' },
        foreign_balance_atoms: 400000,
      });
    });

    it('a euro bank account is reconciled in euros: its statement, its matches, its balance', async () => {
      await fresh();
      await post(
        '2025-01-02',
        '--debit',
        'eur-bank=EUR 5000.00 @@ 5450.00',
        '--credit',
        'capital=5450',
      );
      await post(
        '2025-01-10',
        '--debit',
        'ar-eur=EUR 1000.00 @ 1.10@customer:C001',
        '--credit',
        'sales=1100',
      );
      await post(
        '2025-01-20',
        '--debit',
        'eur-bank=EUR 1000.00 @ 1.12',
        '--credit',
        'ar-eur=EUR 1000.00@customer:C001',
      );
      // The month's revaluation moves the bank's dollars, not its euros: no line of the statement.
      expect((await L!.books(['fx', 'revalue', '--as-of', '2025-01-31'])).exitCode).toBe(0);
      const dir = tempDir();
      const statement = writeFile(
        dir,
        'eur.csv',
        'date,description,amount,currency\n2025-01-02,Opening deposit,5000.00,EUR\n' +
          '2025-01-20,Harbor Cafe,1000.00,EUR\n2025-01-31,Bank fee,-12.50,EUR\n',
      );
      const rules = writeFile(
        dir,
        'rules.csv',
        'pattern,offset_account,memo\nBank fee,bank-fees,Monthly fee\n',
      );
      await json(['reconcile', 'import', statement, '--account', 'eur-bank']);
      const matched = await json(['reconcile', 'match', '--account', 'eur-bank']);
      expect(matched.matched.length).toBe(2);
      const created = await json([
        'reconcile',
        'create',
        '--account',
        'eur-bank',
        '--rules',
        rules,
      ]);
      const fee = await json(['je', 'show', created.created[0].je_number]);
      // EUR 12.50 at the table's 1.12: 14.00 of bank fees.
      expect(
        fee.lines.map((l: Line) => [l.account_number, l.line_type, l.amount_atoms, l.fx ?? null]),
      ).toEqual([
        ['1050', 'credit', 1400, { currency: 'EUR', amount_atoms: 1250, rate: '1.12' }],
        ['6800', 'debit', 1400, null],
      ]);
      const done = await json([
        'reconcile',
        'finish',
        '--account',
        'eur-bank',
        '--statement-date',
        '2025-01-31',
        '--statement-balance',
        '5987.50',
      ]);
      expect(done.statement_balance_atoms).toBe(598750);
      expect(await L!.check()).toEqual([]);
    });
  },
);

describe('the OpenAPI description', () => {
  it('describes every answer the served ledger gave here', async () => {
    expect(await conformance()).toBeGreaterThan(50);
  });
});
