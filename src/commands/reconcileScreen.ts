import { command, str } from '../cli/command.js';
import type { Context } from '../cli/context.js';
import type { Prompter } from '../cli/prompter.js';
import { dateFlag } from '../cli/flags.js';
import { dayNumber, isIsoDate } from '../domain/dates.js';
import { errors, isBooksError } from '../domain/errors.js';
import { jeLineOf, type ReconLine } from '../domain/reconcile.js';
import { parseDecimal } from '../domain/money.js';
import type { Ledger, MatchOutcome, ReconciliationReport } from '../ledger/port.js';
import { matchText, money } from '../render/reconcile.js';
import { ACCOUNT_FLAG, accountOf, exponentOfLedger } from './reconcile.js';

/**
 * The reconciliation screen a bookkeeper knows (QuickBooks Online's, Xero's): the statement balance,
 * the cleared balance and the difference always shown; proposed matches to accept; each unmatched
 * statement line to create an entry for, match by hand or ignore; ledger lines to tick; finish at
 * zero. Every answer is saved as it is given (one transaction each), so Ctrl-C keeps what was saved
 * and leaves nothing half-written.
 */
export default command({
  flags: [
    ACCOUNT_FLAG,
    {
      flags: '--statement-date <YYYY-MM-DD>',
      description: "the statement's date (default: the OFX's)",
    },
  ],
  formats: ['table'],
  help: `Run at a terminal. Import the statement first (books reconcile import).`,
  options: (raw) => ({
    account: accountOf(raw),
    date: dateFlag('--statement-date', str(raw, 'statementDate')),
  }),
  async run(ctx, o) {
    if (!ctx.io.stdin.isTTY && !ctx.scripted)
      throw errors.usage(
        'the reconciliation screen runs at a terminal; in scripts use books reconcile match, create, clear and finish',
      );
    const p = await ctx.prompter();
    const ledger = await ctx.ledger();
    const exponent = await exponentOfLedger(ledger, o.account);
    const status = await ledger.reconcile.status({ account: o.account });
    // The statement at hand is after the last reconciliation: its date is asked for otherwise.
    const after = status.last_reconciliation?.statement_date ?? '';
    const later = (v: string) =>
      !isIsoDate(v)
        ? 'a date is YYYY-MM-DD'
        : v > after || `a date after ${after}, the last reconciled`;
    if (o.date && later(o.date) !== true)
      throw errors.usage(`--statement-date: ${String(later(o.date))}`);
    const date =
      o.date ??
      status.statement?.date ??
      (await p.input('Statement date (YYYY-MM-DD)', { validate: later }));
    let balance: number | null =
      status.statement && status.statement.date === date ? status.statement.balance_atoms : null;
    const saved: string[] = [];
    try {
      if (balance === null) {
        const text = await p.input('Statement ending balance', {
          validate: (v) => parseDecimal(v, exponent).ok || 'an amount such as 1250.00',
        });
        const parsed = parseDecimal(text, exponent);
        balance = parsed.ok ? Number(parsed.atoms) : 0;
        // Kept as the statement's closing balance: the next screen, and finish, know it.
        await ledger.reconcile.importStatement({
          account: o.account,
          statement: { lines: [], closing: { date, balance_atoms: balance } },
          file: 'the screen',
        });
        saved.push(`the statement's closing balance ${money(balance, exponent)} on ${date}`);
      }
      const s = { account: o.account, date, balance, exponent, after, saved };
      await screen(ctx, p, ledger, s);
    } catch (e) {
      // Ctrl-C: what was saved stays, and is said exactly.
      if (isBooksError(e) && e.code === 'cancelled')
        throw errors.cancelled(
          saved.length
            ? `cancelled; saved before it: ${saved.join('; ')}`
            : 'cancelled; nothing was saved',
        );
      throw e;
    }
  },
});

/** Amounts as the screen prints them. */
const amounts = (s: Screen) => (a: number | bigint | null) => money(a, s.exponent);

interface Screen {
  account: string;
  date: string;
  balance: number;
  exponent: number;
  /** The last reconciliation's date: lines dated through it can no longer be ticked. */
  after: string;
  /** What the screen has saved, in words, for a Ctrl-C to say. */
  saved: string[];
}

