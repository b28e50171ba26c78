import { command, str } from '../cli/command.js';
import { dateFlag } from '../cli/flags.js';
import { currencyExponent, formatAmount } from '../domain/money.js';
import { toJson } from '../domain/json.js';
import { cell } from '../render/text.js';

export default command({
  flags: [
    { flags: '--from <YYYY-MM-DD>', description: 'first entry date' },
    { flags: '--to <YYYY-MM-DD>', description: 'last entry date' },
  ],
  help: 'Entries are read and written one at a time: any size of ledger lists in constant memory.',
  examples: ['books je list --from 2025-01-01 --to 2025-01-31'],
  options: (raw) => ({
    from: dateFlag('--from', str(raw, 'from')),
    to: dateFlag('--to', str(raw, 'to')),
  }),
  async run(ctx, filter) {
    const ledger = await ctx.ledger();
    const entries = ledger.journal.list(filter);
    if (ctx.json) {
      // One JSON document, written as the entries come.
      let first = true;
      await ctx.write('{\n  "object": "list",\n  "data": [');
      for await (const e of entries) {
        await ctx.write(`${first ? '' : ','}\n    ${toJson(e, 2).replace(/\n/g, '\n    ')}`);
        first = false;
      }
      return ctx.write(`${first ? '' : '\n  '}]\n}\n`);
    }
    const exponent = currencyExponent((await ledger.entity.get()).currency) ?? 2;
    let any = false;
    for await (const e of entries) {
      if (!any)
        await ctx.write(
          `${'Date'.padEnd(10)}  ${'Number'.padEnd(12)}  ${'Amount'.padStart(16)}  ${'Status'.padEnd(8)}  Memo\n`,
        );
      any = true;
      const amount = formatAmount(e.total_debit_atoms, exponent).padStart(16);
      const number = cell(e.je_number).padEnd(12);
      const row = `${e.entry_date}  ${number}  ${amount}  ${e.status.padEnd(8)}  ${cell(e.memo ?? '')}`;
      await ctx.write(row.trimEnd() + '\n');
    }
    if (!any) ctx.out('No journal entries.');
  },
});
