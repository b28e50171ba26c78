import { bool, command, str } from '../cli/command.js';
import { dateFlag } from '../cli/flags.js';
import { localDate } from '../domain/dates.js';
import { errors } from '../domain/errors.js';
import { toJson } from '../domain/json.js';
import { exponentOf } from '../domain/money.js';
import { trialBalanceCsv, trialBalanceTable } from '../render/trialBalance.js';
import { foreignAt, SHOW_FOREIGN_FLAG, trialBalanceForeign } from './foreign.js';
import {
  ATOMS_FLAG,
  COLUMNS_BY_FLAG,
  OUTPUT_FLAG,
  refuseFlags,
  WHERE_FLAG,
  whereFlag,
  writeReport,
} from './reportFlags.js';
import { checkTrialBalanceQuery } from '../domain/reportQueries.js';
import type { TagCondition } from '../domain/tags.js';

interface Options {
  asOf: string | undefined;
  adjustments: 'include' | 'exclude' | 'worksheet';
  tree: boolean;
  output: string | undefined;
  atoms: boolean;
  showForeign: boolean;
  where: TagCondition[];
  columnsBy: string | undefined;
}

export default command<Options>({
  flags: [
    { flags: '--as-of <YYYY-MM-DD>', description: 'the date of the balances (default today)' },
    { flags: '--unadjusted', description: 'leave the adjusting entries out' },
    {
      flags: '--worksheet',
      description: "the accountant's worksheet: unadjusted, adjustments, adjusted",
    },
    { flags: '--tree', description: 'accounts indented under their parents, with subtotals' },
    SHOW_FOREIGN_FLAG,
    WHERE_FLAG,
    COLUMNS_BY_FLAG,
    OUTPUT_FLAG,
    ATOMS_FLAG,
  ],
  formats: ['table', 'csv', 'json'],
  help: `One row per account with a balance or with lines in the fiscal year to date, in the Debit or the
Credit column. Balance-sheet accounts show their whole balance; income and expense accounts the
fiscal year to date, and "Retained Earnings (prior years)" carries the years before, so that the
debits always equal the credits. The adjustments (--unadjusted leaves them out, --worksheet shows
them apart) are the entries posted with is_adjusting in the fiscal year to date; those of earlier
years are part of the balances. --where keeps the lines whose tags meet every condition; --columns-by
KEY gives debit and credit per value of KEY, then (none), then the total (not with --worksheet).`,
  examples: [
    'books report trial-balance --as-of 2025-01-31',
    'books report tb --as-of 2025-12-31 --worksheet',
  ],
  options: (raw) => {
    if (bool(raw, 'unadjusted') && bool(raw, 'worksheet'))
      throw errors.usage('--unadjusted and --worksheet cannot be used together');
    return {
      asOf: dateFlag('--as-of', str(raw, 'asOf')),
      adjustments: bool(raw, 'worksheet')
        ? 'worksheet'
        : bool(raw, 'unadjusted')
          ? 'exclude'
          : 'include',
      tree: bool(raw, 'tree'),
      output: str(raw, 'output'),
      atoms: bool(raw, 'atoms'),
      showForeign: bool(raw, 'showForeign'),
      where: whereFlag(raw),
      columnsBy: str(raw, 'columnsBy'),
    };
  },
  async run(ctx, opts) {
    const ledger = await ctx.ledger();
    const asOf = opts.asOf ?? localDate(ctx.now());
    const checked = checkTrialBalanceQuery({
      as_of: asOf,
      adjustments: opts.adjustments,
      where: opts.where,
      columns_by: opts.columnsBy,
    });
    if ('problems' in checked) refuseFlags(checked.problems);
    const tb = await ledger.reports.trialBalance(checked.query);
    const exponent = exponentOf(tb.reporting_currency);
    const entity = ctx.format === 'table' ? (await ledger.entity.get()).name : '';
    const chart = opts.tree && ctx.format === 'table' ? await ledger.chart.accounts() : undefined;
    const foreign = opts.showForeign
      ? trialBalanceForeign(tb, (await foreignAt(ledger, [asOf])).get(asOf)!)
      : null;
    await writeReport(ctx, opts.output, (style) => {
      if (ctx.format === 'json') return toJson(foreign?.json ?? tb) + '\n';
      if (ctx.format === 'csv')
        return trialBalanceCsv(tb, {
          exponent,
          atoms: opts.atoms,
          ...(foreign ? { extra: foreign.extra(opts.atoms) } : {}),
        });
      const unadjusted = opts.adjustments === 'exclude';
      return trialBalanceTable(foreign?.table ?? tb, {
        exponent,
        entity,
        unadjusted,
        ...style,
        ...(chart ? { tree: chart } : {}),
      });
    });
  },
});
