import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '../../src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Every module a file imports (static and dynamic), as paths relative to src/ or package names. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:from\s+|import\()\s*'([^']+)'/g)].map((m) => m[1]!);
  return specs.map((s) => (s.startsWith('.') ? relative(SRC, join(file, '..', s)) : s));
}

const all = files(SRC).map((f) => ({ file: relative(SRC, f), imports: importsOf(f) }));

describe('imports point inward', () => {
  it('the domain imports nothing outside itself', () => {
    for (const { file, imports } of all.filter((f) => f.file.startsWith('domain/'))) {
      for (const i of imports) expect(i.startsWith('domain/'), `${file} imports ${i}`).toBe(true);
    }
  });

  it('commands never import an adapter, SQL or colour directly', () => {
    for (const { file, imports } of all.filter((f) => f.file.startsWith('commands/'))) {
      for (const i of imports)
        expect(/^ledger\/(sqlite|http)\/|better-sqlite3/.test(i), `${file} imports ${i}`).toBe(
          false,
        );
    }
  });

  it('ledgers never import commands, renderers, the CLI or prompts', () => {
    for (const { file, imports } of all.filter((f) => f.file.startsWith('ledger/'))) {
      for (const i of imports)
        expect(/^(commands|render|cli)\/|@inquirer|chalk/.test(i), `${file} imports ${i}`).toBe(
          false,
        );
    }
  });
});
