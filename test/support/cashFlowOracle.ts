import type { GlAccount } from '../../src/domain/accounts.js';
import type { JournalEntry } from '../../src/domain/entry.js';
import type { Period } from '../../src/domain/periods.js';

/**
 * The cash-flow statement's sections computed here from the journal's entries, line by line, as a
 * bookkeeper would on paper: no derived totals, no code of the report. The section of each type is
 * written out again on purpose.
 */
const SECTION: Record<string, string | null> = {
  bank: 'cash',
  accounts_receivable: 'operating',
  other_current_asset: 'operating',
  accounts_payable: 'operating',
  credit_card: 'operating',
  other_current_liability: 'operating',
  fixed_asset: 'investing',
  other_asset: 'investing',
  long_term_liability: 'financing',
  equity: 'financing',
};

export interface OracleSections {
  /** By section, by account id, by period id: the account's effect on cash (present where it had a line). */
  rows: Record<string, Record<string, Record<string, bigint>>>;
  netIncome: Record<string, bigint>;
  cashAtEnd: Record<string, bigint>;
  cashAtStart: Record<string, bigint>;
}

export function oracleCashFlow(
  entries: JournalEntry[],
  accounts: GlAccount[],
  periods: Period[],
): OracleSections {
  const byId = new Map(accounts.map((a) => [a.id, a]));
  const sectionOf = (id: string) => {
    const a = byId.get(id)!;
    return a.account_type in SECTION ? (a.cash_flow ?? SECTION[a.account_type]!) : 'pl';
  };
  const out: OracleSections = { rows: {}, netIncome: {}, cashAtEnd: {}, cashAtStart: {} };
  for (const p of periods) {
    out.netIncome[p.id] = 0n;
    out.cashAtEnd[p.id] = 0n;
    out.cashAtStart[p.id] = 0n;
  }
  for (const e of entries)
    for (const l of e.lines) {
      const net = BigInt(l.amount_atoms) * (l.line_type === 'debit' ? 1n : -1n);
      const section = sectionOf(l.account_id);
      for (const p of periods) {
        if (section === 'cash') {
          if (e.entry_date <= p.end_date) out.cashAtEnd[p.id]! += net;
          if (e.entry_date < p.start_date) out.cashAtStart[p.id]! += net;
        }
        if (e.entry_date < p.start_date || e.entry_date > p.end_date) continue;
        if (section === 'pl') out.netIncome[p.id]! -= net;
        else if (section !== 'cash') {
          const rows = (out.rows[section] ??= {});
          const cells = (rows[l.account_id] ??= {});
          cells[p.id] = (cells[p.id] ?? 0n) - net;
        }
      }
    }
  return out;
}
