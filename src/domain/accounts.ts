export type Section = 'assets' | 'liabilities' | 'equity' | 'profit_and_loss';

/** Every GL account type, with its balance-sheet section and type-group name, in report order. */
export const ACCOUNT_TYPES = {
  bank: { section: 'assets', group: 'Bank' },
  accounts_receivable: { section: 'assets', group: 'Accounts Receivable' },
  other_current_asset: { section: 'assets', group: 'Other Current Assets' },
  fixed_asset: { section: 'assets', group: 'Fixed Assets' },
  other_asset: { section: 'assets', group: 'Other Assets' },
  accounts_payable: { section: 'liabilities', group: 'Accounts Payable' },
  credit_card: { section: 'liabilities', group: 'Credit Cards' },
  other_current_liability: { section: 'liabilities', group: 'Other Current Liabilities' },
  long_term_liability: { section: 'liabilities', group: 'Long-Term Liabilities' },
  equity: { section: 'equity', group: 'Equity' },
  income: { section: 'profit_and_loss', group: 'Income' },
  other_income: { section: 'profit_and_loss', group: 'Other Income' },
  cost_of_goods_sold: { section: 'profit_and_loss', group: 'Cost of Goods Sold' },
  expense: { section: 'profit_and_loss', group: 'Expenses' },
  other_expense: { section: 'profit_and_loss', group: 'Other Expenses' },
} as const satisfies Record<string, { section: Section; group: string }>;

export type AccountType = keyof typeof ACCOUNT_TYPES;

/** Where a balance-sheet account's change goes in the cash-flow statement (the chart's `cash_flow`). */
export type CashFlowKind = 'operating' | 'investing' | 'financing' | 'cash';
export const CASH_FLOW_KINDS: readonly CashFlowKind[] = [
  'operating',
  'investing',
  'financing',
  'cash',
];

/** True for a known account type name. */
export function isAccountType(s: string): s is AccountType {
  return Object.prototype.hasOwnProperty.call(ACCOUNT_TYPES, s);
}

export const COUNTERPARTY_TYPES = ['customer', 'vendor', 'employee'] as const;
export type CounterpartyType = (typeof COUNTERPARTY_TYPES)[number];

/** The counterparty type an account type demands on its lines, if any. */
export function requiredCounterpartyType(t: AccountType): CounterpartyType | null {
  return t === 'accounts_receivable' ? 'customer' : t === 'accounts_payable' ? 'vendor' : null;
}

/** A GL account as `GET /v1/gl-accounts` publishes it. */
export interface GlAccount {
  id: string;
  object: 'gl_account';
  external_id: string;
  account_number: string | null;
  name: string;
  account_type: AccountType;
  parent_id: string | null;
  is_postable: boolean;
  is_active: boolean;
  account_kind: 'regular';
  currency: string | null;
  /** Set by the chart: whether a foreign account is revalued (absent: as its type says). */
  monetary?: boolean;
  /** Set by the chart: the account's cash-flow section (absent: as its type says). */
  cash_flow?: CashFlowKind;
  created_at: string;
  updated_at: string;
}

/** An account as the API answers for it (its fields in the API's order), from its stored fields. */
export function glAccountOf(
  r: Omit<GlAccount, 'object' | 'account_kind' | 'monetary' | 'cash_flow'> & {
    monetary?: boolean | null;
    cash_flow?: CashFlowKind | null;
  },
): GlAccount {
  return {
    id: r.id,
    object: 'gl_account',
    external_id: r.external_id,
    account_number: r.account_number,
    name: r.name,
    account_type: r.account_type,
    parent_id: r.parent_id,
    is_postable: r.is_postable,
    is_active: r.is_active,
    account_kind: 'regular',
    currency: r.currency,
    ...(r.monetary !== undefined && r.monetary !== null ? { monetary: r.monetary } : {}),
    ...(r.cash_flow ? { cash_flow: r.cash_flow } : {}),
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

export interface Counterparty {
  id: string;
  object: 'counterparty';
  counterparty_type: string;
  external_id: string;
  name: string;
  is_active: boolean;
  created_at: string;
  updated_at: string;
}

/** The entity a ledger belongs to. */
export interface Entity {
  id: string;
  name: string;
  currency: string;
  /** First day of the First Month of Books (YYYY-MM-01), or null when none is applied. */
  books_start: string | null;
  fiscal_year_start_month: number;
  /** Posts dated on or before this date are refused (month-end close). */
  lock_date: string | null;
  /**
   * The realised and unrealised exchange gain/loss accounts (external ids), when set; otherwise the
   * standard chart's `fx-realized` and `fx-unrealized` (docs/currency.md).
   */
  fx_realized?: string | null;
  fx_unrealized?: string | null;
}

/** The entity's exchange gain/loss accounts: its own, or the standard chart's. */
export const fxAccountsOf = (e: Pick<Entity, 'fx_realized' | 'fx_unrealized'>) => ({
  realized: e.fx_realized ?? 'fx-realized',
  unrealized: e.fx_unrealized ?? 'fx-unrealized',
});

/** The entity as `books entity show` and `GET /v1/entity` give it: its settings and what it holds. */
export interface EntityRecord extends Entity {
  object: 'entity';
  account_count: number;
  entry_count: number;
}

/** The entity without the settings it never set (null): an answer names only those it has. */
export function withoutUnset<
  T extends { fx_realized?: string | null; fx_unrealized?: string | null },
>(
  e: T,
): Omit<T, 'fx_realized' | 'fx_unrealized'> & { fx_realized?: string; fx_unrealized?: string } {
  const { fx_realized, fx_unrealized, ...rest } = e;
  return {
    ...rest,
    ...(fx_realized != null ? { fx_realized } : {}),
    ...(fx_unrealized != null ? { fx_unrealized } : {}),
  };
}
