import { bool, command, str } from '../cli/command.js';
import { dateFlag } from '../cli/flags.js';
import type { AgingReport } from '../domain/aging.js';
import { localDate } from '../domain/dates.js';
import { errors } from '../domain/errors.js';
import { atomsToDecimal, exponentOf, formatAmount } from '../domain/money.js';
import { counterpartiesCsv } from '../render/journalCsv.js';
import { grid } from '../render/table.js';
import { csvLine } from '../render/csv.js';

type Atoms = number | bigint;

export default command({
  flags: [
    {
      flags: '--balances',
      description: "add each counterparty's receivable and payable balance (from the aging)",
    },
    { flags: '--as-of <YYYY-MM-DD>', description: 'the date of the balances (default today)' },
  ],
  formats: ['table', 'csv', 'json'],
  help: `CSV is the format of books counterparties import (with --balances, two columns more:
receivable and payable, each in its account's sign).`,
  examples: [
    'books counterparties list',
    'books counterparties list --format csv',
    'books counterparties list --balances --as-of 2025-12-31',
  ],
  options: (raw) => {
    const asOf = dateFlag('--as-of', str(raw, 'asOf'));
    if (asOf !== undefined && !bool(raw, 'balances'))
      throw errors.usage('--as-of is the date of --balances; give both');
    return { balances: bool(raw, 'balances'), asOf };
  },
  async run(ctx, opts) {
    const ledger = await ctx.ledger();
    const list = await ledger.chart.counterparties();
    if (!opts.balances) {
      if (ctx.json) return ctx.outJson({ object: 'list', data: list });
      if (ctx.format === 'csv') return ctx.write(counterpartiesCsv(list));
      const rows = list.map((c) => [
        c.counterparty_type,
        c.external_id,
        c.name,
        c.is_active ? 'yes' : 'no',
      ]);
      return ctx.out(grid(['Type', 'External id', 'Name', 'Active'], rows));
    }
    const as_of = opts.asOf ?? localDate(ctx.now());
    const [receivable, payable, entity] = await Promise.all([
      ledger.reports.aging({ type: 'receivable', as_of }),
      ledger.reports.aging({ type: 'payable', as_of }),
      ledger.entity.get(),
    ]);
    const of = (r: AgingReport) =>
      new Map(
        r.rows.map((row) => [
          `${row.counterparty_type}:${row.counterparty_external_id}`,
          row.total,
        ]),
      );
    const [rec, pay] = [of(receivable), of(payable)];
    const data = list.map((c) => {
      const key = `${c.counterparty_type}:${c.external_id}`;
      return { ...c, receivable_balance: rec.get(key) ?? 0, payable_balance: pay.get(key) ?? 0 };
    });
    if (ctx.json) return ctx.outJson({ object: 'list', as_of, data });
    const exponent = exponentOf(entity.currency);
    const amount = (a: Atoms) => atomsToDecimal(a, exponent);
    if (ctx.format === 'csv') {
      const head = counterpartiesCsv([]).trimEnd() + ',receivable,payable';
      const rows = data.map((c) =>
        csvLine([
          c.counterparty_type,
          c.external_id,
          c.name,
          String(c.is_active),
          amount(c.receivable_balance),
          amount(c.payable_balance),
        ]),
      );
      return ctx.write([head, ...rows].join('\n') + '\n');
    }
    const rows = data.map((c) => [
      c.counterparty_type,
      c.external_id,
      c.name,
      c.is_active ? 'yes' : 'no',
      formatAmount(c.receivable_balance, exponent),
      formatAmount(c.payable_balance, exponent),
    ]);
    ctx.out(
      grid(['Type', 'External id', 'Name', 'Active', 'Receivable', 'Payable'], rows, [
        'left',
        'left',
        'left',
        'left',
        'right',
        'right',
      ]),
    );
  },
});
