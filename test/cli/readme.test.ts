import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { books, ROOT, tempDir } from '../support/helpers.js';

/** The README's tutorial commands (sections 1 to 5), one per line, as a reader would paste them. */
function tutorial(text: string): string[][] {
  const part = text.slice(text.indexOf('### 1.'), text.indexOf('### 6.'));
  const blocks = [...part.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const lines = blocks
    .join('\n')
    .replace(/\\\n\s*/g, '')
    .split('\n');
  // The interactive post needs a person at a terminal: it is left out.
  const own = /^books je post\s*(#|$)/;
  return lines
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter((l) => l.startsWith('books ') && !own.test(l))
    .map((l) =>
      [...l.slice(6).matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!),
    );
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
    for (const words of steps) {
      // `< FILE` feeds the file to standard input, as a shell would.
      const from = words.indexOf('<');
      const args = from < 0 ? words : words.slice(0, from);
      const input = from < 0 ? undefined : readFileSync(join(ROOT, words[from + 1]!), 'utf8');
      const r = await books(args, { cwd: ROOT, env, ...(input !== undefined ? { input } : {}) });
      expect(r.exitCode, `books ${args.join(' ')}: ${r.stderr}`).toBe(0);
      if (args.includes('--worksheet')) worksheet = r.stdout;
    }
    const shown = text.slice(text.indexOf('Trial Balance Worksheet') - 'Harbor Bakery\n'.length);
    const lines = shown.slice(0, shown.indexOf('```')).trimEnd().split('\n');
    for (const line of lines.filter((l) => l !== '...'))
      expect(worksheet.split('\n')).toContain(line);
  });
});
