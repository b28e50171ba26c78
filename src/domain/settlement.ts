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
}

/** An open item: what is left of it in the foreign currency, and its carrying functional value. */
export interface OpenItem {
  foreign: bigint;
  functional: bigint;
}

const sign = (n: bigint) => (n > 0n ? 1n : n < 0n ? -1n : 0n);
const abs = (n: bigint) => (n < 0n ? -n : n);

/** The open items of one account and counterparty: a FIFO queue of items of one sign. */
export class OpenItems {
  readonly items: OpenItem[] = [];

  static of(lines: readonly FxHistoryLine[]): OpenItems {
    const book = new OpenItems();
    for (const l of lines) {
      // A revaluation moves the carrying value for a day and is reversed: no item of its own.
      if (l.foreign === 0) continue;
      const s = l.side === 'debit' ? 1n : -1n;
      book.apply(s * BigInt(l.foreign), s * BigInt(l.functional));
    }
    return book;
  }

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
      carrying -= part;
      left -= take;
      if (item.foreign === 0n) this.items.shift();
    }
    return { carrying, uncovered: sign(foreign) * left };
  }

  /** Adds a line: it settles what it reduces, and what it does not becomes an item of its own. */
  apply(foreign: bigint, functional: bigint): void {
    if (foreign === 0n) return;
    if (!this.items.length || !this.reduces(foreign)) {
      this.items.push({ foreign, functional });
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
