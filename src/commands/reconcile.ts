import { bool, command, list, str, type FlagSpec, type Raw } from '../cli/command.js';
import { dateFlag, required, wholeFlag } from '../cli/flags.js';
import { errors } from '../domain/errors.js';
import { exponentOf, parseDecimal } from '../domain/money.js';
import { readRules } from '../import/rules.js';
import type { Ledger } from '../ledger/port.js';
import {
  layoutText,
  matchText,
  reconciliationsTable,
  statementLinesTable,
  statusText,
} from '../render/reconcile.js';
import { readText } from './io.js';

export const ACCOUNT_FLAG: FlagSpec = {
  flags: '--account <account>',
  description: 'the bank or card account (external id or number)',
};
const STATEMENT_LINE_FLAG: FlagSpec = {
  flags: '--statement-line <id>',
  description: 'a statement line (its id, as status and match print it)',
};
export const DRY_RUN: FlagSpec = {
  flags: '--dry-run',
  description: 'show what would happen; change nothing',
};

/** The --account every reconcile command requires. */
export const accountOf = (raw: Raw): string => required('--account', str(raw, 'account'));

/** The exponent of the ledger's currency, for amounts typed and printed. */
/**
 * The decimals amounts of a reconciliation are written in: the account's currency's (a foreign bank
 * account is reconciled in its own currency), else the entity's.
 */
export async function exponentOfLedger(ledger: Ledger, account?: string): Promise<number> {
  if (account !== undefined) {
    const a = (await ledger.chart.accounts()).find(
      (x) => x.external_id === account || x.account_number === account,
    );
    if (a?.currency) return exponentOf(a.currency);
  }
  return exponentOf((await ledger.entity.get()).currency);
}

export const matchCommand = command({
  flags: [
    ACCOUNT_FLAG,
    { flags: '--window-days <n>', description: 'most days between paired dates (default 7)' },
    STATEMENT_LINE_FLAG,
    {
      flags: '--line <line>',
      description: 'a ledger line to match by hand, as JE-12:2 or its id (repeatable)',
      repeat: true,
    },
    DRY_RUN,
  ],
  help: `Without --statement-line: pairs the account's unmatched statement lines with its uncleared
ledger lines of the same amount, dated at most --window-days apart: as many lines as can be paired,
then the fewest days between them, then references and counterparty names found in the texts.
With --statement-line and --line: one statement line with ledger lines that add up to it (a batch
deposit).`,
  examples: ['books reconcile match --account checking'],
  options: (raw) => ({
    account: accountOf(raw),
    windowDays: wholeFlag('--window-days', str(raw, 'windowDays'), 0, 366),
    statementLine: str(raw, 'statementLine'),
    lines: list(raw, 'line'),
    dryRun: bool(raw, 'dryRun'),
  }),
  async run(ctx, o) {
    if ((o.statementLine === undefined) !== (o.lines.length === 0))
      throw errors.usage('a manual match takes --statement-line and at least one --line');
    const ledger = await ctx.ledger();
    const outcome = await ledger.reconcile.match({
      account: o.account,
      dry_run: o.dryRun,
      // A person reads each match with its line's date, amount and JE line; JSON is the API's.
      ...(ctx.json ? {} : { describe: true }),
      ...(o.windowDays !== undefined ? { window_days: o.windowDays } : {}),
      ...(o.statementLine !== undefined
        ? { statement_line_id: o.statementLine, line_ids: o.lines }
        : {}),
    });
    if (ctx.json) return ctx.outJson(outcome);
    ctx.out(matchText(outcome, await exponentOfLedger(ledger, o.account), o.dryRun));
  },
});

/** A command on one statement line (unmatch, ignore): its answer printed as the line's new state. */
function statementLineCommand(op: 'unmatch' | 'ignore', help: string) {
  return command({
    flags: [ACCOUNT_FLAG, STATEMENT_LINE_FLAG],
    help,
    examples: [`books reconcile ${op} --account checking --statement-line stl_1`],
    options: (raw) => ({
      account: accountOf(raw),
      statementLine: required('--statement-line', str(raw, 'statementLine')),
    }),
    async run(ctx, o) {
      const ledger = await ctx.ledger();
      const line = await ledger.reconcile[op]({
        account: o.account,
        statement_line_id: o.statementLine,
      });
      if (ctx.json) return ctx.outJson(line);
      ctx.out(statementLinesTable([line], await exponentOfLedger(ledger, o.account)));
    },
  });
}

