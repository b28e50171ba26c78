import { BooksError } from '../domain/errors.js';
import type { ReconcileOps } from '../ledger/port.js';
import { RECONCILE_QUERY, RECONCILE_ROUTES } from '../ledger/reconcileApi.js';
import { POST_PERMISSION, queryOf, READ_PERMISSION, type Route } from './routes.js';

/** A POST body of reconciliation: a JSON object naming the account. */
function argsOf(body: unknown): Record<string, unknown> & { account: string } {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new BooksError('invalid_parameters', 'the body is a JSON object naming the account', [
      { path: '', reason: 'invalid_body', message: 'the body is a JSON object' },
    ]);
  return body as Record<string, unknown> & { account: string };
}

/** Reconciliation's routes, from the table the HTTP client reads too. */
export function reconcileRoutes(route: (r: Omit<Route, 'pattern'>) => Route): Route[] {
  return RECONCILE_ROUTES.map((r) =>
    route({
      method: r.method,
      path: r.path,
      permission: r.method === 'POST' ? POST_PERMISSION : READ_PERMISSION,
      summary: r.summary,
      handle: async ({ ledger, body, url }) => {
        const args =
          r.method === 'POST'
            ? argsOf(await body())
            : Object.fromEntries(
                Object.entries(queryOf(url, RECONCILE_QUERY)).filter(([, v]) => v !== undefined),
              );
        const op = ledger.reconcile[r.op] as (a: unknown) => Promise<unknown>;
        const result = await op.call(ledger.reconcile, args as Parameters<ReconcileOps['list']>[0]);
        return { status: 200, body: result };
      },
    }),
  );
}
