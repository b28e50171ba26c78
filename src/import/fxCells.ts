import { readAmount } from '../domain/input.js';
import { currencyExponent, parseDecimal } from '../domain/money.js';
import type { CsvRecord } from './csv.js';
import type { Add } from './entries.js';
import { cell, type Layout } from './layout.js';

/**
 * A row's foreign-currency snapshot (fx_currency, fx_amount in that currency's decimals, fx_rate),
 * or null when it gives none. fx_amount may carry a sign: a minus is read as the line's side where
 * debit and credit are both left blank, and the amount kept is positive.
 */
export function fxOf(
  r: CsvRecord,
  l: Layout,
  add: Add,
): { fx: Record<string, unknown>; negative: boolean } | null {
  const at = l.at;
  const currency = cell(r, at.fx_currency).trim().toUpperCase();
  const amount = cell(r, at.fx_amount).trim();
  const rate = cell(r, at.fx_rate).trim();
  if (!currency && !amount && !rate) return null;
  const exponent = currencyExponent(currency);
  if (exponent === null) {
    add(
      r.row,
      'fx_currency',
      'invalid_currency',
      currency ? `'${currency}' is not an ISO 4217 currency code` : 'fx_currency is blank',
    );
    return null;
  }
  const negative = amount.startsWith('-');
  const text = negative ? amount.slice(1) : amount;
  let atoms = 0;
  // A zero (a revaluation's line, as je list writes it) is read in the currency's decimals, unsigned.
  const zero = parseDecimal(text, exponent);
  if (text === '') add(r.row, 'fx_amount', 'invalid_amount', 'fx_amount is blank');
  else if (zero.ok && zero.atoms === 0n && !negative) atoms = 0;
  else {
    const read = readAmount(text, exponent, currency);
    if (read.ok) atoms = read.value;
    else add(r.row, 'fx_amount', read.reason, `fx_amount ${amount}: ${read.message}`);
  }
  // The sign says the side only where debit and credit are both blank.
  const sided =
    l.form === 'debit/credit' &&
    cell(r, at.debit).trim() === '' &&
    cell(r, at.credit).trim() === '';
  if (negative && !sided)
    add(
      r.row,
      'fx_amount',
      'invalid_amount',
      `fx_amount ${amount} is negative: the side is the line's (a minus says it only where debit and credit are blank)`,
    );
  return { fx: { currency, amount_atoms: atoms, ...(rate ? { rate } : {}) }, negative };
}
