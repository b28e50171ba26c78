import { bool, command, list, str, type FlagSpec } from '../cli/command.js';
import { dateFlag, required, wholeFlag } from '../cli/flags.js';
import { BUDGET_COLUMNS, type BudgetRow } from '../domain/budget.js';
import { chartRefused } from '../domain/chart.js';
import { localDate } from '../domain/dates.js';
import { errors, isBooksError, type Problem } from '../domain/errors.js';
import { atomsToDecimal, exponentOf, formatAmount, parseDecimal } from '../domain/money.js';
import { EVERY, type Every, type RecurringTemplate } from '../domain/recurring.js';
import type { RecurringRun } from '../ledger/port.js';
import { csvLine } from '../render/csv.js';
import { grid } from '../render/table.js';
import { readRecords } from './chartFiles.js';
import { CSV_FILE_ARG, DELIMITER_FLAG, ofFile } from './io.js';
import { bodyFromFile, LINE_FLAGS, linesFromFlags } from './jePost.js';

export const budgetsImport = command({
  args: [CSV_FILE_ARG],
  flags: [DELIMITER_FLAG],
  help: `Columns: ${BUDGET_COLUMNS.join(',')}. period is a report's column id: a month (2026-01), a
quarter of the fiscal year (2026-Q1) or a fiscal year (2026); amount is a decimal in the statement's
sign (income and expenses positive, as the income statement shows them). A re-import replaces the
cells it names and leaves the others. A quarter or year without its own row is the sum of its months.`,
  examples: ['books budgets import fixtures/demo/budget-2025.csv'],
  options: (raw) => ({ path: raw.args[0]!, delimiter: str(raw, 'delimiter') }),
  async run(ctx, opts) {
    const ledger = await ctx.ledger();
    const exponent = exponentOf((await ledger.entity.get()).currency);
    const spec = { columns: BUDGET_COLUMNS, required: BUDGET_COLUMNS, delimiter: opts.delimiter };
    const { records, name } = await readRecords(ctx, opts.path, spec);
    const problems: Problem[] = [];
    const rows = records.map((r) => {
      const amount = parseDecimal(r.values.amount ?? '', exponent);
      if (!amount.ok)
        problems.push({
          row: r.row,
          path: 'amount',
          reason: amount.reason,
          message: amount.message,
        });
      const atoms = amount.ok ? amount.atoms : 0n;
      if (atoms > BigInt(Number.MAX_SAFE_INTEGER) || -atoms > BigInt(Number.MAX_SAFE_INTEGER))
        problems.push({
          row: r.row,
          path: 'amount',
          reason: 'amount_too_large',
          message: 'amount is too large',
        });
      return {
        row: r.row,
        gl_account_id: r.values.gl_account_id ?? '',
        period: r.values.period ?? '',
        amount_atoms: Number(atoms),
      };
    });
    if (problems.length) throw chartRefused(name, problems);
    let result;
    try {
      result = await ledger.budgets.import({ rows });
    } catch (e) {
      // The ledger's refusal by row, said of the file.
      if (e instanceof Error && 'code' in e && e.code === 'invalid_input' && 'errors' in e)
        throw chartRefused(
          name,
          (e.errors as Problem[]).map((p) => ofFile(p, rows, { amount_atoms: 'amount' })),
        );
      throw e;
    }
    if (ctx.json) ctx.outJson(result);
    else
      ctx.out(
        `budget cells: ${result.created} created, ${result.updated} updated, ${result.unchanged} unchanged`,
      );
  },
});

export const budgetsList = command({
  formats: ['table', 'csv', 'json'],
  help: 'CSV is the format of books budgets import.',
  examples: ['books budgets list', 'books budgets list --format csv'],
  options: () => ({}),
  async run(ctx) {
    const ledger = await ctx.ledger();
    const exponent = exponentOf((await ledger.entity.get()).currency);
    const list = await ledger.budgets.list();
    if (ctx.json) return ctx.outJson({ object: 'list', data: list });
    const amount = (r: BudgetRow) => atomsToDecimal(r.amount_atoms, exponent);
    if (ctx.format !== 'csv')
      return ctx.out(
        grid(
          ['Account', 'Period', 'Amount'],
          list.map((r) => [r.gl_account_id, r.period, formatAmount(r.amount_atoms, exponent)]),
          ['left', 'left', 'right'],
        ),
      );
    return ctx.write(
      [
        BUDGET_COLUMNS.join(','),
        ...list.map((r) => csvLine([r.gl_account_id, r.period, amount(r)])),
      ].join('\n') + '\n',
    );
  },
});

