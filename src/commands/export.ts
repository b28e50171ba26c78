import { command, str } from '../cli/command.js';
import { dateFlag } from '../cli/flags.js';
import { errors } from '../domain/errors.js';
import { openOutput, writeTo } from '../cli/output.js';
import { exportEntry, exportHead, peerAccountNames, type Peer } from '../render/journalExport.js';
import { OUTPUT_FLAG } from './reportFlags.js';

interface Options {
  peer: Peer;
  from: string | undefined;
  to: string | undefined;
  output: string | undefined;
}

export default command<Options>({
  args: [{ name: 'peer', description: 'hledger or beancount' }],
  flags: [
    { flags: '--from <YYYY-MM-DD>', description: 'first entry date (default: the first entry)' },
    { flags: '--to <YYYY-MM-DD>', description: 'last entry date (default: the last entry)' },
    OUTPUT_FLAG,
  ],
  formats: ['table'],
  help: `Writes the journal in the peer's own language: every account declared with its type (names
unique: one whose name is taken gets its number), one transaction per entry with the JE number as
its code (beancount: je_number metadata), debits positive and credits negative with the currency's
decimals, counterparties, line memos and reasons as tags (beancount: metadata), adjusting entries
tagged "adjusting". hledger bs / is and bean-check read the same balances as books, and
hledger print -O csv | books je import - --preset hledger brings the same entries back into a
ledger with the same chart. Entries stream: any size of ledger exports in constant memory.`,
  examples: [
    'books export hledger --output books.journal',
    'books export beancount --from 2025-01-01 --to 2025-12-31 --output books.beancount',
  ],
  options: (raw) => {
    const peer = raw.args[0];
    if (peer !== 'hledger' && peer !== 'beancount')
      throw errors.usage(`books export: '${peer ?? ''}' is not hledger or beancount`);
    return {
      peer,
      from: dateFlag('--from', str(raw, 'from')),
      to: dateFlag('--to', str(raw, 'to')),
      output: str(raw, 'output'),
    };
  },
  async run(ctx, opts) {
    const ledger = await ctx.ledger();
    if (!ledger.capabilities.listsEntries)
      throw errors.notOffered(`export ${opts.peer}`, ledger.location);
    const [entity, accounts] = [await ledger.entity.get(), await ledger.chart.accounts()];
    const names = peerAccountNames(opts.peer, accounts);
    const states = await ledger.reconcile.lineStates({});
    const out = await openOutput(ctx, opts.output);
    await writeTo(out, async () => {
      out.push(exportHead(opts.peer, entity, accounts, names));
      for await (const e of ledger.journal.list({ from: opts.from, to: opts.to }))
        if (out.push(exportEntry(opts.peer, e, names, states))) await out.drain();
    });
  },
});
