import type { FlagSpec } from '../cli/command.js';
import type { BalanceSheet, BalanceSheetNode } from '../domain/balanceSheet.js';
import { dayBefore, FIRST_DATE } from '../domain/dates.js';
import type { GlEvent } from '../domain/generalLedger.js';
import { atomsToDecimal, exponentOf, formatAmount, toJsonInteger } from '../domain/money.js';
import type { TrialBalance } from '../domain/trialBalance.js';
import type { ForeignBalance, Ledger } from '../ledger/port.js';
import type { ExtraColumns } from '../render/statements.js';

/**
 * `--show-foreign` (docs/currency.md): beside an account kept in another currency, its balance in that
 * currency, read with books's own API (GET /v1/fx/balances) at each column's date, so that every store
 * and a remote service show the same.
 */
export const SHOW_FOREIGN_FLAG: FlagSpec = {
  flags: '--show-foreign',
  description: 'beside an account kept in another currency, its balance in that currency',
};

type ByAccount = Map<string, ForeignBalance>;

/** The foreign balances at each date, by account id. */
export async function foreignAt(
  ledger: Ledger,
  dates: string[],
  counterparty?: string,
): Promise<Map<string, ByAccount>> {
  const list = await ledger.fx.balances({
    as_of: [...new Set(dates)].join(','),
    ...(counterparty ? { counterparty } : {}),
  });
  return new Map(
    list.data.map((d) => [d.as_of, new Map(d.accounts.map((b) => [b.account_id, b]))]),
  );
}

const plain = (b: ForeignBalance, atoms: boolean) =>
  atoms
    ? String(b.foreign_balance_atoms)
    : atomsToDecimal(b.foreign_balance_atoms, exponentOf(b.foreign_currency));
const printed = (b: ForeignBalance) =>
  `${b.foreign_currency} ${formatAmount(b.foreign_balance_atoms, exponentOf(b.foreign_currency))}`;

/** The trial balance with each foreign account's `foreign_currency` and `foreign_balance_atoms`. */
export function trialBalanceForeign(tb: TrialBalance, at: ByAccount) {
  const rows = tb.rows.map((r) => {
    const b = r.account_id ? at.get(r.account_id) : undefined;
    return b
      ? {
          ...r,
          foreign_currency: b.foreign_currency,
          foreign_balance_atoms: b.foreign_balance_atoms,
        }
      : r;
  });
  const extra = (atoms: boolean): ExtraColumns => ({
    head: ['foreign_currency', 'foreign_balance'],
    cells: (id) => {
      const b = id ? at.get(id) : undefined;
      return b ? [b.foreign_currency, plain(b, atoms)] : ['', ''];
    },
  });
  // A table names the foreign balance beside the account.
  const table = {
    ...tb,
    rows: tb.rows.map((r) => {
      const b = r.account_id ? at.get(r.account_id) : undefined;
      return b ? { ...r, name: `${r.name} (${printed(b)})` } : r;
    }),
  };
  return { json: { ...tb, rows }, extra, table };
}

/** The balance sheet with each foreign account's currency and its balance at each period's end. */
export function balanceSheetForeign(sheet: BalanceSheet, at: Map<string, ByAccount>) {
  const ends = sheet.periods.map((p) => [p.id, p.end_date] as const);
  const last = ends.at(-1);
  const walk = (n: BalanceSheetNode, name: boolean): BalanceSheetNode => {
    const children = n.children.map((c) => walk(c, name));
    const id = n.account_id;
    const first = id ? ends.map(([, d]) => at.get(d)?.get(id)).find((b) => b) : undefined;
    if (!first || !id) return { ...n, children };
    if (name) {
      const b = last ? at.get(last[1])?.get(id) : undefined;
      return { ...n, children, name: b ? `${n.name} (${printed(b)})` : n.name };
    }
    const balances = Object.fromEntries(
      ends.map(([p, d]) => [p, at.get(d)?.get(id)?.foreign_balance_atoms ?? 0]),
    );
    return {
      ...n,
      children,
      foreign_currency: first.foreign_currency,
      foreign_balance_atoms: balances,
    } as BalanceSheetNode;
  };
  const mapped = (name: boolean): BalanceSheet => ({
    ...sheet,
    sections: sheet.sections.map((s) => ({ ...s, children: s.children.map((c) => walk(c, name)) })),
  });
  const extra = (atoms: boolean): ExtraColumns => ({
    head: ['foreign_currency', ...ends.map(([p]) => `foreign_${p}`)],
    cells: (id) => {
      const bs = ends.map(([, d]) => (id ? at.get(d)?.get(id) : undefined));
      const any = bs.find((b) => b);
      if (!any) return ['', ...ends.map(() => '')];
      return [
        any.foreign_currency,
        ...bs.map((b) =>
          b ? plain(b, atoms) : atoms ? '0' : atomsToDecimal(0, exponentOf(any.foreign_currency)),
        ),
      ];
    },
  });
  return { json: mapped(false), table: mapped(true), extra };
}

/**
 * The general ledger's events with, on each account kept in another currency, its balance in that
 * currency before the window, after each line (from the line's own amount) and at the end.
 */
export async function foreignEvents(
  ledger: Ledger,
  start: string,
  events: AsyncIterable<GlEvent>,
  /** TYPE:ID of a general ledger filtered by counterparty: its opening in the foreign currency too. */
  counterparty?: string,
): Promise<AsyncIterable<GlEvent>> {
  const functional = (await ledger.entity.get()).currency;
  const kept = new Map(
    (await ledger.chart.accounts())
      .filter((a) => a.currency !== null && a.currency !== functional)
      .map((a) => [a.id, a.currency!]),
  );
  const before =
    start <= FIRST_DATE
      ? new Map<string, ForeignBalance>()
      : (await foreignAt(ledger, [dayBefore(start)], counterparty)).get(dayBefore(start))!;
  return {
    async *[Symbol.asyncIterator]() {
      let running: bigint | null = null;
      for await (const e of events) {
        if (e.kind === 'account') {
          const currency = e.account.account_id ? kept.get(e.account.account_id) : undefined;
          running =
            currency === undefined
              ? null
              : BigInt(before.get(e.account.account_id!)?.foreign_balance_atoms ?? 0);
          yield currency === undefined
            ? e
            : {
                ...e,
                account: {
                  ...e.account,
                  foreign_currency: currency,
                  foreign_opening_atoms: toJsonInteger(running!),
                },
              };
        } else if (e.kind === 'line') {
          if (running === null) yield e;
          else {
            const fx = BigInt(e.line.fx?.amount_atoms ?? 0);
            running += e.line.debit !== null ? fx : -fx;
            yield { ...e, line: { ...e.line, foreign_balance_atoms: toJsonInteger(running) } };
          }
        } else yield running === null ? e : { ...e, foreign_closing_atoms: toJsonInteger(running) };
      }
    },
  };
}
