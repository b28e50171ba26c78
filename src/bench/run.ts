import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { REPORT_CASES } from './reportCases.js';
import { join } from 'node:path';
import {
  bin,
  data,
  dataset,
  fmt,
  freshLedger,
  quick,
  rounds,
  rssProbe,
  summary,
  time,
  type Timing,
} from './measure.js';
import { httpBench } from './http.js';
import { BUSY_ACCOUNT, generate, toQbo } from './generate.js';
import { postgresFigures, type FirmFigures } from './postgres.js';
import type { HttpResult } from './http.js';
import { reconcileRounds, STATEMENT_LINES, statementOf } from './reconcile.js';
import { hostileFigures } from './hostile.js';
import { fxFigures } from './fx.js';
import { tagFigures } from './tags.js';
import { auditFigures } from './audit.js';

/**
 * `npm run bench`: generates ledgers of 100k and 1M journal lines (5 years, 195 accounts nested three
 * deep, AR/AP with counterparties), imports each with `books je import`, then times the real binary
 * as whole processes: reports, je list, an import into a large ledger, start-up, and posting over
 * HTTP. Reports medians and peak memory (the child's own maxRSS). `--quick` runs fewer rounds.
 */
const rows: string[] = [];
/** Medians of the reports by ledger size, to show how they grow from 100k to 1M lines. */
const medians = new Map<string, number>();
const reportRounds = quick ? 5 : 15;
const importRounds = quick ? 1 : 3;
const row = (what: string, t: Timing) => rows.push(`| ${what} | ${fmt(t)} |`);

mkdirSync(data, { recursive: true });
writeFileSync(
  rssProbe,
  "process.on('exit', () => require('fs').writeFileSync(process.env.BENCH_RSS_OUT, " +
    'String(process.resourceUsage().maxRSS)));\n',
);

const ledgers: Record<string, string> = {};
/** The ledger file's median reconciliation of the 1M ledger, to show beside PostgreSQL's. */
let reconcile1m = '';
/** The ledger file's median 1M import, to show beside PostgreSQL's. */
let fileImport1m = '';
const secsOf = (ms: number) => `${(ms / 1000).toFixed(3)} s`;
for (const [name, lines] of [
  ['100k', 100_000],
  ['1m', 1_000_000],
] as const) {
  const dir = await dataset(name, lines);
  const imports = [];
  for (let i = 0; i < importRounds; i++) {
    ledgers[name] = await freshLedger(dir);
    imports.push(
      await time([bin, 'je', 'import', join(dir, 'entries.csv'), '--ledger', ledgers[name]!]),
    );
  }
  row(`je import (${name} lines, ${importRounds} runs)`, summary(imports));
  if (name === '1m') fileImport1m = secsOf(summary(imports).median);
  await reports(name, ledgers[name]!);
}

for (const name of ['100k', '1m']) {
  for (const format of ['table', 'json']) {
    const args = [bin, 'je', 'list', '--ledger', ledgers[name]!, '--format', format];
    row(
      `je list, every entry, ${format} to /dev/null (${name} lines, 3 runs)`,
      await rounds(3, args),
    );
  }
}

growth();
await generalLedger();
await journalOut();
await presetCost();
await importGrowth();
await startUp();
await reconciliation();
for (const [what, t] of await hostileFigures(ledgers['100k']!, BUSY_ACCOUNT, importRounds))
  row(what, t);

const post = await httpBench(bin, data, quick ? 5 : 15);
rows.push(
  `| POST /v1/journal-entries, 4-line entries, 8 connections, ${quick ? 5 : 15} s over loopback ` +
    `(client: ${post.client}) | ${post.rate.toFixed(0)} entries/s; latency p50 ${post.p50.toFixed(1)} ms, ` +
    `p99 ${post.p99.toFixed(1)} ms; ${post.entries} posted, ${post.errors} errors | |`,
);
await postgres();
rows.push(...(await fxFigures()));
rows.push(...(await tagFigures(importRounds, reportRounds, quick ? 5 : 10)));
rows.push(...(await auditFigures(ledgers['1m']!)));
console.log(
  `| what (whole process) | median (min–max) | peak RSS |\n| --- | --- | --- |\n${rows.join('\n')}`,
);

