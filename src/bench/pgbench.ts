import { spawnSync } from 'node:child_process';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { psqlPath } from './cluster.js';

/** One pgbench script of posting.sh: its name, transactions a second, and entries a second. */
export interface Ceiling {
  script: string;
  tps: number;
  entries: number;
}

/** Entries in each transaction of posting.sh's scripts. */
const PER_TX: Record<string, number> = { one: 1, group8: 8, group32: 32, nolock8: 8 };

/**
 * PostgreSQL's own ceiling for a post's statements on one entity, without books
 * (`src/bench/pgbench/posting.sh`, 8 clients, 10 s a script) on an entity of the bench chart, whose
 * rows it then holds (numbered PGB-n): run it last. Null where pgbench is not installed.
 */
export function pgbenchCeiling(url: string, slug: string): Ceiling[] | null {
  const bin = dirname(psqlPath());
  const script = fileURLToPath(new URL('../../src/bench/pgbench/posting.sh', import.meta.url));
  const env = { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` };
  if (spawnSync('pgbench', ['--version'], { env }).error) return null;
  const r = spawnSync('sh', [script, url, slug], { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`posting.sh: ${r.stderr}`);
  return [...r.stdout.matchAll(/^(\w+): tps = ([\d.]+)/gm)].map(([, name, tps]) => ({
    script: name!,
    tps: Number(tps),
    entries: Number(tps) * (PER_TX[name!] ?? 1),
  }));
}
