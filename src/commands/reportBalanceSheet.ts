import { command } from '../cli/command.js';
import { balanceSheetCsv, balanceSheetTable } from '../render/statements.js';
import { runStatement, STATEMENT_FLAGS, statementOptions } from './reportFlags.js';

export default command({
  flags: STATEMENT_FLAGS,
  formats: ['table', 'csv', 'json'],
  help: `Columns are cumulative balances as of each period's end. CSV is tidy (one row per node, one column
per period id); JSON is exactly the API's balance-sheet object. Null cells (nothing posted yet) are
blank. The window may span at most 5 years (CAPI69).`,
  examples: [
    'books report balance-sheet --start 2025-01-01 --end 2025-12-31 --period quarterly',
    'books report balance-sheet --end 2025-06-30 --format csv',
  ],
  options: statementOptions,
  run: (ctx, opts) =>
    runStatement(ctx, opts, {
      read: (ledger, query) => ledger.reports.balanceSheet(query),
      table: balanceSheetTable,
      csv: balanceSheetCsv,
    }),
});
