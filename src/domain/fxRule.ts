import { fxAccountsOf } from './accounts.js';
import { convert, impliedRate, parseRate, rateOf, shownValue, type Rate } from './fx.js';
import { currencyExponent, formatAmount, MAX_ATOMS } from './money.js';
import { add, at, isObj, type EntryCheck, type LineCheck, type Obj } from './rules.js';
import { OpenItems } from './settlement.js';

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
  if (fx.rate && fx.amount === 0) {
    // 0 at any rate is 0: a functional amount beside it is not what the rate makes of it.
    const message =
      `0 ${fx.currency} at ${fx.rate.text} is 0 ${c.currency}, not amount_atoms ${shownValue(given)}; ` +
      'a line of no foreign amount takes no rate';
    return refuse(c, at(l, 'amount_atoms'), 'fx_mismatch', message);
  }
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
  const book = openItemsOf(c, l);
  const signed = (l.lineType === 'credit' ? -1n : 1n) * BigInt(fx.amount);
  if (book?.reduces(signed)) return settled(c, l, fx, book, signed);
  fromTable(c, l, fx);
  if (book && l.fx) book.apply(signed, (signed < 0n ? -1n : 1n) * BigInt(l.amount!));
}

/**
 * The open items a line of a foreign receivable or payable with its counterparty settles, read once
 * per entry (a second line of the entry sees what the first settled); null for any other line.
 */
function openItemsOf(c: EntryCheck, l: LineCheck): OpenItems | null {
  const a = l.account;
  if (!a || (a.account_type !== 'accounts_receivable' && a.account_type !== 'accounts_payable'))
    return null;
  const { gl_account_id: ref, counterparty_type: type, counterparty_external_id: id } = l.raw;
  const date = c.entryDate;
  if (typeof type !== 'string' || typeof id !== 'string' || date === null || !c.ctx.fxHistory)
    return null;
  const key = `${a.key}\u0000${type}\u0000${id}`;
  let book = c.openItems.get(key);
  if (!book) {
    const history = c.ctx.fxHistory(ref as string, type, id, date);
    if (!history) return null;
    c.openItems.set(key, (book = OpenItems.of(history)));
  }
  return book;
}

/**
 * A settlement: valued at the carrying rates of the items it settles, oldest first, and what it pays
 * beyond them at the table's rate. The entry's realised gain or loss is added by realizedRule.
 */
