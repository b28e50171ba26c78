import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURES, fromTemplate, type FixtureLedger } from '../support/fixtures.js';
import { tempDir, writeFile } from '../support/helpers.js';
import { copyTemplate } from '../support/ledgers.js';
import { fxFile, okOn } from './fxLedger.js';

/** What a hostile pass found in foreign currencies, each held to what docs/currency.md says. */

const H =
  'entry,entry_date,gl_account_id,debit,credit,counterparty_type,counterparty_external_id,' +
  'fx_currency,fx_amount,fx_rate';

describe.each(FIXTURES.map((f) => [f.name, f] as const))(
  'settlements and revaluations on %s',
  (_n, fixture) => {
    let L: FixtureLedger | null = null;
    afterEach(async () => {
      await L?.close();
      L = null;
    });
    const run = (...args: string[]) => okOn(L!)(...args);
    const fx = async (asOf: string) =>
      JSON.parse(await run('report', 'fx', '--as-of', asOf, '--format', 'json')) as {
        rows: {
          gl_account_id: string;
          counterparty_external_id: string | null;
          foreign_balance_atoms: number;
          carrying_atoms: number;
        }[];
      };
    const receivable = async (asOf: string, customer: string) =>
      (await fx(asOf)).rows.find(
        (r) => r.gl_account_id === 'ar-eur' && r.counterparty_external_id === customer,
      );

    it('an invoice dated before a payment already posted: the receivable paid in full carries nothing', async () => {
      L = await fromTemplate(fixture, 'fx');
      await run(
        'je',
        'post',
        '--date',
        '2025-01-10',
        '--debit',
        'ar-eur=EUR 1000.00 @ 1.10@customer:C002',
        '--credit',
        'sales=1100',
      );
      await run(
        'je',
        'post',
        '--date',
        '2025-01-20',
        '--debit',
        'eur-bank=EUR 1000.00 @ 1.12',
        '--credit',
        'ar-eur=EUR 1000.00@customer:C002',
      );
      await run(
        'je',
        'post',
        '--date',
        '2025-01-05',
        '--debit',
        'ar-eur=EUR 1000.00 @ 1.30@customer:C002',
        '--credit',
        'sales=1300',
      );
      await run(
        'je',
        'post',
        '--date',
        '2025-01-25',
        '--debit',
        'eur-bank=EUR 1000.00 @ 1.12',
        '--credit',
        'ar-eur=EUR 1000.00@customer:C002',
      );
      expect(await receivable('2025-01-31', 'C002')).toBeUndefined();
      // Received 2,240.00 for 2,400.00 invoiced: 160.00 lost, all of it realised.
      const tb = JSON.parse(await run('report', 'tb', '--as-of', '2025-01-31', '--format', 'json'));
      const realized = tb.rows.find((r: { account_number: string }) => r.account_number === '7100');
      expect([realized.debit, realized.credit]).toEqual([16000, null]);
      expect(await L.check()).toEqual([]);
    });

    it('a payment dated before one already posted settles what is open now, not what that one settled', async () => {
      L = await fromTemplate(fixture, 'fx');
      await run(
        'je',
        'post',
        '--date',
        '2025-01-05',
        '--debit',
        'ar-eur=EUR 1000.00 @ 1.10@customer:C001',
        '--credit',
        'sales=1100',
      );
      await run(
        'je',
        'post',
        '--date',
        '2025-01-06',
        '--debit',
        'ar-eur=EUR 1000.00 @ 1.20@customer:C001',
        '--credit',
        'sales=1200',
      );
      await run(
        'je',
        'post',
        '--date',
        '2025-01-20',
        '--debit',
        'eur-bank=EUR 1000.00 @ 1.15',
        '--credit',
        'ar-eur=EUR 1000.00@customer:C001',
      );
      await run(
        'je',
        'post',
        '--date',
        '2025-01-15',
        '--debit',
        'eur-bank=EUR 1000.00 @ 1.15',
        '--credit',
        'ar-eur=EUR 1000.00@customer:C001',
      );
      expect(await receivable('2025-01-31', 'C001')).toBeUndefined();
      // 2,300.00 received for 2,300.00 invoiced: +50 on the first settled, −50 on the second.
      const tb = JSON.parse(await run('report', 'tb', '--as-of', '2025-01-31', '--format', 'json'));
      const realized = tb.rows.find((r: { account_number: string }) => r.account_number === '7100');
      expect([realized.debit, realized.credit]).toEqual([null, null]);
    });

    it('--show-foreign with --counterparty: the euro balance is the counterparty’s', async () => {
      L = await fromTemplate(fixture, 'fx');
      await run(
        'je',
        'post',
        '--date',
        '2025-01-03',
        '--debit',
        'ar-eur=EUR 200.00 @ 1.10@customer:C002',
        '--credit',
        'sales=220',
      );
      await run(
        'je',
        'post',
        '--date',
        '2025-01-04',
        '--debit',
        'ar-eur=EUR 500.00 @ 1.10@customer:C001',
        '--credit',
        'sales=550',
      );
      await run(
        'je',
        'post',
        '--date',
        '2025-01-10',
        '--debit',
        'eur-bank=EUR 200.00 @ 1.10',
        '--credit',
        'ar-eur=EUR 200.00@customer:C001',
      );
      const gl = JSON.parse(
        await run(
          'report',
          'gl',
          '--account',
          'ar-eur',
          '--start',
          '2025-01-05',
          '--end',
          '2025-01-31',
          '--show-foreign',
          '--counterparty',
          'customer:C001',
          '--format',
          'json',
        ),
      );
      const a = gl.accounts[0];
      expect([a.foreign_opening_atoms, a.foreign_closing_atoms]).toEqual([50000, 30000]);
    });

    it('an invoice a payment settled is not reversed (the payment first); one untouched is', async () => {
      L = await fromTemplate(fixture, 'fx');
      await run(
        'je',
        'post',
        '--date',
        '2025-01-05',
        '--je-number',
        'INV-A',
        '--debit',
        'ar-eur=EUR 1000.00 @ 1.10@customer:C003',
        '--credit',
        'sales=1100',
      );
      await run(
        'je',
        'post',
        '--date',
        '2025-01-06',
        '--je-number',
        'INV-B',
        '--debit',
        'ar-eur=EUR 1000.00 @ 1.20@customer:C003',
        '--credit',
        'sales=1200',
      );
      await run(
        'je',
        'post',
        '--date',
        '2025-01-10',
        '--je-number',
        'PAY-1',
        '--debit',
        'eur-bank=EUR 1000.00 @ 1.12',
        '--credit',
        'ar-eur=EUR 1000.00@customer:C003',
      );
      const before = L.inspect();
      const refused = await L.books(['je', 'reverse', 'INV-A']);
      expect(refused.exitCode).toBe(1);
      expect(refused.stderr).toContain(
        'INV-A opened what customer C003 owes on ar-eur, and later entries settled it',
      );
      expect(L.inspect()).toBe(before);
      await run('je', 'reverse', 'INV-B', '--date', '2025-01-11');
      // The payment reversed first, the invoice then goes: nothing is owed, nothing carried.
      await run('je', 'reverse', 'PAY-1', '--date', '2025-01-12');
      await run('je', 'reverse', 'INV-A', '--date', '2025-01-12');
      expect(await receivable('2025-01-31', 'C003')).toBeUndefined();
    });

    it('a payment posted after its date was revalued: a second revaluation posts what it moved, once', async () => {
      L = await fromTemplate(fixture, 'fx');
      await run(
        'je',
        'post',
        '--date',
        '2025-01-06',
        '--debit',
        'ar-eur=EUR 300.00 @ 1.20@customer:C002',
        '--credit',
        'sales=360',
      );
      const first = JSON.parse(
        await run('fx', 'revalue', '--as-of', '2025-01-31', '--format', 'json'),
      );
      await run(
        'je',
        'post',
        '--date',
        '2025-01-31',
        '--debit',
        'eur-bank=EUR 300.00 @ 1.12',
        '--credit',
        'ar-eur=EUR 300.00@customer:C002',
      );
      const again = JSON.parse(
        await run('fx', 'revalue', '--as-of', '2025-01-31', '--format', 'json'),
      );
      expect([again.status, again.revalued_before]).toEqual(['posted', [first.je_number]]);
      expect(await receivable('2025-01-31', 'C002')).toBeUndefined();
      expect(await receivable('2025-02-01', 'C002')).toBeUndefined();
      const third = JSON.parse(
        await run('fx', 'revalue', '--as-of', '2025-01-31', '--format', 'json'),
      );
      expect([third.status, third.je_number]).toEqual(['already_revalued', again.je_number]);
    });

    it('an import settles what the same file invoiced, as posting one by one would', async () => {
      L = await fromTemplate(fixture, 'fx');
      const file = writeFile(
        tempDir(),
        'month.csv',
        `${H}\n1,2025-01-10,ar-eur,,,customer,C002,EUR,1000.00,1.10\n1,2025-01-10,sales,,1100.00,,,,,\n` +
          '2,2025-01-20,eur-bank,,,,,EUR,600.00,1.12\n2,2025-01-20,ar-eur,,,customer,C002,EUR,-600.00,\n' +
          '3,2025-01-21,eur-bank,,,,,EUR,400.00,1.12\n3,2025-01-21,ar-eur,,,customer,C002,EUR,-400.00,\n',
      );
      await run('je', 'import', file);
      expect(await receivable('2025-01-31', 'C002')).toBeUndefined();
      // 600 and 400 settled at 1.10, received at 1.12: 12.00 and 8.00 gained.
      const tb = JSON.parse(await run('report', 'tb', '--as-of', '2025-01-31', '--format', 'json'));
      const realized = tb.rows.find((r: { account_number: string }) => r.account_number === '7100');
      expect([realized.debit, realized.credit]).toEqual([null, 2000]);
    });
  },
);

