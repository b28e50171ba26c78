import { bool, command, str } from '../cli/command.js';
import { dateFlag } from '../cli/flags.js';
import { localDate } from '../domain/dates.js';
import { errors, isBooksError } from '../domain/errors.js';
import { toJson } from '../domain/json.js';
import { exponentOf, formatAmount } from '../domain/money.js';
import { entryText } from '../render/entry.js';
import { fxCsv, fxTable } from '../render/fx.js';
import { ATOMS_FLAG, OUTPUT_FLAG, refuseFlags, writeReport } from './reportFlags.js';

const AS_OF_FLAG = {
  flags: '--as-of <YYYY-MM-DD>',
  description: 'the date of the balances and of the closing rates (default today)',
};

/** A refusal of a parameter said of its flag (exit 2). */
function asFlags(e: unknown, flags: Record<string, string>): never {
  if (isBooksError(e) && e.code === 'invalid_parameters')
    refuseFlags(e.errors.map((p) => ({ ...p, path: flags[p.path] ?? p.path })));
  throw e;
}

export const reportFx = command({
  flags: [AS_OF_FLAG, OUTPUT_FLAG, ATOMS_FLAG],
  formats: ['table', 'csv', 'json'],
  help: `Per monetary account kept in another currency (per counterparty on receivables and payables): its
foreign balance, its carrying balance in the functional currency, the closing rate (the latest on or
before the date), the value at that rate and the unrealised gain or loss (value minus carrying), with
totals per currency and overall. books fx revalue posts those differences.`,
  examples: [
    'books report fx --as-of 2025-01-31',
    'books report fx --as-of 2025-01-31 --format csv',
  ],
  options: (raw) => ({
    asOf: dateFlag('--as-of', str(raw, 'asOf')),
    output: str(raw, 'output'),
    atoms: bool(raw, 'atoms'),
  }),
  async run(ctx, opts) {
    const ledger = await ctx.ledger();
    const asOf = opts.asOf ?? localDate(ctx.now());
    const e = await ledger.fx
      .exposure({ as_of: asOf })
      .catch((x: unknown) => asFlags(x, { as_of: '--as-of' }));
    const name = (await ledger.entity.get()).name;
    await writeReport(ctx, opts.output, () => {
      if (ctx.format === 'json') return toJson(e) + '\n';
      if (ctx.format === 'csv') return fxCsv(e, opts.atoms);
      return fxTable(e, name);
    });
  },
});

export const fxRevalue = command({
  flags: [
    AS_OF_FLAG,
    { flags: '--dry-run', description: 'show the entry it would post; post nothing' },
  ],
  help: `Revalues every monetary foreign balance at the date's closing rate (books report fx): one adjusting
entry with a line per account (per counterparty on receivables and payables) for its unrealised gain
or loss, in the functional currency only, balanced on the entity's unrealised gain/loss account
(fx-unrealized unless books entity set --fx-unrealized names another), reversed on the next day. A
date is revalued once: a second run posts nothing and says so, unless an entry dated on or before
it moved a balance since (a payment posted after the month was revalued), or its rate was replaced:
then it posts what that changed, once. The lock date applies.`,
  examples: [
    'books fx revalue --as-of 2025-01-31 --dry-run',
    'books fx revalue --as-of 2025-01-31',
  ],
  options: (raw) => ({ asOf: dateFlag('--as-of', str(raw, 'asOf')), dryRun: bool(raw, 'dryRun') }),
  async run(ctx, opts) {
    const ledger = await ctx.ledger();
    const asOf = opts.asOf ?? localDate(ctx.now());
    const r = await ledger.fx
      .revalue({ as_of: asOf, ...(opts.dryRun ? { dry_run: true } : {}) })
      .catch((x: unknown) => asFlags(x, { as_of: '--as-of', dry_run: '--dry-run' }));
    if (ctx.json) return ctx.outJson(r);
    const name = (await ledger.entity.get()).name;
    if (r.status === 'already_revalued')
      return ctx.out(`${asOf} is revalued already (${r.je_number}); nothing was posted.`);
    if (r.status === 'nothing')
      return ctx.out(`No foreign balance differs from its value at ${asOf}; nothing was posted.`);
    const total = r.exposure.totals.unrealized_atoms ?? 0;
    const f = exponentOf(r.exposure.reporting_currency);
    ctx.out(fxTable(r.exposure, name));
    const further = r.revalued_before.length
      ? ` (what changed since ${r.revalued_before.join(', ')} revalued the date: an entry or a rate)`
      : '';
    const verb =
      (r.status === 'posted' ? `Posted ${r.entry!.je_number}` : 'Would post the revaluation') +
      further;
    ctx.out(
      `${verb} on ${asOf}: unrealised ${formatAmount(total, f)} ${r.exposure.reporting_currency}, ` +
        `reversed on the next day${r.dry_run ? ' (dry run: nothing was posted)' : ''}`,
    );
    ctx.out(entryText(r.entry!, f));
  },
});

export const entitySet = command({
  flags: [
    { flags: '--fx-realized <account>', description: 'the realised exchange gain/loss account' },
    {
      flags: '--fx-unrealized <account>',
      description: 'the unrealised exchange gain/loss account',
    },
  ],
  help: `The accounts foreign currencies post to: a settlement's realised gain or loss, and the month-end
revaluation's unrealised one. Without a setting, the standard chart's fx-realized and fx-unrealized.`,
  examples: ['books entity set --fx-realized fx-realized --fx-unrealized fx-unrealized'],
  options: (raw) => ({ realized: str(raw, 'fxRealized'), unrealized: str(raw, 'fxUnrealized') }),
  async run(ctx, opts) {
    if (opts.realized === undefined && opts.unrealized === undefined)
      throw errors.usage('name an account: --fx-realized ACCOUNT and/or --fx-unrealized ACCOUNT');
    const ledger = await ctx.ledger();
    const r = await ledger.fx
      .setAccounts({
        ...(opts.realized !== undefined ? { fx_realized: opts.realized } : {}),
        ...(opts.unrealized !== undefined ? { fx_unrealized: opts.unrealized } : {}),
      })
      .catch((x: unknown) =>
        asFlags(x, { fx_realized: '--fx-realized', fx_unrealized: '--fx-unrealized' }),
      );
    if (ctx.json) return ctx.outJson(r);
    ctx.out(
      `Realised exchange gains and losses: ${r.fx_realized}; unrealised: ${r.fx_unrealized}.`,
    );
  },
});
