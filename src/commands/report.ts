import { renameSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Context } from '../cli/context.js';
import { toJson } from '../cli/context.js';
import { localDate } from '../domain/dates.js';
import { BooksError } from '../domain/errors.js';
import { exponentOf } from '../domain/money.js';
import { checkReportQuery } from '../domain/periods.js';
import { balanceSheetCsv, balanceSheetTable } from '../render/balanceSheet.js';
import { dateFlag } from './io.js';

export interface BalanceSheetOptions {
  start?: string;
  end?: string;
  period: string;
  depth?: string;
  output?: string;
  atoms?: boolean;
}

export async function balanceSheet(ctx: Context, opts: BalanceSheetOptions): Promise<void> {
  const end = dateFlag('--end', opts.end) ?? localDate(ctx.now());
  const start = dateFlag('--start', opts.start) ?? `${end.slice(0, 4)}-01-01`;
  const depth = opts.depth === undefined ? undefined : Number(opts.depth);
  if (depth !== undefined && (!Number.isInteger(depth) || depth < 0))
    throw new BooksError('usage', `--depth '${opts.depth}' is not a whole number from 0`);
  const checked = checkReportQuery({ start_date: start, end_date: end, period_type: opts.period });
  if ('problems' in checked) {
    const flag = (p: string) =>
      p === 'start_date' ? '--start' : p === 'end_date' ? '--end' : '--period';
    throw new BooksError(
      'usage',
      checked.problems.map((p) => `${flag(p.path)}: ${p.message}`).join('; '),
      checked.problems,
    );
  }
  const ledger = await ctx.ledger();
  const sheet = await ledger.balanceSheet(checked.query);
  const exponent = exponentOf(sheet.reporting_currency);

  let text: string;
  if (ctx.format === 'json') text = toJson(sheet) + '\n';
  else if (ctx.format === 'csv')
    text = balanceSheetCsv(sheet, {
      exponent,
      atoms: opts.atoms ?? false,
      ...(depth !== undefined ? { depth } : {}),
    });
  else {
    const toTerminal = opts.output === undefined && ctx.io.stdout.isTTY;
    const columns = toTerminal ? ctx.io.stdout.columns : Number(ctx.env.COLUMNS) || undefined;
    const bold =
      ctx.color && opts.output === undefined ? (await import('chalk')).default.bold : undefined;
    text = balanceSheetTable(sheet, {
      exponent,
      ...(depth !== undefined ? { depth } : {}),
      ...(opts.output === undefined && columns ? { width: columns } : {}),
      ...(bold ? { bold } : {}),
    });
  }
  if (opts.output === undefined) return void ctx.io.stdout.write(text);
  const path = resolve(ctx.cwd, opts.output);
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, path);
  } catch (e) {
    throw new BooksError('usage', `--output ${opts.output}: cannot write: ${(e as Error).message}`);
  }
  ctx.err(`wrote ${opts.output}`);
}
