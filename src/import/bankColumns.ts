/**
 * What a bank CSV's columns hold, by their names as banks write them: in English and the languages
 * banks use (German, French, Spanish, Dutch), matched without case, spaces, punctuation or accents.
 * `--map SOURCE=TARGET` names a column's role where its name is none of these (or a number, with
 * `--no-header`), and `-` leaves a column out.
 */

import type { Target } from '../domain/statementLayout.js';
export { TARGETS, type Target } from '../domain/statementLayout.js';

/** A header or `--map` source as matched: lower case, letters and digits only, no accents. */
export function nameKey(name: string): string {
  return name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/ß/g, 'ss')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
}

/**
 * Names by role, as `nameKey` writes them. Dates come in three kinds, taken in this order: the date
 * the bank booked the line (which decides the statement a line is on), a date of the line as such,
 * and the date of the purchase (a card's transaction date, used only when there is no other).
 */
const NAMES: Record<string, readonly string[]> = {
  posting: [
    'postingdate',
    'posteddate',
    'postdate',
    'posted',
    'buchungstag',
    'buchungsdatum',
    'buchung',
    'boekdatum',
    'boekingsdatum',
    'journaaldatum',
    'datecomptable',
    'datedecomptabilisation',
    'fechacontable',
    'fechacontabilizacion',
  ],
  date: ['date', 'datum', 'fecha', 'datumbuchung', 'dateoperation', 'fechaoperacion', 'day'],
  txdate: [
    'transactiondate',
    'transactiedatum',
    'transaktionsdatum',
    'datetransaction',
    'tradedate',
  ],
  amount: [
    'amount',
    'betrag',
    'betrageur',
    'umsatz',
    'montant',
    'montanteur',
    'importe',
    'bedrag',
    'bedrageur',
    'transactiebedrag',
    'net',
    'netto',
    'amountusd',
    'amountgbp',
    'amounteur',
  ],
  deposit: [
    'deposit',
    'deposits',
    'moneyin',
    'credit',
    'credits',
    'paidin',
    'creditamount',
    'haben',
    'gutschrift',
    'credito',
    'abono',
    'ingreso',
    'ingresos',
    'bij',
    'creditbedrag',
  ],
  withdrawal: [
    'withdrawal',
    'withdrawals',
    'moneyout',
    'debit',
    'debits',
    'paidout',
    'debitamount',
    'soll',
    'lastschrift',
    'debito',
    'cargo',
    'gasto',
    'gastos',
    'af',
    'debetbedrag',
  ],
  direction: [
    'transactiontype',
    'afbij',
    'creditdebet',
    'creditdebit',
    'debitcredit',
    'sollhaben',
    'direction',
    'drcr',
    'crdr',
    'details',
    'debetcredit',
  ],
  description: [
    'description',
    'payee',
    'name',
    'memo',
    'note',
    'notes',
    'details',
    'remarque',
    'libelle',
    'libelleoperation',
    'concepto',
    'omschrijving',
    'naamomschrijving',
    'mededelingen',
    'verwendungszweck',
    'buchungstext',
    'auftraggeberempfanger',
    'empfanger',
    'zahlungsempfangerin',
    'zahlungspflichtiger',
    'zahlungspflichtigerin',
    'tegenrekeninghouder',
    'originaldescription',
    'transactiondescription',
    'namezahlungsbeteiligter',
    'beguenstigterzahlungspflichtiger',
    'beguenstigterzahlungspflichtiger',
    'itemtitle',
    'umsatzart',
    'nametegenrekening',
    'merchant',
  ],
  reference: [
    'reference',
    'ref',
    'checknumber',
    'chequenumber',
    'check',
    'checkno',
    'checkorslip',
    'referenz',
    'referentie',
    'betalingskenmerk',
    'kundenreferenz',
    'referencia',
    'numerodecheque',
  ],
  id: ['id', 'fitid', 'transactionid', 'transaktionscode', 'transactionreference'],
  balance: [
    'balance',
    'runningbalance',
    'saldo',
    'saldonachbuchung',
    'solde',
    'saldonamutatie',
    'kontostand',
    'guthaben',
    'soldeapresoperation',
    'balanceafter',
  ],
  currency: ['currency', 'wahrung', 'waehrung', 'devise', 'moneda', 'valutacode', 'valutasoort'],
};

/** Words a direction column holds, and whether each is money out. */
const DIRECTIONS: Record<string, boolean> = {
  debit: true,
  debet: true,
  dr: true,
  d: true,
  s: true,
  soll: true,
  af: true,
  withdrawal: true,
  out: true,
  credit: false,
  cr: false,
  c: false,
  h: false,
  haben: false,
  bij: false,
  deposit: false,
  in: false,
};

/** A direction cell as money out (true), money in (false), or null for a word that is none. */
export function directionOf(cell: string): boolean | null {
  const v = DIRECTIONS[nameKey(cell)];
  return v === undefined ? null : v;
}

