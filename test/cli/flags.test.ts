import { describe, expect, it } from 'vitest';
import { cli, optionsOf } from '../support/cli.js';

// What a command line gives each command, without running it (the runF seam): flags are parsed and
// checked in-process, in milliseconds.

describe('flags become typed options', () => {
  it('je post: repeatable lines in order, dates checked, booleans', async () => {
    expect(
      await optionsOf([
        'je',
        'post',
        '--debit',
        'rent=10',
        '--debit',
        'office=5',
        '--credit',
        'checking=15',
        '--date',
        '2025-02-03',
        '--adjusting',
      ]),
    ).toEqual({
      path: 'je post',
      options: expect.objectContaining({
        debit: ['rent=10', 'office=5'],
        credit: ['checking=15'],
        date: '2025-02-03',
        adjusting: true,
        dryRun: false,
        idempotencyKey: undefined,
      }),
    });
  });

  it('report balance-sheet: choices, whole numbers, defaults', async () => {
    expect(
      await optionsOf([
        'report',
        'balance-sheet',
        '--period',
        'quarterly',
        '--depth',
        '2',
        '--compare',
        'previous-year',
        '--compare',
        'budget',
      ]),
    ).toEqual({
      path: 'report balance-sheet',
      options: {
        start: undefined,
        end: undefined,
        period: 'quarterly',
        depth: 2,
        output: undefined,
        atoms: false,
        compare: ['previous-year', 'budget'],
        where: [],
        columnsBy: undefined,
        showForeign: false,
      },
    });
    expect(await optionsOf(['report', 'balance-sheet'])).toMatchObject({
      options: { period: 'monthly', depth: undefined },
    });
  });

  it.each([
    [
      ['je', 'post', '--date', '2025-02-30', '--debit', 'a=1'],
      "--date: '2025-02-30' is not a date",
    ],
    [['je', 'list', '--from', '31/01/2025'], "--from: '31/01/2025' is not a date"],
    [['report', 'balance-sheet', '--depth', 'two'], "--depth: 'two' is not a whole number from 0"],
    [['report', 'balance-sheet', '--period', 'weekly'], "argument 'weekly' is invalid"],
    [['report', 'pnl', '--compare', 'last-year'], "argument 'last-year' is invalid"],
    [['je', 'post', '--reverse-on', '2025-02-30', '--debit', 'a=1'], "--reverse-on: '2025-02-30'"],
    [['report', 'aging', '--type', 'receivable', '--due-days', '-3'], '--due-days'],
    [['recurring', 'run', '--through', '2025-13-01'], "--through: '2025-13-01'"],
    [
      ['init', '--fiscal-year-start-month', '13'],
      "--fiscal-year-start-month: '13' is not a whole number from 1 to 12",
    ],
    [['serve', '--port', '-1'], "--port: '-1' is not a whole number from 0 to 65535"],
    [['close'], '--through is required'],
    [['books-start', '2025-1'], "'2025-1' is not a month"],
  ])('refuses %j as a usage error naming the flag (exit 2)', async (args, text) => {
    const r = await cli(args);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(text);
  });

  it('an --idempotency-key the rules refuse is CAPI34 (exit 1), named by its flag, before anything runs', async () => {
    const r = await cli([
      'je',
      'post',
      '--idempotency-key',
      'ключ',
      '--debit',
      'a=1',
      '--credit',
      'b=1',
    ]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('error CAPI34: --idempotency-key may hold only ASCII');
  });
});
