import { command } from '../cli/command.js';

export default command({
  help: 'Posts are refused with CAPI73 (and wait, on a remote profile) while the rebuild runs.',
  examples: ['books rebuild'],
  options: () => ({}),
  async run(ctx) {
    const ledger = await ctx.ledger();
    const started = Date.now();
    const r = await ledger.maintenance.rebuild();
    const seconds = (Date.now() - started) / 1000;
    if (ctx.json) return ctx.outJson({ ...r, seconds });
    ctx.out(
      `Rebuilt ${r.totals} account-month totals from ${r.lines} lines in ${seconds.toFixed(1)} s.`,
    );
  },
});
