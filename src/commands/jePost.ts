import { randomUUID } from 'node:crypto';
import { bool, command, list, str, type FlagSpec } from '../cli/command.js';
import type { Context } from '../cli/context.js';
import { dateFlag, keyFlag } from '../cli/flags.js';
import { splitTagSuffix } from '../domain/tags.js';
import { tagsFlag, tagSuffix } from './tagFlags.js';

export { tagsFlag } from './tagFlags.js';
import type { GlAccount } from '../domain/accounts.js';
import { firstOfNextMonth, isIsoDate, LAST_DATE, localDate } from '../domain/dates.js';
import { isObj } from '../domain/rules.js';
import { entryInvalid, errors, type Problem } from '../domain/errors.js';
import { accountFinder, readAmount } from '../domain/input.js';
import { MAX_BODY_BYTES, parseJsonBody } from '../domain/json.js';
import { currencyExponent } from '../domain/money.js';
import { readText } from './io.js';
import { alreadyPosted, namedProblems, printPosted, waitingWrite } from './posting.js';

export interface JePostOptions {
  debit: string[];
  credit: string[];
  date: string | undefined;
  memo: string | undefined;
  jeNumber: string | undefined;
  adjusting: boolean;
  reason: string | undefined;
  currency: string | undefined;
  idempotencyKey: string | undefined;
  file: string | undefined;
  dryRun: boolean;
  /** The automatic reversal's date, when the entry is an accrual that reverses itself. */
  reverseOn: string | 'next-month' | undefined;
  /** --tag KEY=VALUE, as typed. */
  tag: string[];
}

/** An entry's lines as flags (je post, recurring add). */
export const LINE_FLAGS: readonly FlagSpec[] = [
  {
    flags: '--debit <ACCOUNT=AMOUNT[@TYPE:ID]>',
    description:
      'a debit line (repeatable); ACCOUNT is the external id or account number. On an account in ' +
      "another currency: 'eur-bank=EUR 1000.00' (the rate table's rate), '… @ 1.105' (a rate) or " +
      "'… @@ 1105.00' (the functional amount)",
    repeat: true,
  },
  {
    flags: '--credit <ACCOUNT=AMOUNT[@TYPE:ID]>',
    description: 'a credit line (repeatable)',
    repeat: true,
  },
];

export default command<JePostOptions>({
  flags: [
    ...LINE_FLAGS,
    { flags: '--date <YYYY-MM-DD>', description: 'entry date (default today)' },
    { flags: '--memo <text>', description: 'entry memo' },
    { flags: '--je-number <n>', description: 'your own number (JE-N is assigned when omitted)' },
    { flags: '--adjusting', description: 'mark as an adjusting entry' },
    { flags: '--reason <text>', description: 'manual entry reason' },
    {
      flags: '--currency <code>',
      description: "entry currency (default the entity's functional currency)",
    },
    {
      flags: '--idempotency-key <key>',
      description: 'posts at most once per key within an hour (default: a new random key)',
    },
    {
      flags: '--file <path>',
      description:
        "the POST /v1/journal-entries body as JSON ('-' for standard input); see docs/api.md",
    },
    {
      flags: '--auto-reverse',
      description: 'post the reversal with the entry, on the first day of the next month',
    },
    {
      flags: '--reverse-on <YYYY-MM-DD>',
      description: "the reversal's date instead (implies --auto-reverse)",
    },
    { flags: '--dry-run', description: 'validate and show what would post; post nothing' },
    {
      flags: '--tag <KEY=VALUE>',
      description:
        "a tag of the entry (repeatable): project=alpha; a line's own go after it: 'rent=1200#location=nyc'",
      repeat: true,
    },
  ],
  help: `Amounts are decimals in the currency (1250, 1250.00, 1,250.00), always positive: the flag says the
side. @TYPE:ID names the counterparty (@customer:C001 on a receivable line). A line on an account kept
in another currency gives its amount in that currency: 'eur-bank=EUR 1000.00' converts at the rate
table's rate for the date, 'eur-bank=EUR 1000.00 @ 1.105' at that rate, 'eur-bank=EUR 1000.00 @@
1105.00' is what the bank converted (the rate is implied); 'ar-eur=EUR 1000.00@customer:C1' on a
foreign receivable that it settles converts at the invoices' own rates, and the difference is posted
to the realised exchange gain/loss account (docs/currency.md). --tag KEY=VALUE tags the entry; a line's
own tags follow it as #KEY=VALUE (after the counterparty), overriding the entry's key by key. With no lines and a
terminal, the entry is built interactively. An accrual posted with --auto-reverse posts with its
reversal, in one transaction, linked as \`books je reverse\` links them; the reversal's date must be
after the entry's and outside a closed period.`,
  examples: [
    'books je post --date 2025-01-31 --memo "January rent" --debit 6100=2,500.00 --credit 1010=2500',
    'books je post --date 2025-02-03 --debit ar=1200@customer:C001 --credit sales=1200 --je-number JE-1001',
    'books je post --date 2025-02-05 --debit office=80 --credit checking=80 --dry-run',
    'books je post --date 2025-02-06 --tag project=alpha --debit rent=1200#location=nyc --credit checking=1200',
    'books je post --date 2025-01-31 --memo "Accrued utilities" --debit 6300=410 --credit 2100=410 --auto-reverse',
  ],
  options: (raw) => ({
    debit: list(raw, 'debit'),
    credit: list(raw, 'credit'),
    date: dateFlag('--date', str(raw, 'date')),
    memo: str(raw, 'memo'),
    jeNumber: str(raw, 'jeNumber'),
    adjusting: bool(raw, 'adjusting'),
    reason: str(raw, 'reason'),
    currency: str(raw, 'currency')?.toUpperCase(),
    idempotencyKey: keyFlag(str(raw, 'idempotencyKey')),
    file: str(raw, 'file'),
    dryRun: bool(raw, 'dryRun'),
    reverseOn:
      dateFlag('--reverse-on', str(raw, 'reverseOn')) ??
      (bool(raw, 'autoReverse') ? 'next-month' : undefined),
    tag: list(raw, 'tag'),
  }),
  run: jePost,
});

