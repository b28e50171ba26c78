import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from './generate.js';
import { httpBench } from './http.js';

/**
 * `npm run bench`: generates ledgers of 100k and 1M journal lines (5 years, 195 accounts nested three
 * deep, AR/AP with counterparties), imports each with `books je import`, then times the real binary
 * as whole processes: the 5-year monthly balance sheet (60 columns) and `books --help`. Reports
 * medians and peak memory (the child's own maxRSS). `--quick` runs fewer rounds.
 */
const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const bin = join(root, 'bin/books.js');
const data = join(root, 'bench-data');
const quick = process.argv.includes('--quick');
const rssProbe = join(data, 'rss-probe.cjs');

interface Sample {
  ms: number;
  rssMb: number;
}

/** Runs `node [probe] args` once; wall time from spawn to exit, peak RSS as the child saw it. */
function time(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Sample> {
  const out = join(data, `rss-${process.pid}.txt`);
  return new Promise((res, rej) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, ['-r', rssProbe, ...args], {
      env: { ...env, BENCH_RSS_OUT: out },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (c) => (err += c));
    child.on('exit', (code) => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (code !== 0) return rej(new Error(`${args.join(' ')} exited ${code}: ${err}`));
      res({ ms, rssMb: Number(readFileSync(out, 'utf8')) / 1024 });
    });
  });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function rounds(
  n: number,
  args: string[],
  env?: NodeJS.ProcessEnv,
): Promise<{ median: number; min: number; max: number; peakMb: number }> {
  const samples: Sample[] = [];
  for (let i = 0; i < n; i++) samples.push(await time(args, env));
  const ms = samples.map((s) => s.ms);
  return {
    median: median(ms),
    min: Math.min(...ms),
    max: Math.max(...ms),
    peakMb: Math.max(...samples.map((s) => s.rssMb)),
  };
}

async function dataset(name: string, lines: number): Promise<string> {
  const dir = join(data, name);
  if (!existsSync(join(dir, 'entries.csv'))) {
    mkdirSync(dir, { recursive: true });
    const t = Date.now();
    const g = await generate(dir, { lines, startYear: 2021, years: 5 });
    console.error(
      `generated ${name}: ${g.entries} entries, ${lines} lines, ${g.accounts} accounts (${Date.now() - t} ms)`,
    );
  }
  return dir;
}

async function freshLedger(dir: string): Promise<string> {
  const ledger = join(dir, 'bench.sqlite');
  for (const suffix of ['', '-wal', '-shm']) rmSync(ledger + suffix, { force: true });
  await time([
    bin,
    'init',
    '--ledger',
    ledger,
    '--first-month',
    '2021-01',
    '--chart',
    join(dir, 'accounts.csv'),
  ]);
  await time([
    bin,
    'counterparties',
    'import',
    join(dir, 'counterparties.csv'),
    '--ledger',
    ledger,
  ]);
  return ledger;
}

const fmt = (r: { median: number; min: number; max: number; peakMb: number }) =>
  `${secs(r.median)} s (${secs(r.min)}–${secs(r.max)}) | ${r.peakMb.toFixed(0)} MB`;
const secs = (ms: number) => (ms / 1000).toFixed(3);

mkdirSync(data, { recursive: true });
writeFileSync(
  rssProbe,
  "process.on('exit', () => require('fs').writeFileSync(process.env.BENCH_RSS_OUT, " +
    'String(process.resourceUsage().maxRSS)));\n',
);
const rows: string[] = [];
const reportRounds = quick ? 5 : 15;
const importRounds = quick ? 1 : 3;
for (const [name, lines] of [
  ['100k', 100_000],
  ['1m', 1_000_000],
] as const) {
  const dir = await dataset(name, lines);
  const imports = [];
  let ledger = '';
  for (let i = 0; i < importRounds; i++) {
    ledger = await freshLedger(dir);
    imports.push(await time([bin, 'je', 'import', join(dir, 'entries.csv'), '--ledger', ledger]));
  }
  const imp = {
    median: median(imports.map((s) => s.ms)),
    min: Math.min(...imports.map((s) => s.ms)),
    max: Math.max(...imports.map((s) => s.ms)),
    peakMb: Math.max(...imports.map((s) => s.rssMb)),
  };
  rows.push(`| je import (${name} lines, ${importRounds} runs) | ${fmt(imp)} |`);
  for (const format of ['json', 'table']) {
    const args = [
      bin,
      'report',
      'balance-sheet',
      '--ledger',
      ledger,
      '--start',
      '2021-01-01',
      '--end',
      '2025-12-31',
      '--period',
      'monthly',
      '--format',
      format,
      '--output',
      join(data, `bs.${format}`),
    ];
    await time(args);
    rows.push(
      `| report balance-sheet, 60 monthly columns, ${format} (${name} lines, ${reportRounds} runs) ` +
        `| ${fmt(await rounds(reportRounds, args))} |`,
    );
  }
}
rows.push(`| books --help (20 runs) | ${fmt(await rounds(20, [bin, '--help']))} |`);
rows.push(`| node -e 0, for reference (20 runs) | ${fmt(await rounds(20, ['-e', '0']))} |`);
if (process.env.NODE_EXTRA_CA_CERTS) {
  // Loading extra CA certificates costs every Node process on this machine; show the figures without it too.
  const env = { ...process.env };
  delete env.NODE_EXTRA_CA_CERTS;
  rows.push(
    `| books --help, without NODE_EXTRA_CA_CERTS (20 runs) | ${fmt(await rounds(20, [bin, '--help'], env))} |`,
  );
  rows.push(
    `| node -e 0, without NODE_EXTRA_CA_CERTS (20 runs) | ${fmt(await rounds(20, ['-e', '0'], env))} |`,
  );
  const ledger = join(data, '1m', 'bench.sqlite');
  const args = [
    bin,
    'report',
    'balance-sheet',
    '--ledger',
    ledger,
    '--start',
    '2021-01-01',
    '--end',
    '2025-12-31',
    '--format',
    'json',
    '--output',
    join(data, 'bs.json'),
  ];
  rows.push(
    `| report balance-sheet, 60 columns, json (1m lines), without NODE_EXTRA_CA_CERTS (${reportRounds} runs) ` +
      `| ${fmt(await rounds(reportRounds, args, env))} |`,
  );
}
const post = await httpBench(bin, data, quick ? 5 : 15);
rows.push(
  `| POST /v1/journal-entries, 4-line entries, 8 connections, ${quick ? 5 : 15} s over loopback ` +
    `(client: ${post.client}) | ${post.rate.toFixed(0)} entries/s; latency p50 ${post.p50.toFixed(1)} ms, ` +
    `p99 ${post.p99.toFixed(1)} ms; ${post.entries} posted, ${post.errors} errors | |`,
);
console.log(
  `| what (whole process) | median (min–max) | peak RSS |\n| --- | --- | --- |\n${rows.join('\n')}`,
);
