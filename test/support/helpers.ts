import { readFileSync, writeFileSync } from 'node:fs';
import { copyTemplate, tempDir } from './ledgers.js';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { execa, type Options, type ResultPromise } from 'execa';
import { expect } from 'vitest';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = join(ROOT, 'bin/books.js');
export const FIXTURES = join(ROOT, 'fixtures');

export interface RunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs the real `books` binary; never throws on a non-zero exit. */
export async function books(
  args: string[],
  opts: { cwd?: string; input?: string; env?: Record<string, string> } = {},
): Promise<RunResult> {
  const options: Options = {
    cwd: opts.cwd ?? ROOT,
    reject: false,
    env: { NO_COLOR: '1', BOOKS_CONFIG: join(opts.cwd ?? tmpdir(), 'no-config.json'), ...opts.env },
    extendEnv: true,
    stripFinalNewline: false,
    ...(opts.input !== undefined ? { input: opts.input } : { stdin: 'ignore' }),
  };
  const r = await execa('node', [BIN, ...args], options);
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

/** Runs books with --format json and parses standard output (which must be one JSON document). */
export async function booksJson<T = any>(
  args: string[],
  opts: Parameters<typeof books>[1] = {},
): Promise<{ exitCode: number; body: T; stderr: string }> {
  const r = await books([...args, '--format', 'json'], opts);
  return { exitCode: r.exitCode, body: JSON.parse(r.stdout) as T, stderr: r.stderr };
}

export { tempDir };

/** A ledger with the standard chart, the demo counterparties and the books starting January 2025. */
export async function standardLedger(opts: { firstMonth?: null } = {}): Promise<{
  dir: string;
  ledger: string;
  run: (args: string[], input?: string) => Promise<RunResult>;
}> {
  const { dir, ledger } = copyTemplate(opts.firstMonth === null ? 'standard-no-start' : 'standard');
  return {
    dir,
    ledger,
    run: (args, input) =>
      books([...args, '--ledger', ledger], { cwd: dir, ...(input !== undefined ? { input } : {}) }),
  };
}

/** Every row of every table, in a stable order: two equal snapshots mean the ledger's content is unchanged. */
export function snapshot(path: string): string {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const tables = db
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`)
      .pluck()
      .all() as string[];
    const out: Record<string, unknown[]> = {};
    for (const t of tables) {
      const width = db.prepare(`SELECT * FROM "${t}"`).columns().length;
      const by = Array.from({ length: width }, (_, i) => i + 1).join(', ');
      out[t] = db.prepare(`SELECT * FROM "${t}" ORDER BY ${by}`).raw().all();
    }
    return JSON.stringify(out, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
  } finally {
    db.close();
  }
}

export function writeFile(dir: string, name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

export function readText(path: string): string {
  return readFileSync(path, 'utf8');
}

/** The demo bakery ledger (fixtures/demo), with a fiscal year from January or from April. */
export async function demoLedger(opts: { fiscalYearStartMonth?: 1 | 4 } = {}): Promise<{
  dir: string;
  ledger: string;
  run: (args: string[], input?: string) => Promise<RunResult>;
}> {
  const { dir, ledger } = copyTemplate(
    opts.fiscalYearStartMonth === 4 ? 'demo-fy4' : 'demo',
    'demo.sqlite',
  );
  const run = (args: string[], input?: string) =>
    books([...args, '--ledger', ledger], { cwd: dir, ...(input !== undefined ? { input } : {}) });
  return { dir, ledger, run };
}

export interface Served {
  url: string;
  child: ResultPromise;
  log: () => string;
  stop: () => Promise<void>;
}

/** Starts the real `books serve --port 0` and waits for its "listening on" line. */
export async function serve(ledger: string, extra: string[] = []): Promise<Served> {
  const child = execa('node', [BIN, 'serve', '--port', '0', '--ledger', ledger, ...extra], {
    reject: false,
    env: { NO_COLOR: '1' },
  });
  let err = '';
  child.stderr!.on('data', (c) => (err += c));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c) => {
      out += c;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('exit', () => reject(new Error(`serve exited: ${err}`)));
  });
  return {
    url,
    child,
    log: () => err,
    stop: async () => {
      child.kill('SIGTERM');
      await child;
    },
  };
}

/** Holds a remote report to the local one, byte for byte: the service publishes its entity. */
export function expectSameReport(remote: string, local: string): void {
  expect(remote.length).toBeGreaterThan(0);
  expect(remote).toBe(local);
}

/** Runs books on a terminal (script gives it one): its output as it comes, and keys typed into it. */
export function onTerminal(
  args: string[],
  cwd: string,
  env: Record<string, string> = { NO_COLOR: '1' },
) {
  const line = ['node', BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = execa('script', ['-qec', line, '/dev/null'], {
    cwd,
    reject: false,
    env: { BOOKS_CONFIG: join(cwd, 'none.json'), TERM: 'xterm', ...env },
    extendEnv: false,
  });
  let seen = '';
  child.stdout!.on('data', (c: Buffer) => (seen += String(c)));
  return { child, seen: () => seen, type: (keys: string) => child.stdin!.write(keys) };
}

/** A plain entry (rent paid from checking), as tests post it to a server. */
export const RENT_ENTRY = {
  entry_date: '2025-03-02',
  lines: [
    { gl_account_id: 'rent', line_type: 'debit', amount_atoms: 100 },
    { gl_account_id: 'checking', line_type: 'credit', amount_atoms: 100 },
  ],
};

/** POST /v1/journal-entries of `body` (RENT_ENTRY unless given) with a key and an idempotency key. */
export function postEntry(
  url: string,
  key: string,
  idempotencyKey: string,
  body: unknown = RENT_ENTRY,
): Promise<Response> {
  return fetch(`${url}/v1/journal-entries`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${key}`,
      'Content-Type': 'application/json',
      'X-Idempotency-Key': idempotencyKey,
    },
    body: JSON.stringify(body),
  });
}
