import { command } from '../cli/command.js';

export default command({
  args: [{ name: 'id', description: 'key id (books keys list)' }],
  examples: ['books keys revoke KEY_ID'],
  options: (raw) => ({ id: raw.args[0]! }),
  async run(ctx, { id }) {
    const key = await (await ctx.ledger()).keys.revoke(id);
    if (ctx.json) return ctx.outJson(key);
    ctx.out(`API key ${key.id} revoked at ${key.revoked_at}.`);
  },
});
