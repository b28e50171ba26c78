import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { startCluster } from './cluster.js';
import { hasWrk, httpBench, serveStore, together, wrkPost, type HttpResult } from './http.js';
import { bin, dataset, rounds, summary, time, type Timing } from './measure.js';
import { matchedOn, reconcileOnce, statementOf } from './reconcile.js';
import { matchServed, type MatchServed } from './hostile.js';
import { pgbenchCeiling, type Ceiling } from './pgbench.js';

/** The figures of a store, to print beside the ledger file's of the same run. */
export interface StoreFigures {
  import1m: Timing;
  /** A 10,000-line statement imported and matched, on each entity the import made. */
  reconcile: Timing & { matched: number };
  reports: [string, Timing][];
  post: HttpResult;
  /** A firm's figures (issue 25): several servers, several entities, cursors, migrate. */
  firm: FirmFigures;
  /** An automatic match of 2,000 same-amount lines over books serve, another entity asked meanwhile. */
  match: MatchServed;
  /** pgbench running a post's statements without books, on the same cluster (null: no pgbench). */
  ceiling: Ceiling[] | null;
}

export interface FirmFigures {
  /** Two servers, 8 connections (4 each) on one entity; and on eight entities, one connection each. */
  oneEntity: HttpResult | null;
  eightEntities: HttpResult | null;
  /**
   * What the posting left, read after it: per entity, entries and whether their numbers are JE-1 to
   * JE-n without a gap or a repeat, and whether books check found nothing.
   */
  posted: { entity: string; entries: number; gapless: boolean; checked: boolean }[];
  /**
   * One account's general ledger, 5 years, paged through the API's cursors (10,000 lines a page),
   * read whole as many times as migrate runs: its lines, and the median and range of the reads.
   */
  cursors: { lines: number; ms: { median: number; min: number; max: number } };
  /** books migrate of the 1M-line ledger file into a new entity. */
  migrate: Timing;
}

const WINDOW = ['--start', '2021-01-01', '--end', '2025-12-31', '--period', 'monthly'];

/** The statements timed at 1M lines on each store. */
const STATEMENTS: [string, string[]][] = [
  [
    'report balance-sheet, 60 monthly columns, json',
    ['report', 'balance-sheet', ...WINDOW, '--format', 'json'],
  ],
  [
    'report income-statement, 60 monthly columns, json',
    ['report', 'income-statement', ...WINDOW, '--format', 'json'],
  ],
  [
    'report cash-flow, 60 monthly columns, json',
    ['report', 'cash-flow', ...WINDOW, '--format', 'json'],
  ],
  [
    'report trial-balance --worksheet as of 2025-12-31, json',
    ['report', 'tb', '--as-of', '2025-12-31', '--worksheet', '--format', 'json'],
  ],
];

/**
 * The same work on PostgreSQL: a private cluster with the server's default durability (fsync, a
 * synchronous commit), the 1M-line import into a new entity (`rounds` times, each a new entity), the
 * statements at 1M lines, and posting over HTTP through `books serve --ledger URL`.
 */
export async function postgresFigures(
  reportRounds: number,
  importRounds: number,
  seconds: number,
  out: string,
  file1m: string,
): Promise<StoreFigures> {
  const cluster = startCluster({ durable: true });
  try {
    cluster.createDatabase('bench');
    const url = cluster.url('bench');
    const dir = await dataset('1m', 1_000_000);
    const imports = [];
    let at: string[] = [];
    for (let i = 0; i < importRounds; i++) {
      at = ['--ledger', url, '--entity', `bench-${i}`];
      await time([
        bin,
        'init',
        ...at,
        '--first-month',
        '2021-01',
        '--chart',
        join(dir, 'accounts.csv'),
      ]);
      await time([bin, 'counterparties', 'import', join(dir, 'counterparties.csv'), ...at]);
      imports.push(await time([bin, 'je', 'import', join(dir, 'entries.csv'), ...at]));
    }
    const reports: [string, Timing][] = [];
    for (const [what, args] of STATEMENTS) {
      const full = [bin, ...args, ...at, '--output', out];
      await time(full);
      reports.push([what, await rounds(reportRounds, full)]);
    }
    const statement = await statementOf(at, dir);
    const runs = [];
    for (let i = 0; i < importRounds; i++)
      runs.push(await reconcileOnce(['--ledger', url, '--entity', `bench-${i}`], statement));
    const reconcile = { ...summary(runs), matched: matchedOn(at) };
    const post = await httpBench(bin, dir, seconds, 8, ['--ledger', url, '--entity', 'http-bench']);
    const firm = await firmFigures(url, dir, seconds, file1m, importRounds);
    const match = await matchServed(url, dir);
    // Last: it leaves its rows in bench-0.
    const ceiling = pgbenchCeiling(url, 'bench-0');
    return { import1m: summary(imports), reconcile, reports, post, firm, match, ceiling };
  } finally {
    cluster.stop();
  }
}

