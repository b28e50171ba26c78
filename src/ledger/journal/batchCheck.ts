import type { ValidationContext, ValidEntry } from '../../domain/entry.js';
import type { FxHistoryLine } from '../../domain/settlement.js';
import { validateEntry } from '../../domain/validation.js';
import type { Problem } from '../../domain/errors.js';

/**
 * The validation every import batch applies to its entries, local or remote: the ledger's own rules,
 * with numbers used earlier in the same file counting as taken (even when nothing was written: a dry
 * run, or after an error), and the batch marked failed by the first entry that is wrong.
 */
export class BatchCheck {
  /** True once an entry of the file was invalid or had problems in its rows: nothing may post. */
  failed = false;
  private readonly numbers = new Set<string>();
  /**
   * The foreign receivable and payable lines of the file's valid entries, by account and
   * counterparty: a settlement later in the file settles what the file opened before it, as it
   * would had each entry posted alone.
   */
  private readonly fx = new Map<string, FxHistoryLine[]>();
  /** Storage sequences of the entries this batch wrote: a store that reads its own batch sees them. */
  readonly written = new Set<number>();

  /**
   * A context for the file's entries: `ctx`'s look-ups, with the file's own numbers taken too, and
   * its own foreign lines after the ledger's in a settlement's history.
   */
  context(ctx: ValidationContext): ValidationContext {
    const taken = ctx.jeNumberTaken;
    const stored = ctx.fxHistory;
    return {
      ...ctx,
      jeNumberTaken: (n: string) => this.numbers.has(n) || taken(n),
      ...(stored
        ? {
            fxHistory: (ref: string, type: string, id: string, date: string) => {
              const before = stored(ref, type, id, date);
              const account = ctx.account(ref);
              const mine = account
                ? this.fx.get(`${account.external_id}\u0000${type}\u0000${id}`)
                : undefined;
              if (!mine?.length) return before;
              // In date order; on one date the ledger's lines (posted earlier) come first. What the
              // batch wrote is counted once, from its own list.
              const ledger = (before ?? []).filter(
                (l) => l.seq === undefined || !this.written.has(l.seq),
              );
              const all = [...ledger, ...mine];
              return all.sort((a, b) => (a.date! < b.date! ? -1 : a.date! > b.date! ? 1 : 0));
            },
          }
        : {}),
    };
  }

  /** Keeps an entry's foreign receivable and payable lines (and its automatic reversal's). */
  private keep(entry: ValidEntry): void {
    const add = (date: string, flip: boolean) => {
      for (const l of entry.lines) {
        const t = l.account.account_type;
        if (!l.fx || !l.counterparty || (t !== 'accounts_receivable' && t !== 'accounts_payable'))
          continue;
        const who = `${l.counterparty.counterparty_type}\u0000${l.counterparty.external_id}`;
        const key = `${l.account.external_id}\u0000${who}`;
        const side = (l.line_type === 'debit') !== flip ? 'debit' : 'credit';
        const list = this.fx.get(key) ?? [];
        list.push({ side, foreign: l.fx.amount_atoms, functional: l.amount_atoms, date });
        this.fx.set(key, list);
      }
    };
    add(entry.entry_date, false);
    if (entry.auto_reverse_on) add(entry.auto_reverse_on, true);
  }

  /** The valid entry, or the problems the rules found in it, checked in a context from `context`. */
  entry(
    body: unknown,
    hasRowProblems: boolean,
    ctx: ValidationContext,
  ): { entry: ValidEntry } | { problems: Problem[] } {
    const { entry, problems } = validateEntry(body, ctx);
    if (!entry) {
      this.failed = true;
      return { problems };
    }
    if (entry.je_number) this.numbers.add(entry.je_number);
    if (hasRowProblems) this.failed = true;
    this.keep(entry);
    return { entry };
  }
}
