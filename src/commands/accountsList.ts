import { command } from '../cli/command.js';
import { ACCOUNT_TYPES, type GlAccount } from '../domain/accounts.js';
import { accountsCsv } from '../render/journalCsv.js';
import { grid } from '../render/table.js';

export default command({
  formats: ['table', 'csv', 'json'],
  help: 'CSV is the format of books accounts import: a chart listed this way imports into another ledger.',
  examples: ['books accounts list', 'books accounts list --format csv'],
  options: () => ({}),
  async run(ctx) {
    const accounts = await (await ctx.ledger()).chart.accounts();
    if (ctx.json) return ctx.outJson({ object: 'list', data: accounts });
    if (ctx.format === 'csv') return ctx.write(accountsCsv(accounts));
    const byId = new Map(accounts.map((a) => [a.id, a]));
    const depth = (a: GlAccount): number =>
      a.parent_id && byId.has(a.parent_id) ? 1 + depth(byId.get(a.parent_id)!) : 0;
    const order = Object.keys(ACCOUNT_TYPES);
    const sorted = [...accounts].sort(
      (a, b) =>
        order.indexOf(a.account_type) - order.indexOf(b.account_type) ||
        pathKey(a, byId).localeCompare(pathKey(b, byId)),
    );
    const flags = (a: GlAccount) =>
      [a.is_postable ? '' : 'header', a.is_active ? '' : 'inactive', a.currency ?? '']
        .filter(Boolean)
        .join(' ');
    const rows = sorted.map((a) => [
      a.account_number ?? '',
      '  '.repeat(depth(a)) + a.name,
      a.external_id,
      a.account_type,
      flags(a),
    ]);
    ctx.out(grid(['Number', 'Name', 'External id', 'Type', 'Flags'], rows));
  },
});

function pathKey(a: GlAccount, byId: Map<string, GlAccount>): string {
  const self = `${a.account_number ?? ''}\u0000${a.name}`;
  return a.parent_id && byId.has(a.parent_id)
    ? `${pathKey(byId.get(a.parent_id)!, byId)}\u0001${self}`
    : self;
}
