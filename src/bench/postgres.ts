import { join } from 'node:path';
import { startCluster } from './cluster.js';
import { httpBench, type HttpResult } from './http.js';
import { bin, dataset, rounds, summary, time, type Timing } from './measure.js';
import { matchedOn, reconcileOnce, statementOf } from './reconcile.js';

/** The figures of a store, to print beside the ledger file's of the same run. */
export interface StoreFigures {
  import1m: Timing;
  /** A 10,000-line statement imported and matched, on each entity the import made. */
  reconcile: Timing & { matched: number };
  reports: [string, Timing][];
  post: HttpResult;
}

const WINDOW = ['--start', '2021-01-01', '--end', '2025-12-31', '--period', 'monthly'];

/** The three statements timed at 1M lines on each store. */
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
    return { import1m: summary(imports), reconcile, reports, post };
  } finally {
    cluster.stop();
  }
}
