import { command } from '../cli/command.js';
import { cashFlowCsv, cashFlowTable } from '../render/statements.js';
import { runStatement, STATEMENT_FLAGS, statementOptions, WHERE_FLAG } from './reportFlags.js';

export default command({
  // Every line: the lines of some tags need not balance, and cash at end would not be the sheet's.
  // A budget holds income and expenses, not the changes a cash flow is made of.
  flags: STATEMENT_FLAGS.filter((f) => f !== WHERE_FLAG).map((f) =>
    f.flags.startsWith('--compare')
      ? {
          ...f,
          description:
            'follow each period with previous-period or previous-year, its change and % (repeatable)',
          choices: ['previous-period', 'previous-year'],
        }
      : f,
  ),
  formats: ['table', 'csv', 'json'],
  help: `The indirect method: Net Income (the income statement's), then each balance-sheet account's change
within the period with its effect on cash (an asset growing uses cash, a liability growing brings it),
in Operating, Investing and Financing activities by account type, or as the chart's cash_flow column
says; then Net change in cash, Cash at beginning and Cash at end of period, which is the balance
sheet's total of the cash accounts (every bank account, and those the chart marks cash). --compare
takes previous-period or previous-year. JSON is exactly the API's cash-flow-statement object. The
window may span at most 5 years (CAPI69).`,
  examples: [
    'books report cash-flow --start 2025-01-01 --end 2025-12-31 --period quarterly',
    'books report cf --start 2025-03-01 --end 2025-03-31 --compare previous-year --format csv',
  ],
  options: statementOptions,
  run: (ctx, opts) =>
    runStatement(ctx, opts, {
      read: (ledger, query) => ledger.reports.cashFlow(query),
      table: cashFlowTable,
      csv: cashFlowCsv,
    }),
});