/**
 * Reconciliation's goal: a 10,000-line statement of the busy bank account imported and matched against
 * the 1M-line ledger in under 2 s, with memory that does not grow with the ledger (the 100k ledger
 * beside it, with a statement of the same size).
 */
async function reconciliation(): Promise<void> {
  for (const name of ['100k', '1m']) {
    const statement = await statementOf(['--ledger', ledgers[name]!], join(data, name));
    const t = await reconcileRounds(ledgers[name]!, statement, importRounds);
    if (name === '1m') reconcile1m = secsOf(t.median);
    row(
      `reconcile import + match, ${STATEMENT_LINES.toLocaleString('en')}-line statement ` +
        `(${name} lines, ${importRounds} runs; ${t.matched} matched)`,
      t,
    );
  }
}

/** The same import, statements and posting on PostgreSQL, beside the ledger file's of this run. */
async function postgres(): Promise<void> {
  const seconds = quick ? 5 : 15;
  const pg = await postgresFigures(
    reportRounds,
    importRounds,
    seconds,
    join(data, 'report.out'),
    ledgers['1m']!,
  );
  const beside = (what: string, file: string, t: Timing) =>
    row(`${what} on PostgreSQL (ledger file: ${file})`, t);
  beside(`je import (1m lines, ${importRounds} runs)`, fileImport1m, pg.import1m);
  beside(
    `reconcile import + match, 10,000-line statement (1m lines, ${importRounds} runs; ${pg.reconcile.matched} matched)`,
    reconcile1m,
    pg.reconcile,
  );
  for (const [what, t] of pg.reports)
    beside(`${what} (1m lines, ${reportRounds} runs)`, secsOf(medians.get(`${what} 1m`)!), t);
  const f = pg.firm;
  const posting = (what: string, r: HttpResult | null) =>
    r &&
    rows.push(
      `| POST /v1/journal-entries on PostgreSQL, ${what}, ${seconds} s (client: ${r.client}) | ` +
        `${r.rate.toFixed(0)} entries/s; latency p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms; ` +
        `${r.entries} posted, ${r.errors} errors | |`,
    );
  posting('two books serve, 8 connections (4 each), one entity', f.oneEntity);
  posting('two books serve, eight entities, one connection each', f.eightEntities);
  for (const c of pg.ceiling ?? [])
    rows.push(
      `| pgbench, a post's statements without books (posting.sh ${c.script}, 8 clients, 10 s); ` +
        `books's two servers on one entity reach | ${c.entries.toFixed(0)} entries/s; books ` +
        `${f.oneEntity ? ((100 * f.oneEntity.rate) / c.entries).toFixed(0) : '-'}% of it | |`,
    );
  const left = (p: FirmFigures['posted'][number]) =>
    `${p.entity} ${p.entries} entries, ${p.gapless ? 'JE-1 to JE-n each once' : 'NOT GAPLESS'}` +
    `, books check ${p.checked ? 'clean' : 'FAILED'}`;
  rows.push(`| what the posting on PostgreSQL left | ${f.posted.map(left).join('; ')} | |`);
  const c = f.cursors.ms;
  const rate = Math.round((f.cursors.lines * 1000) / c.median);
  rows.push(
    '| general ledger of the busy account bank-0-0 through the API cursors on PostgreSQL ' +
      `(pages alternating two servers, ${importRounds} reads): ${f.cursors.lines} lines, ${rate} lines/s | ` +
      `${secsOf(c.median)} (${secsOf(c.min)}–${secsOf(c.max)}) | |`,
  );
  row(
    `books migrate of the 1M-line ledger file into a new entity (${importRounds} runs)`,
    f.migrate,
  );
  const m = pg.match;
  rows.push(
    '| reconcile match, 2,000 lines of one amount in one week, over books serve on PostgreSQL ' +
      `(${m.matched} matched; goal < 1 s); GET /v1/entity of another entity meanwhile, one after ` +
      `another (${m.others.n} requests; goal: none delayed over 100 ms) | ${secsOf(m.matchMs)}; ` +
      `other entity max ${m.others.maxMs.toFixed(1)} ms, p99 ${m.others.p99Ms.toFixed(1)} ms | |`,
  );
  const p = pg.post;
  rows.push(
    `| POST /v1/journal-entries on PostgreSQL, one books serve, 8 connections, ${seconds} s (client: ${p.client}) | ` +
      `${p.rate.toFixed(0)} entries/s; latency p50 ${p.p50.toFixed(1)} ms, p99 ${p.p99.toFixed(1)} ms; ` +
      `${p.entries} posted, ${p.errors} errors | |`,
  );
}

