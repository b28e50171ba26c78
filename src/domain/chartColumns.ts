import { ACCOUNT_TYPES, CASH_FLOW_KINDS, isAccountType, type CashFlowKind } from './accounts.js';

/** Reads a CSV boolean cell (`true/false`, `yes/no`, `1/0`, blank = fallback). */
export function parseBool(v: string | undefined, fallback: boolean): boolean | null {
  const t = (v ?? '').trim().toLowerCase();
  if (t === '') return fallback;
  if (['true', 'yes', 'y', '1'].includes(t)) return true;
  if (['false', 'no', 'n', '0'].includes(t)) return false;
  return null;
}

/**
 * The columns that say how reports treat an account (both optional, blank: as its type says):
 * `monetary` on other current and other assets only, `cash_flow` on balance-sheet accounts only.
 */
export function reportingColumns(
  v: Record<string, string>,
  type: string,
  bad: (column: string, reason: string, message: string) => void,
): { monetary: boolean | null; cash_flow: CashFlowKind | null } {
  const monetary = (v.monetary ?? '').trim() === '' ? null : parseBool(v.monetary, false);
  const other = type === 'other_current_asset' || type === 'other_asset';
  if (monetary === null && (v.monetary ?? '').trim() !== '')
    bad('monetary', 'invalid_monetary', `'${v.monetary}' is not true, false or blank`);
  else if (monetary !== null && !other)
    bad(
      'monetary',
      'invalid_monetary',
      'is set only on other_current_asset and other_asset accounts',
    );
  const cashFlow = (v.cash_flow ?? '').trim().toLowerCase();
  const kinds = CASH_FLOW_KINDS.join(', ');
  if (cashFlow && !CASH_FLOW_KINDS.includes(cashFlow as CashFlowKind))
    bad('cash_flow', 'invalid_cash_flow', `'${v.cash_flow}' is not ${kinds} or blank`);
  else if (cashFlow && isAccountType(type) && ACCOUNT_TYPES[type].section === 'profit_and_loss')
    bad(
      'cash_flow',
      'invalid_cash_flow',
      'is for balance-sheet accounts; income and expenses make Net Income',
    );
  else if (cashFlow && cashFlow !== 'cash' && type === 'bank')
    bad(
      'cash_flow',
      'invalid_cash_flow',
      'a bank account is cash; cash_flow on it is cash or blank',
    );
  return { monetary, cash_flow: (cashFlow || null) as CashFlowKind | null };
}
