import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { books, ROOT, tempDir } from './helpers.js';

/** The README's tutorial commands (sections 1 to 5), one per line, as a reader would paste them. */
function tutorial(text: string): string[][] {
  const part = text.slice(text.indexOf('### 1.'), text.indexOf('### 6.'));
  const blocks = [...part.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const lines = blocks
    .join('\n')
    .replace(/\\\n\s*/g, '')
    .split('\n');
  // Files a reader brings (entry.json, more-accounts.csv, export.csv) and the interactive post are left out.
  const own = /entry\.json|more-accounts\.csv|export\.csv|^books je post\s*(#|$)/;
  return lines
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter((l) => l.startsWith('books ') && !own.test(l))
    .map((l) => [...l.slice(6).matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!));
}

describe("the README's tutorial", () => {
  it('runs as written, and prints the worksheet it shows', async () => {
    const text = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const steps = tutorial(text);
    expect(steps.map((s) => s.slice(0, 2).join(' '))).toEqual(
      expect.arrayContaining(['report trial-balance', 'close --through']),
    );
    const env = { BOOKS_LEDGER: join(tempDir(), 'books.sqlite') };
    let worksheet = '';
    for (const args of steps) {
      const r = await books(args, { cwd: ROOT, env });
      expect(r.exitCode, `books ${args.join(' ')}: ${r.stderr}`).toBe(0);
      if (args.includes('--worksheet')) worksheet = r.stdout;
    }
    const shown = text.slice(text.indexOf('Trial Balance Worksheet') - 'Harbor Bakery\n'.length);
    const lines = shown.slice(0, shown.indexOf('```')).trimEnd().split('\n');
    for (const line of lines.filter((l) => l !== '...'))
      expect(worksheet.split('\n')).toContain(line);
  });
});
