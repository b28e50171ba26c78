import { command, str } from '../cli/command.js';
import { CHART_COLUMNS } from '../domain/chart.js';
import { readRecords } from './chartFiles.js';
import { CSV_FILE_ARG, DELIMITER_FLAG } from './io.js';

export default command({
  args: [CSV_FILE_ARG],
  flags: [DELIMITER_FLAG],
  help: `Columns: ${CHART_COLUMNS.join(',')}. currency is the account's own, when it is kept in another
than the entity's; monetary (true, false, or blank: by the account's type) says whether such an
account is revalued at period end (docs/currency.md). Parents may come after their children. The
chart the file leaves behind is checked whole (numbers unique, parents that exist, no cycles, every
account in its parent's section); any problem is listed by row and nothing changes.`,
  examples: ['books accounts import fixtures/demo/accounts.csv'],
  options: (raw) => ({ path: raw.args[0]!, delimiter: str(raw, 'delimiter') }),
  async run(ctx, opts) {
    const ledger = await ctx.ledger();
    const spec = {
      columns: CHART_COLUMNS,
      required: ['external_id', 'name', 'account_type'],
      delimiter: opts.delimiter,
    };
    const result = await ledger.chart.importAccounts(() => readRecords(ctx, opts.path, spec));
    if (ctx.json) ctx.outJson(result);
    else
      ctx.out(
        `accounts: ${result.created} created, ${result.updated} updated, ${result.unchanged} unchanged`,
      );
  },
});
