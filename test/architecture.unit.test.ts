import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '../src');

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
        expect(
          /^ledger\/(sqlite|http|pg)\/|^better-sqlite3$|^pg$/.test(i),
          `${file} reaches ${i}`,
        ).toBe(false);
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

  it('colour is the renderers’ alone, and SQLite the SQLite store’s (and the HTTP receipts’)', () => {
    for (const [file, { imports }] of all) {
      if (!file.startsWith('render/')) expect(imports, file).not.toContain('chalk');
      // The HTTP client keeps what it has posted in a SQLite file of its own (http/receipts.ts).
      if (!file.startsWith('ledger/sqlite/') && file !== 'ledger/http/receipts.ts')
        expect(imports, file).not.toContain('better-sqlite3');
      if (!file.startsWith('ledger/pg/')) expect(imports, file).not.toContain('pg');
    }
  });

  it('SQL is written only in the stores (SQLite, PostgreSQL, and what both run: ledger/sql)', () => {
    for (const [file, { text }] of all) {
      if (['ledger/sqlite/', 'ledger/pg/', 'ledger/sql/'].some((d) => file.startsWith(d))) continue;
      if (file === 'ledger/http/receipts.ts') continue;
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

/** The strongly connected groups of files (import circles) among `files`, each of two files or more. */
function circles(): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of all.get(v)!.imports) {
      if (!all.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        group.push(w);
      } while (w !== v);
      if (group.length > 1) out.push(group);
    }
  };
  for (const v of all.keys()) if (!index.has(v)) visit(v);
  return out;
}

const folder = (file: string) => file.slice(0, file.lastIndexOf('/'));
const STORES = ['ledger/sqlite/', 'ledger/pg/', 'ledger/http/'];

describe('the ledger is laid out by feature', () => {
  it('holds at its root only the port, the factory and ids', () => {
    const root = [...all.keys()].filter((f) => /^ledger\/[^/]+$/.test(f)).sort();
    expect(root).toEqual(['ledger/ids.ts', 'ledger/open.ts', 'ledger/port.ts']);
  });

  it('has no import circle that spans two folders', () => {
    for (const group of circles()) expect(new Set(group.map(folder)).size, group.join(' ')).toBe(1);
  });

  it('fences every store: none imports another, and no feature imports a store', () => {
    for (const [file, { imports }] of under('ledger/')) {
      const own = STORES.find((s) => file.startsWith(s));
      for (const i of imports) {
        const store = STORES.find((s) => i.startsWith(s));
        if (store && file !== FACTORY) expect(store === own, `${file} imports ${i}`).toBe(true);
      }
    }
  });
});

describe('the suite is hermetic', () => {
  it('runs with none of the BOOKS_ variables of the shell that started it (vitest.config.ts)', () => {
    // A bookkeeper's BOOKS_LEDGER would send the fixtures' commands to their own ledger.
    const leaked = Object.keys(process.env).filter(
      (k) => k.startsWith('BOOKS_') && k !== 'BOOKS_REALFILES',
    );
    expect(leaked).toEqual([]);
  });
});
