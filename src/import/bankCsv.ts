import type { StatementLineIn } from '../domain/reconcile.js';
import { directionOf, type Layout, type Target } from './bankColumns.js';
import { blank, delimiterOf, headerOf } from './bankTable.js';
import {
  bankAtoms,
  bankDate,
  centuryOf,
  currencyOf,
  dateOrderOf,
  decimalCommaOf,
} from './bankValues.js';
import { CsvParser, CsvSyntaxError, type RawRecord } from './csvParser.js';
import type { DateOrder } from './presets.js';

/** How a CSV statement is read: what the flags (or the account's remembered layout) say. */
export interface CsvLayoutFlags {
  /** null: found from the file. */
  delimiter: string | null;
  dateOrder: DateOrder | null;
  decimalComma: boolean | null;
  /** Lines before the header; null: found (the first row naming a date and an amount). */
  skipRows: number | null;
  noHeader: boolean;
  map: Map<string, Target>;
}

/** What a CSV statement holds, and how it was read (said after an import). */
export interface CsvRead {
  lines: StatementLineIn[];
  /** Lines of zero skipped (a bank's information rows). */
  skippedZero: number;
  /** The currency column's one currency (ISO code), if the file has one. */
  currency: string | null;
  /** Rows passed over that hold no line: a title before the header, a section heading after it. */
  passedOver: number[];
  columns: { read: string[]; ignored: string[] };
  delimiter: string;
  dateOrder: DateOrder;
  decimalComma: boolean;
  headerRow: number | null;
}

export interface CsvSide {
  exponent: number;
  liability: boolean;
  negate: boolean;
  nowYear: number;
}

export type Add = (row: number | undefined, path: string, reason: string, message: string) => void;

/** Reads a bank's CSV statement; every problem is added by row, and the lines read returned. */
export function readBankCsv(
  text: string,
  flags: CsvLayoutFlags,
  side: CsvSide,
  add: Add,
): CsvRead | null {
  const delimiter = delimiterOf(text, flags.delimiter);
  let records: RawRecord[];
  try {
    const p = new CsvParser(delimiter, { quotesInText: true });
    records = [...p.push(text), ...p.end()];
  } catch (e) {
    if (!(e instanceof CsvSyntaxError)) throw e;
    add(e.row, '', e.reason, e.message);
    return null;
  }
  const start = headerOf(records, flags, add);
  if (!start) return null;
  const reader = new RowReader(start.header, start.layout, flags, side, add, delimiter);
  return reader.read(start.body, start.passedOver, start.headerRow);
}

/** Reads the rows after the header, once the dates' order and the decimal mark are found. */
class RowReader {
  /** The header's named columns: cells past them must be empty (banks end rows with a delimiter). */
  private readonly named: number;
  private direction: number | null;

  constructor(
    private readonly header: string[],
    private readonly layout: Layout,
    private readonly flags: CsvLayoutFlags,
    private readonly side: CsvSide,
    private readonly add: Add,
    private readonly delimiter: string,
  ) {
    let named = header.length;
    while (named > 0 && header[named - 1] === '' && !flags.noHeader) named--;
    this.named = named;
    this.direction = layout.direction;
  }

  private cell(cells: string[], i: number | null): string {
    return i === null ? '' : (cells[i] ?? '').trim();
  }

  private column(i: number | null, fallback: string): string {
    return (i !== null && this.header[i]) || fallback;
  }

