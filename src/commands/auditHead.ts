import { command } from '../cli/command.js';

export default command({
  help: `Prints the latest event's seq and hash as SEQ:HASH. Kept elsewhere (a month's close pack,
another system), it is what books audit verify --anchor proves the trail still passes through.`,
  examples: ['books audit head'],
  options: () => ({}),
  async run(ctx) {
    const head = await (await ctx.ledger()).audit.head();
    if (ctx.json) return ctx.outJson(head);
    ctx.out(`${head.seq}:${head.hash}`);
  },
});
