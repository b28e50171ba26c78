import type { Context } from '../cli/context.js';
import { convert, parseRate } from '../domain/fx.js';
import type { Choice, Prompter } from '../cli/prompter.js';
import {
  requiredCounterpartyType,
  type Counterparty,
  type Entity,
  type GlAccount,
} from '../domain/accounts.js';
import { localDate } from '../domain/dates.js';
import { errors, isBooksError, type Problem } from '../domain/errors.js';
import { describeAccount, readAmount, readDate } from '../domain/input.js';
import { exponentOf, formatAmount } from '../domain/money.js';
import { contextFromChart, validateEntry } from '../domain/validation.js';
import type { Ledger } from '../ledger/port.js';
import { entryText } from '../render/entry.js';
import { tagsFlag, withReversal, type JePostOptions } from './jePost.js';

type Line = {
  gl_account_id: string;
  line_type: 'debit' | 'credit';
  amount_atoms: number;
  memo?: string;
  counterparty_type?: string;
  counterparty_external_id?: string;
  fx?: { currency: string; amount_atoms: number; rate?: string };
};

interface Draft {
  date: string;
  memo: string;
  adjusting: boolean;
  lines: Line[];
}

type Action = 'add' | 'review' | 'date' | 'memo' | 'adjusting' | 'remove' | 'cancel';

/** What the prompts check answers against: the ledger's entity, chart and counterparties. */
interface Known {
  entity: Entity;
  accounts: GlAccount[];
  counterparties: Counterparty[] | null;
  money: (n: bigint | number) => string;
  exponent: number;
}

/**
 * Builds an entry at the terminal. Each answer is checked when it is given, by the rules the ledger
 * itself applies (a date in a closed period is refused at the date); the choices keep their order;
 * nothing destructive is a default, and removing a line or cancelling asks to confirm. Before
 * posting, the whole entry is validated and shown, and any part of it can still be changed.
 * Returns the request body, or null when nothing is to be posted.
 */
export async function interactiveEntry(
  ctx: Context,
  ledger: Ledger,
  opts: JePostOptions,
  exponent: number,
  key: string,
): Promise<unknown> {
  const p = await ctx.prompter();
  const entity = await ledger.entity.get();
  const known: Known = {
    entity,
    accounts: await ledger.chart.accounts(),
    counterparties: await ledger.chart.counterparties().catch(() => null),
    money: (n) => formatAmount(n, exponent),
    exponent,
  };
  const draft: Draft = {
    date: await askDate(p, known, opts.date ?? localDate(ctx.now())),
    memo: opts.memo ?? (await p.input('Memo (optional)')),
    adjusting: opts.adjusting,
    lines: [],
  };
  for (;;) {
    const action: Action = draft.lines.length === 0 ? 'add' : await askAction(p, draft);
    if (action === 'add') {
      draft.lines.push(await askLine(p, known, draft));
      showTotals(ctx, draft, known);
    } else if (action === 'date') draft.date = await askDate(p, known, draft.date);
    else if (action === 'memo')
      draft.memo = await p.input('Memo (optional)', { default: draft.memo });
    else if (action === 'adjusting') draft.adjusting = !draft.adjusting;
    else if (action === 'remove') await removeLine(p, draft, known);
    else if (action === 'cancel') {
      if (await p.confirm('Cancel this entry? Nothing will be posted.', false))
        throw errors.cancelled();
    } else {
      const body = bodyOf(draft, opts);
      if (await review(ctx, ledger, known, body, key)) return body;
    }
  }
}

async function askDate(p: Prompter, known: Known, suggested: string): Promise<string> {
  const validate = (v: string): true | string => {
    const d = readDate(v);
    if (!d.ok) return d.message;
    // The ledger's own date rule (books start, closed period), on this date alone.
    const problem = validateEntry(
      { entry_date: d.value, lines: [] },
      contextFromChart(known.entity, [], null),
    ).problems.find((x) => x.path === 'entry_date');
    return problem ? problem.message : true;
  };
  return (await p.input('Entry date', { default: suggested, validate })).trim();
}

