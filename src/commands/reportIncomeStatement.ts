import { command } from '../cli/command.js';
import { incomeStatementCsv, incomeStatementTable } from '../render/statements.js';
import { COLUMNS_BY_FLAG, runStatement, STATEMENT_FLAGS, statementOptions } from './reportFlags.js';

export default command({
  flags: [...STATEMENT_FLAGS, COLUMNS_BY_FLAG],
  formats: ['table', 'csv', 'json'],
  help: `Columns are the activity within each period (not cumulative), with a Total column when there is
more than one. Sections: Income, Cost of Goods Sold, Expenses, Other Income, Other Expenses; computed
lines Gross Profit, Net Operating Income, Net Other Income and Net Income. Income is shown
credit-positive, costs and expenses debit-positive. JSON is exactly the API's income-statement
object. The window may span at most 5 years (CAPI69). --where keeps the lines whose tags (the entry's,
overridden by the line's own) meet every condition; --columns-by KEY makes one column per value of
KEY over the window, (none) for lines without it, and Total, the statement without the split.`,
  examples: [
    'books report income-statement --start 2025-01-01 --end 2025-12-31 --period quarterly',
    'books report pnl --start 2025-03-01 --end 2025-03-31 --format csv',
    'books report pnl --start 2025-01-01 --end 2025-03-31 --columns-by project --where location=nyc',
  ],
  options: statementOptions,
  run: (ctx, opts) =>
    runStatement(ctx, opts, {
      read: (ledger, query) => ledger.reports.incomeStatement(query),
      table: incomeStatementTable,
      csv: incomeStatementCsv,
    }),
});
