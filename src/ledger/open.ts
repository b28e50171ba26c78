import type { Target } from '../config/config.js';
import { errors } from '../domain/errors.js';
import type { PgStore } from './pg/store.js';
import type { Ledger, LedgerInit, LedgerStore } from './port.js';

/** What a new local ledger starts with. */
export type { LedgerInit };

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
  if (target.kind === 'database')
    return databaseLedger(target.url, ctx, false, (store) => store.open(target.entity));
  const { SqliteLedger } = await import('./sqlite/ledger.js');
  return SqliteLedger.open(target.path, { clock: ctx.clock });
}

/**
 * Connections a command keeps: an import holds one for its transaction while it reads the next
 * chunk's look-ups on another, and a listing streams on one of its own.
 */
const COMMAND_POOL = 3;

/** Connections a server keeps for all the entities it serves. */
export const SERVER_POOL = 8;

/** A database's ledger for one command, opened or created by `get`: its store closes with it. */
async function databaseLedger(
  url: string,
  ctx: OpenContext,
  create: boolean,
  get: (store: PgStore) => Promise<Ledger>,
): Promise<Ledger> {
  const { PgStore } = await import('./pg/store.js');
  const store = await PgStore.open(url, ctx.clock, COMMAND_POOL, create);
  store.closesWithLedger = true;
  try {
    return await get(store);
  } catch (e) {
    await store.close();
    throw e;
  }
}

/**
 * Creates a new ledger (books init): a ledger file (refusing a path that exists), or an entity in a
 * database (creating the schema when missing; refusing a slug that exists).
 */
export async function createLedger(
  target: Exclude<Target, { kind: 'remote' }>,
  init: LedgerInit,
  ctx: OpenContext,
): Promise<Ledger> {
  if (target.kind === 'database') {
    if (target.entity === undefined)
      throw errors.usage(
        'books init in a database needs --entity SLUG (or BOOKS_ENTITY) to name the entity',
      );
    const slug = target.entity;
    return databaseLedger(target.url, ctx, true, (store) => store.create(slug, init));
  }
  const { SqliteLedger } = await import('./sqlite/ledger.js');
  return SqliteLedger.create(target.path, init, { clock: ctx.clock });
}

/**
 * The store a location names, for what works on a whole store (books serve): a ledger file is a
 * store of one entity. A remote profile is a ledger, not a store: it has no store to serve.
 */
export async function openStore(
  target: Target,
  ctx: OpenContext,
  create = false,
): Promise<LedgerStore | null> {
  if (target.kind === 'remote') return null;
  if (target.kind === 'database') {
    const { PgStore } = await import('./pg/store.js');
    return PgStore.open(target.url, ctx.clock, SERVER_POOL, create);
  }
  const [{ SqliteLedger }, { SqliteStore }] = await Promise.all([
    import('./sqlite/ledger.js'),
    import('./sqlite/store.js'),
  ]);
  return new SqliteStore(SqliteLedger.open(target.path, { clock: ctx.clock }));
}

/**
 * A store narrowed to one of its entities (books serve --entity): it opens and lists that entity
 * alone, a key of another entity is not one of its keys (as if unknown), and it creates none.
 */
export async function oneEntity(store: LedgerStore, slug: string): Promise<LedgerStore> {
  const only = await store.open(slug);
  const none = () => Promise.reject(errors.usage(`this store serves entity '${slug}' alone`));
  return {
    location: only.location,
    entities: async () => (await store.entities()).filter((e) => e.slug === slug || e.id === slug),
    open: async () => only,
    create: none,
    createRestored: none,
    authenticate: async (key, checkedInWrite) => {
      const granted = await store.authenticate(key, checkedInWrite);
      return granted?.ledger === only ? granted : null;
    },
    verify: () => store.verify(),
    close: () => store.close(),
  };
}
