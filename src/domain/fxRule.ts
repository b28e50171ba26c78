import { convert, impliedRate, parseRate, type Rate } from './fx.js';
import { JsonFraction } from './json.js';
import { currencyExponent, formatAmount, MAX_ATOMS } from './money.js';
import { add, at, isObj, type EntryCheck, type LineCheck, type Obj } from './rules.js';

const FX_FIELDS = new Set(['currency', 'amount_atoms', 'rate']);

/** The currency an account is kept in, when it is not the entity's: its lines carry a snapshot. */
export const foreignCurrency = (a: { currency: string | null }, functional: string) =>
  a.currency !== null && a.currency !== functional ? a.currency : null;

/** A snapshot's fields once each is known good. */
interface GoodFx {
  currency: string;
  amount: number;
  rate: Rate | null;
}

const money = (atoms: bigint | number, currency: string) =>
  `${formatAmount(atoms, currencyExponent(currency) ?? 2)} ${currency}`;

/**
 * A line's foreign-currency snapshot (docs/currency.md): required on an account in another currency,
 * refused on one in the functional currency. Its functional amount comes from the rate given, else
 * is the amount given (the rate then the exact ratio), else converts at the rate table's rate for
 * the entry's date. Runs before amountRule, which takes the amount it computed.
 */
export function fxRule(c: EntryCheck, l: LineCheck): void {
  const raw = l.raw.fx;
  const foreign = l.account ? foreignCurrency(l.account, c.currency) : null;
  if (raw === undefined || raw === null) {
    if (!foreign) return;
    const message =
      `GL account '${l.account!.external_id}' is kept in ${foreign}: its line needs an fx snapshot ` +
      `(the ${foreign} amount, and a rate or the ${c.currency} amount)`;
    return refuse(c, at(l, 'fx'), 'fx_missing', message);
  }
  if (l.account && !foreign) {
    const message =
      `GL account '${l.account.external_id}' is kept in ${c.currency}, the functional currency: ` +
      'its line takes no fx snapshot';
    return void add(c, at(l, 'fx'), 'fx_not_allowed', message);
  }
  if (!isObj(raw))
    return refuse(
      c,
      at(l, 'fx'),
      'invalid_type',
      'fx must be an object: {currency, amount_atoms, rate}',
    );
  const fx = goodFx(c, l, raw, foreign);
  if (!fx || !l.account) return void (c.amountsValid = false);
  const given = l.raw.amount_atoms;
  if (fx.rate && fx.amount > 0) return converted(c, l, fx, fx.rate);
  if (given !== undefined) {
    // The amount given stands (amountRule checks it); the rate is what it implies.
    const implied =
      typeof given === 'number' && Number.isSafeInteger(given) && given > 0 && fx.amount > 0
        ? impliedRate(fx.amount, given, fx.currency, c.currency)
        : '0';
    l.fx = { currency: fx.currency, amount_atoms: fx.amount, rate: fx.rate?.text ?? implied };
    return;
  }
  if (fx.amount === 0) {
    const message = 'a line of 0 in its own currency gives its functional amount in amount_atoms';
    return refuse(c, at(l, 'amount_atoms'), 'invalid_amount', message);
  }
  fromTable(c, l, fx);
}

/** The snapshot's fields, each checked; null when one has a problem (said). */
function goodFx(c: EntryCheck, l: LineCheck, raw: Obj, foreign: string | null): GoodFx | null {
  const path = (f: string) => at(l, `fx.${f}`);
  let ok = true;
  const problem = (p: string, reason: string, message: string) => {
    add(c, path(p), reason, message);
    ok = false;
  };
  for (const k in raw) if (!FX_FIELDS.has(k)) problem(k, 'unknown_field', `unknown field '${k}'`);
  const { currency, amount_atoms: amount } = raw;
  if (typeof currency !== 'string' || currencyExponent(currency) === null)
    problem(
      'currency',
      'invalid_currency',
      `'${String(currency)}' is not an ISO 4217 currency code`,
    );
  else if (foreign && currency !== foreign)
    problem(
      'currency',
      'currency_conflict',
      `GL account '${l.account!.external_id}' is kept in ${foreign}, not ${currency}`,
    );
  if (!(typeof amount === 'number' && Number.isSafeInteger(amount) && amount >= 0)) {
    const shown = amount instanceof JsonFraction ? amount.text : JSON.stringify(amount);
    problem(
      'amount_atoms',
      'invalid_amount',
      amount === undefined
        ? 'fx.amount_atoms is required'
        : `fx.amount_atoms must be a whole number of atoms, at least 0, not ${shown}`,
    );
  }
  let rate: Rate | null = null;
  if (raw.rate !== undefined && raw.rate !== null) {
    const r = parseRate(raw.rate);
    if (r.ok) rate = r.rate;
    else problem('rate', 'invalid_rate', r.message);
  }
  return ok ? { currency: currency as string, amount: amount as number, rate } : null;
}

/** The line converted at a rate: its functional amount, checked against one given. */
function converted(c: EntryCheck, l: LineCheck, fx: GoodFx, rate: Rate): void {
  const computed = convert(fx.amount, rate, fx.currency, c.currency);
  const given = l.raw.amount_atoms;
  const what = `${money(fx.amount, fx.currency)} at ${rate.text}`;
  if (typeof given === 'number' && BigInt(given) !== computed) {
    const message =
      `amount_atoms ${given} (${money(given, c.currency)}) is not ${what}, ` +
      `which is ${computed} (${money(computed, c.currency)})`;
    return refuse(c, at(l, 'amount_atoms'), 'fx_mismatch', message);
  }
  if (computed < 1n || computed > BigInt(MAX_ATOMS)) {
    const message = `${what} is ${computed} atoms of ${c.currency}: a line's amount is 1 to ${MAX_ATOMS} atoms`;
    return refuse(c, at(l, 'fx.amount_atoms'), 'invalid_amount', message);
  }
  l.amount = Number(computed);
  l.fx = { currency: fx.currency, amount_atoms: fx.amount, rate: rate.text };
}

/** The line converted at the rate table's rate for the entry's date. */
function fromTable(c: EntryCheck, l: LineCheck, fx: GoodFx): void {
  const date = c.entryDate;
  // A context that cannot see the rates (a check before a remote post) leaves the line to the ledger.
  const text = date === null || !c.ctx.rate ? undefined : c.ctx.rate(fx.currency, date);
  if (text === undefined) {
    if (date !== null && c.ctx.rate) {
      const message =
        `no ${fx.currency} rate on or before ${date}: add one (books rates add), ` +
        `or give the rate or the ${c.currency} amount`;
      add(c, at(l, 'fx.rate'), 'fx_rate_missing', message);
    }
    return void (c.amountsValid = false);
  }
  const r = parseRate(text);
  if (!r.ok) throw new Error(`a stored rate is damaged: ${r.message}`);
  converted(c, l, fx, r.rate);
}

function refuse(c: EntryCheck, path: string, reason: string, message: string): void {
  add(c, path, reason, message);
  c.amountsValid = false;
}
