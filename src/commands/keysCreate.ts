import { command, list, str } from '../cli/command.js';
import { errors } from '../domain/errors.js';
import { isPermission, PERMISSIONS } from '../domain/keys.js';

export default command({
  flags: [
    {
      flags: '--permission <p>',
      description: `${PERMISSIONS.join(' or ')} (repeatable, at least one)`,
      repeat: true,
    },
    { flags: '--name <name>', description: 'a label for the key' },
  ],
  help: 'The key is printed once, alone on standard output; only its SHA-256 is stored.',
  examples: ['books keys create --permission customer_api:read --name reports'],
  options(raw) {
    const given = list(raw, 'permission');
    const bad = given.filter((p) => !isPermission(p));
    if (bad.length || given.length === 0) {
      const which = bad.length ? `, not ${bad.map((b) => `'${b}'`).join(', ')}` : ' (at least one)';
      throw errors.usage(`--permission takes ${PERMISSIONS.join(' or ')}${which}`);
    }
    return { permissions: given.filter(isPermission), name: str(raw, 'name') ?? null };
  },
  async run(ctx, opts) {
    const created = await (await ctx.ledger()).keys.create(opts.name, opts.permissions);
    if (ctx.json)
      return ctx.outJson({ id: created.id, key: created.key, permissions: created.permissions });
    // The key alone on standard output, so that scripts can capture it; it is never shown again.
    ctx.out(created.key);
    ctx.err(
      `API key ${created.id} created with ${created.permissions.join(', ')}; store it now, it cannot be shown again.`,
    );
  },
});
