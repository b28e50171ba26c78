import { bool, list, str, type FlagSpec, type Raw } from '../cli/command.js';
import { COMPARE_KINDS, type CompareKind } from '../domain/compare.js';
import type { Context } from '../cli/context.js';
import { dateFlag, wholeFlag } from '../cli/flags.js';
import { openOutput, writeTo } from '../cli/output.js';
import type { Entity } from '../domain/accounts.js';
import { localDate } from '../domain/dates.js';
import { BooksError, errors, isBooksError } from '../domain/errors.js';
import { toJson } from '../domain/json.js';
import { exponentOf } from '../domain/money.js';
import {
  checkReportQuery,
  fiscalYearStart,
  PERIOD_TYPES,
  type PeriodType,
  type ReportQuery,
} from '../domain/periods.js';
import type { Ledger } from '../ledger/port.js';
import { readCondition, type TagCondition } from '../domain/tags.js';
import type { CsvOptions, StatementOptions } from '../render/statements.js';

const FLAG: Record<string, string> = {
  start_date: '--start',
  end_date: '--end',
  period_type: '--period',
  as_of: '--as-of',
  counterparty: '--counterparty',
  compare: '--compare',
  where: '--where',
  columns_by: '--columns-by',
};

/** Problems of a query, named by the flags that gave them, as a usage error (exit 2). */
export function refuseFlags(problems: { path: string; reason: string; message: string }[]): never {
  const named = problems.map((p) => ({ ...p, path: FLAG[p.path] ?? p.path }));
  throw errors.usage(named.map((p) => `${p.path}: ${p.message}`).join('; '), named);
}

/** A report window from flags, checked as the API checks its parameters; a problem names the flag (exit 2). */
export function windowFromFlags(
  start: string,
  end: string,
  period: PeriodType,
  compare: CompareKind[] = [],
  tags: { where?: TagCondition[]; columnsBy?: string | undefined } = {},
): ReportQuery {
  const checked = checkReportQuery({
    start_date: start,
    end_date: end,
    period_type: period,
    compare,
    where: tags.where,
    columns_by: tags.columnsBy,
  });
  if ('problems' in checked) refuseFlags(checked.problems);
  return checked.query;
}

export const OUTPUT_FLAG: FlagSpec = {
  flags: '--output <file>',
  description: 'write the report to a file instead of standard output',
};
export const WHERE_FLAG: FlagSpec = {
  flags: '--where <KEY=VALUE>',
  description:
    'only lines tagged KEY=VALUE; KEY= those without KEY, KEY!=VALUE all others (repeatable: all must hold)',
  repeat: true,
};
export const COLUMNS_BY_FLAG: FlagSpec = {
  flags: '--columns-by <key>',
  description: 'a column per value of a tag key over the window, (none) for untagged lines, Total',
};

/** --where's conditions as typed; one that cannot be read is a usage error naming the flag (exit 2). */
export function whereFlag(raw: Raw): TagCondition[] {
  const out: TagCondition[] = [];
  for (const text of list(raw, 'where')) {
    const read = readCondition(text, '=');
    if (typeof read === 'string')
      throw errors.usage(`--where: ${read}`, [
        { path: '--where', reason: 'invalid_tag', message: read },
      ]);
    out.push(read);
  }
  return out;
}

export const ATOMS_FLAG: FlagSpec = {
  flags: '--atoms',
  description: 'CSV amounts as integer atoms instead of decimals',
};

/** The flags of a statement with columns of periods (balance sheet, income statement). */
export const STATEMENT_FLAGS: readonly FlagSpec[] = [
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
    description: 'deepest level shown: 1 the first level under a section, ...',
  },
  {
    flags: '--compare <with>',
    description:
      'follow each period with previous-period, previous-year or budget, its change and % (repeatable)',
    choices: COMPARE_KINDS,
    repeat: true,
  },
  WHERE_FLAG,
  OUTPUT_FLAG,
  ATOMS_FLAG,
];

