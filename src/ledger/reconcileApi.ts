import type { ReconcileOps } from './port.js';

/** How each reconciliation operation is reached over the API: one table for the server and client. */
export interface ReconcileRoute {
  op: keyof ReconcileOps;
  method: 'GET' | 'POST';
  path: string;
  summary: string;
}

export const RECONCILE_ROUTES: readonly ReconcileRoute[] = [
  {
    op: 'importStatement',
    method: 'POST',
    path: '/v1/reconciliation/statement-lines',
    summary: "Import a bank or card statement's lines (duplicates skipped)",
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

/** The query parameters a GET operation takes. */
export const RECONCILE_QUERY = ['account', 'statement_date', 'line_ids'] as const;
