import { command } from '../cli/command.js';
import { monthFlag, required } from '../cli/flags.js';

export default command({
  args: [{ name: 'YYYY-MM', description: 'first month of books' }],
  examples: ['books books-start 2025-01'],
  options: (raw) => ({
    month: required('YYYY-MM', monthFlag('the First Month of Books', raw.args[0])),
  }),
  async run(ctx, { month }) {
    const entity = await (await ctx.ledger()).entity.setBooksStart(month);
    if (ctx.json) ctx.outJson({ entity });
    else ctx.out(`The books start on ${entity.books_start}.`);
  },
});
