import { command, str } from '../cli/command.js';
import { anchorOf } from '../domain/audit.js';
import { BooksError, errors } from '../domain/errors.js';

export default command<{ anchor: string | undefined }>({
  flags: [
    {
      flags: '--anchor <SEQ:HASH>',
      description: 'also prove that the chain passes through this event hash, kept elsewhere',
    },
  ],
  help: `Recomputes the audit trail's hash chain from the events and the entries as stored, and names
the first event that does not follow (exit 1): an event, an entry or a line edited, deleted or
reordered outside books. Someone who can write the database can also rewrite the whole chain:
--anchor compares it with a hash kept elsewhere (books audit head, printed in a month's close pack).`,
  examples: ['books audit verify', 'books audit verify --anchor SEQ:HASH'],
  options: (raw) => ({ anchor: str(raw, 'anchor') }),
  async run(ctx, opts) {
    const anchor = opts.anchor === undefined ? undefined : anchorOf(opts.anchor);
    if (anchor === null)
      throw errors.usage(
        `--anchor: '${opts.anchor}' is not SEQ:HASH (books audit head prints one)`,
      );
    const ledger = await ctx.ledger();
    const verified = await ledger.audit.verify(anchor);
    const { events, entries, head } = verified;
    if (verified.problems.length)
      throw new BooksError(
        'check_failed',
        `${ledger.location}: the audit trail does not verify`,
        verified.problems,
        { checked: { events, entries } },
      );
    if (ctx.json) return ctx.outJson({ ok: true, problems: [], events, entries, head });
    const through = anchor ? `, through ${anchor.seq}:${anchor.hash.slice(0, 12)}…` : '';
    ctx.out(
      `${ledger.location}: the audit trail verifies (${events} events, ${entries} entries${through}); ` +
        `head ${head.seq}:${head.hash}`,
    );
  },
});
