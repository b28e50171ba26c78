import { command, list, str } from '../cli/command.js';
import { dateFlag, wholeFlag } from '../cli/flags.js';
import { openOutput, readFirst, writeJsonList, writeTo } from '../cli/output.js';
import { errors } from '../domain/errors.js';
import { currencyExponent, exponentOf, formatAmount } from '../domain/money.js';
import { readCounterpartyRef } from '../domain/reportQueries.js';
import { csvLine } from '../render/csv.js';
import { FX_JOURNAL_COLUMNS, JOURNAL_COLUMNS, journalRows } from '../render/journalCsv.js';
import { cell } from '../render/text.js';
import { filterFlagRefused, OUTPUT_FLAG } from './reportFlags.js';

interface Options {
  from: string | undefined;
  to: string | undefined;
  accounts: string[];
  counterparty: string | undefined;
  search: string | undefined;
  limit: number | undefined;
  output: string | undefined;
}

export default command<Options>({
  flags: [
    { flags: '--from <YYYY-MM-DD>', description: 'first entry date' },
    { flags: '--to <YYYY-MM-DD>', description: 'last entry date' },
    {
      flags: '--account <id-or-number>',
      description: 'entries with a line on this account or one below it (repeatable)',
      repeat: true,
    },
    {
      flags: '--counterparty <TYPE:ID>',
      description: 'entries with a line naming this counterparty',
    },
    {
      flags: '--search <text>',
      description: 'entries whose memo, a line memo or JE number holds the text (case aside)',
    },
    { flags: '--limit <n>', description: 'at most this many entries, the first by date' },
    OUTPUT_FLAG,
  ],
  formats: ['table', 'csv', 'json'],
  help: `Entries are read and written one at a time: any size of ledger lists in constant memory.
CSV is the import format of books je import (one row per line, entry = the JE number), so that
  books je list --format csv | books je import -
rebuilds the same journal in a ledger with the same chart.`,
  examples: [
    'books je list --from 2025-01-01 --to 2025-01-31',
    'books je list --account 1010 --search rent --format csv',
  ],
  options: (raw) => {
    const cp = str(raw, 'counterparty');
    if (cp !== undefined && !readCounterpartyRef(cp))
      throw errors.usage(`--counterparty: '${cp}' is not TYPE:ID (customer, vendor or employee)`);
    return {
      from: dateFlag('--from', str(raw, 'from')),
      to: dateFlag('--to', str(raw, 'to')),
      accounts: list(raw, 'account'),
      counterparty: cp,
      search: str(raw, 'search'),
      limit: wholeFlag('--limit', str(raw, 'limit'), 1),
      output: str(raw, 'output'),
    };
  },
  async run(ctx, opts) {
    const ledger = await ctx.ledger();
    if (!ledger.capabilities.listsEntries) throw errors.notOffered('je list', ledger.location);
    const chart = ctx.format === 'csv' ? await ledger.chart.accounts() : [];
    const accounts = opts.accounts;
    const counterparty = opts.counterparty ? readCounterpartyRef(opts.counterparty)! : undefined;
    const filter = {
      from: opts.from,
      to: opts.to,
      ...(accounts.length ? { accounts } : {}),
      ...(counterparty ? { counterparty } : {}),
      ...(opts.search !== undefined ? { search: opts.search } : {}),
      ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
    };
    // A refused filter writes no partial list.
    const entries = await readFirst(ledger.journal.list(filter), filterFlagRefused);
    const out = await openOutput(ctx, opts.output);
    const write = (text: string) => out.write(text);
    const currency = (await ledger.entity.get()).currency;
    await writeTo(out, () => writeList(write));

    async function writeList(write: (text: string) => Promise<void>): Promise<void> {
      if (ctx.json) return writeJsonList(write, entries);
      if (ctx.format === 'csv') {
        const external = new Map(chart.map((a) => [a.id, a.external_id]));
        // The snapshot's columns where the chart keeps an account in another currency: a ledger
        // without one writes the file it always wrote.
        const foreign = chart.some((a) => a.currency !== null && a.currency !== currency);
        // A tag:KEY column for each key the journal carries (none: the file it always wrote).
        const keys = (await ledger.reports.tags()).map((t) => t.key);
        const columns = [
          ...JOURNAL_COLUMNS,
          ...(foreign ? FX_JOURNAL_COLUMNS : []),
          ...keys.map((k) => `tag:${k}`),
        ];
        await write(csvLine(columns) + '\n');
        for await (const e of entries) {
          const exponent = exponentOf(e.currency);
          await write(journalRows(e, (id) => external.get(id) ?? id, exponent, foreign, keys));
        }
        return;
      }
      const exponent = currencyExponent(currency) ?? 2;
      let any = false;
      for await (const e of entries) {
        if (!any)
          await write(
            `${'Date'.padEnd(10)}  ${'Number'.padEnd(12)}  ${'Amount'.padStart(16)}  ${'Status'.padEnd(8)}  Memo\n`,
          );
        any = true;
        const amount = formatAmount(e.total_debit_atoms, exponent).padStart(16);
        const number = cell(e.je_number).padEnd(12);
        const row = `${e.entry_date}  ${number}  ${amount}  ${e.status.padEnd(8)}  ${cell(e.memo ?? '')}`;
        await write(row.trimEnd() + '\n');
      }
      if (!any) await write('No journal entries.\n');
    }
  },
});
