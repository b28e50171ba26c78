import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startCluster } from './cluster.js';
import { hasWrk, httpBench, serveStore, startServer, together, wrkPost } from './http.js';
import { bin, data, dataset, freshLedger, summary, time, type Timing } from './measure.js';

/**
 * `npm run bench:against -- OTHER [ROUNDS]`: this build against another checkout's, built (OTHER's
 * bin/books.js and dist/), run for run in turn on the same machine, so that both meet the same
 * load and the same state of the disk: the 1M-line import into a fresh ledger file and into a new
 * PostgreSQL entity, posting over HTTP to one `books serve` on a ledger file, and posting through two
 * `books serve` over one PostgreSQL entity and over eight (needs wrk). Prints medians, ranges and this
 * build's share of the other's.
 */
const [other, roundsArg] = process.argv.slice(2);
if (!other || !existsSync(join(other, 'bin/books.js')) || !existsSync(join(other, 'dist'))) {
  console.error(
    'usage: npm run bench:against -- OTHER_CHECKOUT [ROUNDS] (OTHER built: npm run build)',
  );
  process.exit(2);
}
const rounds = Number(roundsArg ?? 3);
const builds = { this: bin, other: join(resolve(other), 'bin/books.js') } as const;
type Build = keyof typeof builds;

const samples = new Map<string, number[]>();
const add = (what: string, build: Build, v: number) => {
  const k = `${what}\t${build}`;
  samples.set(k, [...(samples.get(k) ?? []), v]);
};

const dir = await dataset('1m', 1_000_000);
const work = join(data, 'against');
mkdirSync(work, { recursive: true });

/** The 1M-line import into a new entity of a database (its chart and counterparties first): ms. */
async function pgImport(using: string, url: string): Promise<number> {
  const at = ['--ledger', url, '--entity', 'imported'];
  for (const args of [
    ['init', '--first-month', '2021-01', '--chart', join(dir, 'accounts.csv')],
    ['counterparties', 'import', join(dir, 'counterparties.csv')],
  ]) {
    const r = spawnSync(process.execPath, [using, ...args, ...at], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`books ${args.join(' ')}: ${r.stderr}`);
  }
  return (await time([using, 'je', 'import', join(dir, 'entries.csv'), ...at])).ms;
}

/** Two servers over one new entity of a database, posting with 8 connections for 8 s. */
async function twoServers(using: string, url: string): Promise<number> {
  const first = await startServer(using, work, ['--ledger', url, '--entity', 'firm-0']);
  const { key } = first;
  const servers = [first, await serveStore(using, ['--ledger', url])];
  try {
    const r = together(
      await Promise.all(servers.map((s, i) => wrkPost(s.url, key, work, 8, 4, `s${i}-`))),
    );
    if (r.errors > 0) throw new Error(`${r.errors} posts failed`);
    return r.rate;
  } finally {
    for (const s of servers) await s.stop();
  }
}

/**
 * Two servers over eight new entities of a database, one connection on each entity for 8 s (four
 * on each server): entries a second in all.
 */
async function eightEntities(using: string, url: string): Promise<number> {
  const keys = Array.from({ length: 8 }, (_, e) => {
    const at = ['--ledger', url, '--entity', `firm-${e}`];
    const run = (args: string[]) => {
      const r = spawnSync(process.execPath, [using, ...args, ...at], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`books ${args.join(' ')}: ${r.stderr}`);
      return r.stdout.trim();
    };
    run(['init', '--chart', 'standard', '--first-month', '2025-01']);
    return run(['keys', 'create', '--permission', 'customer_api:post_journal_entries']);
  });
  const servers = [
    await serveStore(using, ['--ledger', url]),
    await serveStore(using, ['--ledger', url]),
  ];
  try {
    const r = together(
      await Promise.all(keys.map((k, e) => wrkPost(servers[e % 2]!.url, k, work, 8, 1, `e${e}-`))),
    );
    if (r.errors > 0) throw new Error(`${r.errors} posts failed`);
    return r.rate;
  } finally {
    for (const s of servers) await s.stop();
  }
}

const cluster = startCluster({ durable: true });
const wrk = hasWrk();
if (!wrk)
  console.error('wrk is not installed: PostgreSQL posting is left out (apt-get install wrk)');
try {
  for (let round = 0; round < rounds; round++) {
    for (const build of (round % 2 ? ['other', 'this'] : ['this', 'other']) as Build[]) {
      const using = builds[build];
      const ledger = await freshLedger(dir, `against-${build}.sqlite`, using);
      const imported = await time([
        using,
        'je',
        'import',
        join(dir, 'entries.csv'),
        '--ledger',
        ledger,
      ]);
      add('je import, 1M lines, ledger file (s)', build, imported.ms / 1000);
      const db = `against_${build}_${round}`;
      cluster.createDatabase(`${db}_import`);
      const pg = await pgImport(using, cluster.url(`${db}_import`));
      add('je import, 1M lines, new PostgreSQL entity (s)', build, pg / 1000);
      add('je import, 1M lines: PostgreSQL ÷ ledger file (×)', build, pg / imported.ms);
      const posted = await httpBench(using, work, 6, 8);
      add('POST, one books serve, ledger file (entries/s)', build, posted.rate);
      if (wrk) {
        cluster.createDatabase(db);
        add(
          'POST, two books serve, one PostgreSQL entity (entries/s)',
          build,
          await twoServers(using, cluster.url(db)),
        );
        cluster.createDatabase(`${db}_eight`);
        add(
          'POST, two books serve, eight PostgreSQL entities (entries/s in all)',
          build,
          await eightEntities(using, cluster.url(`${db}_eight`)),
        );
      }
    }
  }
} finally {
  cluster.stop();
}

const said = (t: Timing, digits: number) =>
  `${t.median.toFixed(digits)} [${t.min.toFixed(digits)}–${t.max.toFixed(digits)}]`;
console.log(`| what | this build | ${other} | this / other |`);
console.log('| --- | --- | --- | --- |');
for (const what of new Set([...samples.keys()].map((k) => k.split('\t')[0]!))) {
  const [a, b] = (['this', 'other'] as const).map((build) =>
    summary(samples.get(`${what}\t${build}`)!.map((v) => ({ ms: v, rssMb: 0 }))),
  );
  const digits = /\((s|×)\)$/.test(what) ? 2 : 0;
  const share = ((a!.median / b!.median) * 100).toFixed(0);
  console.log(
    `| ${what}, ${rounds} rounds | ${said(a!, digits)} | ${said(b!, digits)} | ${share}% |`,
  );
}
