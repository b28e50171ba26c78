import { resolve } from 'node:path';
import { command, str } from '../cli/command.js';
import { monthFlag, wholeFlag } from '../cli/flags.js';
import { CHART_COLUMNS, chartRefused, checkChart } from '../domain/chart.js';
import { errors } from '../domain/errors.js';
import { currencyExponent } from '../domain/money.js';
import { redacted } from '../ledger/runtime/redact.js';
import { readRecords, STANDARD_CHART } from './chartFiles.js';

export default command({
  flags: [
    { flags: '--currency <code>', description: 'functional currency (ISO 4217)', default: 'USD' },
    {
      flags: '--first-month <YYYY-MM>',
      description: 'apply the First Month of Books; nothing can post before it is applied',
    },
    { flags: '--name <name>', description: 'name of the entity', default: 'My Company' },
    {
      flags: '--fiscal-year-start-month <n>',
      description: 'month the fiscal year starts (1-12)',
      default: '1',
    },
    {
      flags: '--chart <standard|PATH.csv>',
      description: 'load a chart of accounts: the built-in standard chart or a CSV file',
    },
  ],
  examples: [
    'books init --name "Harbor Bakery" --currency USD --first-month 2025-01 --chart standard',
  ],
  options(raw) {
    const currency = str(raw, 'currency')!.toUpperCase();
    if (currencyExponent(currency) === null)
      throw errors.usage(`--currency: '${str(raw, 'currency')}' is not an ISO 4217 currency code`);
    const name = str(raw, 'name')!.trim();
    if (!name) throw errors.usage('--name must not be empty');
    return {
      currency,
      name,
      firstMonth: monthFlag('--first-month', str(raw, 'firstMonth')),
      fiscalYearStartMonth: wholeFlag(
        '--fiscal-year-start-month',
        str(raw, 'fiscalYearStartMonth'),
        1,
        12,
      )!,
      chart: str(raw, 'chart'),
    };
  },
  async run(ctx, opts) {
    const target = ctx.target();
    if (target.kind === 'remote')
      throw errors.usage(
        `books init creates a local ledger; profile '${target.profile}' is remote`,
      );
    // Check the chart before the file exists, so a bad chart leaves nothing behind.
    const chartPath =
      opts.chart === undefined
        ? undefined
        : opts.chart === 'standard'
          ? STANDARD_CHART
          : resolve(ctx.cwd, opts.chart);
    const chart = chartPath
      ? await readRecords(ctx, chartPath, {
          columns: CHART_COLUMNS,
          required: ['external_id', 'name', 'account_type'],
        })
      : null;
    if (chart) {
      const { problems } = checkChart(chart.records, []);
      if (problems.length) throw chartRefused(chart.name, problems);
    }
    const where =
      target.kind === 'database'
        ? `entity '${target.entity}' in ${redacted(target.url)}`
        : target.path;
    const ledger = await ctx.createLedger(target, {
      name: opts.name,
      currency: opts.currency,
      books_start: opts.firstMonth ? `${opts.firstMonth}-01` : null,
      fiscal_year_start_month: opts.fiscalYearStartMonth,
    });
    const loaded = chart ? await ledger.chart.importAccounts(async () => chart) : { created: 0 };
    const entity = await ledger.entity.get();
    if (ctx.json) return ctx.outJson({ ledger: where, entity, accounts_created: loaded.created });
    ctx.out(
      `Created ${where} for ${entity.name} (${entity.currency})` +
        `${loaded.created ? ` with ${loaded.created} accounts` : ''}.`,
    );
    if (!entity.books_start)
      ctx.out(
        'Nothing can post until the First Month of Books is applied: books books-start YYYY-MM',
      );
  },
});
