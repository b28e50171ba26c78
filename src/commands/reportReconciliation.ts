import { command, str } from '../cli/command.js';
import { dateFlag } from '../cli/flags.js';
import { reportCsv, reportText } from '../render/reconcile.js';
import { ACCOUNT_FLAG, accountOf, exponentOfLedger } from './reconcile.js';

export default command({
  formats: ['table', 'csv', 'json'],
  flags: [
    ACCOUNT_FLAG,
    {
      flags: '--statement-date <YYYY-MM-DD>',
      description:
        "a finished reconciliation's date (default the latest); another date gives a draft",
    },
  ],
  help: `Statement balance, cleared balance and their difference; then book balance = cleared balance
+ outstanding debits + outstanding credits − lines cleared after the statement date, with every line
of each group. Amounts in the account's sign (money in positive for a bank, charges for a card).`,
  examples: ['books report reconciliation --account checking'],
  options: (raw) => ({
    account: accountOf(raw),
    date: dateFlag('--statement-date', str(raw, 'statementDate')),
  }),
  async run(ctx, o) {
    const ledger = await ctx.ledger();
    const r = await ledger.reconcile.report({
      account: o.account,
      ...(o.date ? { statement_date: o.date } : {}),
    });
    if (ctx.json) return ctx.outJson(r);
    const exponent = await exponentOfLedger(ledger, o.account);
    if (ctx.format === 'csv') return ctx.out(reportCsv(r, exponent));
    ctx.out(reportText(r, exponent, o.account));
  },
});
