import { resolve } from 'node:path';
import type { Context } from '../cli/context.js';
import { BooksError } from '../domain/errors.js';
import { currencyExponent } from '../domain/money.js';
import { readChart, STANDARD_CHART } from './chart.js';
import { monthFlag } from './io.js';

interface InitOptions {
  currency: string;
  firstMonth?: string;
  name: string;
  fiscalYearStartMonth: string;
  chart?: string;
}

export async function init(ctx: Context, opts: InitOptions): Promise<void> {
  const target = ctx.target();
  if (target.kind === 'remote')
    throw new BooksError(
      'usage',
      `books init creates a local ledger; profile '${target.profile}' is remote`,
    );
  const currency = opts.currency.toUpperCase();
  if (currencyExponent(currency) === null)
    throw new BooksError('usage', `--currency '${opts.currency}' is not an ISO 4217 currency code`);
  const firstMonth = monthFlag('--first-month', opts.firstMonth);
  const fy = Number(opts.fiscalYearStartMonth);
  if (!Number.isInteger(fy) || fy < 1 || fy > 12)
    throw new BooksError(
      'usage',
      `--fiscal-year-start-month '${opts.fiscalYearStartMonth}' is not a month number 1-12`,
    );
  if (!opts.name.trim()) throw new BooksError('usage', '--name must not be empty');
  // Check the chart before the file exists, so a bad chart leaves nothing behind.
  const chartPath =
    opts.chart === undefined
      ? undefined
      : opts.chart === 'standard'
        ? STANDARD_CHART
        : resolve(ctx.cwd, opts.chart);
  const chart = chartPath ? await readChart(ctx, chartPath, []) : [];
  const ledger = await ctx.createLocal(target.path, {
    name: opts.name.trim(),
    currency,
    books_start: firstMonth ? `${firstMonth}-01` : null,
    fiscal_year_start_month: fy,
  });
  try {
    const loaded = chart.length ? ledger.upsertAccounts(chart) : { created: 0 };
    const entity = ledger.entitySync();
    if (ctx.json) ctx.outJson({ ledger: target.path, entity, accounts_created: loaded.created });
    else {
      ctx.out(
        `Created ${target.path} for ${entity.name} (${entity.currency})${loaded.created ? ` with ${loaded.created} accounts` : ''}.`,
      );
      if (!entity.books_start)
        ctx.out(
          'Nothing can post until the First Month of Books is applied: books books-start YYYY-MM',
        );
    }
  } finally {
    await ledger.close();
  }
}

export async function booksStart(ctx: Context, month: string): Promise<void> {
  monthFlag('First Month of Books', month);
  const ledger = await ctx.local('books-start');
  const entity = ledger.setBooksStart(month);
  if (ctx.json) ctx.outJson({ entity });
  else ctx.out(`The books start on ${entity.books_start}.`);
}