/**
 * 100k lines dated in 2025 (other entries over the same chart) imported into an empty ledger and into
 * a copy of the 1M-line ledger, which holds 2025 too, alternating run by run.
 */
async function importGrowth(): Promise<void> {
  const dir = join(data, '1m');
  const file = join(dir, 'grow.csv');
  await generate(dir, {
    lines: 100_000,
    startYear: 2025,
    years: 1,
    seed: 7,
    prefix: 'G',
    file: 'grow.csv',
  });
  const empty = [];
  const full = [];
  for (let i = 0; i < importRounds; i++) {
    const fresh = await freshLedger(dir, 'grow-empty.sqlite');
    empty.push(await time([bin, 'je', 'import', file, '--ledger', fresh]));
    const big = join(dir, 'grow.sqlite');
    for (const s of ['', '-wal', '-shm']) rmSync(big + s, { force: true });
    copyFileSync(ledgers['1m']!, big);
    full.push(await time([bin, 'je', 'import', file, '--ledger', big]));
  }
  const [e, f] = [summary(empty), summary(full)];
  row(`je import of 100k lines of 2025 into an empty ledger (${importRounds} runs)`, e);
  const ratio = (f.median / e.median).toFixed(2);
  row(
    `je import of the same into the 1M-line ledger, which holds 2025 (${importRounds} runs; ${ratio}×)`,
    f,
  );
}

async function startUp(): Promise<void> {
  row('books --help (20 runs)', await rounds(20, [bin, '--help']));
  row('node -e 0, for reference (20 runs)', await rounds(20, ['-e', '0']));
  if (!process.env.NODE_EXTRA_CA_CERTS) return;
  // Loading extra CA certificates costs every Node process on this machine; show the figures without it too.
  const env = { ...process.env };
  delete env.NODE_EXTRA_CA_CERTS;
  row(
    'books --help, without NODE_EXTRA_CA_CERTS (20 runs)',
    await rounds(20, [bin, '--help'], env),
  );
  row('node -e 0, without NODE_EXTRA_CA_CERTS (20 runs)', await rounds(20, ['-e', '0'], env));
  const args = [
    bin,
    'report',
    'balance-sheet',
    '--ledger',
    ledgers['1m']!,
    '--start',
    '2021-01-01',
    '--end',
    '2025-12-31',
  ];
  args.push('--format', 'json', '--output', join(data, 'bs.json'));
  row(
    `report balance-sheet, 60 columns, json (1m lines), without NODE_EXTRA_CA_CERTS (${reportRounds} runs)`,
    await rounds(reportRounds, args, env),
  );
}

/** The statements as whole processes, 5 years of monthly columns; the trial balance as of the last day. */
async function reports(name: string, ledger: string): Promise<void> {
  const cases = REPORT_CASES;
  for (const [what, args] of cases) {
    const full = [bin, ...args, '--ledger', ledger, '--output', join(data, 'report.out')];
    await time(full);
    const t = await rounds(reportRounds, full);
    medians.set(`${what} ${name}`, t.median);
    row(`${what} (${name} lines, ${reportRounds} runs)`, t);
  }
}

