import { Command, Option } from 'commander';
import { errors } from '../domain/errors.js';
import type { CommandSpec, FlagSpec, Raw } from './command.js';
import type { Context, GlobalFlags, Io } from './context.js';

type Load = () => Promise<{ default: CommandSpec<unknown> }>;

/** A command group (`je`, `report`, ...) and what it holds. */
const GROUPS: Record<string, string> = {
  accounts: 'Chart of accounts',
  counterparties: 'Customers, vendors and employees',
  entity: 'The entity whose books the ledger keeps',
  entities: 'The entities of a database',
  je: 'Journal entries',
  report: 'Reports',
  keys: 'API keys of a local ledger, for books serve',
  profile: 'Named ledgers: local files or remote services',
  reconcile: 'Bank and card reconciliation (alone, with --account: the interactive screen)',
};

/** A group that is also a command of its own when no subcommand is named (the interactive screen). */
const GROUP_ACTIONS: Record<string, Load> = {
  reconcile: () => import('../commands/reconcileScreen.js'),
};

const reconcile =
  (name: string): Load =>
  () =>
    import('../commands/reconcile.js').then((m) => ({
      default: (m as unknown as Record<string, CommandSpec<unknown>>)[name]!,
    }));

/**
 * Every command: its path, the line `books --help` lists, and its module, imported only when the
 * command is run or its help is asked for, so that `books --help` loads neither SQLite, the HTTP
 * client nor the prompts.
 */
