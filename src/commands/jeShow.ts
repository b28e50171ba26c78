import { command } from '../cli/command.js';
import { currencyExponent } from '../domain/money.js';
import { entryText } from '../render/entry.js';

export default command({
  args: [{ name: 'id', description: 'entry id or JE number' }],
  examples: ['books je show JE-1'],
  options: (raw) => ({ id: raw.args[0]! }),
  async run(ctx, { id }) {
    const entry = await (await ctx.ledger()).journal.get(id);
    if (ctx.json) return ctx.outJson(entry);
    ctx.out(entryText(entry, currencyExponent(entry.currency) ?? 2));
  },
});
