import { randomUUID } from 'node:crypto';
import type { Context } from '../cli/context.js';
import { accountResolver, type GlAccount } from '../domain/accounts.js';
import { localDate } from '../domain/dates.js';
import type { JournalEntry } from '../domain/entry.js';
import { BooksError, entryInvalid, isBooksError, type Problem } from '../domain/errors.js';
import { parseJsonBody } from '../domain/json.js';
import { currencyExponent, MAX_ATOMS, parseDecimal } from '../domain/money.js';
import { entryText } from '../render/entry.js';
import { readText } from './io.js';

export interface JePostOptions {
  debit: string[];
  credit: string[];
  date?: string;
  memo?: string;
  jeNumber?: string;
  adjusting?: boolean;
  reason?: string;
  currency?: string;
  idempotencyKey?: string;
  file?: string;
  dryRun?: boolean;
}

const LINE_FLAG = /^([^=]+)=([^@]+?)(?:@([^:@]+):(.+))?$/;

/**
 * Turns `--debit ACCOUNT=AMOUNT[@TYPE:ID]` flags into request lines: accounts by external id or number,
 * decimal amounts to exact atoms. Every malformed flag is reported, not just the first.
 */
export function linesFromFlags(
  debits: string[],
  credits: string[],
  accounts: GlAccount[],
  exponent: number,
): Record<string, unknown>[] {
  const resolve = accountResolver(accounts);
  const problems: Problem[] = [];
  const lines: Record<string, unknown>[] = [];
  const flags = [
    ...debits.map((v) => ['debit', v] as const),
    ...credits.map((v) => ['credit', v] as const),
  ];
  flags.forEach(([side, value], i) => {
    const path = `lines[${i}]`;
    const m = LINE_FLAG.exec(value.trim());
    if (!m) {
      problems.push({
        path,
        reason: 'invalid_line',
        message: `--${side} '${value}' is not ACCOUNT=AMOUNT[@TYPE:ID]`,
      });
      return;
    }
    const [, account, amountText, cpType, cpId] = m as unknown as [
      string,
      string,
      string,
      string | undefined,
      string | undefined,
    ];
    const amount = parseDecimal(amountText, exponent);
    if (!amount.ok) {
      problems.push({
        path: `${path}.amount_atoms`,
        reason: 'invalid_amount',
        message: `--${side} ${value}: ${amount.message}`,
      });
      return;
    }
    if (amount.atoms < 1n || amount.atoms > BigInt(MAX_ATOMS)) {
      problems.push({
        path: `${path}.amount_atoms`,
        reason: 'invalid_amount',
        message: `--${side} ${value}: the amount must be positive and at most ${MAX_ATOMS} atoms`,
      });
      return;
    }
    const found = resolve(account.trim());
    lines.push({
      gl_account_id: found ? found.external_id : account.trim(),
      line_type: side,
      amount_atoms: Number(amount.atoms),
      ...(cpType !== undefined
        ? { counterparty_type: cpType.trim(), counterparty_external_id: cpId!.trim() }
        : {}),
    });
  });
  if (problems.length) throw entryInvalid(problems);
  return lines;
}

async function bodyFromFile(ctx: Context, path: string): Promise<unknown> {
  const parsed = parseJsonBody(await readText(ctx, path));
  if (!parsed.ok)
    throw entryInvalid([
      {
        path: '',
        reason: 'invalid_json',
        message: `${path === '-' ? 'standard input' : path} is not valid JSON: ${parsed.message}`,
      },
    ]);
  return parsed.value;
}

