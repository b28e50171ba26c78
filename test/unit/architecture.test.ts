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

/** Every module a file imports (static, dynamic and type-only), as paths relative to src/ or package names. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:from\s+|import\(\s*|import\s+)'([^']+)'/g)].map((m) => m[1]!);
  return specs.map((s) =>
    s.startsWith('.') ? relative(SRC, join(file, '..', s)).replace(/\.js$/, '.ts') : s,
  );
}

const all = new Map(
  files(SRC).map((f) => [
    relative(SRC, f),
    { text: readFileSync(f, 'utf8'), imports: importsOf(f) },
  ]),
);
const under = (dir: string) => [...all.entries()].filter(([f]) => f.startsWith(dir));

/** The one module that picks and opens a store. */
const FACTORY = 'ledger/open.ts';

/** Every module a file reaches through its imports, not looking past the store factory. */
function reach(file: string): Set<string> {
  const seen = new Set<string>();
  const walk = (f: string) => {
    for (const i of all.get(f)?.imports ?? []) {
      if (seen.has(i)) continue;
      seen.add(i);
      if (i !== FACTORY && all.has(i)) walk(i);
    }
  };
  walk(file);
  return seen;
}

describe('imports point inward', () => {
  it('the domain imports nothing outside itself (but the hash of node:crypto)', () => {
    for (const [file, { imports }] of under('domain/')) {
      for (const i of imports)
        expect(i.startsWith('domain/') || i === 'node:crypto', `${file} imports ${i}`).toBe(true);
    }
  });

  it('commands reach no store and no SQL, however indirectly: stores only through the factory', () => {
    for (const [file] of under('commands/')) {
      for (const i of reach(file))
        expect(/^ledger\/(sqlite|http)\/|^better-sqlite3$/.test(i), `${file} reaches ${i}`).toBe(
          false,
        );
    }
  });

  it('stores never import commands, renderers, the CLI or prompts', () => {
    for (const [file, { imports }] of under('ledger/')) {
      for (const i of imports)
        expect(/^(commands|render|cli)\/|@inquirer|chalk/.test(i), `${file} imports ${i}`).toBe(
          false,
        );
    }
  });

  it('colour is the renderers’ alone, and SQLite the SQLite store’s', () => {
    for (const [file, { imports }] of all) {
      if (!file.startsWith('render/')) expect(imports, file).not.toContain('chalk');
      if (!file.startsWith('ledger/sqlite/')) expect(imports, file).not.toContain('better-sqlite3');
      if (!file.startsWith('ledger/pg/')) expect(imports, file).not.toContain('pg');
    }
  });

  it('SQL is written only in the stores (SQLite, PostgreSQL, and what both run: ledger/sql)', () => {
    for (const [file, { text }] of all) {
      if (['ledger/sqlite/', 'ledger/pg/', 'ledger/sql/'].some((d) => file.startsWith(d))) continue;
      expect(
        /\b(SELECT|INSERT INTO|UPDATE|DELETE FROM|CREATE TABLE)\s+[\w*(]/.test(text),
        file,
      ).toBe(false);
    }
  });

  it('the SQLite store is named only inside it and by the factory', () => {
    for (const [file, { text }] of all) {
      if (file.startsWith('ledger/sqlite/') || file === FACTORY) continue;
      expect(text.includes('SqliteLedger'), file).toBe(false);
    }
  });
});
