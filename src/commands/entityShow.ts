import { command } from '../cli/command.js';
import { printedDate } from '../render/statementTable.js';
import { cell } from '../render/text.js';

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

export default command({
  formats: ['table', 'json'],
  help: `What the books are kept for and how far they are closed: the lock date is the last day of the
closed period (books close --through), before which nothing may be posted or reversed.`,
  examples: ['books entity show', 'books entity show --format json'],
  options: () => ({}),
  async run(ctx) {
    const e = await (await ctx.ledger()).entity.record();
    if (ctx.json) return ctx.outJson(e);
    const rows: [string, string][] = [
      ['Name', cell(e.name)],
      ['Currency', e.currency],
      ['Fiscal year starts', MONTHS[e.fiscal_year_start_month - 1]!],
      [
        'First Month of Books',
        e.books_start ? e.books_start.slice(0, 7) : 'not applied (nothing can post)',
      ],
      ['Closed through', e.lock_date ? printedDate(e.lock_date) : 'not closed'],
      ['Accounts', String(e.account_count)],
      ['Entries', String(e.entry_count)],
    ];
    ctx.out(rows.map(([k, v]) => `${k.padEnd(22)}${v}`).join('\n'));
  },
});
