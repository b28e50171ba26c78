import type { ValidEntry } from '../../domain/entry.js';
import { EntryTotals, type RowTarget } from './entryRows.js';

/**
 * The totals of a group commit's entry writes, summed for the whole group and written once before it
 * commits: concurrent posts share accounts and months, so a group upserts each account-month (and
 * each one's tags) once rather than once per entry. A write's entries count once its savepoint holds;
 * before a write that may read the totals (anything but a post or a reversal), the sums so far are
 * written.
 */
export class GroupTotals {
  private readonly sums = new EntryTotals();
  /** The running write's entries, written without their totals. */
  private running: ValidEntry[] = [];
  private any = false;

  /** An entry the running write wrote, its totals left to the group. */
  wrote(entry: ValidEntry): void {
    this.running.push(entry);
  }

  /** The running write ended: its savepoint held (its entries count) or was rolled back. */
  ended(held: boolean): void {
    if (held)
      for (const e of this.running) {
        // Summed by tag too: a group's totals are always written as rows (RowTarget.tagTotals.rows).
        this.sums.add(e, true);
        this.any = true;
      }
    this.running = [];
  }

  /** Queues the writes of the sums so far through `target` (each row led by `scoped`), and empties. */
  write(target: RowTarget, scoped: unknown[] = []): unknown[] {
    const queued: unknown[] = [];
    if (this.any) this.sums.write(target, scoped, (r) => queued.push(r));
    this.any = false;
    return queued;
  }

  /** The group's transaction is gone: nothing of it counts. */
  drop(): void {
    this.sums.clear();
    this.running = [];
    this.any = false;
  }
}