async function askAction(p: Prompter, draft: Draft): Promise<Action> {
  const { d, c } = totals(draft);
  const ready = draft.lines.length >= 2 && d === c;
  const choices: Choice<Action>[] = [
    { name: 'Add a line', value: 'add' },
    {
      name: 'Review and post',
      value: 'review',
      ...(ready
        ? {}
        : { disabled: draft.lines.length < 2 ? '(needs two lines)' : '(not balanced yet)' }),
    },
    { name: 'Change the date', value: 'date' },
    { name: 'Change the memo', value: 'memo' },
    draft.adjusting
      ? { name: 'Make it a regular entry (now adjusting)', value: 'adjusting' }
      : { name: 'Make it an adjusting entry', value: 'adjusting' },
    { name: 'Remove a line…', value: 'remove' },
    { name: 'Cancel…', value: 'cancel' },
  ];
  return p.select('Next', choices, { default: ready ? 'review' : 'add' });
}

async function askLine(p: Prompter, known: Known, draft: Draft): Promise<Line> {
  const account = await p.search<GlAccount>('Account (type a number, a name or an id)', (term) =>
    accountChoices(known.accounts, term),
  );
  const { d, c } = totals(draft);
  const suggested: 'debit' | 'credit' = d > c ? 'credit' : 'debit';
  const sides: Choice<'debit' | 'credit'>[] = [
    { name: 'Debit', value: 'debit' },
    { name: 'Credit', value: 'credit' },
  ];
  const side = await p.select(`${account.name}: debit or credit?`, sides, { default: suggested });
  const gap = d > c ? d - c : c - d;
  const foreign =
    account.currency !== null && account.currency !== known.entity.currency
      ? account.currency
      : null;
  const line: Line = foreign
    ? {
        gl_account_id: account.external_id,
        line_type: side,
        ...(await askForeign(p, known, foreign)),
      }
    : { gl_account_id: account.external_id, line_type: side, amount_atoms: 0 };
  if (!foreign) {
    const read = (v: string) => readAmount(v, known.exponent, known.entity.currency);
    const validate = (v: string) => {
      const r = read(v);
      return r.ok ? true : r.message;
    };
    const text = await p.input('Amount', {
      ...(gap > 0n ? { default: known.money(gap) } : {}),
      validate,
    });
    const amount = read(text);
    line.amount_atoms = amount.ok ? amount.value : 0;
  }
  const needed = requiredCounterpartyType(account.account_type);
  if (needed) {
    line.counterparty_type = needed;
    line.counterparty_external_id = await askCounterparty(p, known, needed);
  }
  const memo = await p.input('Line memo (optional)');
  if (memo) line.memo = memo;
  return line;
}

/**
 * A line of an account kept in another currency, typed at the prompt: its amount in that currency
 * with the rate (`1000.00 @ 1.105`) or the functional amount the bank converted (`1000.00 @@
 * 1105.00`), so that the entry's totals are known as it is built (docs/currency.md).
 */
async function askForeign(
  p: Prompter,
  known: Known,
  currency: string,
): Promise<Pick<Line, 'amount_atoms' | 'fx'>> {
  const functional = known.entity.currency;
  const read = (
    v: string,
  ): { ok: true; value: Pick<Line, 'amount_atoms' | 'fx'> } | { ok: false; message: string } => {
    const m = /^\s*(?:[A-Za-z]{3}\s+)?([^@]+?)\s*(@@?)\s*(\S+)\s*$/.exec(v);
    if (!m)
      return {
        ok: false,
        message: `write the ${currency} amount and its rate: 1000.00 @ 1.105, or @@ the ${functional} amount`,
      };
    const amount = readAmount(m[1]!, exponentOf(currency), currency);
    if (!amount.ok) return { ok: false, message: amount.message };
    if (m[2] === '@@') {
      const f = readAmount(m[3]!, known.exponent, functional);
      if (!f.ok) return { ok: false, message: f.message };
      return {
        ok: true,
        value: { amount_atoms: f.value, fx: { currency, amount_atoms: amount.value } },
      };
    }
    const rate = parseRate(m[3]);
    if (!rate.ok) return { ok: false, message: rate.message };
    const converted = convert(amount.value, rate.rate, currency, functional);
    if (converted < 1n)
      return { ok: false, message: `${m[1]} ${currency} at ${m[3]} is no ${functional} atom` };
    return {
      ok: true,
      value: {
        amount_atoms: Number(converted),
        fx: { currency, amount_atoms: amount.value, rate: m[3]! },
      },
    };
  };
  const text = await p.input(
    `Amount in ${currency} (1000.00 @ RATE, or 1000.00 @@ ${functional} AMOUNT)`,
    {
      validate: (v) => {
        const r = read(v);
        return r.ok ? true : r.message;
      },
    },
  );
  const r = read(text);
  return r.ok ? r.value : { amount_atoms: 0 };
}