const NAME_FLAG: FlagSpec = { flags: '--name <name>', description: "the recurring entry's name" };

interface AddOptions {
  name: string;
  every: Every;
  day: number | undefined;
  start: string;
  end: string | undefined;
  file: string | undefined;
  debit: string[];
  credit: string[];
  memo: string | undefined;
  adjusting: boolean;
}

export const recurringAdd = command<AddOptions>({
  flags: [
    NAME_FLAG,
    { flags: '--every <period>', description: 'how often it posts', choices: EVERY },
    {
      flags: '--day <n>',
      description:
        'day of the month (a shorter month uses its last day), or of the week ' +
        "(1 Monday – 7 Sunday); default the start's",
    },
    { flags: '--start <YYYY-MM-DD>', description: 'its first possible date' },
    { flags: '--end <YYYY-MM-DD>', description: 'its last possible date (default: none)' },
    {
      flags: '--file <path>',
      description:
        "the entry as POST /v1/journal-entries takes it, without entry_date ('-' for standard input)",
    },
    ...LINE_FLAGS,
    { flags: '--memo <text>', description: 'entry memo' },
    { flags: '--adjusting', description: 'its entries are adjusting entries' },
  ],
  help: `Templates are kept in the ledger. \`books recurring run --through D\` posts each occurrence due by D
that has not posted yet, once: an occurrence is known by its template's name and date (a template
removed and added again under the same name posts none of its dates twice; under another name, its
dates are new occurrences).`,
  examples: [
    'books recurring add --name rent --every month --day 1 --start 2025-01-01 ' +
      '--debit 6100=3000 --credit 1010=3000 --memo "Monthly rent"',
    'books recurring add --name depreciation --every month --day 31 --start 2025-01-31 ' +
      '--debit 6700=600 --credit 1590=600',
  ],
  options: (raw) => ({
    name: required('--name', str(raw, 'name')),
    every: required('--every', str(raw, 'every')) as Every,
    day: wholeFlag('--day', str(raw, 'day'), 1, 31),
    start: required('--start', dateFlag('--start', str(raw, 'start'))),
    end: dateFlag('--end', str(raw, 'end')),
    file: str(raw, 'file'),
    debit: list(raw, 'debit'),
    credit: list(raw, 'credit'),
    memo: str(raw, 'memo'),
    adjusting: bool(raw, 'adjusting'),
  }),
  async run(ctx, opts) {
    const hasLines = opts.debit.length > 0 || opts.credit.length > 0;
    if ((opts.file === undefined) === !hasLines)
      throw errors.usage('give the entry either with --file or with --debit/--credit lines');
    const ledger = await ctx.ledger();
    const entity = await ledger.entity.get();
    let entry: unknown;
    if (opts.file !== undefined) entry = await bodyFromFile(ctx, opts.file);
    else {
      const accounts = await ledger.chart.accounts();
      entry = {
        lines: linesFromFlags(opts, accounts, exponentOf(entity.currency), entity.currency),
        ...(opts.memo !== undefined ? { memo: opts.memo } : {}),
        ...(opts.adjusting ? { is_adjusting: true } : {}),
      };
    }
    const t = await ledger.recurring
      .add({
        name: opts.name,
        every: opts.every,
        day: opts.day ?? null,
        start_date: opts.start,
        end_date: opts.end ?? null,
        entry,
      })
      .catch((e: unknown) => {
        // The template's fields are the flags' values: a refusal of one names its flag (exit 2).
        if (!isBooksError(e) || e.code !== 'invalid_parameters') throw e;
        const named = e.errors.map((p) => ({ ...p, path: TEMPLATE_FLAGS[p.path] ?? p.path }));
        throw errors.usage(named.map((p) => `${p.path}: ${p.message}`).join('; '), named);
      });
    if (ctx.json) return ctx.outJson(t);
    ctx.out(`Added recurring entry '${t.name}': ${describe(t)}.`);
  },
});