async function jePost(ctx: Context, opts: JePostOptions): Promise<void> {
  const hasLines = opts.debit.length > 0 || opts.credit.length > 0;
  if (opts.file !== undefined && hasLines)
    throw errors.usage('--file gives the whole entry; it cannot be combined with --debit/--credit');
  if (opts.file === undefined && !hasLines && !ctx.io.stdin.isTTY) {
    throw errors.usage(
      'no lines given: use --debit/--credit, --file PATH|-, or run on a terminal for interactive entry',
    );
  }
  const ledger = await ctx.ledger();
  const entity = await ledger.entity.get();
  const exponent =
    currencyExponent(opts.currency ?? entity.currency) ?? currencyExponent(entity.currency) ?? 2;
  const key = opts.idempotencyKey ?? randomUUID();
  let body: unknown;
  let accounts: GlAccount[] = [];
  if (opts.file !== undefined) body = withReversal(await bodyFromFile(ctx, opts.file), opts);
  else if (hasLines) {
    accounts = await ledger.chart.accounts();
    body = withReversal(
      bodyFromFlags(ctx, opts, accounts, exponent, opts.currency ?? entity.currency),
      opts,
    );
  } else {
    const { interactiveEntry } = await import('./jeInteractive.js');
    body = await interactiveEntry(ctx, ledger, opts, exponent, key);
    if (body === null) return;
  }
  try {
    const options = { idempotencyKey: key, dryRun: opts.dryRun };
    const entry = await waitingWrite(ctx, ledger, () => ledger.journal.post(body, options));
    const reversal = isObj(body) && isIsoDate(body.auto_reverse_on) ? body.auto_reverse_on : null;
    const also =
      opts.dryRun && reversal ? `With its reversal on ${reversal}, in the same transaction.` : null;
    await printPosted(ctx, ledger, entry, exponent, opts.dryRun, also);
  } catch (e) {
    if (alreadyPosted(ctx, e)) return;
    if (opts.file !== undefined)
      throw namedProblems(e, (path) => (path && path !== 'lines' ? path : null));
    if (hasLines) throw namedProblems(e, flagOf(opts), accountHint(opts, accounts));
    throw e;
  }
}

/** The body with its automatic reversal's date, when asked for: by default the next month's first day. */
export function withReversal(body: unknown, opts: Pick<JePostOptions, 'reverseOn'>): unknown {
  if (opts.reverseOn === undefined || !isObj(body)) return body;
  const date = body.entry_date;
  const on =
    opts.reverseOn !== 'next-month'
      ? opts.reverseOn
      : isIsoDate(date)
        ? firstOfNextMonth(date)
        : undefined;
  if (on !== undefined && !isIsoDate(on))
    throw errors.usage(
      `--auto-reverse: an entry of ${String(date)} has no next month to reverse on (dates end at ` +
        `${LAST_DATE}); give the reversal's date with --reverse-on YYYY-MM-DD`,
    );
  return on === undefined ? body : { ...body, auto_reverse_on: on };
}

