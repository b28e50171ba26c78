import type { Counterparty } from '../domain/accounts.js';
import type { CounterpartyBalance } from '../domain/aging.js';
import { atomsToDecimal, formatAmount } from '../domain/money.js';
import { csvLine } from './csv.js';
import { counterpartiesCsv } from './journalCsv.js';
import { grid } from './table.js';

const HEAD = ['Type', 'External id', 'Name', 'Active'];
const cells = (c: Counterparty) => [
  c.counterparty_type,
  c.external_id,
  c.name,
  c.is_active ? 'yes' : 'no',
];

/** The counterparties as a table. */
export function counterpartiesTable(list: Counterparty[]): string {
  return grid(HEAD, list.map(cells));
}

/** The counterparties with their balances as a table: amounts right-aligned. */
export function counterpartyBalancesTable(
  list: CounterpartyBalance<Counterparty>[],
  exponent: number,
): string {
  const rows = list.map((c) => [
    ...cells(c),
    formatAmount(c.receivable_balance, exponent),
    formatAmount(c.payable_balance, exponent),
  ]);
  const align = ['left', 'left', 'left', 'left', 'right', 'right'] as const;
  return grid([...HEAD, 'Receivable', 'Payable'], rows, [...align]);
}

/** The counterparties with their balances as the import's CSV and two columns more, in decimals. */
export function counterpartyBalancesCsv(
  list: CounterpartyBalance<Counterparty>[],
  exponent: number,
): string {
  const head = counterpartiesCsv([]).trimEnd() + ',receivable,payable';
  const rows = list.map((c) =>
    csvLine([
      c.counterparty_type,
      c.external_id,
      c.name,
      String(c.is_active),
      atomsToDecimal(c.receivable_balance, exponent),
      atomsToDecimal(c.payable_balance, exponent),
    ]),
  );
  return [head, ...rows].join('\n') + '\n';
}
