import { bool, command, str } from '../cli/command.js';
import { dateFlag } from '../cli/flags.js';
import { counterpartyBalances } from '../domain/aging.js';
import { localDate } from '../domain/dates.js';
import { errors } from '../domain/errors.js';
import { exponentOf } from '../domain/money.js';
import {
  counterpartiesTable,
  counterpartyBalancesCsv,
  counterpartyBalancesTable,
} from '../render/counterparties.js';
import { counterpartiesCsv } from '../render/journalCsv.js';

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
      return ctx.out(counterpartiesTable(list));
    }
    const as_of = opts.asOf ?? localDate(ctx.now());
    const [receivable, payable, entity] = await Promise.all([
      ledger.reports.aging({ type: 'receivable', as_of }),
      ledger.reports.aging({ type: 'payable', as_of }),
      ledger.entity.get(),
    ]);
    const data = counterpartyBalances(list, receivable, payable);
    if (ctx.json) return ctx.outJson({ object: 'list', as_of, data });
    const exponent = exponentOf(entity.currency);
    if (ctx.format === 'csv') return ctx.write(counterpartyBalancesCsv(data, exponent));
    ctx.out(counterpartyBalancesTable(data, exponent));
  },
});