/** The accounts that match a search, in chart order; those that cannot be posted to are shown with the reason. */
function accountChoices(accounts: GlAccount[], term: string): Choice<GlAccount>[] {
  const t = term.trim().toLowerCase();
  return accounts
    .filter(
      (a) => !t || `${a.account_number ?? ''} ${a.name} ${a.external_id}`.toLowerCase().includes(t),
    )
    .slice(0, 50)
    .map((a) => {
      const why = !a.is_active
        ? '(inactive)'
        : !a.is_postable
          ? '(header: post to an account under it)'
          : null;
      return {
        name: describeAccount(a),
        value: a,
        description: a.account_type,
        ...(why ? { disabled: why } : {}),
      };
    });
}

async function askCounterparty(p: Prompter, known: Known, type: string): Promise<string> {
  const label = type === 'customer' ? 'Customer' : 'Vendor';
  const list = (known.counterparties ?? []).filter((cp) => cp.counterparty_type === type);
  if (!list.length)
    return (
      await p.input(`${label} external id`, {
        validate: (v) => (v.trim() ? true : 'an external id is needed'),
      })
    ).trim();
  return p.search<string>(label, (term) =>
    list
      .filter((cp) =>
        `${cp.external_id} ${cp.name}`.toLowerCase().includes(term.trim().toLowerCase()),
      )
      .map((cp) => ({
        name: `${cp.external_id}  ${cp.name}`,
        value: cp.external_id,
        ...(cp.is_active ? {} : { disabled: '(inactive)' }),
      })),
  );
}

async function removeLine(p: Prompter, draft: Draft, known: Known): Promise<void> {
  const choices: Choice<number>[] = draft.lines.map((l, i) => ({
    name: `${i + 1}. ${l.line_type} ${l.gl_account_id} ${known.money(l.amount_atoms)}`,
    value: i,
  }));
  choices.push({ name: 'Keep every line', value: -1 });
  const i = await p.select('Remove which line?', choices, { default: -1 });
  if (i >= 0 && (await p.confirm(`Remove line ${i + 1}?`, false))) draft.lines.splice(i, 1);
}

function totals(draft: Draft): { d: bigint; c: bigint } {
  let d = 0n;
  let c = 0n;
  for (const l of draft.lines) {
    if (l.line_type === 'debit') d += BigInt(l.amount_atoms);
    else c += BigInt(l.amount_atoms);
  }
  return { d, c };
}

function showTotals(ctx: Context, draft: Draft, known: Known): void {
  const { d, c } = totals(draft);
  const state = d === c ? 'balanced' : `out of balance by ${known.money(d > c ? d - c : c - d)}`;
  ctx.err(`  debits ${known.money(d)}   credits ${known.money(c)}   ${state}`);
}

function bodyOf(draft: Draft, opts: JePostOptions): Record<string, unknown> {
  // An accrual's reversal is part of the entry reviewed: its date is checked before posting.
  return withReversal(
    {
      entry_date: draft.date,
      lines: draft.lines,
      ...(draft.memo ? { memo: draft.memo } : {}),
      ...(opts.jeNumber ? { je_number: opts.jeNumber } : {}),
      ...(draft.adjusting ? { is_adjusting: true } : {}),
      ...(opts.reason ? { manual_entry_reason: opts.reason } : {}),
      ...tagsFlag(opts.tag),
    },
    opts,
  ) as Record<string, unknown>;
}

/**
 * Validates the whole entry as the ledger would (a local ledger's dry run; a remote one's rules over
 * its chart), shows it, and asks to post. False goes back to the choices, to change something.
 */
async function review(
  ctx: Context,
  ledger: Ledger,
  known: Known,
  body: unknown,
  key: string,
): Promise<boolean> {
  let problems: Problem[] = [];
  try {
    if (ledger.capabilities.dryRun)
      ctx.err(
        entryText(
          await ledger.journal.post(body, { idempotencyKey: key, dryRun: true }),
          known.exponent,
          'Ready to post ',
        ),
      );
    else
      problems = validateEntry(
        body,
        contextFromChart(known.entity, known.accounts, known.counterparties),
      ).problems;
  } catch (e) {
    if (!isBooksError(e)) throw e;
    ctx.err(`error ${e.code}: ${e.message}`);
    problems = e.errors;
  }
  for (const pr of problems) ctx.err(`  ${pr.path}: ${pr.message}`);
  if (problems.length) return false;
  const p = await ctx.prompter();
  if (await p.confirm('Post this entry?', true)) return true;
  ctx.err('Not posted; change the entry, or cancel.');
  return false;
}
