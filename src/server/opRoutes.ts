import { BooksError } from '../domain/errors.js';
import { OP_QUERY, OP_ROUTES } from '../ledger/compose/opsApi.js';
import { POST_PERMISSION, queryOf, READ_PERMISSION, type Route } from './routes.js';

/** A POST body of these operations: a JSON object. */
function argsOf(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new BooksError('invalid_parameters', 'the body is a JSON object', [
      { path: '', reason: 'invalid_body', message: 'the body is a JSON object' },
    ]);
  return body as Record<string, unknown>;
}

/** The routes of reconciliation, budgets and recurring entries, from the table the client reads too. */
export function opRoutes(route: (r: Omit<Route, 'pattern'>) => Route): Route[] {
  return OP_ROUTES.map((r) =>
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
                Object.entries(queryOf(url, OP_QUERY)).filter(([, v]) => v !== undefined),
              );
        const ops = ledger[r.concern] as unknown as Record<
          string,
          (a: unknown) => Promise<unknown>
        >;
        const result = await ops[r.op]!.call(ops, args);
        return { status: 200, body: result };
      },
    }),
  );
}
