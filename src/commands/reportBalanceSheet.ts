import { bool, command, str } from '../cli/command.js';
import type { Context } from '../cli/context.js';
import { dateFlag, wholeFlag } from '../cli/flags.js';
import { openOutput } from '../cli/output.js';
import { localDate } from '../domain/dates.js';
import { toJson } from '../domain/json.js';
import { exponentOf } from '../domain/money.js';
import { fiscalYearStart, PERIOD_TYPES, type PeriodType } from '../domain/periods.js';
import { balanceSheetCsv, balanceSheetTable } from '../render/balanceSheet.js';
import { windowFromFlags } from './reportFlags.js';

interface Options {
  start: string | undefined;
  end: string | undefined;
  period: PeriodType;
  depth: number | undefined;
  output: string | undefined;
  atoms: boolean;
}

export default command<Options>({
  flags: [
    {
      flags: '--start <YYYY-MM-DD>',
      description: 'first day of the window (default: the start of the fiscal year of --end)',
    },
    { flags: '--end <YYYY-MM-DD>', description: 'last day of the window (default today)' },
    {
      flags: '--period <type>',
      description: 'column grouping',
      choices: PERIOD_TYPES,
      default: 'monthly',
    },
    {
      flags: '--depth <n>',
      description: 'deepest level shown: 1 type groups, 2 top-level accounts, ...',
    },
    {
      flags: '--output <file>',
      description: 'write the report to a file instead of standard output',
    },
    { flags: '--atoms', description: 'CSV amounts as integer atoms instead of decimals' },
  ],
  formats: ['table', 'csv', 'json'],
  help: `Columns are cumulative balances as of each period's end. CSV is tidy (one row per node, one column
per period id); JSON is exactly the API's balance-sheet object. Null cells (nothing posted yet) are
blank. The window may span at most 5 years (CAPI69).`,
  examples: [
    'books report balance-sheet --start 2025-01-01 --end 2025-12-31 --period quarterly',
    'books report balance-sheet --end 2025-06-30 --format csv',
  ],
  options: (raw) => ({
    start: dateFlag('--start', str(raw, 'start')),
    end: dateFlag('--end', str(raw, 'end')),
    period: str(raw, 'period') as PeriodType,
    depth: wholeFlag('--depth', str(raw, 'depth'), 0),
    output: str(raw, 'output'),
    atoms: bool(raw, 'atoms'),
  }),
  run: balanceSheet,
});

async function balanceSheet(ctx: Context, opts: Options): Promise<void> {
  const ledger = await ctx.ledger();
  const entity = await ledger.entity.get();
  const end = opts.end ?? localDate(ctx.now());
  const start = opts.start ?? fiscalYearStart(end, entity.fiscal_year_start_month);
  const sheet = await ledger.reports.balanceSheet(windowFromFlags(start, end, opts.period));
  const exponent = exponentOf(sheet.reporting_currency);
  const out = await openOutput(ctx, opts.output);
  const depth = opts.depth === undefined ? {} : { depth: opts.depth };
  let text: string;
  if (ctx.format === 'json') text = toJson(sheet) + '\n';
  else if (ctx.format === 'csv')
    text = balanceSheetCsv(sheet, { exponent, atoms: opts.atoms, ...depth });
  else {
    const width = out.terminal ? ctx.io.stdout.columns : Number(ctx.env.COLUMNS) || undefined;
    const bold = ctx.color && out.terminal ? (await import('../render/colour.js')).bold : undefined;
    text = balanceSheetTable(sheet, {
      exponent,
      ...depth,
      ...(width ? { width } : {}),
      ...(bold ? { bold } : {}),
    });
  }
  await out.write(text);
  await out.finish();
}