function settled(c: EntryCheck, l: LineCheck, fx: GoodFx, book: OpenItems, signed: bigint): void {
  const { carrying, uncovered } = book.settle(signed);
  let functional = carrying < 0n ? -carrying : carrying;
  if (uncovered !== 0n) {
    const text = c.ctx.rate?.(fx.currency, c.entryDate!);
    if (text === undefined) {
      const message =
        `the payment is more than the open items; no ${fx.currency} rate on or before ` +
        `${c.entryDate} for the rest: add one (books rates add), or give the rate`;
      return refuse(c, at(l, 'fx.rate'), 'fx_rate_missing', message);
    }
    const rest = uncovered < 0n ? -uncovered : uncovered;
    functional += convert(rest, rateOf(text), fx.currency, c.currency);
    book.items.push({
      foreign: uncovered,
      functional:
        (uncovered < 0n ? -1n : 1n) * convert(rest, rateOf(text), fx.currency, c.currency),
    });
  }
  if (functional < 1n || functional > BigInt(MAX_ATOMS)) {
    const message =
      `${money(fx.amount, fx.currency)} settles ${functional} atoms of ${c.currency}: ` +
      `a line's amount is 1 to ${MAX_ATOMS} atoms`;
    return refuse(c, at(l, 'fx.amount_atoms'), 'invalid_amount', message);
  }
  l.amount = Number(functional);
  l.fx = {
    currency: fx.currency,
    amount_atoms: fx.amount,
    rate: impliedRate(fx.amount, l.amount, fx.currency, c.currency),
  };
  c.settlements.push(l);
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
    const big = typeof amount === 'bigint' || (typeof amount === 'number' && amount > MAX_ATOMS);
    problem(
      'amount_atoms',
      'invalid_amount',
      amount === undefined
        ? 'fx.amount_atoms is required'
        : big && (amount as number | bigint) > 0
          ? `fx.amount_atoms ${shownValue(amount)} exceeds ${MAX_ATOMS}`
          : `fx.amount_atoms must be a whole number of atoms, at least 0, not ${shownValue(amount)}`,
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
  converted(c, l, fx, rateOf(text));
}

function refuse(c: EntryCheck, path: string, reason: string, message: string): void {
  add(c, path, reason, message);
  c.amountsValid = false;
}

/**
 * A settlement's realised exchange gain or loss (docs/currency.md): the entry's functional
 * difference that valuing its settlements at their carrying rates leaves, on a line of the entity's
 * realised gain/loss account marked `system: fx_realized`. Where the entry converts the same currency
 * at a rate of its own (the bank's line), the difference must be what that rate makes of the
 * settlements, give or take an atom a settlement (and one for that line); an imbalance with another
 * cause is still unbalanced.
 */
export function realizedRule(c: EntryCheck): void {
  if (!c.settlements.length || !c.amountsValid || c.problems.length) return;
  const diff = BigInt(c.debits) - BigInt(c.credits);
  if (diff === 0n) return;
  const reference = expectedGain(c);
  if (
    reference &&
    (diff - reference.gain > reference.within || reference.gain - diff > reference.within)
  ) {
    const money = (n: bigint) => formatAmount(n, c.exponent);
    const message =
      `entry is not balanced: debits ${money(BigInt(c.debits))} ≠ credits ${money(BigInt(c.credits))}, ` +
      `and the settlement's exchange difference at ${reference.of} is ${money(reference.gain)}`;
    // Said here, with what the settlement explains; the balance rule need not say it again.
    c.amountsValid = false;
    return void add(c, 'lines', 'unbalanced', message);
  }
  const ref = fxAccountsOf(c.ctx.entity).realized;
  const account = c.ctx.account(ref);
  if (
    !account ||
    !account.is_active ||
    !account.is_postable ||
    foreignCurrency(account, c.currency)
  ) {
    const message =
      `the realised exchange gain/loss account '${ref}' is not an active, postable account in ` +
      `${c.currency}: set one with books entity set --fx-realized ACCOUNT`;
    return void add(c, 'lines', 'fx_account_missing', message);
  }
  const amount = Number(diff < 0n ? -diff : diff);
  const line_type = diff > 0n ? 'credit' : 'debit';
  if (line_type === 'credit') c.credits += amount;
  else c.debits += amount;
  c.signed.push(line_type === 'debit' ? amount : -amount);
  const system = 'fx_realized' as const;
  c.lines.push({
    account,
    line_type,
    amount_atoms: amount,
    memo: null,
    counterparty: null,
    fx: null,
    system,
  });
}

/**
 * What the settlements' difference should be, and how far off it may be: at the entry's own rate for
 * their currency (the bank's line), give or take an atom a settlement and one for that line; with no
 * such line (paid into an account in the functional currency), at the rate table's rate for the
 * date, within 5% of what that makes of them (a bank's spread, a day's move), so that a mistyped
 * amount is not booked as a gain. Null where neither rate is known.
 */
function expectedGain(c: EntryCheck): { gain: bigint; within: bigint; of: string } | null {
  let [gain, value, table] = [0n, 0n, false];
  for (const l of c.settlements) {
    const fx = l.fx!;
    const own = c.lines.find(
      (x) =>
        x.fx &&
        x.fx.currency === fx.currency &&
        !c.settlements.some((s) => s.fx === x.fx) &&
        x.fx.amount_atoms > 0,
    );
    const text = own ? own.fx!.rate : c.ctx.rate?.(fx.currency, c.entryDate!);
    const r = text === undefined ? null : parseRate(text);
    if (!r?.ok) return null;
    table ||= !own;
    const worth = convert(fx.amount_atoms, r.rate, fx.currency, c.currency);
    value += worth;
    const delta = worth - BigInt(l.amount!);
    gain += l.lineType === 'credit' ? delta : -delta;
  }
  const atoms = BigInt(c.settlements.length + 1);
  return table
    ? { gain, within: atoms + value / 20n, of: "the rate table's rate (within 5%)" }
    : { gain, within: atoms, of: "the entry's own rate" };
}
