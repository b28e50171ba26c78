import type { JournalEntry } from '../../src/domain/entry.js';

/**
 * The test's own aging, from the journal as `je list` gives it: for each counterparty and account, in
 * date then JE-number order, invoices are a queue of open amounts; a payment takes from the front of
 * the queue, and what is left of it waits as a credit that the next invoices take first. Each open
 * amount is aged by the days from its entry date (plus the due days) to the date asked for.
 */
export function fifoAging(
  entries: JournalEntry[],
  q: { type: 'receivable' | 'payable'; asOf: string; limits: number[]; dueDays: number | null },
): Record<string, { amounts: Record<string, number>; unapplied: number; total: number }> {
  const accountType = q.type === 'receivable' ? 'accounts_receivable' : 'accounts_payable';
  const increase = q.type === 'receivable' ? 'debit' : 'credit';
  const lines = entries
    .filter((e) => e.entry_date <= q.asOf)
    .sort((a, b) => a.entry_date.localeCompare(b.entry_date) || jeOrder(a.je_number, b.je_number))
    .flatMap((e) =>
      e.lines
        .filter((l) => l.account_type === accountType)
        .map((l) => ({ ...l, date: e.entry_date })),
    );
  const groups = new Map<string, { open: { date: string; left: number }[]; credit: number }>();
  for (const l of lines) {
    const key = `${l.counterparty_external_id}|${l.account_id}`;
    const g = groups.get(key) ?? { open: [], credit: 0 };
    groups.set(key, g);
    let amount = l.amount_atoms;
    if (l.line_type === increase) {
      const taken = Math.min(g.credit, amount);
      g.credit -= taken;
      amount -= taken;
      if (amount > 0) g.open.push({ date: l.date, left: amount });
    } else {
      while (amount > 0 && g.open.length) {
        const take = Math.min(g.open[0]!.left, amount);
        g.open[0]!.left -= take;
        amount -= take;
        if (g.open[0]!.left === 0) g.open.shift();
      }
      g.credit += amount;
    }
  }
  const ids = bucketIds(q.limits, q.dueDays !== null);
  const out: Record<string, { amounts: Record<string, number>; unapplied: number; total: number }> =
    {};
  for (const [key, g] of groups) {
    if (!g.open.length && g.credit === 0) continue;
    const cp = key.split('|')[0]!;
    const row = (out[cp] ??= {
      amounts: Object.fromEntries(ids.map((id) => [id, 0])),
      unapplied: 0,
      total: 0,
    });
    for (const o of g.open) {
      const days = daysBetween(o.date, q.asOf) - (q.dueDays ?? 0);
      row.amounts[bucketOf(days, q.limits, q.dueDays !== null)]! += o.left;
      row.total += o.left;
    }
    row.unapplied -= g.credit;
    row.total -= g.credit;
  }
  return out;
}

const jeOrder = (a: string, b: string) =>
  Number(a.replace(/\D/g, '')) - Number(b.replace(/\D/g, '')) || a.localeCompare(b);

const daysBetween = (from: string, to: string) =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);

function bucketIds(limits: number[], due: boolean): string[] {
  const ids = due ? ['current'] : [];
  let from = due ? 1 : 0;
  for (const l of limits) {
    ids.push(`${from}-${l}`);
    from = l + 1;
  }
  return [...ids, `${from}+`];
}

function bucketOf(days: number, limits: number[], due: boolean): string {
  if (due && days <= 0) return 'current';
  let from = due ? 1 : 0;
  for (const l of limits) {
    if (days <= l) return `${from}-${l}`;
    from = l + 1;
  }
  return `${from}+`;
}