const TEMPLATE_FLAGS: Record<string, string> = {
  name: '--name',
  every: '--every',
  day: '--day',
  start_date: '--start',
  end_date: '--end',
};

function describe(t: RecurringTemplate): string {
  const day =
    t.day === null ? '' : t.every === 'week' ? ` on weekday ${t.day}` : ` on day ${t.day}`;
  const end = t.end_date ? ` through ${t.end_date}` : '';
  return `every ${t.every}${day} from ${t.start_date}${end}`;
}

export const recurringList = command({
  examples: ['books recurring list'],
  options: () => ({}),
  async run(ctx) {
    const list = await (await ctx.ledger()).recurring.list();
    if (ctx.json) return ctx.outJson({ object: 'list', data: list });
    if (!list.length) return ctx.out('No recurring entries.');
    ctx.out(
      grid(
        ['Name', 'Every', 'Day', 'Start', 'End', 'Memo'],
        list.map((t) => [
          t.name,
          t.every,
          t.day === null ? '' : String(t.day),
          t.start_date,
          t.end_date ?? '',
          typeof t.entry.memo === 'string' ? t.entry.memo : '',
        ]),
      ),
    );
  },
});

export const recurringRemove = command({
  args: [{ name: 'name', description: "the recurring entry's name" }],
  help: 'What it posted stays in the journal.',
  examples: ['books recurring remove rent'],
  options: (raw) => ({ name: raw.args[0]! }),
  async run(ctx, opts) {
    const t = await (await ctx.ledger()).recurring.remove({ name: opts.name });
    if (ctx.json) return ctx.outJson(t);
    ctx.out(`Removed recurring entry '${t.name}'; what it posted stays.`);
  },
});

export const recurringRun = command({
  flags: [
    {
      flags: '--through <YYYY-MM-DD>',
      description: 'post what is due on or before this date (default today)',
    },
    { flags: '--dry-run', description: 'show what would post; post nothing' },
  ],
  help: `Posts every occurrence due through the date that has not posted yet, all in one transaction:
running it twice, or twice at once, posts nothing twice. An occurrence before the First Month of Books
or in a closed period is listed as skipped, not posted. A run posts or skips at most 10,000
occurrences: a date further ahead is refused before anything posts.`,
  examples: [
    'books recurring run --through 2025-01-31',
    'books recurring run --through 2025-03-31 --dry-run',
  ],
  options: (raw) => ({
    through: dateFlag('--through', str(raw, 'through')),
    dryRun: bool(raw, 'dryRun'),
  }),
  async run(ctx, opts) {
    const ledger = await ctx.ledger();
    const through = opts.through ?? localDate(ctx.now());
    const result = await ledger.recurring.run({
      through,
      ...(opts.dryRun ? { dry_run: true } : {}),
    });
    if (ctx.json) return ctx.outJson(result);
    ctx.out(runText(result));
  },
});

function runText(r: RecurringRun): string {
  const out: string[] = [];
  const verb = r.dry_run ? 'Would post' : 'Posted';
  for (const p of r.posted)
    out.push(`${verb} ${p.name} on ${p.date}${p.je_number ? ` as ${p.je_number}` : ''}`);
  for (const s of r.skipped) out.push(`Skipped ${s.name} on ${s.date}: ${s.reason}`);
  const entries = `${r.posted.length} ${r.posted.length === 1 ? 'entry' : 'entries'}`;
  out.push(
    `${entries} ${r.dry_run ? 'would post' : 'posted'} through ${r.through}` +
      (r.skipped.length ? `, ${r.skipped.length} skipped` : '') +
      (r.already_posted ? `, ${r.already_posted} posted before` : '') +
      (r.dry_run ? ' (dry run: nothing was posted)' : ''),
  );
  return out.join('\n');
}
