import { Command, Option } from 'commander';
import type { Context, GlobalFlags, Io } from './context.js';

const collect = (v: string, acc: string[]) => [...acc, v];

const EXIT_CODES = `
Exit codes:
  0    success
  1    refused by the ledger's rules or bad input data (CAPI33, CAPI34, CAPI67, CAPI69, CSV errors, check failures)
  2    usage: unknown command or flag, bad flag value, no ledger, operation not offered by the profile
  3    authentication or permission (CAPI11, CAPI71)
  4    unavailable, worth retrying later (CAPI73, network failure, ledger locked)
  130  interactive entry cancelled`;

type Action = (ctx: Context, ...args: never[]) => Promise<void>;

/**
 * The command tree. Every action imports its module only when it runs, so `books --help` loads
 * neither SQLite nor the prompts.
 */
export function buildProgram(io: Io, makeContext: (flags: GlobalFlags) => Context): Command {
  const program = new Command('books')
    .description(
      'Double-entry bookkeeping: post journal entries, import CSV batches, read the balance sheet.',
    )
    .version('0.1.0', '-V, --version')
    .option('--ledger <path>', 'local ledger file (env BOOKS_LEDGER; default ./books.sqlite)')
    .option('--profile <name>', 'named profile from the config file (env BOOKS_PROFILE)')
    .addOption(new Option('--format <format>', 'output format').choices(['table', 'json', 'csv']))
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .exitOverride()
    .addHelpText('after', EXIT_CODES);

  const lazy =
    (load: () => Promise<Action>) =>
    async (...args: unknown[]) => {
      const cmd = args[args.length - 1] as Command;
      const ctx = makeContext(cmd.optsWithGlobals() as GlobalFlags);
      const fn = await load();
      // commander passes positional arguments, then options, then the command itself.
      await fn(ctx, ...(args.slice(0, -1) as never[]));
    };

  const sub = (parent: Command, name: string) =>
    parent
      .command(name)
      .exitOverride()
      .configureOutput({
        writeOut: (s) => io.stdout.write(s),
        writeErr: (s) => io.stderr.write(s),
      });

  sub(program, 'init')
    .description('Create a ledger file with its entity (refuses an existing file)')
    .option('--currency <code>', 'functional currency (ISO 4217)', 'USD')
    .option(
      '--first-month <YYYY-MM>',
      'apply the First Month of Books; nothing can post before it is applied',
    )
    .option('--name <name>', 'name of the entity', 'My Company')
    .option('--fiscal-year-start-month <n>', 'month the fiscal year starts (1-12)', '1')
    .option(
      '--chart <standard|PATH.csv>',
      'load a chart of accounts: the built-in standard chart or a CSV file',
    )
    .action(lazy(async () => (await import('../commands/init.js')).init));

  sub(program, 'books-start')
    .description('Apply the First Month of Books (no entries may be dated before it)')
    .argument('<YYYY-MM>', 'first month of books')
    .action(lazy(async () => (await import('../commands/init.js')).booksStart));

  const accounts = sub(program, 'accounts').description('Chart of accounts');
  sub(accounts, 'import')
    .description('Create or update accounts from CSV (by external_id)')
    .argument(
      '<path>',
      `CSV with columns external_id,account_number,name,account_type,parent_external_id,is_postable,is_active,currency ('-' for standard input)`,
    )
    .option('--delimiter <char>', 'field delimiter', ',')
    .action(lazy(async () => (await import('../commands/chart.js')).importAccounts));
  sub(accounts, 'list')
    .description('List the chart of accounts')
    .action(lazy(async () => (await import('../commands/chart.js')).listAccounts));

  const cps = sub(program, 'counterparties').description('Customers, vendors and employees');
  sub(cps, 'import')
    .description('Create or update counterparties from CSV')
    .argument(
      '<path>',
      "CSV with columns counterparty_type,external_id,name,is_active ('-' for standard input)",
    )
    .option('--delimiter <char>', 'field delimiter', ',')
    .action(lazy(async () => (await import('../commands/chart.js')).importCounterparties));
  sub(cps, 'list')
    .description('List counterparties')
    .action(lazy(async () => (await import('../commands/chart.js')).listCounterparties));

  const je = sub(program, 'je').description('Journal entries');
  sub(je, 'post')
    .description(
      'Post one journal entry: from line flags, a JSON body (--file), or interactively on a terminal',
    )
    .option(
      '--debit <ACCOUNT=AMOUNT[@TYPE:ID]>',
      'a debit line (repeatable); ACCOUNT is the external id or account number',
      collect,
      [],
    )
    .option('--credit <ACCOUNT=AMOUNT[@TYPE:ID]>', 'a credit line (repeatable)', collect, [])
    .option('--date <YYYY-MM-DD>', 'entry date (default today)')
    .option('--memo <text>', 'entry memo')
    .option('--je-number <n>', 'your own number (JE-N is assigned when omitted)')
    .option('--adjusting', 'mark as an adjusting entry')
    .option('--reason <text>', 'manual entry reason')
    .option('--currency <code>', "entry currency (default the entity's functional currency)")
    .option(
      '--idempotency-key <key>',
      'posts at most once per key within an hour (default: a new random key)',
    )
    .option('--file <path>', "the POST /v1/journal-entries body as JSON ('-' for standard input)")
    .option('--dry-run', 'validate and show what would post; post nothing')
    .addHelpText(
      'after',
      `
Examples:
  books je post --date 2026-01-31 --memo "January rent" --debit 6100=2,500.00 --credit 1000=2500
  books je post --debit 1100=1200@customer:C001 --credit 4000=1200
  books je post --file entry.json --format json`,
    )
    .action(lazy(async () => (await import('../commands/jePost.js')).jePost));
  sub(je, 'import')
    .description('Import a CSV batch of entries: checked whole, posted all or nothing, never twice')
    .argument('<path>', "CSV file ('-' for standard input)")
    .option('--delimiter <char>', "field delimiter: ',', ';' or 'tab'", ',')
    .option('--dry-run', 'validate everything; post nothing')
    .option('--allow-duplicates', 'post entries even when an earlier import already posted them')
    .addHelpText(
      'after',
      `
Columns (header row required, names case-insensitive):
  entry (or je_number)  groups contiguous rows into one entry
  entry_date            YYYY-MM-DD (required)
  gl_account_id         external id or account number (required)
  amounts, one form:    line_type + amount | line_type + amount_atoms | debit + credit
  optional:             je_number, currency, memo, line_memo, counterparty_type,
                        counterparty_external_id, is_adjusting, manual_entry_reason
The file is UTF-8 (with or without BOM; CRLF or LF); another encoding is refused by row.
Rows are numbered as a spreadsheet shows them (header = row 1). Every entry is checked before any
posts; on any error nothing posts and every error is listed as file:row: CODE reason: message.
Entries already posted by an earlier import (same content and occurrence) are skipped.`,
    )
    .action(lazy(async () => (await import('../commands/jeImport.js')).jeImport));
  sub(je, 'list')
    .description('List journal entries')
    .option('--from <YYYY-MM-DD>', 'first entry date')
    .option('--to <YYYY-MM-DD>', 'last entry date')
    .action(lazy(async () => (await import('../commands/je.js')).jeList));
  sub(je, 'show')
    .description('Show one journal entry with its lines')
    .argument('<id>', 'entry id or JE number')
    .action(lazy(async () => (await import('../commands/je.js')).jeShow));
  sub(je, 'reverse')
    .description('Post the mirror of an entry and link the two (an entry can be reversed once)')
    .argument('<id>', 'entry id or JE number')
    .option('--date <YYYY-MM-DD>', "date of the reversing entry (default the original's date)")
    .option(
      '--idempotency-key <key>',
      'reverses at most once per key within an hour (default: a new random key)',
    )
    .option('--dry-run', 'validate and show the reversing entry; post nothing')
    .action(lazy(async () => (await import('../commands/je.js')).jeReverse));

  const report = sub(program, 'report').description('Reports');
  sub(report, 'balance-sheet')
    .description(
      'The balance sheet, one column per month, quarter or year (cumulative as of each column end)',
    )
    .option('--start <YYYY-MM-DD>', 'first day of the window (default 1 January of the end year)')
    .option('--end <YYYY-MM-DD>', 'last day of the window (default today)')
    .addOption(
      new Option('--period <type>', 'column grouping')
        .choices(['monthly', 'quarterly', 'yearly'])
        .default('monthly'),
    )
    .option('--depth <n>', 'deepest level shown: 1 type groups, 2 top-level accounts, ...')
    .option('--output <file>', 'write the report to a file instead of standard output')
    .option('--atoms', 'CSV amounts as integer atoms instead of decimals')
    .addHelpText(
      'after',
      `
Formats (--format): table (default), csv (tidy: one row per node, one column per period id),
json (exactly the API's balance-sheet object). Null cells (nothing posted yet) are blank.
The window may span at most 5 years (CAPI69).

Examples:
  books report balance-sheet --start 2025-01-01 --end 2025-12-31 --period quarterly
  books report balance-sheet --format csv --output bs.csv`,
    )
    .action(lazy(async () => (await import('../commands/report.js')).balanceSheet));

  const keys = sub(program, 'keys').description('API keys of a local ledger, for books serve');
  sub(keys, 'create')
    .description('Mint a key; it is printed once, on its own line, and only its hash is kept')
    .requiredOption(
      '--permission <p>',
      'customer_api:post_journal_entries or customer_api:read (repeatable)',
      collect,
      [],
    )
    .option('--name <name>', 'a label for the key')
    .action(lazy(async () => (await import('../commands/keys.js')).keysCreate));
  sub(keys, 'list')
    .description('List keys (never the keys themselves)')
    .action(lazy(async () => (await import('../commands/keys.js')).keysList));
  sub(keys, 'revoke')
    .description('Revoke a key at once')
    .argument('<id>', 'key id')
    .action(lazy(async () => (await import('../commands/keys.js')).keysRevoke));

  sub(program, 'serve')
    .description(
      'Serve the accounting API over the local ledger (POST /v1/journal-entries, GET /v1/reports/balance-sheet, ...)',
    )
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--port <port>', 'port (0 picks a free one)', '8080')
    .option(
      '--request-timeout <seconds>',
      'time a client has to send a whole request (its headers: at most 10 s)',
      '30',
    )
    .addHelpText(
      'after',
      `
Prints "listening on http://HOST:PORT" when ready and one line per request on standard error (never
keys or bodies). Requests carry "Authorization: Bearer KEY" (books keys create). Bodies are limited
to 2 MiB and headers to 16 KiB; a client that is slower than the time limits is answered 408 and
disconnected. Stops on SIGINT or SIGTERM after the requests in flight.`,
    )
    .action(lazy(async () => (await import('../commands/serve.js')).serve));

  const profile = sub(program, 'profile').description(
    'Named ledgers: local files or remote services',
  );
  sub(profile, 'add')
    .description(
      'Add (or replace) a profile: --url for a remote service, --ledger for a local file',
    )
    .argument('<name>', 'profile name')
    .option('--url <url>', 'base URL of the accounting service (remote)')
    .option(
      '--api-key-env <var>',
      'environment variable holding the API key (default BOOKS_API_KEY)',
    )
    .option(
      '--currency <code>',
      "the service's functional currency, for reading amounts (default USD)",
    )
    .option('--ledger <path>', 'ledger file (local)')
    .action(lazy(async () => (await import('../commands/profile.js')).profileAdd));
  sub(profile, 'use')
    .description('Make a profile the default')
    .argument('<name>', 'profile name')
    .action(lazy(async () => (await import('../commands/profile.js')).profileUse));
  sub(profile, 'list')
    .description('List profiles (and whether each remote key is set; never the key)')
    .action(lazy(async () => (await import('../commands/profile.js')).profileList));
  sub(profile, 'remove')
    .description('Remove a profile')
    .argument('<name>', 'profile name')
    .action(lazy(async () => (await import('../commands/profile.js')).profileRemove));

  sub(program, 'close')
    .description(
      'Lock the books through a date (month-end close): later posts dated on or before it are refused',
    )
    .requiredOption('--through <YYYY-MM-DD>', 'last closed day')
    .option('--reopen', 'allow moving the lock date earlier')
    .action(lazy(async () => (await import('../commands/check.js')).close));

  sub(program, 'rebuild')
    .description(
      'Recompute the derived balance data from the journal lines; posts wait with CAPI73 meanwhile',
    )
    .action(lazy(async () => (await import('../commands/check.js')).rebuild));

  sub(program, 'check')
    .description("Verify the ledger's invariants; exit 1 naming each problem")
    .action(lazy(async () => (await import('../commands/check.js')).check));

  return program;
}