async function screen(ctx: Context, p: Prompter, ledger: Ledger, s: Screen): Promise<void> {
  const m = amounts(s);
  // Sums of many lines may pass 2^53: the difference is taken exactly.
  const differenceOf = (cleared: number | bigint) => BigInt(s.balance) - BigInt(cleared);
  const show = (cleared: number | bigint) =>
    ctx.err(
      `\nStatement ${s.date}: balance ${m(s.balance)}   cleared ${m(cleared)}   ` +
        `difference ${m(differenceOf(cleared))}`,
    );
  const first = await ledger.reconcile.report({ account: s.account, statement_date: s.date });
  show(first.cleared_balance);
  const proposed = await ledger.reconcile.match({
    account: s.account,
    dry_run: true,
    describe: true,
  });
  if (proposed.matched.length) {
    // The pairs are shown before the question: a bookkeeper accepts what they have seen.
    ctx.err(matchedTable(proposed, s.exponent));
    if (await p.confirm(`Accept the ${proposed.matched.length} proposed match(es)?`, true)) {
      const done = await ledger.reconcile.match({ account: s.account });
      s.saved.push(`${done.matched.length} match(es) accepted`);
    }
  }
  for (;;) {
    const r = await ledger.reconcile.report({ account: s.account, statement_date: s.date });
    const difference = differenceOf(r.cleared_balance);
    show(r.cleared_balance);
    const unmatched = r.unmatched_statement_lines;
    const uncleared = [...r.outstanding_debits.lines, ...r.outstanding_credits.lines].filter(
      (l) => l.entry_date > s.after,
    );
    const action = await p.select('What next?', [
      {
        name: `Handle an unmatched statement line (${unmatched.length})`,
        value: 'line',
        ...(unmatched.length ? {} : { disabled: 'none left' }),
      },
      {
        name: `Tick a ledger line (${uncleared.length} uncleared)`,
        value: 'tick',
        ...(uncleared.length ? {} : { disabled: 'none left' }),
      },
      {
        name: 'Finish',
        value: 'finish',
        ...(difference === 0n && unmatched.length === 0
          ? {}
          : { disabled: 'the difference must be zero and every line handled' }),
      },
      { name: 'Leave (what was saved stays)', value: 'leave' },
    ]);
    if (action === 'leave') return;
    // A refusal (a rule of posting, a line another bookkeeper took meanwhile) is said, and the
    // screen goes on; cancelling ends it.
    try {
      if (await act(ctx, p, ledger, s, r, action, uncleared)) return;
    } catch (e) {
      if (!isBooksError(e) || e.code === 'cancelled') throw e;
      ctx.err(`${e.code}: ${e.message}`);
    }
  }
}

/** One action of the screen; true when it finished the reconciliation. */
async function act(
  ctx: Context,
  p: Prompter,
  ledger: Ledger,
  s: Screen,
  r: ReconciliationReport,
  action: string,
  uncleared: ReconLine[],
): Promise<boolean> {
  const m = amounts(s);
  if (action === 'finish') {
    const done = await ledger.reconcile.finish({
      account: s.account,
      statement_date: s.date,
      statement_balance_atoms: s.balance,
    });
    s.saved.push(`reconciled through ${done.statement_date}`);
    ctx.err(`Reconciled through ${done.statement_date}: ${done.id}`);
    return true;
  }
  if (action === 'tick') {
    const line = await p.select(
      'Tick which line?',
      uncleared.map((l) => ({
        name: `${l.entry_date} ${jeLineOf(l)} ${m(l.amount_atoms)} ${l.memo ?? ''}`,
        value: l.line_id,
      })),
    );
    const done = await ledger.reconcile.clear({ account: s.account, line_ids: [line] });
    s.saved.push(`ticked ${done.line_ids.join(', ')}`);
    return false;
  }
  await handleLine(p, ledger, s, r);
  return false;
}