describe('foreign input refused as it should be', () => {
  const ledger = () => {
    return fxFile().run;
  };

  it('says a foreign amount past 2^53 and a rate that is a number by name, exit 1', async () => {
    const run = ledger();
    const file = writeFile(
      tempDir(),
      'big.json',
      '{"entry_date":"2025-01-15","lines":[{"gl_account_id":"eur-bank","line_type":"debit","fx":{"currency":"EUR",' +
        '"amount_atoms":9007199254740992,"rate":1.1}},' +
        '{"gl_account_id":"checking","line_type":"credit","amount_atoms":110}]}',
    );
    const r = await run('je', 'post', '--file', file);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('fx.amount_atoms 9007199254740992 exceeds 9007199254740991');
    expect(r.stderr).toContain('a rate is a decimal string such as "1.105", not 1.1');
  });

  it('refuses a rate beside no foreign amount, and keeps an implied rate of many digits', async () => {
    const run = ledger();
    const file = writeFile(
      tempDir(),
      'zero.json',
      '{"entry_date":"2025-01-15","lines":[{"gl_account_id":"eur-bank","line_type":"debit","amount_atoms":500,' +
        '"fx":{"currency":"EUR","amount_atoms":0,"rate":"1.1"}},' +
        '{"gl_account_id":"checking","line_type":"credit","amount_atoms":500}]}',
    );
    const r = await run('je', 'post', '--file', file);
    expect([
      r.exitCode,
      r.stderr.includes('fx_mismatch') || r.stderr.includes('takes no rate'),
    ]).toEqual([1, true]);
    const big = await run(
      'je',
      'post',
      '--date',
      '2025-01-15',
      '--debit',
      'eur-bank=EUR 0.01 @@ 90071992547409.91',
      '--credit',
      'checking=90071992547409.91',
      '--format',
      'json',
    );
    expect(big.exitCode, big.stderr).toBe(0);
    expect(JSON.parse(big.stdout).lines[0].fx.rate).toBe('9007199255000000');
    expect((await run('check')).exitCode).toBe(0);
  });

  it('refuses an fx_amount that is not an amount, or whose sign says another side than its line', async () => {
    const run = ledger();
    for (const [cell, said] of [
      ['.', "'.' is not a decimal amount"],
      ['0.000', 'EUR has 2'],
      ['-100.00', 'is negative: the side is the line'],
    ]) {
      const file = writeFile(
        tempDir(),
        'bad.csv',
        `${H}\n1,2025-01-15,eur-bank,110.00,,,,EUR,${cell},\n1,2025-01-15,checking,,110.00,,,,,\n`,
      );
      const r = await run('je', 'import', file);
      expect(r.exitCode, cell).toBe(1);
      expect(r.stderr).toContain(said);
    }
  });

  it('books a settlement difference as exchange only where the rates explain it', async () => {
    const run = ledger();
    expect(
      (
        await run(
          'je',
          'post',
          '--date',
          '2025-01-10',
          '--debit',
          'ar-eur=EUR 1000.00@customer:C004',
          '--credit',
          'sales=1100',
        )
      ).exitCode,
    ).toBe(0);
    const r = await run(
      'je',
      'post',
      '--date',
      '2025-01-24',
      '--debit',
      'eur-bank=EUR 1000.00 @ 1.12',
      '--debit',
      'bank-fees=0.03',
      '--credit',
      'ar-eur=EUR 1000.00@customer:C004',
    );
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(
      "the settlement's exchange difference at the entry's own rate is 20.00",
    );
  });

  it('a euro invoice paid in dollars: a difference beyond 5% of the table’s rate is refused, not a gain', async () => {
    const run = ledger();
    expect(
      (
        await run(
          'je',
          'post',
          '--date',
          '2025-01-10',
          '--debit',
          'ar-eur=EUR 1000.00 @ 1.10@customer:C001',
          '--credit',
          'sales=1100',
        )
      ).exitCode,
    ).toBe(0);
    const typo = await run(
      'je',
      'post',
      '--date',
      '2025-01-20',
      '--debit',
      'checking=11200',
      '--credit',
      'ar-eur=EUR 1000.00@customer:C001',
    );
    expect(typo.exitCode).toBe(1);
    expect(typo.stderr).toContain("at the rate table's rate (within 5%)");
    const paid = await run(
      'je',
      'post',
      '--date',
      '2025-01-20',
      '--debit',
      'checking=1125',
      '--credit',
      'ar-eur=EUR 1000.00@customer:C001',
      '--format',
      'json',
    );
    expect(paid.exitCode, paid.stderr).toBe(0);
    expect(JSON.parse(paid.stdout).lines[2]).toMatchObject({
      amount_atoms: 2500,
      system: 'fx_realized',
    });
  });

  it('sets monetary only on other current and other assets', async () => {
    const run = ledger();
    const chart = writeFile(
      tempDir(),
      'm.csv',
      'external_id,account_number,name,account_type,parent_external_id,is_postable,is_active,currency,monetary\n' +
        'eur-2,1099,Euro 2,bank,,true,true,EUR,false\n',
    );
    const r = await run('accounts', 'import', chart);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(
      'monetary: is set only on other_current_asset and other_asset accounts',
    );
  });

  it('takes only its own fields on the gain/loss accounts, and null for the standard chart’s', async () => {
    const { SqliteLedger } = await import('../../src/ledger/sqlite/ledger.js');
    const l = SqliteLedger.open(copyTemplate('fx').ledger);
    try {
      await expect(l.fx.setAccounts({ realized: 'checking' } as never)).rejects.toMatchObject({
        code: 'invalid_parameters',
        errors: [{ path: 'realized', reason: 'unknown_field' }],
      });
      expect(await l.fx.setAccounts({ fx_realized: 'interest-income' })).toEqual({
        fx_realized: 'interest-income',
        fx_unrealized: 'fx-unrealized',
      });
      expect(await l.fx.setAccounts({ fx_realized: null } as never)).toEqual({
        fx_realized: 'fx-realized',
        fx_unrealized: 'fx-unrealized',
      });
      expect((await l.entity.get()).fx_realized).toBeUndefined();
    } finally {
      await l.close();
    }
  });
});
