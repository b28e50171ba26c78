import type { FxOps } from '../fx/port.js';
import type { BudgetOps, RecurringOps } from '../plans/port.js';
import type { ReconcileOps } from '../reconcile/port.js';

/**
 * How each operation of reconciliation, budgets and recurring entries is reached over the API: one
 * table for the server and the client. Each takes one JSON object (a POST's body, a GET's query).
 */
export type OpRoute = {
  method: 'GET' | 'POST';
  path: string;
  summary: string;
} & (
  | { concern: 'reconcile'; op: keyof ReconcileOps }
  | { concern: 'budgets'; op: keyof BudgetOps }
  | { concern: 'recurring'; op: keyof RecurringOps }
  | { concern: 'fx'; op: keyof FxOps }
);

type Of<C extends OpRoute['concern']> = Omit<Extract<OpRoute, { concern: C }>, 'concern'>;
const of = <C extends OpRoute['concern']>(concern: C, routes: Of<C>[]): OpRoute[] =>
  routes.map((r) => ({ ...r, concern }) as OpRoute);

const RECONCILE: Of<'reconcile'>[] = [
  {
    op: 'importStatement',
    method: 'POST',
    path: '/v1/reconciliation/statement-lines',
    summary: "Import a bank or card statement's lines (duplicates skipped)",
  },
  {
    op: 'layout',
    method: 'GET',
    path: '/v1/reconciliation/layout',
    summary: "An account's remembered statement layout and the bank account its statements are of",
  },
  {
    op: 'forgetLayout',
    method: 'POST',
    path: '/v1/reconciliation/layout/forget',
    summary: "Forget an account's statement layout (the next import is read from the file alone)",
  },
  {
    op: 'match',
    method: 'POST',
    path: '/v1/reconciliation/match',
    summary: 'Match statement lines with ledger lines: automatically, or one by hand',
  },
  {
    op: 'unmatch',
    method: 'POST',
    path: '/v1/reconciliation/unmatch',
    summary: "Undo a statement line's match",
  },
  {
    op: 'clear',
    method: 'POST',
    path: '/v1/reconciliation/clear',
    summary: 'Tick (or untick) ledger lines the statement does not list',
  },
  {
    op: 'ignore',
    method: 'POST',
    path: '/v1/reconciliation/ignore',
    summary: 'Set aside a statement line imported in error',
  },
  {
    op: 'create',
    method: 'POST',
    path: '/v1/reconciliation/create',
    summary: 'Post entries for bank-only lines (fees, interest) and match them',
  },
  {
    op: 'finish',
    method: 'POST',
    path: '/v1/reconciliation/finish',
    summary: 'Finish a reconciliation at a zero difference',
  },
  {
    op: 'undo',
    method: 'POST',
    path: '/v1/reconciliation/undo',
    summary: "Undo the account's latest reconciliation",
  },
  {
    op: 'list',
    method: 'GET',
    path: '/v1/reconciliations',
    summary: "An account's finished reconciliations",
  },
  {
    op: 'status',
    method: 'GET',
    path: '/v1/reconciliation/status',
    summary: "Where an account's reconciliation stands",
  },
  {
    op: 'report',
    method: 'GET',
    path: '/v1/reports/reconciliation',
    summary: 'The reconciliation report at a statement date',
  },
  {
    op: 'lineStates',
    method: 'GET',
    path: '/v1/reconciliation/line-states',
    summary: 'Which lines are cleared or reconciled (of the line_ids given, comma-separated)',
  },
];

export const OP_ROUTES: readonly OpRoute[] = [
  ...of('reconcile', RECONCILE),
  ...of('budgets', [
    {
      op: 'import',
      method: 'POST',
      path: '/v1/budgets',
      summary: 'Set budget cells (a cell named again is replaced)',
    },
    { op: 'list', method: 'GET', path: '/v1/budgets', summary: 'Every budget cell' },
  ]),
  ...of('recurring', [
    { op: 'add', method: 'POST', path: '/v1/recurring-entries', summary: 'Add a recurring entry' },
    { op: 'list', method: 'GET', path: '/v1/recurring-entries', summary: 'The recurring entries' },
    {
      op: 'remove',
      method: 'POST',
      path: '/v1/recurring-entries/remove',
      summary: 'Remove a recurring entry (what it posted stays)',
    },
    {
      op: 'run',
      method: 'POST',
      path: '/v1/recurring-entries/run',
      summary: 'Post every occurrence due through a date that has not posted',
    },
  ]),
  ...of('fx', [
    {
      op: 'importRates',
      method: 'POST',
      path: '/v1/exchange-rates',
      summary:
        'Add exchange rates by date and currency (a different rate replaces only with replace)',
    },
    {
      op: 'listRates',
      method: 'GET',
      path: '/v1/exchange-rates',
      summary: 'The exchange rates kept (of one currency, within dates)',
    },
    {
      op: 'balances',
      method: 'GET',
      path: '/v1/fx/balances',
      summary: 'Each account kept in another currency: its balance in that currency at a date',
    },
    {
      op: 'exposure',
      method: 'GET',
      path: '/v1/reports/fx-exposure',
      summary: 'Foreign balances at a date, their value at its closing rates, the unrealised gains',
    },
    {
      op: 'revalue',
      method: 'POST',
      path: '/v1/fx/revalue',
      summary:
        'Post the revaluation of foreign balances at a date (reversed the next day; once per date)',
    },
    {
      op: 'setAccounts',
      method: 'POST',
      path: '/v1/fx/accounts',
      summary: "Set the entity's realised and unrealised exchange gain/loss accounts",
    },
  ]),
];

/** The query parameters a GET operation takes. */
export const OP_QUERY = [
  'account',
  'statement_date',
  'line_ids',
  'currency',
  'start',
  'end',
  'as_of',
  'counterparty',
] as const;
