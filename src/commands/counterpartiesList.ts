import { command } from '../cli/command.js';
import { grid } from '../render/table.js';

export default command({
  examples: ['books counterparties list'],
  options: () => ({}),
  async run(ctx) {
    const list = await (await ctx.ledger()).chart.counterparties();
    if (ctx.json) return ctx.outJson({ object: 'list', data: list });
    const rows = list.map((c) => [
      c.counterparty_type,
      c.external_id,
      c.name,
      c.is_active ? 'yes' : 'no',
    ]);
    ctx.out(grid(['Type', 'External id', 'Name', 'Active'], rows));
  },
});