function bodyFromFlags(
  ctx: Context,
  opts: JePostOptions,
  accounts: GlAccount[],
  exponent: number,
  currency: string,
) {
  return {
    entry_date: opts.date ?? localDate(ctx.now()),
    lines: linesFromFlags(opts, accounts, exponent, currency),
    ...(opts.currency !== undefined ? { currency: opts.currency } : {}),
    ...(opts.memo !== undefined ? { memo: opts.memo } : {}),
    ...(opts.jeNumber !== undefined ? { je_number: opts.jeNumber } : {}),
    ...(opts.adjusting ? { is_adjusting: true } : {}),
    ...(opts.reason !== undefined ? { manual_entry_reason: opts.reason } : {}),
    ...tagsFlag(opts.tag),
  };
}

/**
 * What follows an account's `=`: the amount (`EUR 1000.00` on an account in another currency), an
 * optional rate (`@ 1.105`) or functional amount (`@@ 1105.00`), then an optional `@TYPE:ID`. `@`
 * followed by a number is a rate; followed by a name and `:`, a counterparty.
 */
const AFTER_ACCOUNT = /^([^=@]+?)(?:\s*(@@?)\s*(\d[^@]*?))?\s*(?:@([^:@]+):(.+))?$/;

/** A line flag's amount in another currency than the entity's: `EUR 1000.00`. */
const FOREIGN_AMOUNT = /^([A-Za-z]{3})\s+(\S.*)$/;

type LineParts = [
  account: string,
  amount: string,
  cpType?: string,
  cpId?: string,
  price?: { kind: '@' | '@@'; text: string },
];

/**
 * A line flag's parts. An external id may hold `=`: the account ends at the first `=` after which
 * an amount (and a counterparty) follows, so `a=b=5` is 5 on `a=b` and `rent=5@customer:C=1` names
 * customer `C=1`.
 */
function lineFlagParts(value: string): LineParts | null {
  const v = value.trim();
  for (let i = v.indexOf('='); i > 0; i = v.indexOf('=', i + 1)) {
    const m = AFTER_ACCOUNT.exec(v.slice(i + 1));
    if (m)
      return [
        v.slice(0, i),
        m[1]!,
        m[4],
        m[5],
        m[2] ? { kind: m[2] as '@' | '@@', text: m[3]!.trim() } : undefined,
      ];
  }
  return null;
}

/** The --debit and --credit flags in the order the body lists their lines. */
const lineFlags = (opts: Pick<JePostOptions, 'debit' | 'credit'>) => [
  ...opts.debit.map((v) => ['debit', v] as const),
  ...opts.credit.map((v) => ['credit', v] as const),
];

/**
 * Turns `--debit ACCOUNT=AMOUNT[@TYPE:ID]` flags into request lines: accounts by external id or
 * number, decimal amounts to exact atoms. A flag that cannot be read is a usage error; an amount the
 * ledger would refuse (zero, negative, too many decimals) is CAPI33, every one reported at once.
 */
