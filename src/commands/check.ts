import type { Context } from '../cli/context.js';
import { BooksError } from '../domain/errors.js';
import { dateFlag } from './io.js';

export async function check(ctx: Context): Promise<void> {
  const ledger = await ctx.local('check');
  const problems = ledger.checkInvariants();
  if (problems.length) {
    throw new BooksError(
      'check_failed',
      `${ledger.location}: ${problems.length} problem${problems.length === 1 ? '' : 's'} found`,
      problems,
    );
  }
  if (ctx.json) ctx.outJson({ ok: true, problems: [] });
  else ctx.out(`${ledger.location}: ok`);
}

export async function close(
  ctx: Context,
  opts: { through: string; reopen?: boolean },
): Promise<void> {
  const through = dateFlag('--through', opts.through)!;
  const ledger = await ctx.local('close');
  const { previous, entity } = ledger.closeThrough(through, opts.reopen ?? false);
  if (ctx.json) return ctx.outJson({ lock_date: entity.lock_date, previous_lock_date: previous });
  ctx.out(
    `The books are closed through ${entity.lock_date}${previous ? ` (were closed through ${previous})` : ''}.`,
  );
}

export async function rebuild(ctx: Context): Promise<void> {
  const ledger = await ctx.local('rebuild');
  const started = Date.now();
  const r = ledger.rebuild();
  if (ctx.json) return ctx.outJson({ ...r, seconds: (Date.now() - started) / 1000 });
  ctx.out(
    `Rebuilt ${r.totals} account-month totals from ${r.lines} lines in ${((Date.now() - started) / 1000).toFixed(1)} s.`,
  );
}
