import type { Context } from '../cli/context.js';
import { BooksError } from '../domain/errors.js';
import { isPermission, PERMISSIONS } from '../domain/keys.js';
import { grid } from '../render/table.js';

export async function keysCreate(
  ctx: Context,
  opts: { permission: string[]; name?: string },
): Promise<void> {
  const bad = opts.permission.filter((p) => !isPermission(p));
  if (bad.length || opts.permission.length === 0) {
    throw new BooksError(
      'usage',
      `--permission takes ${PERMISSIONS.join(' or ')}${bad.length ? `, not ${bad.map((b) => `'${b}'`).join(', ')}` : ' (at least one)'}`,
    );
  }
  const ledger = await ctx.local('keys create');
  const created = ledger.createKey(opts.name ?? null, opts.permission.filter(isPermission));
  if (ctx.json)
    return ctx.outJson({ id: created.id, key: created.key, permissions: created.permissions });
  // The key alone on standard output, so that scripts can capture it; it is never shown again.
  ctx.out(created.key);
  ctx.err(
    `API key ${created.id} created with ${created.permissions.join(', ')}; store it now, it cannot be shown again.`,
  );
}

export async function keysList(ctx: Context): Promise<void> {
  const keys = (await ctx.local('keys list')).listKeys();
  if (ctx.json) return ctx.outJson({ object: 'list', data: keys });
  if (!keys.length) return ctx.out('No API keys.');
  ctx.out(
    grid(
      ['Id', 'Name', 'Permissions', 'Created', 'Revoked'],
      keys.map((k) => [
        k.id,
        k.name ?? '',
        k.permissions.join(' '),
        k.created_at,
        k.revoked_at ?? '',
      ]),
    ),
  );
}

export async function keysRevoke(ctx: Context, id: string): Promise<void> {
  const key = (await ctx.local('keys revoke')).revokeKey(id);
  if (ctx.json) return ctx.outJson(key);
  ctx.out(`API key ${key.id} revoked at ${key.revoked_at}.`);
}