export function linesFromFlags(
  opts: Pick<JePostOptions, 'debit' | 'credit'>,
  accounts: GlAccount[],
  exponent: number,
  currency: string,
): Record<string, unknown>[] {
  const find = accountFinder(accounts);
  const refused: Problem[] = [];
  const unreadable: Problem[] = [];
  const lines = lineFlags(opts).map(([side, typed], i) => {
    const tagged = tagSuffix(side, typed, unreadable);
    if (!tagged) return null;
    const { value, ownTags } = tagged;
    const m = lineFlagParts(value);
    if (!m) {
      const message = `--${side} '${value}' is not ACCOUNT=AMOUNT[@TYPE:ID] (for example rent=2,500.00)`;
      unreadable.push({ path: `--${side}`, reason: 'invalid_line', message });
      return null;
    }
    const [account, amountText, cpType, cpId, price] = m;
    const read = (text: string, path: string, exp: number, cur: string) => {
      const amount = readAmount(text, exp, cur);
      if (amount.ok) return amount.value;
      const message = `--${side} ${value}: ${amount.message}`;
      if (amount.unreadable) unreadable.push({ path: `--${side}`, reason: amount.reason, message });
      else refused.push({ path: `lines[${i}].${path}`, reason: amount.reason, message });
      return 0;
    };
    const foreign = FOREIGN_AMOUNT.exec(amountText.trim());
    const code = foreign?.[1]!.toUpperCase();
    const found = find(account);
    const counterparty =
      cpType !== undefined
        ? { counterparty_type: cpType.trim(), counterparty_external_id: cpId!.trim() }
        : {};
    const line = {
      gl_account_id: found.ok ? found.value.external_id : account.trim(),
      line_type: side,
    };
    if (code === undefined || code === currency) {
      if (price) {
        const message =
          `--${side} ${value}: a rate or @@ goes with an amount in another currency ` +
          '(EUR 1000.00 @ 1.105)';
        unreadable.push({ path: `--${side}`, reason: 'invalid_line', message });
      }
      const text = code === undefined ? amountText : foreign![2]!;
      return {
        ...line,
        amount_atoms: read(text, 'amount_atoms', exponent, currency),
        ...counterparty,
        ...ownTags,
      };
    }
    const foreignExponent = currencyExponent(code);
    if (foreignExponent === null) {
      const message = `--${side} ${value}: '${foreign![1]}' is not an ISO 4217 currency code`;
      unreadable.push({ path: `--${side}`, reason: 'invalid_currency', message });
      return null;
    }
    const fx: Record<string, unknown> = {
      currency: code,
      amount_atoms: read(foreign![2]!, 'fx.amount_atoms', foreignExponent, code),
      ...(price?.kind === '@' ? { rate: price.text } : {}),
    };
    const functional =
      price?.kind === '@@'
        ? { amount_atoms: read(price.text, 'amount_atoms', exponent, currency) }
        : {};
    return { ...line, ...functional, ...counterparty, fx, ...ownTags };
  });
  if (unreadable.length)
    throw errors.usage(unreadable.map((p) => p.message).join('; '), unreadable);
  if (refused.length) throw entryInvalid(refused);
  return lines as Record<string, unknown>[];
}

export async function bodyFromFile(ctx: Context, path: string): Promise<unknown> {
  const parsed = parseJsonBody(await readText(ctx, path, MAX_BODY_BYTES));
  const name = path === '-' ? 'standard input' : path;
  if (!parsed.ok)
    throw entryInvalid([
      { path: '', reason: 'invalid_json', message: `${name} is not valid JSON: ${parsed.message}` },
    ]);
  return parsed.value;
}

const FIELD_FLAGS: Record<string, string> = {
  entry_date: '--date',
  currency: '--currency',
  je_number: '--je-number',
  auto_reverse_on: '--reverse-on',
  memo: '--memo',
  manual_entry_reason: '--reason',
  is_adjusting: '--adjusting',
};

/** The flag that gave the value at a body path (`lines[2]` is the third line flag), or null for the whole entry. */
function flagOf(opts: JePostOptions): (path: string) => string | null {
  const flags = lineFlags(opts).map(([side, v]) => `--${side} ${v}`);
  return (path) => {
    const line = /^lines\[(\d+)\]/.exec(path);
    if (line) return flags[Number(line[1])] ?? null;
    // The entry's tags: the --tag that gave the key, or all of them (too many).
    const tag = /^tags(?:\.(.+))?$/.exec(path);
    if (tag)
      return `--tag${tag[1] ? ` ${opts.tag.find((t) => t.startsWith(`${tag[1]}=`)) ?? tag[1]}` : ''}`;
    return FIELD_FLAGS[path] ?? null;
  };
}

/** For an unknown account of a line flag: what was typed, and the accounts it resembles. */
function accountHint(opts: JePostOptions, accounts: GlAccount[]): (p: Problem) => Problem {
  const find = accountFinder(accounts);
  const typed = lineFlags(opts).map(([, v]) => {
    const suffix = splitTagSuffix(v);
    const rest = typeof suffix === 'string' ? v : suffix.rest;
    return (lineFlagParts(rest)?.[0] ?? rest).trim();
  });
  return (p) => {
    const line = /^lines\[(\d+)\]\.gl_account_id$/.exec(p.path);
    if (!line || p.reason !== 'unknown_account') return p;
    const found = find(typed[Number(line[1])] ?? '');
    return found.ok ? p : { ...p, message: found.message };
  };
}
