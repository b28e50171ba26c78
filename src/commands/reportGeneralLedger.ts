import { bool, command, list, str } from '../cli/command.js';
import type { Context } from '../cli/context.js';
import { dateFlag } from '../cli/flags.js';
import { openOutput, writeTo } from '../cli/output.js';
import { localDate } from '../domain/dates.js';
import { errors } from '../domain/errors.js';
import { exponentOf } from '../domain/money.js';
import { fiscalYearStart } from '../domain/periods.js';
import { checkGeneralLedgerQuery } from '../domain/reportQueries.js';
import { lineIdOf } from '../domain/reconcile.js';
import type { LineStates } from '../ledger/port.js';
import {
  glCsvWriter,
  glJsonWriter,
  glTableWriter,
  type GlWriter,
} from '../render/generalLedger.js';
import {
  ATOMS_FLAG,
  filterFlagRefused,
  OUTPUT_FLAG,
  refuseFlags,
  WHERE_FLAG,
  whereFlag,
} from './reportFlags.js';
import type { TagCondition } from '../domain/tags.js';
import { foreignEvents, SHOW_FOREIGN_FLAG } from './foreign.js';

interface Options {
  accounts: string[];
  start: string | undefined;
  end: string | undefined;
  counterparty: string | undefined;
  output: string | undefined;
  atoms: boolean;
  uncleared: boolean;
  showForeign: boolean;
  where: TagCondition[];
}

export default command<Options>({
  flags: [
    {
      flags: '--account <id-or-number>',
      description: 'an account and those below it (repeatable; default every account)',
      repeat: true,
    },
    {
      flags: '--start <YYYY-MM-DD>',
      description: 'first day (default: the start of the fiscal year of --end)',
    },
    { flags: '--end <YYYY-MM-DD>', description: 'last day (default today)' },
    { flags: '--counterparty <TYPE:ID>', description: 'only the lines naming this counterparty' },
    WHERE_FLAG,
    OUTPUT_FLAG,
    ATOMS_FLAG,
    {
      flags: '--uncleared',
      description: 'only the lines not yet cleared in a reconciliation (what is outstanding)',
    },
    {
      ...SHOW_FOREIGN_FLAG,
      description:
        "on an account kept in another currency: each line's amount in it and rate, and the running balance in it",
    },
  ],
  formats: ['table', 'csv', 'json'],
  help: `For each account in chart order: its balance before --start, every line in the window by date and
JE number with the running balance, and the closing balance with the window's debit and credit
totals. Balances are debits minus credits; an income or expense account's balance is its fiscal
year's, so it starts again from zero at each new fiscal year in the window (as in the trial
balance). CSV is one row per journal line (with an opening and a closing row per account), for
pivot tables. The report streams: any number of lines is written in constant memory.
In the table, a line cleared in a bank reconciliation has ! after its JE number, a reconciled one *
(as hledger marks them); --uncleared leaves out both, keeping the running balances of every line.
A remote profile's general ledger shows no states (the API's lines name no line). --where keeps the
lines whose tags meet every condition, opening balances included.`,
  examples: [
    'books report general-ledger --account 1010 --start 2025-01-01 --end 2025-03-31',
    'books report gl --account 6000 --start 2025-01-01 --end 2025-12-31 --format csv',
  ],
  options: (raw) => ({
    accounts: list(raw, 'account'),
    start: dateFlag('--start', str(raw, 'start')),
    end: dateFlag('--end', str(raw, 'end')),
    counterparty: str(raw, 'counterparty'),
    output: str(raw, 'output'),
    atoms: bool(raw, 'atoms'),
    uncleared: bool(raw, 'uncleared'),
    showForeign: bool(raw, 'showForeign'),
    where: whereFlag(raw),
  }),
  run: generalLedger,
});

async function generalLedger(ctx: Context, opts: Options): Promise<void> {
  const ledger = await ctx.ledger();
  const entity = await ledger.entity.get();
  const end = opts.end ?? localDate(ctx.now());
  const start = opts.start ?? fiscalYearStart(end, entity.fiscal_year_start_month);
  const raw = {
    start_date: start,
    end_date: end,
    accounts: opts.accounts,
    counterparty: opts.counterparty,
    where: opts.where,
  };
  const checked = checkGeneralLedgerQuery(raw);
  if ('problems' in checked) refuseFlags(checked.problems);
  const exponent = exponentOf(entity.currency);
  const head = {
    entity: entity.name,
    start_date: start,
    end_date: end,
    reporting_currency: entity.currency,
  };
  // The first event is read before anything is written: a refused query writes no partial report.
  const all = ledger.reports.generalLedger(checked.query);
  const events = (
    opts.showForeign ? await foreignEvents(ledger, start, all, opts.counterparty) : all
  )[Symbol.asyncIterator]();
  let next = await events.next().catch((e: unknown) => {
    throw filterFlagRefused(e);
  });
  const out = await openOutput(ctx, opts.output);
  const writer: GlWriter =
    ctx.format === 'json'
      ? glJsonWriter(head)
      : ctx.format === 'csv'
        ? glCsvWriter(exponent, opts.atoms, opts.showForeign)
        : glTableWriter(head, exponent, out.terminal);
  // The API's general ledger names no line, so a service's lines cannot be told cleared or not.
  const remote = !ledger.capabilities.listsEntries;
  if (opts.uncleared && remote)
    throw errors.notOffered('report general-ledger --uncleared', ledger.location);
  const states = remote ? ({} as LineStates) : await ledger.reconcile.lineStates({});
  const marked = Object.keys(states).length > 0;
  await writeTo(out, async () => {
    out.push(writer.begin());
    for (; !next.done; next = await events.next()) {
      let e = next.value;
      if (marked && e.kind === 'line') {
        const st = states[lineIdOf(e.at.seq, e.at.line_no)];
        if (st && opts.uncleared) continue;
        if (st && ctx.format === 'table')
          e = {
            ...e,
            line: {
              ...e.line,
              je_number: `${e.line.je_number} ${st.state === 'reconciled' ? '*' : '!'}`,
            },
          };
      }
      if (out.push(writer.event(e))) await out.drain();
    }
    await out.write(writer.end());
  });
}