/** The role each column takes, with the date's kind, and the columns read and left out. */
export interface Layout {
  /** The column of each role (descriptions may be several). */
  date: number | null;
  amount: number | null;
  deposit: number | null;
  withdrawal: number | null;
  direction: number | null;
  descriptions: number[];
  reference: number | null;
  id: number | null;
  balance: number | null;
  currency: number | null;
  /** The file's other date columns: their dates are written in the same order, which they may show. */
  otherDates: number[];
  /** The header is in a language whose banks write the day first (German, French, Spanish, Dutch). */
  dayFirst: boolean;
  /** Names of the columns read and of those passed over, as the file writes them, for the summary. */
  read: string[];
  ignored: string[];
}

const KIND_ORDER = ['posting', 'date', 'txdate'] as const;

/** Header names that only banks writing dates day first use: their files' `02/03/2025` is 2 March. */
const DAY_FIRST = new Set([
  ...['datum', 'buchungstag', 'buchungsdatum', 'buchung', 'valuta', 'wertstellung', 'betrag'],
  ...['betrageur', 'umsatz', 'verwendungszweck', 'buchungstext', 'auftraggeberempfanger', 'soll'],
  ...['haben', 'sollhaben', 'saldonachbuchung', 'kontostand', 'guthaben', 'libelle', 'montant'],
  ...['montanteur', 'solde', 'dateoperation', 'datedevaleur', 'fecha', 'fechaoperacion', 'importe'],
  ...['concepto', 'fvalor', 'boekdatum', 'bedrag', 'bedrageur', 'omschrijving', 'naamomschrijving'],
  ...['mededelingen', 'saldonamutatie', 'afbij', 'transactiedatum', 'transaktionsdatum'],
]);

/**
 * The roles of a header's columns: `--map` first (a source is a header name, matched as names are,
 * or with `--no-header` a 1-based column number), then the names above. A payment service's `Net`
 * is its amount: its `Gross` and `Fee` are then among the columns passed over, and said.
 */
export function layoutOf(
  header: string[],
  map: Map<string, Target>,
  noHeader: boolean,
): Layout | { unknownSource: string } {
  const keys = header.map(nameKey);
  const role = new Map<number, Target>();
  for (const [source, target] of map) {
    const i = noHeader ? Number(source) - 1 : keys.indexOf(nameKey(source));
    if (!(i >= 0 && i < header.length)) return { unknownSource: source };
    role.set(i, target);
  }
  const of = (names: readonly string[]) =>
    keys.flatMap((k, i) => (!role.has(i) && names.includes(k) ? [i] : []));
  const first = (names: readonly string[]) => of(names)[0] ?? null;
  const mapped = (t: Target) => [...role].filter(([, r]) => r === t).map(([i]) => i);
  const pick = (t: Target, names: readonly string[]) => mapped(t)[0] ?? first(names);
  let date = mapped('date')[0] ?? null;
  for (const kind of KIND_ORDER) date ??= first(NAMES[kind]!);
  const amount = pick('amount', NAMES.amount!);
  const taken = new Set([date, amount]);
  const deposit =
    amount === null ? pick('deposit', NAMES.deposit!) : (mapped('deposit')[0] ?? null);
  const withdrawal =
    amount === null ? pick('withdrawal', NAMES.withdrawal!) : (mapped('withdrawal')[0] ?? null);
  for (const i of [deposit, withdrawal]) taken.add(i);
  const rest = (names: readonly string[]) => of(names).filter((i) => !taken.has(i));
  const direction = mapped('direction')[0] ?? rest(NAMES.direction!)[0] ?? null;
  taken.add(direction);
  const single = (t: Target) => {
    const i = mapped(t)[0] ?? rest(NAMES[t]!)[0] ?? null;
    taken.add(i);
    return i;
  };
  const reference = single('reference');
  const id = single('id');
  const balance = single('balance');
  const currency = single('currency');
  // In the file's order, as a person reads the row.
  const descriptions = [...mapped('description'), ...rest(NAMES.description!)]
    .filter((i) => !taken.has(i))
    .sort((a, b) => a - b);
  for (const i of descriptions) taken.add(i);
  const used = (i: number) => taken.has(i) && role.get(i) !== '-';
  const name = (i: number) => header[i] || `column ${i + 1}`;
  return {
    date,
    amount,
    deposit,
    withdrawal,
    direction,
    descriptions,
    reference,
    id,
    balance,
    currency,
    otherDates: KIND_ORDER.flatMap((k) => of(NAMES[k]!)).filter((i) => i !== date),
    dayFirst: keys.some((k) => DAY_FIRST.has(k)),
    read: header.flatMap((_, i) => (used(i) ? [name(i)] : [])),
    ignored: header.flatMap((h, i) => (!used(i) && (h.trim() || noHeader) ? [name(i)] : [])),
  };
}

/**
 * How much a row reads as a header (with `--map` applied): 2 when it names a date and an amount (or
 * a pair), where a file's lines begin; 1 when it names some column's role; else 0.
 */
export function headerScore(cells: string[], map: Map<string, Target>): number {
  const l = layoutOf(cells, map, false);
  if ('unknownSource' in l) return 0;
  if (l.date !== null && (l.amount !== null || (l.deposit !== null && l.withdrawal !== null)))
    return 2;
  const some = [l.date, l.amount, l.deposit, l.withdrawal, l.balance, l.reference, l.id];
  return some.some((i) => i !== null) || l.descriptions.length ? 1 : 0;
}