export interface StatementFlags {
  start: string | undefined;
  end: string | undefined;
  period: PeriodType;
  depth: number | undefined;
  output: string | undefined;
  atoms: boolean;
  compare: CompareKind[];
  where: TagCondition[];
  columnsBy: string | undefined;
}

export function statementOptions(raw: Raw): StatementFlags {
  return {
    start: dateFlag('--start', str(raw, 'start')),
    end: dateFlag('--end', str(raw, 'end')),
    period: str(raw, 'period') as PeriodType,
    depth: wholeFlag('--depth', str(raw, 'depth'), 0),
    output: str(raw, 'output'),
    atoms: bool(raw, 'atoms'),
    compare: list(raw, 'compare') as CompareKind[],
    where: whereFlag(raw),
    columnsBy: str(raw, 'columnsBy'),
  };
}

/** How a statement is read and written: from the ledger, as a table, as CSV. */
export interface StatementReport<R> {
  read(ledger: Ledger, query: ReportQuery): Promise<R>;
  table(report: R, opts: StatementOptions): string;
  csv(report: R, opts: CsvOptions): string;
}

/** Runs a statement with columns of periods: the window defaults to the fiscal year to date. */
export async function runStatement<R extends { reporting_currency: string }>(
  ctx: Context,
  opts: StatementFlags,
  report: StatementReport<R>,
): Promise<void> {
  const ledger = await ctx.ledger();
  const entity = await ledger.entity.get();
  const end = opts.end ?? localDate(ctx.now());
  const start = opts.start ?? fiscalYearStart(end, entity.fiscal_year_start_month);
  const query = windowFromFlags(start, end, opts.period, opts.compare, opts);
  const result = await report.read(ledger, query);
  const exponent = exponentOf(result.reporting_currency);
  const depth = opts.depth === undefined ? {} : { depth: opts.depth };
  await writeReport(ctx, opts.output, (style) => {
    if (ctx.format === 'json') return toJson(result) + '\n';
    if (ctx.format === 'csv') return report.csv(result, { exponent, atoms: opts.atoms, ...depth });
    return report.table(result, { exponent, ...depth, ...style, ...headOf(entity, opts.period) });
  });
}

function headOf(entity: Entity, period: PeriodType) {
  return { entity: entity.name, period, fiscalYearStartMonth: entity.fiscal_year_start_month };
}

/** How a table is set for where it goes: the terminal's width, and bold on a colour terminal. */
export interface TableStyle {
  width?: number;
  bold?: (s: string) => string;
}

/** Writes a report made whole to standard output or --output. */
export async function writeReport(
  ctx: Context,
  output: string | undefined,
  render: (style: TableStyle) => string,
): Promise<void> {
  const out = await openOutput(ctx, output);
  const width = out.terminal ? ctx.io.stdout.columns : Number(ctx.env.COLUMNS) || undefined;
  const bold = ctx.color && out.terminal ? (await import('../render/colour.js')).bold : undefined;
  await writeTo(out, () =>
    out.write(render({ ...(width ? { width } : {}), ...(bold ? { bold } : {}) })),
  );
}

/**
 * A ledger's refusal of a filter's accounts or counterparty (names it does not have) as the flags':
 * not_found (exit 1), each problem naming --account or --counterparty, with what it resembles; any
 * other error as it is.
 */
export function filterFlagRefused(e: unknown): unknown {
  if (!isBooksError(e) || e.code !== 'invalid_parameters') return e;
  const FLAGS: Record<string, string> = {
    unknown_account: '--account',
    unknown_counterparty: '--counterparty',
  };
  const unknown = e.errors.filter((p) => FLAGS[p.reason]);
  if (!unknown.length) return e;
  const said = unknown.map((p) => `${FLAGS[p.reason]}: ${p.message}`);
  return new BooksError(
    'not_found',
    said.join('; '),
    // An account's problem says the name as the ledger does; a counterparty's names the flag too.
    unknown.map((p, i) => ({
      path: FLAGS[p.reason]!,
      reason: p.reason,
      message: p.reason === 'unknown_account' ? p.message : said[i]!,
    })),
  );
}
