import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Problem } from '../../src/domain/errors.js';
import { HttpLedger } from '../../src/ledger/http/ledger.js';
import type { Ledger, LedgerStore } from '../../src/ledger/port.js';
import { SqliteLedger } from '../../src/ledger/sqlite/ledger.js';
import { SqliteStore } from '../../src/ledger/sqlite/store.js';
import { PgStore } from '../../src/ledger/pg/store.js';
import { apiServer } from '../../src/server/server.js';
import { inject } from 'vitest';
import { createDatabase, psqlPath } from '../../src/bench/cluster.js';
import { books, snapshot, type RunResult } from './helpers.js';
import { copyTemplate, tempDir } from './ledgers.js';
import type { TemplateName } from './globalSetup.js';
import { POST, READ } from './keys.js';

/**
 * The stores every suite runs against, in one list: the contract suite, the bad-input corpus, the
 * property and agreement tests, the crash and concurrency suites take their ledgers from here. A
 * new store joins them all by adding one fixture (PostgreSQL, next).
 */
export interface LedgerFixture {
  readonly name: string;
  /** The ledger a test works on, made from a prepared SQLite ledger (copied, or restored from its dump). */
  create(from: string): Promise<FixtureLedger>;
}

/** A ledger of a fixture, and the ways a test reaches it. */
export interface FixtureLedger {
  /** As this fixture's clients see it, in this process (through HTTP for a served one). */
  ledger: Ledger;
  /** The store underneath, in this process: what a client cannot do (check, dump) is asked here. */
  store: Ledger;
  /** For a served ledger: its base URL and keys by permission. */
  http?: Served;
  /** The ledger served (its own server when it is served; else one started over its store). */
  serve(): Promise<Served>;
  /** The SQLite file behind it, for a store that has one (a test may change it as an operator would). */
  file?: string;
  /** Runs the real books against it: `--ledger` for a file, a remote profile for a served ledger. */
  books(args: string[], input?: string): Promise<RunResult>;
  /** How to start books against it as a process of one's own (to kill it): arguments, environment. */
  process(args: string[]): { args: string[]; env: Record<string, string>; cwd: string };
  /** Everything the store holds, as text: two equal texts mean nothing changed. */
  inspect(): string;
  /** books check on the store: its problems (none for a sound ledger). */
  check(): Promise<Problem[]>;
  /** The entries the store holds (read through its dump, whatever process died holding it). */
  journal(): Promise<StoredEntryRow[]>;
  close(): Promise<void>;
}

/** An entry as a store holds it, for tests that count and compare. */
export interface StoredEntryRow {
  je_number: string;
  memo: string | null;
  fingerprint: string | null;
}

/** The entries of a store, read through its dump (one consistent reading). */
async function journalOf(store: Ledger): Promise<StoredEntryRow[]> {
  const out: StoredEntryRow[] = [];
  for await (const r of store.maintenance.dump())
    if (r.type === 'entry')
      out.push({ je_number: r.je_number, memo: r.memo, fingerprint: r.fingerprint });
  return out;
}

/** books serve over a store, in this process: its base URL and keys by permission. */
export interface Served {
  url: string;
  keys: Record<'both' | 'read' | 'post', string>;
}

