import { command } from '../cli/command.js';
import { BooksError } from '../domain/errors.js';

export default command({
  help: `Checks: the file's integrity, every entry balanced with its recorded totals and line count,
the derived monthly totals and the general ledger's index equal to the lines, reversal links, the
chart's tree (no cycles, every account in its parent's section), that no rebuild was left
unfinished, and every foreign line's snapshot. A balance a revaluation valued that an entry or a rate
moved since is named in a note (exit 0): books fx revalue posts it.`,
  examples: ['books check'],
  options: () => ({}),
  async run(ctx) {
    const ledger = await ctx.ledger();
    const { problems, checked, notes = [] } = await ledger.maintenance.check();
    if (problems.length) {
      const n = problems.length;
      throw new BooksError(
        'check_failed',
        `${ledger.location}: ${n} problem${n === 1 ? '' : 's'} found`,
        problems,
        { checked },
      );
    }
    if (ctx.json)
      return ctx.outJson({ ok: true, problems: [], checked, ...(notes.length ? { notes } : {}) });
    for (const n of notes) ctx.out(`note: ${n}`);
    const what =
      `${checked.entries} entries, ${checked.lines} lines, ${checked.accounts} accounts, ` +
      `${checked.totals} monthly totals`;
    ctx.out(`${ledger.location}: ok (${what} checked)`);
  },
});