  read(body: RawRecord[], passedOver: number[], headerRow: number | null): CsvRead | null {
    const { layout } = this;
    // A row with no date and at most one cell filled (a section's heading) holds no line.
    const rows = body.filter((x) => {
      if (blank(x)) return false;
      const filled = x.cells.filter((c) => c.trim() !== '').length;
      const heading = filled <= 1 && !/^\d/.test(this.cell(x.cells, layout.date));
      if (heading) passedOver.push(x.row);
      return !heading;
    });
    const year = centuryOf(this.side.nowYear);
    const order = this.dateOrder(rows, year);
    const comma = this.decimalMark(rows);
    if (order === null || comma === null || !this.directionHolds(rows)) return null;
    const lines: StatementLineIn[] = [];
    let skippedZero = 0;
    for (const row of rows) {
      const line = this.line(row, order, comma, year);
      if (line === 'zero') skippedZero++;
      else if (line) lines.push(line);
    }
    return {
      lines,
      skippedZero,
      currency: this.currency(rows),
      passedOver,
      columns: { read: layout.read, ignored: layout.ignored },
      delimiter: this.delimiter,
      dateOrder: order,
      decimalComma: comma,
      headerRow,
    };
  }

  private dateOrder(rows: RawRecord[], year: (yy: number) => number): DateOrder | null {
    const cells = rows.map((x) => this.cell(x.cells, this.layout.date)).filter((c) => c !== '');
    let order = dateOrderOf(cells, this.flags.dateOrder, year);
    if (typeof order !== 'string' && 'ambiguous' in order) {
      // A card's transaction dates are written as its posting dates are, and may tell the order.
      const other = rows.flatMap((x) =>
        this.layout.otherDates.map((i) => this.cell(x.cells, i)).filter((c) => c !== ''),
      );
      const more = dateOrderOf([...cells, ...other], null, year);
      if (typeof more === 'string') order = more;
      // Day first where the header's language says so, and the dates allow it.
      else if (this.layout.dayFirst && cells.every((c) => bankDate(c, 'DMY', year) !== null))
        order = 'DMY';
    }
    if (typeof order === 'string') return order;
    const message =
      'ambiguous' in order
        ? `the dates fit more than one order ('${order.ambiguous}'): give --date-format DMY or MDY`
        : `'${order.none}' is a date in no order books reads (YYYY-MM-DD, DD.MM.YYYY, ` +
          'MM/DD/YYYY, YYYYMMDD)';
    this.add(rows[0]?.row, this.column(this.layout.date, 'date'), 'invalid_date', message);
    return null;
  }

  private decimalMark(rows: RawRecord[]): boolean | null {
    const { amount, deposit, withdrawal, balance } = this.layout;
    const cells = rows.flatMap((x) =>
      [amount, deposit, withdrawal, balance].map((i) => this.cell(x.cells, i)).filter(Boolean),
    );
    const comma = decimalCommaOf(cells, this.flags.decimalComma);
    if (comma === null)
      this.add(
        rows[0]?.row,
        'amount',
        'ambiguous_decimal_mark',
        'the amounts are written both with a decimal point and with a decimal comma: give ' +
          '--decimal-comma, or not',
      );
    return comma;
  }

  /**
   * A column named as a direction holds direction words, else it is read as a description (a
   * bank's `Details`); one given by `--map` that holds another word is refused, naming the row.
   */
  private directionHolds(rows: RawRecord[]): boolean {
    const i = this.direction;
    if (i === null) return true;
    const bad = rows.find(
      (x) => this.cell(x.cells, i) && directionOf(this.cell(x.cells, i)) === null,
    );
    if (!bad) return true;
    if (![...this.flags.map.values()].includes('direction')) {
      this.direction = null;
      this.layout.descriptions.push(i);
      this.layout.descriptions.sort((a, b) => a - b);
      return true;
    }
    this.add(
      bad.row,
      this.column(i, 'direction'),
      'invalid_direction',
      `'${this.cell(bad.cells, i)}' is no direction (debit or credit, D or C, S or H, Af or Bij)`,
    );
    return false;
  }

  /** The statement's currency, from a currency column: one ISO code through the file, else refused. */
  private currency(rows: RawRecord[]): string | null {
    const cells = rows.map((x) => ({ row: x.row, text: this.cell(x.cells, this.layout.currency) }));
    return currencyOf(cells, (row, message) =>
      this.add(row, this.column(this.layout.currency, 'currency'), 'currency_conflict', message),
    );
  }

