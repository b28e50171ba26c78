import type { CommandSpec } from './command.js';

export type Load = () => Promise<{ default: CommandSpec<unknown> }>;

/** A command group (`je`, `report`, ...) and what it holds. */
export const GROUPS: Record<string, string> = {
  accounts: 'Chart of accounts',
  counterparties: 'Customers, vendors and employees',
  entity: 'The entity whose books the ledger keeps',
  entities: 'The entities of a database',
  je: 'Journal entries',
  report: 'Reports',
  keys: 'API keys of a local ledger, for books serve',
  profile: 'Named ledgers: local files or remote services',
  reconcile: 'Bank and card reconciliation (alone, with --account: the interactive screen)',
  budgets: 'Budgets, for --compare budget',
  recurring: 'Recurring entries: rent, depreciation, loan payments',
  rates: 'Exchange rates of foreign currencies, kept in the ledger',
  fx: 'Foreign currencies at period end: revaluation',
  tags: 'Tags of entries and lines (project, class, location)',
  audit: 'The audit trail: who changed what, and proof that nobody rewrote it',
};

/** A group that is also a command of its own when no subcommand is named (the interactive screen). */
export const GROUP_ACTIONS: Record<string, Load> = {
  reconcile: () => import('../commands/reconcileScreen.js'),
};

/** A command that is one of a module's named exports. */
const namedExport =
  (load: () => Promise<unknown>) =>
  (name: string): Load =>
  () =>
    load().then((m) => ({
      default: (m as Record<string, CommandSpec<unknown>>)[name]!,
    }));
const reconcile = namedExport(() => import('../commands/reconcile.js'));
const plans = namedExport(() => import('../commands/plans.js'));
const rates = namedExport(() => import('../commands/rates.js'));
const fx = namedExport(() => import('../commands/fx.js'));

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
    path: 'tags list',
    summary: 'The tag keys the journal carries, their values and lines',
    load: () => import('../commands/tagsList.js'),
  },
  {
    path: 'report cash-flow',
    alias: 'cf',
    summary: 'The cash-flow statement (indirect method): where cash came from and went, per period',
    load: () => import('../commands/reportCashFlow.js'),
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
    path: 'report aging',
    summary: 'Aged receivables or payables: open items per counterparty, by age',
    load: () => import('../commands/reportAging.js'),
  },
  {
    path: 'budgets import',
    summary: 'Set budget cells from CSV (gl_account_id,period,amount)',
    load: plans('budgetsImport'),
  },
  {
    path: 'budgets list',
    summary: 'List budget cells',
    load: plans('budgetsList'),
  },
  {
    path: 'fx revalue',
    summary: 'Revalue foreign balances at a date (one adjusting entry, reversed the next day)',
    load: fx('fxRevalue'),
  },
  {
    path: 'report fx',
    summary: 'Foreign balances at a date, their value at its closing rates, the unrealised gains',
    load: fx('reportFx'),
  },
  {
    path: 'entity set',
    summary: "Set the entity's exchange gain/loss accounts",
    load: fx('entitySet'),
  },
  {
    path: 'rates import',
    summary:
      'Add exchange rates from CSV (date,currency,rate), or the ECB history with --preset ecb',
    load: rates('ratesImport'),
  },
  {
    path: 'rates add',
    summary: 'Add one exchange rate',
    load: rates('ratesAdd'),
  },
  {
    path: 'rates list',
    summary: 'List the exchange rates kept',
    load: rates('ratesList'),
  },
  {
    path: 'recurring add',
    summary: 'Add a recurring entry (every month, quarter, year or week)',
    load: plans('recurringAdd'),
  },
  {
    path: 'recurring list',
    summary: 'List the recurring entries',
    load: plans('recurringList'),
  },
  {
    path: 'recurring remove',
    summary: 'Remove a recurring entry (what it posted stays)',
    load: plans('recurringRemove'),
  },
  {
    path: 'recurring run',
    summary: 'Post every occurrence due through a date, once each',
    load: plans('recurringRun'),
  },
  {
    path: 'reconcile import',
    summary: 'Import a bank or card statement (CSV, OFX, QFX); duplicates skipped',
    load: namedExport(() => import('../commands/reconcileImport.js'))('importCommand'),
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
    path: 'reconcile layout',
    summary: "Show (or forget) how the account's statements are read, and whose they are",
    load: reconcile('layoutCommand'),
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
    path: 'migrate',
    summary: 'Copy a ledger file into an entity of a PostgreSQL database, whole, then check it',
    load: () => import('../commands/migrate.js'),
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
    path: 'audit list',
    summary: 'List the audit trail: who changed what, when and how',
    load: () => import('../commands/auditList.js'),
  },
  {
    path: 'audit verify',
    summary:
      "Recompute the audit trail's hash chain; exit 1 naming the first event that does not follow",
    load: () => import('../commands/auditVerify.js'),
  },
  {
    path: 'audit head',
    summary: "Print the latest audit event's SEQ:HASH, to keep elsewhere",
    load: () => import('../commands/auditHead.js'),
  },
  {
    path: 'check',
    summary: "Verify the ledger's invariants; exit 1 naming each problem",
    load: () => import('../commands/check.js'),
  },
];