/** One unmatched statement line: an entry for it, a match by hand, or set aside. */
async function handleLine(
  p: Prompter,
  ledger: Ledger,
  s: Screen,
  r: ReconciliationReport,
): Promise<void> {
  const m = amounts(s);
  const line = await p.select(
    'Which statement line?',
    r.unmatched_statement_lines.map((l) => ({
      name: `${l.date} ${m(l.amount_atoms)} ${l.description ?? ''}`,
      value: l,
    })),
  );
  const what = await p.select(`${line.date} ${m(line.amount_atoms)} ${line.description ?? ''}`, [
    { name: 'Create an entry for it (a fee, interest, a card charge)', value: 'create' },
    { name: 'Match it with ledger lines', value: 'match' },
    { name: 'Ignore it (imported in error)', value: 'ignore' },
    { name: 'Back', value: 'back' },
  ]);
  const which = `${line.id} (${line.date} ${m(line.amount_atoms)})`;
  if (what === 'ignore') {
    await ledger.reconcile.ignore({ account: s.account, statement_line_id: line.id });
    s.saved.push(`${which} ignored`);
  }
  if (what === 'create') await createFor(p, ledger, s, line.id, which);
  if (what === 'match') {
    const chosen: string[] = [];
    let sum = 0n;
    const open = [...r.outstanding_debits.lines, ...r.outstanding_credits.lines];
    while (sum !== BigInt(line.amount_atoms)) {
      const left = BigInt(line.amount_atoms) - sum;
      const pick = await p.select(
        `Add a ledger line (chosen ${m(sum)} of ${m(line.amount_atoms)})`,
        [
          ...bestFirst(
            open.filter((l) => !chosen.includes(l.line_id)),
            line,
            left,
          ).map((l) => ({
            name: `${l.entry_date} ${jeLineOf(l)} ${m(l.amount_atoms)} ${l.memo ?? ''}`,
            value: l.line_id,
          })),
          { name: 'Cancel this match', value: '' },
        ],
      );
      if (pick === '') return;
      chosen.push(pick);
      sum += BigInt(open.find((l) => l.line_id === pick)!.amount_atoms);
    }
    await ledger.reconcile.match({
      account: s.account,
      statement_line_id: line.id,
      line_ids: chosen,
    });
    s.saved.push(`${which} matched by hand`);
  }
}

/** An entry for a bank-only statement line, against an offset account chosen by search. */
async function createFor(
  p: Prompter,
  ledger: Ledger,
  s: Screen,
  lineId: string,
  which: string,
): Promise<void> {
  // The account being reconciled is never its own offset.
  const accounts = (await ledger.chart.accounts()).filter(
    (a) =>
      a.is_postable && a.is_active && a.external_id !== s.account && a.account_number !== s.account,
  );
  const offset = await p.search('Offset account', (term) =>
    accounts
      .filter((a) =>
        `${a.account_number ?? ''} ${a.name} ${a.external_id}`
          .toLowerCase()
          .includes(term.toLowerCase()),
      )
      .map((a) => ({
        name: `${a.account_number ?? ''} ${a.name} (${a.external_id})`,
        value: a.external_id,
      })),
  );
  const made = await ledger.reconcile.create({
    account: s.account,
    statement_line_id: lineId,
    offset_account: offset,
  });
  for (const c of made.created) s.saved.push(`${c.je_number} posted and matched to ${which}`);
}

/**
 * A hand match's candidates, best first: the amount still to find exactly, then the nearest date
 * to the statement line's, then a line whose JE number or memo holds the statement's reference.
 */
export function bestFirst(
  lines: ReconLine[],
  line: { date: string; reference: string | null },
  left: bigint,
): ReconLine[] {
  const days = (l: ReconLine) => Math.abs(dayNumber(l.entry_date) - dayNumber(line.date));
  const ref = line.reference?.trim().toLowerCase();
  const named = (l: ReconLine) =>
    !!ref && `${l.je_number} ${l.memo ?? ''} ${l.line_memo ?? ''}`.toLowerCase().includes(ref);
  const key = (l: ReconLine): [number, number, number] => [
    BigInt(l.amount_atoms) === left ? 0 : 1,
    days(l),
    named(l) ? 0 : 1,
  ];
  return [...lines].sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
  });
}

/** The proposed matches, as the screen shows them before asking. */
function matchedTable(m: MatchOutcome, exponent: number): string {
  return matchText({ ...m, unmatched_statement_lines: [], uncleared_lines: [] }, exponent, true);
}
