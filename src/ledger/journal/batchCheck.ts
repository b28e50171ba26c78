import type { ValidationContext, ValidEntry } from '../../domain/entry.js';
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

  /** A context for the file's entries: `ctx`'s look-ups, with the file's own numbers taken too. */
  context(ctx: ValidationContext): ValidationContext {
    const taken = ctx.jeNumberTaken;
    return {
      ...ctx,
      jeNumberTaken: (n: string) => this.numbers.has(n) || taken(n),
    };
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
    return { entry };
  }
}
