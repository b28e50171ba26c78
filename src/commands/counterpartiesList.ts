import { command } from '../cli/command.js';
import { counterpartiesCsv } from '../render/journalCsv.js';
import { grid } from '../render/table.js';

export default command({
  formats: ['table', 'csv', 'json'],
  help: 'CSV is the format of books counterparties import.',
  examples: ['books counterparties list', 'books counterparties list --format csv'],
  options: () => ({}),
  async run(ctx) {
    const list = await (await ctx.ledger()).chart.counterparties();
    if (ctx.json) return ctx.outJson({ object: 'list', data: list });
    if (ctx.format === 'csv') return ctx.write(counterpartiesCsv(list));
    const rows = list.map((c) => [
      c.counterparty_type,
      c.external_id,
      c.name,
      c.is_active ? 'yes' : 'no',
    ]);
    ctx.out(grid(['Type', 'External id', 'Name', 'Active'], rows));
  },
});