/** Serves a store's ledger in this process on 127.0.0.1, port 0, with a key of each kind. */
async function serveStore(
  local: Ledger,
  store: LedgerStore,
): Promise<Served & { stop: () => Promise<void> }> {
  const mint = async (...p: (typeof POST | typeof READ)[]) =>
    (await local.keys.create('fixture', p)).key;
  const keys = { both: await mint(POST, READ), read: await mint(READ), post: await mint(POST) };
  const server = apiServer({ store, log: () => {} });
  server.prependListener('request', record);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    keys,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A ledger file, used directly: the port in process, the CLI with --ledger. */
export const sqliteFixture: LedgerFixture = {
  name: 'sqlite',
  async create(from) {
    const dir = tempDir();
    const file = join(dir, 'ledger.sqlite');
    copyFileSync(from, file);
    const ledger = SqliteLedger.open(file);
    let served: (Served & { stop: () => Promise<void> }) | null = null;
    return {
      ledger,
      store: ledger,
      file,
      serve: async () => (served ??= await serveStore(ledger, new SqliteStore(ledger))),
      books: (args, input) =>
        books([...args, '--ledger', file], { cwd: dir, ...(input !== undefined ? { input } : {}) }),
      process: (args) => ({
        args: [...args, '--ledger', file],
        env: { BOOKS_CONFIG: join(dir, 'no-config.json') },
        cwd: dir,
      }),
      inspect: () => snapshot(file),
      check: async () => (await ledger.maintenance.check()).problems,
      journal: () => journalOf(ledger),
      async close() {
        await served?.stop();
        await ledger.close();
      },
    };
  },
};

/** Every answer a served ledger gave, for the OpenAPI conformance check. */
export const SEEN: { method: string; path: string; status: number; type: string; body: string }[] =
  [];

/**
 * A ledger file behind `books serve` (in this process, on 127.0.0.1 port 0), reached as a remote
 * service: the port through the HTTP client, the CLI through a remote profile.
 */
export const servedFixture: LedgerFixture = {
  name: 'served',
  async create(from) {
    const dir = tempDir();
    const file = join(dir, 'ledger.sqlite');
    copyFileSync(from, file);
    const local = SqliteLedger.open(file);
    const served = await serveStore(local, new SqliteStore(local));
    const { url, keys } = served;
    const client = new HttpLedger({
      baseUrl: url,
      apiKey: keys.both,
      apiKeyEnv: 'BOOKS_API_KEY',
      currency: 'USD',
      attempts: 1,
      env: { BOOKS_RECEIPTS: join(dir, 'receipts.sqlite') },
    });
    const config = join(dir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({ default: 'served', profiles: { served: { kind: 'remote', url } } }),
    );
    const env = {
      BOOKS_CONFIG: config,
      BOOKS_API_KEY: keys.both,
      BOOKS_RECEIPTS: join(dir, 'receipts.sqlite'),
      BOOKS_RETRY_BACKOFF_MS: '50',
    };
    return {
      ledger: client,
      store: local,
      http: { url, keys },
      serve: async () => ({ url, keys }),
      file,
      books: (args, input) =>
        books(args, { cwd: dir, env, ...(input !== undefined ? { input } : {}) }),
      process: (args) => ({ args, env, cwd: dir }),
      inspect: () => snapshot(file),
      check: async () => (await local.maintenance.check()).problems,
      journal: () => journalOf(local),
      async close() {
        await client.close();
        await served.stop();
        await local.close();
      },
    };
  },
};

/** This test file's database in the private cluster (globalSetup), made when first asked for. */
let database: string | null = null;
export function databaseUrl(): string {
  const { dir, user } = inject('pg');
  const url = (db: string) => `postgresql://${user}@/${db}?host=${encodeURIComponent(dir)}`;
  if (database === null) {
    const name = `t_${process.pid}_${randomBytes(4).toString('hex')}`;
    createDatabase(psqlPath(), url('postgres'), name);
    database = name;
  }
  return url(database);
}

/** Every row of an entity, table by table, ordered by all columns: what inspect() compares. */
function pgSnapshot(url: string, entityId: string): string {
  const tables = [
    'entities',
    'ledger_secrets',
    'accounts',
    'counterparties',
    'journal_entries',
    'journal_lines',
    'account_month_totals',
    'idempotency_keys',
    'api_keys',
    'statement_lines',
    'line_marks',
    'reconciliations',
    'statement_closings',
    'statement_sources',
    'budgets',
    'recurring_templates',
    'exchange_rates',
  ];
  const sql = tables
    .map(
      (t) =>
        `SELECT '${t}', (SELECT string_agg(x::text, E'\\n' ORDER BY x::text) FROM ${t} x
           WHERE x.entity_id = '${entityId}')`,
    )
    .join(' UNION ALL ');
  return execFileSync(psqlPath(), [url, '-AtXc', sql], { encoding: 'utf8' });
}

/**
 * An entity of a PostgreSQL database (one database per test file in the private cluster, a new
 * entity per ledger), made from the prepared ledger by dump and restore: the port in process, the
 * CLI with --ledger URL --entity SLUG.
 */
export const pgFixture: LedgerFixture = {
  name: 'postgresql',
  async create(from) {
    const dir = tempDir();
    const url = databaseUrl();
    const slug = `e-${randomBytes(6).toString('hex')}`;
    const source = SqliteLedger.open(from);
    const init = await source.entity.get();
    const store = await PgStore.open(url, () => new Date(), 4, true);
    const ledger = await store.create(slug, { ...init, books_start: null });
    await ledger.maintenance.restore(source.maintenance.dump());
    await source.close();
    // A rebuild's mark is no part of a dump; a test that prepared one (a rebuild under way) keeps it.
    const mark = new Database(from, { readonly: true })
      .prepare('SELECT rebuild_started_at, rebuild_owner FROM entity')
      .get() as { rebuild_started_at: string | null; rebuild_owner: string | null };
    if (mark.rebuild_started_at !== null)
      execFileSync(psqlPath(), [
        url,
        '-qc',
        `UPDATE entities SET rebuild_started_at = '${mark.rebuild_started_at}', rebuild_owner = ` +
          `${mark.rebuild_owner === null ? 'NULL' : `'${mark.rebuild_owner}'`} WHERE slug = '${slug}'`,
      ]);
    let served: (Served & { stop: () => Promise<void> }) | null = null;
    const at = ['--ledger', url, '--entity', slug];
    const env = { BOOKS_CONFIG: join(dir, 'no-config.json') };
    return {
      ledger,
      store: ledger,
      serve: async () => (served ??= await serveStore(ledger, store)),
      books: (args, input) =>
        books([...args, ...at], { cwd: dir, env, ...(input !== undefined ? { input } : {}) }),
      process: (args) => ({ args: [...args, ...at], env, cwd: dir }),
      inspect: () => pgSnapshot(url, ledger.entityId),
      check: async () => (await ledger.maintenance.check()).problems,
      journal: () => journalOf(ledger),
      async close() {
        await served?.stop();
        await store.close();
      },
    };
  },
};

export const FIXTURES: readonly LedgerFixture[] = [sqliteFixture, servedFixture, pgFixture];

/** A fixture's ledger made from one of the test templates. */
export function fromTemplate(
  fixture: LedgerFixture,
  template: TemplateName,
): Promise<FixtureLedger> {
  return fixture.create(copyTemplate(template).ledger);
}

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
