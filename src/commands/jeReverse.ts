import { randomUUID } from 'node:crypto';
import { bool, command, str } from '../cli/command.js';
import { dateFlag, keyFlag } from '../cli/flags.js';
import { entryInvalid, errors, isBooksError } from '../domain/errors.js';
import { currencyExponent } from '../domain/money.js';
import { alreadyPosted, printPosted, waitingWrite } from './posting.js';

export default command({
  args: [{ name: 'id', description: 'entry id or JE number' }],
  flags: [
    {
      flags: '--date <YYYY-MM-DD>',
      description: "date of the reversing entry (default the original's date)",
    },
    {
      flags: '--idempotency-key <key>',
      description: 'reverses at most once per key within an hour (default: a new random key)',
    },
    { flags: '--dry-run', description: 'validate and show the reversing entry; post nothing' },
  ],
  help: 'A reversal is dated on or after the entry it reverses; an entry can be reversed once.',
  examples: ['books je reverse JE-1 --date 2025-02-01 --dry-run'],
  options(raw) {
    const id = raw.args[0]!;
    if (!id.trim()) throw errors.usage('name the entry to reverse by id or JE number');
    return {
      id,
      date: dateFlag('--date', str(raw, 'date')),
      idempotencyKey: keyFlag(str(raw, 'idempotencyKey')),
      dryRun: bool(raw, 'dryRun'),
    };
  },
  async run(ctx, opts) {
    const ledger = await ctx.ledger();
    const options = {
      idempotencyKey: opts.idempotencyKey ?? randomUUID(),
      dryRun: opts.dryRun,
      ...(opts.date ? { entryDate: opts.date } : {}),
    };
    try {
      const entry = await waitingWrite(ctx, ledger, () => ledger.journal.reverse(opts.id, options));
      await printPosted(ctx, ledger, entry, currencyExponent(entry.currency) ?? 2, opts.dryRun);
    } catch (e) {
      if (alreadyPosted(ctx, e)) return;
      throw opts.date ? e : closedDefault(e);
    }
  },
});

/** The original's date, taken by default, is in a closed period: say how to date the reversal. */
function closedDefault(e: unknown): unknown {
  if (!isBooksError(e) || !e.errors.some((p) => p.reason === 'period_closed')) return e;
  return entryInvalid(
    e.errors.map((p) =>
      p.reason === 'period_closed'
        ? { ...p, message: `${p.message}; give the reversal a later date with --date` }
        : p,
    ),
  );
}
