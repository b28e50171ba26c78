import { divHalfEven } from './fx.js';

/**
 * The open foreign items of one counterparty on one foreign receivable or payable account, oldest
 * first, each with its carrying functional value (docs/currency.md, "Settlement"): what a payment
 * settles is valued at the rates of the invoices it settles, first in first out, as report aging
 * applies payments. Amounts are signed, debit positive.
 */

/** A stored line of the account and counterparty, in date order: its side and both amounts. */
export interface FxHistoryLine {
  side: 'debit' | 'credit';
  /** In the account's currency (0 on a revaluation's line). */
  foreign: number;
  functional: number;
  /** The entry's storage sequence, where a store read it (to tell its items apart). */
  seq?: number;
  /** The entry's date, where the history is merged with lines not stored yet (an import's). */
  date?: string;
  /** The entry this line's entry reverses, if it is a reversal. */
  original?: number | null;
}

/** An open item: what is left of it in the foreign currency, and its carrying functional value. */
export interface OpenItem {
  foreign: bigint;
  functional: bigint;
  /** The entry that made it, and its foreign amount then (only items a line opened whole). */
  seq?: number;
  opened?: bigint;
}

const sign = (n: bigint) => (n > 0n ? 1n : n < 0n ? -1n : 0n);
const abs = (n: bigint) => (n < 0n ? -n : n);

/** The open items of one account and counterparty: a FIFO queue of items of one sign. */
export class OpenItems {
  readonly items: OpenItem[] = [];

  static of(lines: readonly FxHistoryLine[]): OpenItems {
    const book = new OpenItems();
    let held = 0n;
    // An entry and its reversal cancel: neither settled nor opened anything.
    const cancelled = new Set<number>();
    for (const l of lines)
      if (l.original != null && l.seq !== undefined) cancelled.add(l.seq).add(l.original);
    for (const l of lines) {
      // A revaluation moves the carrying value for a day and is reversed: no item of its own.
      if (l.foreign === 0 || (l.seq !== undefined && cancelled.has(l.seq))) continue;
      const s = l.side === 'debit' ? 1n : -1n;
      book.apply(s * BigInt(l.foreign), s * BigInt(l.functional), l.seq);
      held += s * BigInt(l.functional);
    }
    // What the account holds is what its lines were posted at: where an entry dated before earlier
    // settlements changed which items they settled, the oldest open item carries the difference,
    // so that a receivable settled in full still carries nothing.
    let carried = 0n;
    for (const i of book.items) carried += i.functional;
    if (book.items.length && carried !== held) book.items[0]!.functional += held - carried;
    return book;
  }

  /** Whether the items an entry opened are all still open, whole (none of them settled since). */
  untouched(seq: number): boolean {
    let opened = false;
    for (const i of this.items)
      if (i.seq === seq) {
        if (i.foreign !== i.opened) return false;
        opened = true;
      }
    return opened || !this.settledSeqs.has(seq);
  }

  /** Entries whose items were settled, in part or whole. */
  private readonly settledSeqs = new Set<number>();

  /** The foreign balance of the open items (debit positive). */
  get balance(): bigint {
    let b = 0n;
    for (const i of this.items) b += i.foreign;
    return b;
  }

  /** Whether a line of this signed foreign amount reduces the balance (settles items). */
  reduces(foreign: bigint): boolean {
    const b = this.balance;
    return b !== 0n && sign(b) !== sign(foreign);
  }

  /**
   * Settles `foreign` (signed, against the balance) oldest first: the carrying value of what it
   * settles (signed as the line), and what of it the items did not cover (an overpayment).
   */
  settle(foreign: bigint): { carrying: bigint; uncovered: bigint } {
    let left = abs(foreign);
    let carrying = 0n;
    while (left > 0n && this.items.length && sign(this.items[0]!.foreign) !== sign(foreign)) {
      const item = this.items[0]!;
      const size = abs(item.foreign);
      const take = left < size ? left : size;
      // An item settled whole gives its whole carrying value: a settled item leaves no atom behind.
      const part = take === size ? item.functional : divHalfEven(item.functional * take, size);
      item.foreign -= sign(item.foreign) * take;
      item.functional -= part;
      if (item.seq !== undefined) this.settledSeqs.add(item.seq);
      carrying -= part;
      left -= take;
      if (item.foreign === 0n) this.items.shift();
    }
    return { carrying, uncovered: sign(foreign) * left };
  }

  /** Adds a line: it settles what it reduces, and what it does not becomes an item of its own. */
  apply(foreign: bigint, functional: bigint, seq?: number): void {
    if (foreign === 0n) return;
    if (!this.items.length || !this.reduces(foreign)) {
      this.items.push({
        foreign,
        functional,
        ...(seq !== undefined ? { seq, opened: foreign } : {}),
      });
      return;
    }
    const { uncovered } = this.settle(foreign);
    if (uncovered !== 0n)
      this.items.push({
        foreign: uncovered,
        functional: divHalfEven(functional * abs(uncovered), abs(foreign)),
      });
  }
}
