/**
 * The events a ledger file's group commit's writes sealed, inserted together between their
 * savepoints (before the group commits, and before a write that may read the trail): a group of
 * posts inserts its events in one statement instead of one each. A write rolled back takes its own
 * events with it.
 */
export class HeldEvents {
  private rows: unknown[][] = [];
  /** How many were held when the running write began. */
  private mark = 0;

  constructor(private readonly insert: (rows: unknown[][]) => void) {}

  get any(): boolean {
    return this.rows.length > 0;
  }

  hold(rows: unknown[][]): void {
    for (const r of rows) this.rows.push(r);
  }

  /** A write begins, in a savepoint of its own. */
  begin(): void {
    this.mark = this.rows.length;
  }

  /** The running write ended: its savepoint held, or was rolled back with its events. */
  ended(held: boolean): void {
    if (!held) this.rows.length = this.mark;
  }

  /** Inserts what is held, outside every write's savepoint. */
  write(): void {
    if (this.rows.length > 0) this.insert(this.rows);
    this.drop();
  }

  /** The transaction is gone: nothing held counts. */
  drop(): void {
    this.rows = [];
    this.mark = 0;
  }
}
