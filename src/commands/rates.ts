import { bool, command, list, str } from '../cli/command.js';
import { dateFlag, required } from '../cli/flags.js';
import type { Context } from '../cli/context.js';
import { chartRefused } from '../domain/chart.js';
import { BooksError, errors, isBooksError, type Problem } from '../domain/errors.js';
import { ecbRates, type RateRow, type RatesImported } from '../domain/rates.js';
import { readCsv, delimiterOf } from '../import/csv.js';
import { csvLine } from '../render/csv.js';
import { grid } from '../render/table.js';
import { readRecords } from './chartFiles.js';
import { CSV_FILE_ARG, DELIMITER_FLAG, ofFile, openInput } from './io.js';

const RATE_COLUMNS = ['date', 'currency', 'rate'] as const;
const CURRENCY_FLAG = {
  flags: '--currency <code>',
  description: 'a currency (repeat for more)',
  repeat: true,
};

/** Sends the rows; a refusal by row is said of the file, with the file's rows. */
async function sendRates(
  ctx: Context,
  name: string,
  rows: RateRow[],
  replace: boolean,
): Promise<RatesImported> {
  const ledger = await ctx.ledger();
  try {
    return await ledger.fx.importRates({
      rows: rows as { row: number; date: string; currency: string; rate: string }[],
      ...(replace ? { replace: true } : {}),
    });
  } catch (e) {
    if (isBooksError(e) && e.code === 'invalid_input' && e.errors.length)
      throw chartRefused(
        name,
        // The ledger names the request's rows in its messages; the file's row is said beside them.
        e.errors.map((p) => ({ ...ofFile(p, rows), message: p.message.replace(/^row \d+: /, '') })),
      );
    throw e;
  }
}

function said(ctx: Context, r: RatesImported): void {
  if (ctx.json) return ctx.outJson(r);
  for (const x of r.replaced)
    ctx.out(`row ${x.row}: ${x.currency} on ${x.date} was ${x.was}, now ${x.rate}`);
  ctx.out(`rates: ${r.created} created, ${r.updated} replaced, ${r.unchanged} unchanged`);
}

export const ratesImport = command({
  args: [CSV_FILE_ARG],
  flags: [
    DELIMITER_FLAG,
    {
      flags: '--preset <name>',
      description: "a published layout: ecb (the European Central Bank's eurofxref-hist.csv)",
      choices: ['ecb'],
    },
    {
      ...CURRENCY_FLAG,
      description: 'with --preset ecb: only this currency (repeat for more; default all)',
    },
    {
      flags: '--replace',
      description: 'a different rate for a date and currency replaces the one kept',
    },
  ],
  help: `Columns: ${RATE_COLUMNS.join(',')}; rate is functional units per one unit of the currency (1.105: one
EUR is 1.105 USD), a decimal of at most 12 significant digits. The rate for a date is the latest on or
before it. Re-importing the same rows changes nothing; a different rate for a kept date and currency
is refused by row unless --replace (each replacement is said). --preset ecb reads the ECB's published
history, which quotes units per euro: inverted for a euro ledger, crossed through the euro otherwise.
books never fetches rates from the network.`,
  examples: [
    'books rates import fixtures/fx/rates.csv',
    'books rates import fixtures/fx/eurofxref-hist.csv --preset ecb --currency EUR --currency GBP',
  ],
  options: (raw) => ({
    path: raw.args[0]!,
    delimiter: str(raw, 'delimiter'),
    preset: str(raw, 'preset'),
    currencies: list(raw, 'currency'),
    replace: bool(raw, 'replace'),
  }),
  async run(ctx, opts) {
    if (opts.currencies.length && opts.preset === undefined)
      throw errors.usage('--currency goes with --preset ecb: a rates file names its currencies');
    if (opts.preset === 'ecb') {
      const ledger = await ctx.ledger();
      const functional = (await ledger.entity.get()).currency;
      const { stream, name } = openInput(ctx, opts.path);
      const rows: string[][] = [];
      for await (const batch of readCsv(stream, {
        file: name,
        columns: [],
        required: [],
        acceptAny: true,
        delimiter: delimiterOf(opts.delimiter),
      })) {
        if (!rows.length) rows.push(batch.names ?? batch.header);
        for (const r of batch.records) {
          // A row of more or fewer cells than the header is refused, not read as missing quotes.
          if (r.problems) throw chartRefused(name, r.problems);
          rows.push(r.cells);
        }
      }
      const wanted = opts.currencies.length
        ? new Set(opts.currencies.map((c) => c.toUpperCase()))
        : null;
      const { rates, problems } = ecbRates(rows, functional, wanted);
      if (problems.length) throw chartRefused(name, problems);
      return said(ctx, await sendRates(ctx, name, rates, opts.replace));
    }
    const spec = { columns: RATE_COLUMNS, required: RATE_COLUMNS, delimiter: opts.delimiter };
    const { records, name } = await readRecords(ctx, opts.path, spec);
    const rows = records.map((r) => ({
      row: r.row,
      date: r.values.date ?? '',
      currency: (r.values.currency ?? '').trim().toUpperCase(),
      rate: (r.values.rate ?? '').trim(),
    }));
    said(ctx, await sendRates(ctx, name, rows, opts.replace));
  },
});

