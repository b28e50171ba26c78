import { command, str } from '../cli/command.js';
import { chartRefused, checkCounterparties, COUNTERPARTY_COLUMNS } from '../domain/chart.js';
import { readRecords } from './chartFiles.js';
import { CSV_FILE_ARG, DELIMITER_FLAG } from './io.js';

export default command({
  args: [CSV_FILE_ARG],
  flags: [DELIMITER_FLAG],
  help: `Columns: ${COUNTERPARTY_COLUMNS.join(',')}; types customer, vendor, employee.`,
  examples: ['books counterparties import fixtures/demo/counterparties.csv'],
  options: (raw) => ({ path: raw.args[0]!, delimiter: str(raw, 'delimiter') }),
  async run(ctx, opts) {
    const ledger = await ctx.ledger();
    const spec = {
      columns: COUNTERPARTY_COLUMNS,
      required: ['counterparty_type', 'external_id', 'name'],
      delimiter: opts.delimiter,
    };
    const result = await ledger.chart.importCounterparties(async () => {
      const { records, name } = await readRecords(ctx, opts.path, spec);
      const checked = checkCounterparties(records);
      if (checked.problems.length) throw chartRefused(name, checked.problems);
      return checked.rows;
    });
    if (ctx.json) ctx.outJson(result);
    else
      ctx.out(
        `counterparties: ${result.created} created, ${result.updated} updated, ${result.unchanged} unchanged`,
      );
  },
});
