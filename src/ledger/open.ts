import type { Target } from '../config/config.js';
import type { Ledger, LedgerStore } from './port.js';

/** What a new local ledger starts with. */
export interface LedgerInit {
  name: string;
  currency: string;
  books_start: string | null;
  fiscal_year_start_month: number;
}

export interface OpenContext {
  env: Record<string, string | undefined>;
  clock: () => Date;
}

/**
 * The one place that picks a store for a ledger location and opens it: a local file (SQLite) or a
 * remote service (HTTP). Stores are imported only when opened, so `books --help` loads neither.
 */
export async function openLedger(target: Target, ctx: OpenContext): Promise<Ledger> {
  if (target.kind === 'remote') {
    const { HttpLedger } = await import('./http/ledger.js');
    const backoff = Number(ctx.env.BOOKS_RETRY_BACKOFF_MS);
    return new HttpLedger({
      baseUrl: target.url,
      apiKey: target.apiKey,
      apiKeyEnv: target.apiKeyEnv,
      currency: target.currency,
      env: ctx.env,
      ...(backoff > 0 ? { backoffMs: backoff } : {}),
    });
  }
  const { SqliteLedger } = await import('./sqlite/ledger.js');
  return SqliteLedger.open(target.path, { clock: ctx.clock });
}

/** Creates a new local ledger file (books init); refuses a path that exists. */
export async function createLedger(
  path: string,
  init: LedgerInit,
  ctx: OpenContext,
): Promise<Ledger> {
  const { SqliteLedger } = await import('./sqlite/ledger.js');
  return SqliteLedger.create(path, init, { clock: ctx.clock });
}

/**
 * The store a location names, for what works on a whole store (books serve): a ledger file is a
 * store of one entity. A remote profile is a ledger, not a store: it has no store to serve.
 */
export async function openStore(target: Target, ctx: OpenContext): Promise<LedgerStore | null> {
  if (target.kind === 'remote') return null;
  const [{ SqliteLedger }, { SqliteStore }] = await Promise.all([
    import('./sqlite/ledger.js'),
    import('./sqlite/store.js'),
  ]);
  return new SqliteStore(SqliteLedger.open(target.path, { clock: ctx.clock }));
}