export const ratesAdd = command({
  flags: [
    { flags: '--date <YYYY-MM-DD>', description: 'the date the rate holds from' },
    { flags: '--currency <code>', description: 'the foreign currency' },
    { flags: '--rate <decimal>', description: 'functional units per one unit of the currency' },
    { flags: '--replace', description: 'replace a different rate kept for that date' },
  ],
  help: 'One rate of the table (see books rates import).',
  examples: ['books rates add --date 2025-01-31 --currency EUR --rate 1.12'],
  options: (raw) => ({
    date: required('--date', dateFlag('--date', str(raw, 'date'))),
    currency: required('--currency', str(raw, 'currency')).toUpperCase(),
    rate: required('--rate', str(raw, 'rate')),
    replace: bool(raw, 'replace'),
  }),
  async run(ctx, opts) {
    const ledger = await ctx.ledger();
    const flagOf: Record<string, string> = {
      date: '--date',
      currency: '--currency',
      rate: '--rate',
    };
    const r = await ledger.fx
      .importRates({
        rows: [{ date: opts.date, currency: opts.currency, rate: opts.rate }],
        ...(opts.replace ? { replace: true } : {}),
      })
      .catch((e: unknown) => {
        // The row is the flags: a refusal names its flag (exit 2), or is the ledger's own (a conflict).
        if (!isBooksError(e) || e.code !== 'invalid_input') throw e;
        const named: Problem[] = e.errors.map((p) => {
          const field = /\.(\w+)$/.exec(p.path)?.[1] ?? '';
          return {
            ...p,
            path: flagOf[field] ?? p.path,
            message: p.message.replace(/^row 1: /, ''),
          };
        });
        if (named.every((p) => p.reason !== 'rate_conflict'))
          throw errors.usage(named.map((p) => `${p.path}: ${p.message}`).join('; '), named);
        throw new BooksError('invalid_input', named.map((p) => p.message).join('; '), named);
      });
    if (ctx.json) return ctx.outJson(r);
    if (r.replaced.length)
      ctx.out(`${opts.currency} on ${opts.date} was ${r.replaced[0]!.was}, now ${opts.rate}`);
    else if (r.unchanged) ctx.out(`${opts.currency} on ${opts.date} is ${opts.rate} already`);
    else ctx.out(`Added ${opts.currency} ${opts.rate} from ${opts.date}`);
  },
});

export const ratesList = command({
  formats: ['table', 'csv', 'json'],
  flags: [
    { flags: '--currency <code>', description: 'one currency' },
    { flags: '--start <YYYY-MM-DD>', description: 'from this date' },
    { flags: '--end <YYYY-MM-DD>', description: 'through this date' },
  ],
  help: 'CSV is the format of books rates import.',
  examples: ['books rates list', 'books rates list --currency EUR --start 2025-01-01 --format csv'],
  options: (raw) => ({
    currency: str(raw, 'currency')?.toUpperCase(),
    start: dateFlag('--start', str(raw, 'start')),
    end: dateFlag('--end', str(raw, 'end')),
  }),
  async run(ctx, opts) {
    const ledger = await ctx.ledger();
    const list = await ledger.fx.listRates({
      ...(opts.currency !== undefined ? { currency: opts.currency } : {}),
      ...(opts.start !== undefined ? { start: opts.start } : {}),
      ...(opts.end !== undefined ? { end: opts.end } : {}),
    });
    if (ctx.json) return ctx.outJson(list);
    if (ctx.format === 'csv')
      return ctx.write(
        [
          RATE_COLUMNS.join(','),
          ...list.data.map((r) => csvLine([r.date, r.currency, r.rate])),
        ].join('\n') + '\n',
      );
    if (!list.data.length) return ctx.out('No rates.');
    ctx.out(
      grid(
        ['Date', 'Currency', 'Rate'],
        list.data.map((r) => [r.date, r.currency, r.rate]),
        ['left', 'left', 'right'],
      ),
    );
  },
});
