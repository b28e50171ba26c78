import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from './generate.js';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const bin = join(root, 'bin/books.js');
export const data = join(root, 'bench-data');
export const quick = process.argv.includes('--quick');
export const rssProbe = join(data, 'rss-probe.cjs');

export interface Sample {
  ms: number;
  rssMb: number;
}

export interface Timing {
  median: number;
  min: number;
  max: number;
  peakMb: number;
}

/**
 * Runs `node [probe] args` once; wall time from spawn to exit, peak RSS as the child saw it. An exit
 * code other than `exits` (0 by default) is an error.
 */
export function time(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  exits: number[] = [0],
): Promise<Sample> {
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
      if (!exits.includes(code ?? -1))
        return rej(new Error(`${args.join(' ')} exited ${code}: ${err}`));
      res({ ms, rssMb: Number(readFileSync(out, 'utf8')) / 1024 });
    });
  });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** Median, range and peak memory of samples. */
export function summary(samples: Sample[]): Timing {
  const ms = samples.map((s) => s.ms);
  return {
    median: median(ms),
    min: Math.min(...ms),
    max: Math.max(...ms),
    peakMb: Math.max(...samples.map((s) => s.rssMb)),
  };
}

export async function rounds(n: number, args: string[], env?: NodeJS.ProcessEnv): Promise<Timing> {
  const samples: Sample[] = [];
  for (let i = 0; i < n; i++) samples.push(await time(args, env));
  return summary(samples);
}

const secs = (ms: number) => (ms / 1000).toFixed(3);
export const fmt = (r: Timing) =>
  `${secs(r.median)} s (${secs(r.min)}–${secs(r.max)}) | ${r.peakMb.toFixed(0)} MB`;

/** The generated files of a size, made once and kept in bench-data/. */
export async function dataset(name: string, lines: number): Promise<string> {
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

/** A new ledger with the dataset's chart and counterparties and no entries (made by `using`). */
export async function freshLedger(
  dir: string,
  file = 'bench.sqlite',
  using = bin,
): Promise<string> {
  const ledger = join(dir, file);
  for (const suffix of ['', '-wal', '-shm']) rmSync(ledger + suffix, { force: true });
  await time([
    using,
    'init',
    '--ledger',
    ledger,
    '--first-month',
    '2021-01',
    '--chart',
    join(dir, 'accounts.csv'),
  ]);
  await time([
    using,
    'counterparties',
    'import',
    join(dir, 'counterparties.csv'),
    '--ledger',
    ledger,
  ]);
  return ledger;
}
