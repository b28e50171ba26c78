import { bool, command, str } from '../cli/command.js';
import { dateFlag, required } from '../cli/flags.js';

export default command({
  flags: [
    { flags: '--through <YYYY-MM-DD>', description: 'last closed day (required)' },
    { flags: '--reopen', description: 'allow moving the lock date earlier' },
  ],
  help: 'Later posts dated on or before the lock date are refused (CAPI33 period_closed).',
  examples: ['books close --through 2025-01-31'],
  options: (raw) => ({
    through: required('--through', dateFlag('--through', str(raw, 'through'))),
    reopen: bool(raw, 'reopen'),
  }),
  async run(ctx, opts) {
    const { previous, entity } = await (
      await ctx.ledger()
    ).entity.closeThrough(opts.through, opts.reopen);
    if (ctx.json) return ctx.outJson({ lock_date: entity.lock_date, previous_lock_date: previous });
    ctx.out(
      `The books are closed through ${entity.lock_date}${previous ? ` (were closed through ${previous})` : ''}.`,
    );
  },
});
