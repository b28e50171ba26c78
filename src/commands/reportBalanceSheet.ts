import { bool, command } from '../cli/command.js';
import { balanceSheetCsv, balanceSheetTable } from '../render/statements.js';
import { balanceSheetForeign, foreignAt, SHOW_FOREIGN_FLAG } from './foreign.js';
import { runStatement, STATEMENT_FLAGS, statementOptions } from './reportFlags.js';
import type { BalanceSheet } from '../domain/balanceSheet.js';

/** A balance sheet read with, when asked, its foreign accounts' balances in their currencies. */
type Read = { sheet: BalanceSheet; foreign: ReturnType<typeof balanceSheetForeign> | null };

export default command({
  flags: [...STATEMENT_FLAGS, SHOW_FOREIGN_FLAG],
  formats: ['table', 'csv', 'json'],
  help: `Columns are cumulative balances as of each period's end. CSV is tidy (one row per node, one column
per period id); JSON is exactly the API's balance-sheet object. Null cells (nothing posted yet) are
blank. The window may span at most 5 years (CAPI69). --show-foreign adds, for an account kept in
another currency, its balance in that currency at each period's end (JSON: foreign_currency and
foreign_balance_atoms by period id; CSV: foreign_currency and a foreign_<period> column each).`,
  examples: [
    'books report balance-sheet --start 2025-01-01 --end 2025-12-31 --period quarterly',
    'books report balance-sheet --end 2025-06-30 --format csv',
    'books report balance-sheet --end 2025-01-31 --show-foreign',
  ],
  options: (raw) => ({ ...statementOptions(raw), showForeign: bool(raw, 'showForeign') }),
  run: (ctx, opts) =>
    runStatement<BalanceSheet & { read?: Read }>(ctx, opts, {
      read: async (ledger, query) => {
        const sheet = await ledger.reports.balanceSheet(query);
        if (!opts.showForeign) return sheet;
        const at = await foreignAt(
          ledger,
          sheet.periods.map((p) => p.end_date),
        );
        const foreign = balanceSheetForeign(sheet, at);
        // JSON is the sheet with the foreign fields; the table and CSV read them through `read`,
        // which JSON does not write (it is not enumerable).
        return Object.defineProperty(foreign.json, 'read', { value: { sheet, foreign } });
      },
      table: (r, o) => balanceSheetTable(r.read?.foreign?.table ?? r, o),
      csv: (r, o) =>
        balanceSheetCsv(r.read?.sheet ?? r, {
          ...o,
          ...(r.read?.foreign ? { extra: r.read.foreign.extra(o.atoms ?? false) } : {}),
        }),
    }),
});