export const COMMANDS: readonly { path: string; summary: string; load: Load; alias?: string }[] = [
  {
    path: 'init',
    summary:
      'Create a ledger file with its entity, or an entity in a database (refuses an existing one)',
    load: () => import('../commands/init.js'),
  },
  {
    path: 'books-start',
    summary: 'Apply the First Month of Books (no entries may be dated before it)',
    load: () => import('../commands/booksStart.js'),
  },
  {
    path: 'entity show',
    summary: 'Show the entity: currency, fiscal year, First Month of Books, lock date, counts',
    load: () => import('../commands/entityShow.js'),
  },
  {
    path: 'entities list',
    summary: 'List the entities of a ledger (a database holds many)',
    load: () => import('../commands/entitiesList.js'),
  },
  {
    path: 'accounts import',
    summary: 'Create or update accounts from CSV (by external_id)',
    load: () => import('../commands/accountsImport.js'),
  },
  {
    path: 'accounts list',
    summary: 'List the chart of accounts',
    load: () => import('../commands/accountsList.js'),
  },
  {
    path: 'counterparties import',
    summary: 'Create or update counterparties from CSV',
    load: () => import('../commands/counterpartiesImport.js'),
  },
  {
    path: 'counterparties list',
    summary: 'List counterparties',
    load: () => import('../commands/counterpartiesList.js'),
  },
  {
    path: 'je post',
    summary: 'Post one journal entry: from line flags, a JSON body (--file), or interactively',
    load: () => import('../commands/jePost.js'),
  },
  {
    path: 'je import',
    summary: 'Import a CSV batch of entries: checked whole, posted all or nothing, never twice',
    load: () => import('../commands/jeImport.js'),
  },
  { path: 'je list', summary: 'List journal entries', load: () => import('../commands/jeList.js') },
  {
    path: 'je show',
    summary: 'Show one journal entry with its lines',
    load: () => import('../commands/jeShow.js'),
  },
  {
    path: 'je reverse',
    summary: 'Post the mirror of an entry and link the two (an entry can be reversed once)',
    load: () => import('../commands/jeReverse.js'),
  },
  {
    path: 'report trial-balance',
    alias: 'tb',
    summary: 'The trial balance as of a date: debits and credits, unadjusted, or the worksheet',
    load: () => import('../commands/reportTrialBalance.js'),
  },
  {
    path: 'report income-statement',
    alias: 'pnl',
    summary: 'The income statement: activity within each month, quarter or year',
    load: () => import('../commands/reportIncomeStatement.js'),
  },
  {
    path: 'report balance-sheet',
    summary: 'The balance sheet, one column per month, quarter or year',
    load: () => import('../commands/reportBalanceSheet.js'),
  },
  {
    path: 'report general-ledger',
    alias: 'gl',
    summary: 'Every line behind the balances, per account, with running balances',
    load: () => import('../commands/reportGeneralLedger.js'),
  },
  {
    path: 'report reconciliation',
    summary: 'The reconciliation report: statement, cleared and book balances, outstanding lines',
    load: () => import('../commands/reportReconciliation.js'),
  },
  {
    path: 'reconcile import',
    summary: 'Import a bank or card statement (CSV, OFX, QFX); duplicates skipped',
    load: reconcile('importCommand'),
  },
  {
    path: 'reconcile match',
    summary: 'Match statement lines with ledger lines: automatically (the best pairing) or by hand',
    load: reconcile('matchCommand'),
  },
  {
    path: 'reconcile unmatch',
    summary: "Undo a statement line's match",
    load: reconcile('unmatchCommand'),
  },
  {
    path: 'reconcile clear',
    summary: 'Tick (or untick) ledger lines the statement does not list',
    load: reconcile('clearCommand'),
  },
  {
    path: 'reconcile ignore',
    summary: 'Set aside a statement line imported in error',
    load: reconcile('ignoreCommand'),
  },
  {
    path: 'reconcile create',
    summary: 'Post entries for bank-only lines (fees, interest) and match them; --rules for many',
    load: reconcile('createCommand'),
  },
  {
    path: 'reconcile finish',
    summary: 'Finish the reconciliation at a zero difference',
    load: reconcile('finishCommand'),
  },
  {
    path: 'reconcile undo',
    summary: "Undo the account's latest reconciliation",
    load: reconcile('undoCommand'),
  },
  {
    path: 'reconcile list',
    summary: "List the account's finished reconciliations",
    load: reconcile('listCommand'),
  },
  {
    path: 'reconcile status',
    summary: 'Where the reconciliation stands: balances, difference, what is left on each side',
    load: reconcile('statusCommand'),
  },
  {
    path: 'keys create',
    summary: 'Mint a key; it is printed once, and only its hash is kept',
    load: () => import('../commands/keysCreate.js'),
  },
  {
    path: 'keys list',
    summary: 'List keys (never the keys themselves)',
    load: () => import('../commands/keysList.js'),
  },
  {
    path: 'keys revoke',
    summary: 'Revoke a key at once',
    load: () => import('../commands/keysRevoke.js'),
  },
  {
    path: 'serve',
    summary: 'Serve the accounting API over the local ledger',
    load: () => import('../commands/serve.js'),
  },
  {
    path: 'profile add',
    summary: 'Add (or replace) a profile: --url for a remote service, --ledger for a local file',
    load: () => import('../commands/profileAdd.js'),
  },
  {
    path: 'profile use',
    summary: 'Make a profile the default',
    load: () => import('../commands/profileUse.js'),
  },
  {
    path: 'profile list',
    summary: 'List profiles (and whether each remote key is set; never the key)',
    load: () => import('../commands/profileList.js'),
  },
  {
    path: 'profile remove',
    summary: 'Remove a profile',
    load: () => import('../commands/profileRemove.js'),
  },
  {
    path: 'export',
    summary:
      'Write the journal for hledger or beancount (account declarations, one transaction per entry)',
    load: () => import('../commands/export.js'),
  },
  {
    path: 'close',
    summary: 'Lock the books through a date (month-end close)',
    load: () => import('../commands/close.js'),
  },
  {
    path: 'rebuild',
    summary:
      'Recompute the derived balance data and the general ledger index from the journal lines',
    load: () => import('../commands/rebuild.js'),
  },
  {
    path: 'check',
    summary: "Verify the ledger's invariants; exit 1 naming each problem",
    load: () => import('../commands/check.js'),
  },
];

export const EXIT_CODES = `
Exit codes:
  0    success
  1    refused by the ledger's rules or bad input data (CAPI33, CAPI34, CAPI67, CAPI69, reconcile_refused,
       CSV errors, check failures)
  2    usage: unknown command or flag, bad flag value, no ledger, operation not offered by the profile
  3    authentication or permission (CAPI11, CAPI71)
  4    unavailable, worth retrying later (CAPI73, network failure, ledger locked)
  130  interactive entry cancelled`;

/** Global flags that take a value: skipped when looking for the command in the arguments. */
const VALUE_FLAGS = new Set(['--ledger', '--entity', '--profile', '--format']);

/** The command paths the arguments name, and the group whose commands all load (for its help). */
function named(argv: string[]): string[] {
  const words: string[] = [];
  for (let i = 0; i < argv.length && words.length < 3; i++) {
    const a = argv[i]!;
    if (a === '--') break;
    if (a.startsWith('-')) {
      if (VALUE_FLAGS.has(a)) i++;
      continue;
    }
    words.push(a);
  }
  if (words[0] === 'help') words.shift();
  const [first, second] = words;
  if (first === undefined) return [];
  if (GROUPS[first] === undefined) return [first];
  // A group that is a command of its own: when no subcommand of it is named (its flags' values are
  // words too: `books reconcile --account checking`).
  const sub = COMMANDS.some((c) => c.path === `${first} ${second ?? ''}`);
  if (GROUP_ACTIONS[first] && !sub && !(second && COMMANDS.some((c) => c.alias === second)))
    return [first];
  const leaf = COMMANDS.find(
    (c) =>
      c.path === `${first} ${second ?? ''}` ||
      (c.alias !== undefined && c.alias === second && c.path.startsWith(`${first} `)),
  );
  return leaf
    ? [leaf.path]
    : COMMANDS.filter((c) => c.path.startsWith(`${first} `)).map((c) => c.path);
}

