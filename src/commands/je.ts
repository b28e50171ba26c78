import { randomUUID } from 'node:crypto';
import type { Context } from '../cli/context.js';
import { errors } from '../domain/errors.js';
import { currencyExponent, formatAmount } from '../domain/money.js';
import { entryText } from '../render/entry.js';
import { grid } from '../render/table.js';
import { dateFlag } from './io.js';
import { alreadyPosted, printPosted } from './jePost.js';

export async function jeList(ctx: Context, opts: { from?: string; to?: string }): Promise<void> {
  const filter = { from: dateFlag('--from', opts.from), to: dateFlag('--to', opts.to) };
  const ledger = await ctx.local('je list');
  const entries = await ledger.listEntries(filter);
  if (ctx.json) return ctx.outJson({ object: 'list', data: entries });
  const exponent = currencyExponent((await ledger.entity()).currency) ?? 2;
  if (entries.length === 0) return ctx.out('No journal entries.');
  ctx.out(
    grid(
      ['Date', 'Number', 'Amount', 'Status', 'Memo'],
      entries.map((e) => [
        e.entry_date,
        e.je_number,
        formatAmount(e.total_debit_atoms, exponent),
        e.status,
        e.memo ?? '',
      ]),
      ['left', 'left', 'right'],
    ),
  );
}

export async function jeShow(ctx: Context, id: string): Promise<void> {
  const ledger = await ctx.local('je show');
  const entry = await ledger.getEntry(id);
  if (ctx.json) return ctx.outJson(entry);
  ctx.out(entryText(entry, currencyExponent(entry.currency) ?? 2));
}

export async function jeReverse(
  ctx: Context,
  id: string,
  opts: { date?: string; idempotencyKey?: string; dryRun?: boolean },
): Promise<void> {
  const date = dateFlag('--date', opts.date);
  if (!id.trim()) throw errors.usage('name the entry to reverse by id or JE number');
  const ledger = await ctx.ledger();
  try {
    const entry = await ledger.reverse(id, {
      idempotencyKey: opts.idempotencyKey ?? randomUUID(),
      ...(date ? { entryDate: date } : {}),
      dryRun: opts.dryRun ?? false,
    });
    printPosted(ctx, entry, currencyExponent(entry.currency) ?? 2, opts.dryRun ?? false);
  } catch (e) {
    if (!alreadyPosted(ctx, e)) throw e;
  }
}