  private line(
    { row, cells }: RawRecord,
    order: DateOrder,
    comma: boolean,
    year: (yy: number) => number,
  ): StatementLineIn | 'zero' | null {
    const { layout, add } = this;
    if (cells.length < this.named || cells.slice(this.named).some((c) => c.trim() !== '')) {
      const message =
        `has ${cells.length} cells; the header names ${this.named} columns (a value that holds ` +
        `'${this.delimiter}' must be in quotes)`;
      add(row, '', 'ragged_row', message);
      return null;
    }
    const dateText = this.cell(cells, layout.date);
    const date = bankDate(dateText, order, year);
    const dateColumn = this.column(layout.date, 'date');
    if (!date)
      add(row, dateColumn, 'invalid_date', `'${dateText}' is not a date in ${order} order`);
    const amount = this.amount(cells, comma);
    if ('message' in amount)
      add(
        row,
        amount.column ?? this.column(layout.amount, 'amount'),
        amount.reason,
        amount.message,
      );
    let balance: number | null = null;
    const balanceText = this.cell(cells, layout.balance);
    if (balanceText !== '') {
      const b = bankAtoms(balanceText, comma, this.side.exponent);
      if ('message' in b)
        add(row, this.column(layout.balance, 'balance'), 'invalid_amount', b.message);
      else balance = this.side.negate ? -b.atoms : b.atoms;
    }
    if (!date || 'message' in amount) return null;
    if (amount.atoms === 0) return 'zero';
    const text = layout.descriptions
      .map((i) => this.cell(cells, i))
      .filter(Boolean)
      .join(' ');
    return {
      row,
      date,
      amount_atoms: this.side.negate ? -amount.atoms : amount.atoms,
      description: text || null,
      reference: this.cell(cells, layout.reference) || null,
      bank_id: this.cell(cells, layout.id) || null,
      balance_atoms: balance,
    };
  }

  /**
   * A row's amount in the account's sign: a signed amount (its direction, if any, gives the sign of
   * one written without), or a deposit/withdrawal pair (one filled; a withdrawal written negative is
   * money out all the same, a negative deposit is refused).
   */
  private amount(
    cells: string[],
    comma: boolean,
  ): { atoms: number } | { message: string; reason: string; column?: string } {
    const { layout, side } = this;
    const read = (t: string) => bankAtoms(t, comma, side.exponent);
    const signedText = this.cell(cells, layout.amount);
    if (layout.amount !== null && (layout.deposit === null || signedText !== '')) {
      const a = read(signedText);
      if ('message' in a) return { ...a, reason: 'invalid_amount' };
      let atoms = a.atoms;
      if (this.direction === null) return { atoms };
      // The direction says which way the money went for the holder, as a pair does.
      if (directionOf(this.cell(cells, this.direction)) === true && atoms > 0) atoms = -atoms;
      return { atoms: side.liability ? -atoms : atoms };
    }
    const [i, o] = [this.cell(cells, layout.deposit), this.cell(cells, layout.withdrawal)];
    const some = (t: string) => {
      const a = t === '' ? null : read(t);
      return a !== null && !('atoms' in a && a.atoms === 0);
    };
    if (!some(i) && !some(o)) return { atoms: 0 };
    if (some(i) && some(o))
      return { message: 'both deposit and withdrawal are filled', reason: 'one_amount' };
    const text = some(i) ? i : o;
    const a = read(text);
    if ('message' in a) return { ...a, reason: 'invalid_amount' };
    const atoms = Math.abs(a.atoms);
    if (some(i) && a.atoms < 0)
      return {
        message: `'${i}' is negative: the deposit column says money came in`,
        reason: 'wrong_sign',
        column: this.column(layout.deposit, 'deposit'),
      };
    // The pair says which way the money went for the holder: a card's charge is money out, and
    // positive in the card's own sign.
    const holder = some(i) ? atoms : -atoms;
    return { atoms: side.liability ? -holder : holder };
  }
}