/** Runs books to its end, for set-up: its standard output, or a thrown error with its own. */
function books(args: string[]): string {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`books ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/**
 * What a firm does with the database (issue 25): posting through two servers on one entity and on
 * eight, one account's general ledger through the API's cursors, and books migrate of the 1M file.
 */
async function firmFigures(
  url: string,
  dir: string,
  seconds: number,
  file1m: string,
  migrateRounds: number,
): Promise<FirmFigures> {
  const keys: string[] = [];
  for (let e = 0; e < 8; e++) {
    const at = ['--ledger', url, '--entity', `firm-${e}`];
    books(['init', '--chart', 'standard', '--first-month', '2025-01', ...at]);
    keys.push(
      books(['keys', 'create', '--permission', 'customer_api:post_journal_entries', ...at]).trim(),
    );
  }
  const readKey = books([
    ...['keys', 'create', '--permission', 'customer_api:read'],
    ...['--ledger', url, '--entity', 'bench-0'],
  ]).trim();
  const servers = [
    await serveStore(bin, ['--ledger', url]),
    await serveStore(bin, ['--ledger', url]),
  ];
  try {
    let oneEntity: HttpResult | null = null;
    let eightEntities: HttpResult | null = null;
    if (hasWrk()) {
      oneEntity = together(
        await Promise.all(
          servers.map((s, i) => wrkPost(s.url, keys[0]!, dir, seconds, 4, `one${i}-`)),
        ),
      );
      eightEntities = together(
        await Promise.all(
          keys.map((k, i) => wrkPost(servers[i % 2]!.url, k, dir, seconds, 1, `eight${i}-`)),
        ),
      );
    }
    const posted = keys.map((_k, e) => postedBy(url, `firm-${e}`));
    const reads = [];
    for (let i = 0; i < migrateRounds; i++)
      reads.push(await pagedGeneralLedger(servers[0]!.url, servers[1]!.url, readKey));
    const { median, min, max } = summary(reads.map((r) => ({ ms: r.secs * 1000, rssMb: 0 })));
    const cursors = { lines: reads[0]!.lines, ms: { median, min, max } };
    const migrations = [];
    for (let i = 0; i < migrateRounds; i++)
      migrations.push(
        await time([bin, 'migrate', '--from', file1m, '--to', url, '--entity', `migrated-${i}`]),
      );
    return { oneEntity, eightEntities, posted, cursors, migrate: summary(migrations) };
  } finally {
    for (const s of servers) await s.stop();
  }
}

/** An entity's entries after the posting, read through books: their count, JE-1 to JE-n each once, and books check. */
function postedBy(url: string, slug: string): FirmFigures['posted'][number] {
  const at = ['--ledger', url, '--entity', slug];
  const list = JSON.parse(books(['je', 'list', '--format', 'json', ...at])) as {
    data: { je_number: string }[];
  };
  const numbers = new Set(list.data.map((e) => e.je_number));
  const entries = list.data.length;
  const gapless =
    numbers.size === entries &&
    Array.from({ length: entries }, (_, i) => `JE-${i + 1}`).every((n) => numbers.has(n));
  const check = spawnSync(process.execPath, [bin, 'check', ...at]);
  return { entity: slug, entries, gapless, checked: check.status === 0 };
}

/** The busy bank account's general ledger, 5 years, page after page, alternating the two servers. */
async function pagedGeneralLedger(
  a: string,
  b: string,
  key: string,
): Promise<{ lines: number; secs: number }> {
  const started = performance.now();
  let lines = 0;
  let cursor: string | null = null;
  for (let page = 0; page === 0 || cursor; page++) {
    const query =
      'account=bank-0-0&start_date=2021-01-01&end_date=2025-12-31&limit=10000' +
      (cursor ? `&cursor=${encodeURIComponent(cursor)}` : '');
    const r = await fetch(`${page % 2 ? b : a}/v1/reports/general-ledger?${query}`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    if (r.status !== 200) throw new Error(`general ledger page ${page}: ${r.status}`);
    const body = (await r.json()) as {
      accounts: { lines: unknown[] }[];
      next_cursor: string | null;
    };
    for (const acct of body.accounts) lines += acct.lines.length;
    cursor = body.next_cursor;
  }
  return { lines, secs: (performance.now() - started) / 1000 };
}
