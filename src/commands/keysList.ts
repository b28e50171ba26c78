import { command } from '../cli/command.js';
import { grid } from '../render/table.js';

export default command({
  examples: ['books keys list'],
  options: () => ({}),
  async run(ctx) {
    const keys = await (await ctx.ledger()).keys.list();
    if (ctx.json) return ctx.outJson({ object: 'list', data: keys });
    if (!keys.length) return ctx.out('No API keys.');
    const rows = keys.map((k) => [
      k.id,
      k.name ?? '',
      k.permissions.join(' '),
      k.created_at,
      k.revoked_at ?? '',
    ]);
    ctx.out(grid(['Id', 'Name', 'Permissions', 'Created', 'Revoked'], rows));
  },
});