export const unmatchCommand = statementLineCommand(
  'unmatch',
  'Undoes one match (not once a finished reconciliation holds it).',
);
export const ignoreCommand = statementLineCommand(
  'ignore',
  'Sets aside a statement line imported in error: it no longer blocks finishing.',
);

export const clearCommand = command({
  flags: [
    ACCOUNT_FLAG,
    {
      flags: '--line <line>',
      description: 'a ledger line, as JE-12:2 (JE number:line) or its id (repeatable)',
      repeat: true,
    },
    { flags: '--unclear', description: 'untick the lines instead' },
  ],
  help: `Ticks ledger lines the statement file does not list (an opening balance, a line of an older
statement); a ticked line counts as cleared from its own date.`,
  examples: ['books reconcile clear --account checking --line JE-1:1'],
  options: (raw) => ({
    account: accountOf(raw),
    lines: list(raw, 'line'),
    unclear: bool(raw, 'unclear'),
  }),
  async run(ctx, o) {
    if (o.lines.length === 0) throw errors.usage('name at least one --line');
    const ledger = await ctx.ledger();
    const r = await ledger.reconcile.clear({
      account: o.account,
      line_ids: o.lines,
      unclear: o.unclear,
    });
    if (ctx.json) return ctx.outJson(r);
    // Each line as it was named, and its id when it was named by JE number.
    // (the lines past those named are their reversals' partners, ticked with them).
    const named = r.line_ids.map((id, i) =>
      o.lines[i] === undefined
        ? `${id} (its reversal's partner)`
        : o.lines[i] === id
          ? id
          : `${o.lines[i]} (${id})`,
    );
    ctx.out(`${r.state === 'cleared' ? 'Ticked' : 'Unticked'} ${named.join(', ')}`);
  },
});

export const createCommand = command({
  flags: [
    ACCOUNT_FLAG,
    STATEMENT_LINE_FLAG,
    { flags: '--offset <account>', description: 'the account the entry posts against' },
    { flags: '--counterparty <type:id>', description: 'counterparty of the offset line' },
    { flags: '--memo <text>', description: "the entry's memo (default the line's description)" },
    { flags: '--rules <file.csv>', description: 'rules: pattern,offset_account,counterparty,memo' },
    DRY_RUN,
  ],
  help: `Posts an entry for a bank-only line (fees, interest, card charges), dated the line's date,
between the account and the offset account, and matches it. With --rules, every unmatched line takes
the first rule whose pattern (case-insensitive text, or /regex/) its description holds. Every rule of
posting holds; the entries of one run post together or not at all, and a second run posts nothing
twice (the lines are matched by then).`,
  examples: ['books reconcile create --account checking --rules fixtures/reconcile/rules.csv'],
  options: (raw) => ({
    account: accountOf(raw),
    statementLine: str(raw, 'statementLine'),
    offset: str(raw, 'offset'),
    counterparty: str(raw, 'counterparty'),
    memo: str(raw, 'memo'),
    rules: str(raw, 'rules'),
    dryRun: bool(raw, 'dryRun'),
  }),
  async run(ctx, o) {
    if ((o.statementLine === undefined) === (o.rules === undefined))
      throw errors.usage('give --statement-line with --offset, or --rules FILE.csv');
    if (o.statementLine !== undefined && o.offset === undefined)
      throw errors.usage('--statement-line takes --offset ACCOUNT');
    const ledger = await ctx.ledger();
    const rules =
      o.rules === undefined ? undefined : readRules(await readText(ctx, o.rules, 1 << 20), o.rules);
    const r = await ledger.reconcile.create({
      account: o.account,
      dry_run: o.dryRun,
      ...(rules
        ? { rules }
        : {
            statement_line_id: o.statementLine!,
            offset_account: o.offset!,
            counterparty: o.counterparty ?? null,
            memo: o.memo ?? null,
          }),
    });
    if (ctx.json) return ctx.outJson(r);
    const verb = o.dryRun ? 'Would post' : 'Posted';
    const lines = r.created.map((c) =>
      c.je_number ? `  ${c.je_number}  for ${c.statement_line_id}` : `  for ${c.statement_line_id}`,
    );
    ctx.out(
      [`${verb} ${r.created.length} entr${r.created.length === 1 ? 'y' : 'ies'}`, ...lines].join(
        '\n',
      ) +
        (r.left.length
          ? `\n${r.left.length} unmatched line(s) no rule applied to: ${r.left.join(', ')}`
          : ''),
    );
  },
});

