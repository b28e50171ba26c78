import { command } from '../cli/command.js';
import { currencyExponent } from '../domain/money.js';
import { entryText } from '../render/entry.js';
import { linkedNumbers } from './posting.js';

export default command({
  args: [{ name: 'id', description: 'entry id or JE number' }],
  examples: ['books je show JE-1'],
  options: (raw) => ({ id: raw.args[0]! }),
  async run(ctx, { id }) {
    const ledger = await ctx.ledger();
    const entry = await ledger.journal.get(id);
    if (ctx.json) return ctx.outJson(entry);
    const numbers = await linkedNumbers(ledger, entry);
    const asked = ledger.reconcile.lineStates({ line_ids: entry.lines.map((l) => l.id) });
    // A service without reconciliation marks nothing; a local ledger's failure is said.
    const states = ledger.capabilities.listsEntries ? await asked : await asked.catch(() => ({}));
    ctx.out(entryText(entry, currencyExponent(entry.currency) ?? 2, '', numbers, states));
    // Who posted it, when and how: the audit event that wrote it.
    const event = await ledger.audit.writerOf(entry.id).catch(() => null);
    if (event?.action === 'trail.started')
      ctx.out(`Posted before the audit trail started (audit event ${event.seq} records it)`);
    else if (event)
      ctx.out(
        `Posted by ${event.actor} via ${event.via} at ${event.at} (audit event ${event.seq}, ${event.action})`,
      );
  },
});
