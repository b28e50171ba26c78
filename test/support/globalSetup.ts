import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { cli } from './cli.js';
import { startCluster } from '../../src/bench/cluster.js';

const FIXTURES = resolve(import.meta.dirname, '../../fixtures');

/** The ledgers tests start from, built once per run; tests copy them instead of building their own. */
export const TEMPLATES = {
  standard: [
    ['init', '--chart', 'standard', '--name', 'Test Co', '--first-month', '2025-01'],
    ['counterparties', 'import', join(FIXTURES, 'demo/counterparties.csv')],
  ],
  // The standard chart with accounts kept in euros, sterling, yen and dinars, and the rates of January.
  fx: [
    ['init', '--chart', 'standard', '--name', 'FX Co', '--first-month', '2025-01'],
    ['accounts', 'import', join(FIXTURES, 'fx/accounts.csv')],
    ['counterparties', 'import', join(FIXTURES, 'demo/counterparties.csv')],
    ['rates', 'import', join(FIXTURES, 'fx/rates.csv')],
  ],
  'standard-no-start': [
    ['init', '--chart', 'standard', '--name', 'Test Co'],
    ['counterparties', 'import', join(FIXTURES, 'demo/counterparties.csv')],
  ],
  demo: [
    [
      'init',
      '--name',
      'Harbor Bakery',
      '--first-month',
      '2025-01',
      '--chart',
      join(FIXTURES, 'demo/accounts.csv'),
    ],
    ['counterparties', 'import', join(FIXTURES, 'demo/counterparties.csv')],
    ['je', 'import', join(FIXTURES, 'demo/entries.csv')],
  ],
  'demo-chart': [
    ['init', '--first-month', '2025-01', '--chart', join(FIXTURES, 'demo/accounts.csv')],
    ['counterparties', 'import', join(FIXTURES, 'demo/counterparties.csv')],
  ],
  statements: [
    [
      'init',
      '--name',
      'Statements Co',
      '--first-month',
      '2025-01',
      '--chart',
      join(FIXTURES, 'statements/accounts.csv'),
    ],
  ],
  'demo-fy4': [
    [
      'init',
      '--name',
      'Harbor Bakery',
      '--first-month',
      '2025-01',
      '--chart',
      join(FIXTURES, 'demo/accounts.csv'),
      '--fiscal-year-start-month',
      '4',
    ],
    ['counterparties', 'import', join(FIXTURES, 'demo/counterparties.csv')],
    ['je', 'import', join(FIXTURES, 'demo/entries.csv')],
  ],
} as const;

export type TemplateName = keyof typeof TEMPLATES;

declare module 'vitest' {
  export interface ProvidedContext {
    templates: string;
    /** The private PostgreSQL cluster's socket folder and user (src/bench/cluster.ts). */
    pg: { dir: string; user: string };
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const dir = mkdtempSync(join(tmpdir(), 'books-templates-'));
  for (const [name, steps] of Object.entries(TEMPLATES)) {
    for (const args of steps) {
      const r = await cli([...args, '--ledger', join(dir, `${name}.sqlite`)], { cwd: dir });
      if (r.exitCode !== 0)
        throw new Error(`template ${name}: books ${args.join(' ')}: ${r.stderr}`);
    }
  }
  project.provide('templates', dir);
  const cluster = startCluster({ durable: false });
  project.provide('pg', { dir: cluster.dir, user: cluster.user });
  return () => {
    cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