export interface ProgramOptions {
  io: Io;
  makeContext: (flags: GlobalFlags) => Context;
  /** Replaces a command's run: tests see the options a command line gives, without running it. */
  runF?: (path: string, options: unknown, ctx: Context) => Promise<void>;
}

/**
 * The command tree for these arguments: every command listed, with the flags of those the arguments
 * name (and of the group whose help is asked for) declared from their modules.
 */
export async function buildProgram(argv: string[], opts: ProgramOptions): Promise<Command> {
  const { io } = opts;
  const output = {
    writeOut: (s: string) => io.stdout.write(s),
    writeErr: (s: string) => io.stderr.write(s),
    outputError: () => {},
  };
  const program = new Command('books')
    .description(
      'Double-entry bookkeeping: post journal entries, import CSV batches, read the reports of a month-end close.',
    )
    .version('0.1.0', '-V, --version')
    .option(
      '--ledger <path|url>',
      'ledger file, or a postgresql:// database URL (env BOOKS_LEDGER; default ./books.sqlite)',
    )
    .option('--entity <slug>', "entity of a database's ledger (env BOOKS_ENTITY)")
    .option('--profile <name>', 'named profile from the config file (env BOOKS_PROFILE)')
    .addOption(new Option('--format <format>', 'output format').choices(['table', 'json', 'csv']))
    .configureOutput(output)
    .exitOverride()
    .addHelpText('after', EXIT_CODES);
  const parents = new Map<string, Command>([['', program]]);
  for (const [name, description] of Object.entries(GROUPS)) {
    parents.set(
      name,
      program.command(name).description(description).exitOverride().configureOutput(output),
    );
  }
  const wanted = new Set(named(argv));
  for (const [group, load] of Object.entries(GROUP_ACTIONS))
    if (wanted.has(group)) declare(parents.get(group)!, group, (await load()).default, opts);
  for (const c of COMMANDS) {
    const words = c.path.split(' ');
    const parent = parents.get(words.length > 1 ? words[0]! : '')!;
    const cmd = parent
      .command(words[words.length - 1]!)
      .description(c.summary)
      .aliases(c.alias ? [c.alias] : [])
      .exitOverride()
      .configureOutput(output);
    if (wanted.has(c.path)) declare(cmd, c.path, (await c.load()).default, opts);
    else cmd.allowUnknownOption().allowExcessArguments();
  }
  return program;
}

/** Declares a command's arguments, flags and help from its spec, and runs it when it is called. */
function declare(
  cmd: Command,
  path: string,
  spec: CommandSpec<unknown>,
  opts: ProgramOptions,
): void {
  for (const a of spec.args ?? [])
    cmd.argument(a.optional ? `[${a.name}]` : `<${a.name}>`, a.description);
  for (const f of spec.flags ?? []) cmd.addOption(option(f));
  const formats = spec.formats ?? ['table', 'json'];
  const after = [
    spec.help,
    `Formats (--format): ${formats.join(', ')}.`,
    spec.examples?.length
      ? `Examples:\n${spec.examples.map((e) => `  ${e}`).join('\n')}`
      : undefined,
  ];
  cmd.addHelpText('after', '\n' + after.filter(Boolean).join('\n\n'));
  cmd.action(async (...params: unknown[]) => {
    const self = params[params.length - 1] as Command;
    const ctx = opts.makeContext(self.optsWithGlobals() as GlobalFlags);
    if (!formats.includes(ctx.format)) {
      throw errors.usage(
        `--format ${ctx.format} is not offered by books ${path}; it writes ${formats.join(' or ')}`,
      );
    }
    const raw: Raw = { flags: self.opts(), args: params.slice(0, -2) as string[] };
    const options = spec.options(raw);
    await (opts.runF ? opts.runF(path, options, ctx) : spec.run(ctx, options as never));
  });
}

function option(f: FlagSpec): Option {
  const o = new Option(f.flags, f.description);
  if (f.choices) o.choices(f.choices);
  if (f.repeat) o.argParser((v: string, acc: string[] | undefined) => [...(acc ?? []), v]);
  else if (f.default !== undefined) o.default(f.default);
  return o;
}
