import { ACCOUNT_TYPES, type GlAccount } from './accounts.js';
import { closeMatches, describeAccount } from './input.js';

/** Words a path may start with that name a section rather than an account (`Expenses:Rent`). */
const TOP_WORDS = new Set([
  'assets',
  'liabilities',
  'equity',
  'income',
  'revenue',
  'revenues',
  'expenses',
  'cost of goods sold',
]);

/** Accounts by external id, number, name, or path of names from the root (a section word may lead). */
export class AccountMatcher {
  /** By external id, number or name; and, apart, by path of names from the root. */
  private readonly byKey = new Map<string, GlAccount[]>();
  private readonly byPath = new Map<string, GlAccount[]>();

  constructor(private readonly chart: GlAccount[]) {
    const byId = new Map(chart.map((a) => [a.id, a]));
    const path = (a: GlAccount): string => {
      const parent = a.parent_id ? byId.get(a.parent_id) : undefined;
      return parent ? `${path(parent)}:${a.name}` : a.name;
    };
    const put = (map: Map<string, GlAccount[]>, k: string, a: GlAccount) => {
      if (k && !map.get(k)?.includes(a)) map.set(k, [...(map.get(k) ?? []), a]);
    };
    for (const a of chart) {
      for (const k of [a.external_id, a.account_number ?? '', a.name]) put(this.byKey, norm(k), a);
      put(this.byPath, norm(path(a)), a);
    }
  }

  /** Answers by the cell as written: a file names few accounts many times. */
  private readonly seen = new Map<string, ReturnType<AccountMatcher['match']>>();

  find(ref: string): ReturnType<AccountMatcher['match']> {
    let found = this.seen.get(ref);
    if (found === undefined) {
      found = this.match(ref);
      if (this.seen.size < 100_000) this.seen.set(ref, found);
    }
    return found;
  }

  /**
   * Every account a reference names (none, one, or several when it is ambiguous). A cell with `:` is
   * a path from the root, which a section word may lead (`Expenses:Rent`) if the account is in that
   * section; without `:` it is an external id, a number or a name.
   */
  hits(ref: string): GlAccount[] {
    const key = norm(ref);
    let hits = this.byKey.get(key) ?? this.byPath.get(key);
    const [top, ...rest] = key.split(':');
    if (!hits && rest.length && TOP_WORDS.has(top!))
      hits = this.byPath.get(rest.join(':'))?.filter((a) => inSection(top!, a.account_type));
    return hits ?? [];
  }

  private match(ref: string): { account: GlAccount } | { reason: string; message: string } {
    const hits = this.hits(ref);
    if (hits.length === 1) return { account: hits[0]! };
    if (hits.length > 1)
      return {
        reason: 'ambiguous_account',
        message: `'${ref}' names ${hits.map(describeAccount).join(' and ')}; name it by number or path`,
      };
    const near = closeMatches(ref.split(':').pop()!.trim(), this.chart);
    const hint = near.length ? `; did you mean ${near.map(describeAccount).join(', ')}?` : '';
    return {
      reason: 'unknown_account',
      message: `no account '${ref}' by id, number, name or path${hint}`,
    };
  }
}

/** True when a path's leading section word (`Expenses`) names the section an account type is in. */
function inSection(word: string, type: GlAccount['account_type']): boolean {
  const section = ACCOUNT_TYPES[type].section;
  if (word === 'assets' || word === 'liabilities' || word === 'equity') return section === word;
  if (word === 'cost of goods sold') return type === 'cost_of_goods_sold';
  if (word === 'expenses') return ['expense', 'other_expense', 'cost_of_goods_sold'].includes(type);
  return type === 'income' || type === 'other_income';
}

const norm = (s: string) =>
  s
    .split(':')
    .map((p) => p.trim().replace(/\s+/g, ' '))
    .join(':')
    .toLowerCase();