export async function jePost(ctx: Context, opts: JePostOptions): Promise<void> {
  const hasLines = opts.debit.length > 0 || opts.credit.length > 0;
  if (opts.file !== undefined && hasLines)
    throw new BooksError(
      'usage',
      '--file gives the whole entry; it cannot be combined with --debit/--credit',
    );
  const ledger = await ctx.ledger();
  const entity = await ledger.entity();
  const exponent =
    currencyExponent(opts.currency?.toUpperCase() ?? entity.currency) ??
    currencyExponent(entity.currency) ??
    2;
  const key = opts.idempotencyKey ?? randomUUID();

  let body: unknown;
  if (opts.file !== undefined) body = await bodyFromFile(ctx, opts.file);
  else if (hasLines) {
    body = {
      entry_date: opts.date ?? localDate(ctx.now()),
      lines: linesFromFlags(opts.debit, opts.credit, await ledger.accounts(), exponent),
      ...(opts.currency !== undefined ? { currency: opts.currency.toUpperCase() } : {}),
      ...(opts.memo !== undefined ? { memo: opts.memo } : {}),
      ...(opts.jeNumber !== undefined ? { je_number: opts.jeNumber } : {}),
      ...(opts.adjusting ? { is_adjusting: true } : {}),
      ...(opts.reason !== undefined ? { manual_entry_reason: opts.reason } : {}),
    };
  } else if (ctx.io.stdin.isTTY) {
    const { interactiveEntry } = await import('./jeInteractive.js');
    body = await interactiveEntry(ctx, ledger, opts, exponent, key);
    if (body === null) return;
  } else {
    throw new BooksError(
      'usage',
      'no lines given: use --debit/--credit, --file PATH|-, or run on a terminal for interactive entry',
    );
  }

  try {
    const entry = await ledger.post(body, { idempotencyKey: key, dryRun: opts.dryRun ?? false });
    printPosted(ctx, entry, exponent, opts.dryRun ?? false);
  } catch (e) {
    if (alreadyPosted(ctx, e)) return;
    if (opts.file !== undefined) throw named(e, (path) => (path && path !== 'lines' ? path : null));
    if (hasLines) throw named(e, flagOf(opts));
    throw e;
  }
}

const FIELD_FLAGS: Record<string, string> = {
  entry_date: '--date',
  currency: '--currency',
  je_number: '--je-number',
  memo: '--memo',
  manual_entry_reason: '--reason',
  is_adjusting: '--adjusting',
};

/** The flag that gave the value at a body path (`lines[2]` is the third --debit/--credit), or null for the entry as a whole. */
function flagOf(opts: JePostOptions): (path: string) => string | null {
  const lineFlags = [
    ...opts.debit.map((v) => `--debit ${v}`),
    ...opts.credit.map((v) => `--credit ${v}`),
  ];
  return (path) => {
    const line = /^lines\[(\d+)\]/.exec(path);
    if (line) return lineFlags[Number(line[1])] ?? null;
    return FIELD_FLAGS[path] ?? null;
  };
}

/** A refused entry's problems, each naming the place the user gave its value (a flag, or a field of the file). */
function named(e: unknown, place: (path: string) => string | null): unknown {
  if (!isBooksError(e) || e.code !== 'CAPI33' || e.errors.length === 0) return e;
  return entryInvalid(
    e.errors.map((p) => {
      const where = place(p.path);
      return where && !p.message.startsWith(where)
        ? { ...p, message: `${where}: ${p.message}` }
        : p;
    }),
  );
}

/**
 * A remote post whose first attempt went through but whose answer was lost comes back as a duplicate
 * on the retry: that is success, said as such. Returns false for any other error.
 */
export function alreadyPosted(ctx: Context, e: unknown): boolean {
  if (!isBooksError(e) || e.details.already_posted !== true) return false;
  const id = (e.details.existing_journal_entry_id as string | undefined) ?? null;
  if (ctx.json) ctx.outJson({ already_posted: true, existing_journal_entry_id: id });
  else ctx.out(`Already posted${id ? ` as ${id}` : ''}: an earlier attempt went through.`);
  return true;
}

/** Shows a posted (or would-be) entry; `--format json` prints the entry object itself. */
export function printPosted(
  ctx: Context,
  entry: JournalEntry,
  exponent: number,
  dryRun: boolean,
): void {
  if (ctx.json) return ctx.outJson(dryRun ? { dry_run: true, entry } : entry);
  ctx.out(entryText(entry, exponent, dryRun ? 'Would post ' : 'Posted '));
  if (dryRun) ctx.out('Dry run: nothing was posted.');
}
