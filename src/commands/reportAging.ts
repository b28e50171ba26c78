import { bool, command, list, str } from '../cli/command.js';
import { dateFlag, required, wholeFlag } from '../cli/flags.js';
import { AGING_TYPES, type AgingReport, type AgingType } from '../domain/aging.js';
import { localDate } from '../domain/dates.js';
import { errors } from '../domain/errors.js';
import { toJson } from '../domain/json.js';
import { exponentOf } from '../domain/money.js';
import { readCounterpartyRef } from '../domain/reportQueries.js';
import { agingCsv, agingTable } from '../render/aging.js';
import {
  ATOMS_FLAG,
  filterFlagRefused,
  OUTPUT_FLAG,
  refuseFlags,
  writeReport,
} from './reportFlags.js';

interface Options {
  type: AgingType;
  asOf: string | undefined;
  buckets: string | undefined;
  dueDays: number | undefined;
  counterparty: string | undefined;
  detail: boolean;
  accounts: string[];
  output: string | undefined;
  atoms: boolean;
}

export default command<Options>({
  flags: [
    {
      flags: '--type <type>',
      description: 'receivable (customers) or payable (vendors)',
      choices: AGING_TYPES,
    },
    {
      flags: '--as-of <YYYY-MM-DD>',
      description: 'the date the items are aged at (default today)',
    },
    { flags: '--buckets <days>', description: 'day limits of the columns', default: '30,60,90' },
    {
      flags: '--due-days <n>',
      description: 'age from the entry date plus n days (payment terms), with a Current column',
    },
    { flags: '--counterparty <TYPE:ID>', description: 'one counterparty only' },
    { flags: '--detail', description: 'each open item under its counterparty' },
    {
      flags: '--account <account>',
      description: 'the accounts (repeatable; default every receivable, resp. payable, account)',
      repeat: true,
    },
    OUTPUT_FLAG,
    ATOMS_FLAG,
  ],
  formats: ['table', 'csv', 'json'],
  help: `Open items first-in-first-out, per counterparty and account: invoices (bills) are items, and each
payment or credit note is applied to the oldest open items first, by entry date then JE number. What
no item absorbs is an unapplied credit, shown negative in its own column. Amounts are in the
account's sign (receivables debit-positive, payables credit-positive), so the report's total is the
accounts' balance in the trial balance at the same date.`,
  examples: [
    'books report aging --type receivable --as-of 2025-12-31',
    'books report aging --type payable --as-of 2025-12-31 --due-days 30 --detail',
  ],
  options: (raw) => {
    const cp = str(raw, 'counterparty');
    if (str(raw, 'buckets')?.trim() === '')
      throw errors.usage('--buckets: give day limits (30,60,90)', [
        { path: '--buckets', reason: 'invalid_buckets', message: 'no day limits given' },
      ]);
    if (cp !== undefined && !readCounterpartyRef(cp))
      throw errors.usage(`--counterparty: '${cp}' is not TYPE:ID (customer:C001)`);
    return {
      type: required('--type', str(raw, 'type')) as AgingType,
      asOf: dateFlag('--as-of', str(raw, 'asOf')),
      buckets: str(raw, 'buckets'),
      dueDays: wholeFlag('--due-days', str(raw, 'dueDays'), 0, 3650),
      counterparty: cp,
      detail: bool(raw, 'detail'),
      accounts: list(raw, 'account'),
      output: str(raw, 'output'),
      atoms: bool(raw, 'atoms'),
    };
  },
  async run(ctx, opts) {
    const ledger = await ctx.ledger();
    const asOf = opts.asOf ?? localDate(ctx.now());
    const accounts = opts.accounts;
    let report: AgingReport;
    try {
      report = await ledger.reports.aging({
        type: opts.type,
        as_of: asOf,
        ...(opts.buckets !== undefined ? { buckets: opts.buckets } : {}),
        ...(opts.dueDays !== undefined ? { due_days: opts.dueDays } : {}),
        ...(opts.counterparty ? { counterparty: opts.counterparty } : {}),
        ...(accounts.length ? { accounts } : {}),
      });
    } catch (e) {
      // An account or counterparty the ledger does not have is not found (exit 1); its other
      // problems with a parameter are the flags' (exit 2).
      const unknown = filterFlagRefused(e);
      if (unknown !== e) throw unknown;
      if (e instanceof Error && 'code' in e && e.code === 'invalid_parameters' && 'errors' in e)
        refuseFlags(
          (e.errors as { path: string; reason: string; message: string }[]).map((p) => ({
            ...p,
            path: AGING_FLAG[p.path] ?? p.path,
          })),
        );
      throw e;
    }
    const exponent = exponentOf(report.reporting_currency);
    await writeReport(ctx, opts.output, (style) => {
      if (ctx.format === 'json') return toJson(report) + '\n';
      if (ctx.format === 'csv')
        return agingCsv(report, { exponent, atoms: opts.atoms, detail: opts.detail });
      return agingTable(report, { exponent, detail: opts.detail, ...style });
    });
  },
});

const AGING_FLAG: Record<string, string> = {
  buckets: '--buckets',
  due_days: '--due-days',
  type: '--type',
  as_of: '--as-of',
};