function growth(): void {
  for (const key of new Set([...medians.keys()].map((k) => k.replace(/ (100k|1m)$/, '')))) {
    const [small, big] = [medians.get(`${key} 100k`), medians.get(`${key} 1m`)];
    if (small && big)
      rows.push(`| ${key}: 1M lines over 100k lines | ${(big / small).toFixed(2)}× | |`);
  }
}

/**
 * The general ledger to CSV: the busy bank account's five years, and every account (each line of the
 * ledger), at 100k and 1M lines; lines per second from the rows written.
 */
async function generalLedger(): Promise<void> {
  for (const name of ['100k', '1m']) {
    for (const [what, accounts] of [
      [`the busy account ${BUSY_ACCOUNT}`, ['--account', BUSY_ACCOUNT]],
      ['every account', []],
    ] as const) {
      const out = join(data, 'gl.csv');
      const args = [
        bin,
        'report',
        'gl',
        ...accounts,
        '--start',
        '2021-01-01',
        '--end',
        '2025-12-31',
      ];
      args.push('--format', 'csv', '--ledger', ledgers[name]!, '--output', out);
      await time(args);
      const t = await rounds(3, args);
      const lines = countLines(out, ',line,');
      const rate = (lines / (t.median / 1000)).toFixed(0);
      row(
        `report general-ledger of ${what}, 5 years, csv: ${lines} lines, ${rate} lines/s (${name}, 3 runs)`,
        t,
      );
    }
  }
}

function countLines(file: string, marker: string): number {
  let n = 0;
  for (const l of readFileSync(file, 'utf8').split('\n')) if (l.includes(marker)) n++;
  return n;
}

/** The 1M-line journal out: je list as import CSV, and export to hledger and beancount, to files. */
async function journalOut(): Promise<void> {
  const cases: [string, string[]][] = [
    ['je list --format csv (the import format)', ['je', 'list', '--format', 'csv']],
    ['export hledger', ['export', 'hledger']],
    ['export beancount', ['export', 'beancount']],
  ];
  for (const name of ['100k', '1m']) {
    for (const [what, args] of cases) {
      const full = [
        bin,
        ...args,
        '--ledger',
        ledgers[name]!,
        '--output',
        join(data, 'journal.out'),
      ];
      row(`${what} of the whole ledger to a file (${name} lines, 3 runs)`, await rounds(3, full));
    }
  }
}

/**
 * The 1M-line file as QuickBooks Online writes it, imported with --preset qbo, against the same
 * journal in the native format: with the JE numbers that QuickBooks' Journal No. gives (each is
 * checked against the ledger's, in both).
 */
async function presetCost(): Promise<void> {
  const dir = join(data, '1m');
  await toQbo(dir);
  const [native, qbo] = [
    [] as Awaited<ReturnType<typeof time>>[],
    [] as Awaited<ReturnType<typeof time>>[],
  ];
  for (let i = 0; i < importRounds; i++) {
    let fresh = await freshLedger(dir, 'preset.sqlite');
    const same = join(dir, 'entries-numbered.csv');
    native.push(await time([bin, 'je', 'import', same, '--ledger', fresh]));
    fresh = await freshLedger(dir, 'preset.sqlite');
    qbo.push(
      await time([
        bin,
        'je',
        'import',
        join(dir, 'entries-qbo.csv'),
        '--preset',
        'qbo',
        '--ledger',
        fresh,
      ]),
    );
  }
  const [n, q] = [summary(native), summary(qbo)];
  row(
    `je import of the 1M-line file, native, with its JE numbers (${importRounds} runs, alternating)`,
    n,
  );
  row(
    `je import of the same as QuickBooks writes it, --preset qbo (${(q.median / n.median).toFixed(2)}×)`,
    q,
  );
}
