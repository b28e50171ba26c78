import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import { isBooksError } from '../../src/domain/errors.js';
import type { Ledger } from '../../src/ledger/port.js';
import { operationOf, openApi } from '../../src/server/openapi.js';
import { ROUTES } from '../../src/server/routes.js';
import { FIXTURES, SEEN, servedFixture, type FixtureLedger } from '../support/fixtures.js';
import { tempDir } from '../support/ledgers.js';

export { SEEN };

/** A store opened over a ledger file, and what a test may need of it. */
export type OpenedStore = FixtureLedger & { file: string };

/** `books serve` over a copy of a SQLite ledger, in this process, read through the HTTP ledger. */
export async function servedStore(
  file: string,
): Promise<OpenedStore & Required<Pick<FixtureLedger, 'http'>>> {
  return (await servedFixture.create(file)) as OpenedStore & Required<Pick<FixtureLedger, 'http'>>;
}

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
    for (const fixture of FIXTURES) {
      const file = join(tempDir(), 'ledger.sqlite');
      copyFileSync(base(), file);
      prepare?.(file);
      const store = (await fixture.create(file)) as OpenedStore;
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
    const op = route ? operationOf(route.method, route.path) : undefined;
    const name = ok ? op?.schema : 'Problem';
    expect(name, `${seen.method} ${seen.path} ${seen.status}`).toBeDefined();
    if (ok) expect(seen.status).toBe(op!.status);
    expect(seen.type).toBe(ok ? 'application/json' : 'application/problem+json');
    const v = validate(name!);
    const body = JSON.parse(seen.body) as unknown;
    expect(v(body) ? [] : v.errors, `${seen.method} ${seen.path} ${seen.status}`).toEqual([]);
  }
  return SEEN.length;
}
