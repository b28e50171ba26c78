import { command } from '../cli/command.js';
import { csvLine } from '../render/csv.js';
import { grid } from '../render/table.js';

export default command({
  flags: [],
  formats: ['table', 'csv', 'json'],
  help: `Every tag key the journal's lines carry (a line's tags are its entry's, overridden by its own), each
value and how many lines carry it. CSV is one row per key and value: key,value,lines. Read from the
totals by tag kept as entries post, not from the journal.`,
  examples: ['books tags list', 'books tags list --format csv'],
  options: () => ({}),
  async run(ctx) {
    const ledger = await ctx.ledger();
    const data = await ledger.reports.tags();
    if (ctx.json) return ctx.outJson({ object: 'list', data });
    const rows = data.flatMap((t) => t.values.map((v) => [t.key, v.value, String(v.lines)]));
    if (ctx.format === 'csv')
      return ctx.write(
        [csvLine(['key', 'value', 'lines']), ...rows.map(csvLine)].join('\n') + '\n',
      );
    if (!rows.length) return ctx.out('No tags.');
    ctx.out(grid(['Key', 'Value', 'Lines'], rows, ['left', 'left', 'right']));
  },
});