export const finishCommand = command({
  flags: [
    ACCOUNT_FLAG,
    {
      flags: '--statement-date <YYYY-MM-DD>',
      description: "the statement's date (default: the OFX's)",
    },
    {
      flags: '--statement-balance <amount>',
      description: "the statement's closing balance (default: the OFX's)",
    },
  ],
  help: `Finishes when every statement line through the date is matched or ignored and the cleared
balance equals the statement balance; otherwise exit 1, saying the difference and what is unmatched.`,
  examples: [
    'books reconcile finish --account checking --statement-date 2025-01-31 --statement-balance 36485.17',
  ],
  options: (raw) => ({
    account: accountOf(raw),
    date: dateFlag('--statement-date', str(raw, 'statementDate')),
    balance: str(raw, 'statementBalance'),
  }),
  async run(ctx, o) {
    const ledger = await ctx.ledger();
    const exponent = await exponentOfLedger(ledger, o.account);
    const balance = o.balance === undefined ? undefined : balanceAtoms(o.balance, exponent);
    const r = await ledger.reconcile.finish({
      account: o.account,
      ...(o.date ? { statement_date: o.date } : {}),
      ...(balance !== undefined ? { statement_balance_atoms: balance } : {}),
    });
    if (ctx.json) return ctx.outJson(r);
    ctx.out(`Reconciled ${o.account} through ${r.statement_date} (${r.line_count} lines): ${r.id}`);
  },
});

/** A --statement-balance as atoms: a usage error naming the flag when it is not an amount. */
function balanceAtoms(text: string, exponent: number): number {
  const p = parseDecimal(text, exponent);
  if (!p.ok || !Number.isSafeInteger(Number(p.atoms)))
    throw errors.usage(`--statement-balance: '${text}' is not an amount`, [
      {
        path: '--statement-balance',
        reason: 'invalid_amount',
        message: `'${text}' is not an amount`,
      },
    ]);
  return Number(p.atoms);
}

export const undoCommand = command({
  flags: [ACCOUNT_FLAG],
  help: "Undoes the account's latest reconciliation; its lines stay matched, no longer reconciled.",
  examples: ['books reconcile undo --account checking'],
  options: (raw) => ({ account: accountOf(raw) }),
  async run(ctx, o) {
    // Names the reconciliation it read as the latest: when another undo (or a retry of this one
    // after a lost answer) took it meanwhile, the ledger refuses instead of undoing the month before.
    const ledger = await ctx.ledger();
    const list = await ledger.reconcile.list({ account: o.account });
    const r = await ledger.reconcile.undo({ account: o.account, id: list[list.length - 1]?.id });
    if (ctx.json) return ctx.outJson(r);
    ctx.out(`Undid reconciliation ${r.id} (through ${r.statement_date})`);
  },
});

export const listCommand = command({
  flags: [ACCOUNT_FLAG],
  examples: ['books reconcile list --account checking'],
  options: (raw) => ({ account: accountOf(raw) }),
  async run(ctx, o) {
    const ledger = await ctx.ledger();
    const r = await ledger.reconcile.list({ account: o.account });
    if (ctx.json) return ctx.outJson(r);
    ctx.out(reconciliationsTable(r, await exponentOfLedger(ledger, o.account)));
  },
});

export const layoutCommand = command({
  flags: [ACCOUNT_FLAG, { flags: '--clear', description: 'forget the layout' }],
  examples: [
    'books reconcile layout --account checking',
    'books reconcile layout --account checking --clear',
  ],
  help:
    "The flags an account's statements are read with, remembered from the first import that " +
    'needed them (--map, --skip-rows, --no-header, --delimiter, --encoding, --date-format, ' +
    '--decimal-comma, --negate), and the bank account (an OFX ACCTID) its statements are of. ' +
    'Flags given to an import win over the remembered ones, and are remembered in their place.',
  options: (raw) => ({ account: accountOf(raw), clear: bool(raw, 'clear') }),
  async run(ctx, o) {
    const ledger = await ctx.ledger();
    const r = o.clear
      ? await ledger.reconcile.forgetLayout({ account: o.account })
      : await ledger.reconcile.layout({ account: o.account });
    if (ctx.json) return ctx.outJson(r);
    ctx.out(layoutText(o.account, r));
  },
});

export const statusCommand = command({
  flags: [ACCOUNT_FLAG],
  examples: ['books reconcile status --account checking'],
  help:
    'The last reconciliation, the statement balance, the cleared balance and the difference, ' +
    'and what is left on each side.',
  options: (raw) => ({ account: accountOf(raw) }),
  async run(ctx, o) {
    const ledger = await ctx.ledger();
    const r = await ledger.reconcile.status({ account: o.account });
    if (ctx.json) return ctx.outJson(r);
    ctx.out(statusText(r, await exponentOfLedger(ledger, o.account)));
  },
});
