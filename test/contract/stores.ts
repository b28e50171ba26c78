import { copyFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import { isBooksError } from '../../src/domain/errors.js';
import { HttpLedger } from '../../src/ledger/http/ledger.js';
import type { Ledger } from '../../src/ledger/port.js';
import { SqliteLedger } from '../../src/ledger/sqlite/ledger.js';
import { SqliteStore } from '../../src/ledger/sqlite/store.js';
import { OPERATIONS, openApi } from '../../src/server/openapi.js';
import { ROUTES } from '../../src/server/routes.js';
import { apiServer } from '../../src/server/server.js';
import { tempDir } from '../support/ledgers.js';

/** A store opened over a ledger file, and what a test may need of it. */
export interface OpenedStore {
  ledger: Ledger;
  /** The SQLite file behind it (a test may change it directly, as an operator would). */
  file: string;
  /** For a served store: its base URL and keys by permission. */
  http?: { url: string; keys: Record<'both' | 'read' | 'post', string> };
  close(): Promise<void>;
}

/** Opens a store over a ledger file. A new store joins the contract with one line in STORES. */
export type StoreFactory = (file: string) => Promise<OpenedStore>;

const POST = 'customer_api:post_journal_entries';
const READ = 'customer_api:read';

/** `books serve` over a SQLite ledger, in this process, read through the HTTP ledger. */
export async function servedStore(file: string): Promise<Required<OpenedStore>> {
  const local = SqliteLedger.open(file);
  const mint = async (...p: ('customer_api:post_journal_entries' | 'customer_api:read')[]) =>
    (await local.keys.create('contract', p)).key;
  const keys = { both: await mint(POST, READ), read: await mint(READ), post: await mint(POST) };
  const server = apiServer({ store: new SqliteStore(local), log: () => {} });
  server.prependListener('request', record);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const ledger = new HttpLedger({
    baseUrl: url,
    apiKey: keys.both,
    apiKeyEnv: 'BOOKS_API_KEY',
    currency: 'USD',
    attempts: 1,
  });
  return {
    ledger,
    file,
    http: { url, keys },
    async close() {
      await ledger.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await local.close();
    },
  };
}

export const STORES: Record<string, StoreFactory> = {
  sqlite: async (file) => {
    const ledger = SqliteLedger.open(file);
    return { ledger, file, close: () => ledger.close() };
  },
  http: servedStore,
};

export type Outcome =
  | { ok: unknown }
  | { error: { code: string; reasons: string[]; message: string; details: string[] } };

/** A result with what differs between stores by nature (ids, timestamps) taken out. */
export function normalise(v: unknown): unknown {
  const ids = [
    'created_at',
    'updated_at',
    'id',
    'account_id',
    'journal_entry_id',
    'original_journal_entry_id',
    'existing_journal_entry_id',
  ];
  return JSON.parse(
    JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x)),
    (k, x: unknown) => {
      if (typeof x === 'string' && /^(je|jel|acct)_/.test(x)) return '<id>';
      if (ids.includes(k) && x !== null) return '<id>';
      if (k === 'reversed_by_journal_entry_ids') return (x as unknown[]).map(() => '<id>');
      return x;
    },
  );
}

export async function outcome(f: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: normalise(await f()) };
  } catch (e) {
    if (!isBooksError(e)) throw e;
    const details = Object.keys(e.details)
      .filter((k) => k !== 'already_posted')
      .sort();
    return {
      error: {
        code: e.code,
        reasons: e.errors.map((p) => `${p.path}:${p.reason}`),
        message: e.message.replace(/\bje_[\w-]+/g, '<id>'),
        details,
      },
    };
  }
}

/** Sets something directly in a ledger file (as an operator, or a rebuild in another process, would). */
export function setEntity(file: string, sql: string, ...params: unknown[]): void {
  const db = new Database(file);
  try {
    db.prepare(`UPDATE entity SET ${sql}`).run(...params);
  } finally {
    db.close();
  }
}

/**
 * Runs one case against every store, each on its own copy of the base ledger: every outcome must be
 * the reference store's (SQLite), ids and timestamps aside. Returns that outcome.
 */
export function contract(base: () => string) {
  return async function both(
    f: (l: Ledger, s: OpenedStore) => Promise<unknown>,
    prepare?: (file: string) => void,
  ): Promise<Outcome> {
    const outcomes: Outcome[] = [];
    for (const open of Object.values(STORES)) {
      const file = join(tempDir(), 'ledger.sqlite');
      copyFileSync(base(), file);
      prepare?.(file);
      const store = await open(file);
      try {
        outcomes.push(await outcome(() => f(store.ledger, store)));
      } finally {
        await store.close();
      }
    }
    for (const o of outcomes.slice(1)) expect(o).toEqual(outcomes[0]);
    return outcomes[0]!;
  };
}

/** Every answer a served store gave in this file, for the OpenAPI conformance check. */
export const SEEN: { method: string; path: string; status: number; type: string; body: string }[] =
  [];

function record(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  const write = res.write.bind(res) as (...a: unknown[]) => boolean;
  const end = res.end.bind(res) as (...a: unknown[]) => ServerResponse;
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (chunk) chunks.push(Buffer.from(chunk as string));
    return write(chunk, ...rest);
  }) as typeof res.write;
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    if (chunk && typeof chunk !== 'function') chunks.push(Buffer.from(chunk as string));
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const type = String(res.getHeader('content-type') ?? '');
    SEEN.push({
      method: req.method ?? '',
      path,
      status: res.statusCode,
      type,
      body: Buffer.concat(chunks).toString(),
    });
    return end(chunk, ...rest);
  }) as typeof res.end;
}

/**
 * Holds every answer seen to the API's own description (GET /v1/openapi.json): the success schema of
 * its route, or the problem schema; returns how many were checked.
 */
export async function conformance(): Promise<number> {
  const { default: Ajv2020 } = await import('ajv/dist/2020.js');
  const doc = openApi(ROUTES) as { components: { schemas: Record<string, unknown> } };
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ $id: 'books', components: doc.components });
  const validate = (name: string) => ajv.getSchema(`books#/components/schemas/${name}`)!;
  for (const seen of SEEN) {
    const route = ROUTES.find((r) => r.method === seen.method && r.pattern.test(seen.path));
    const ok = seen.status < 400;
    const name = ok ? OPERATIONS[`${route?.method} ${route?.path}`]?.schema : 'Problem';
    expect(name, `${seen.method} ${seen.path} ${seen.status}`).toBeDefined();
    if (ok) expect(seen.status).toBe(OPERATIONS[`${route!.method} ${route!.path}`]!.status);
    expect(seen.type).toBe(ok ? 'application/json' : 'application/problem+json');
    const v = validate(name!);
    const body = JSON.parse(seen.body) as unknown;
    expect(v(body) ? [] : v.errors, `${seen.method} ${seen.path} ${seen.status}`).toEqual([]);
  }
  return SEEN.length;
}
