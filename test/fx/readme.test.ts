import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { books, ROOT, tempDir } from '../support/helpers.js';

/** The README's blocks of one section in order: commands (sh) and what they print (plain). */
function blocks(text: string): { kind: 'sh' | 'out'; body: string }[] {
  return [...text.matchAll(/```(sh|csv)?\n([\s\S]*?)```/g)]
    .filter((m) => m[1] !== 'csv')
    .map((m) => ({ kind: m[1] === 'sh' ? 'sh' : 'out', body: m[2]! }));
}

describe("the README's euro bank account month", () => {
  it('runs as written, printing what it shows', async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const section = readme.slice(
      readme.indexOf('### 12. Foreign currencies'),
      readme.indexOf('## Output and exit codes'),
    );
    const env = { BOOKS_LEDGER: join(tempDir(), 'euro.sqlite') };
    let last = '';
    let shown = 0;
    let ran = 0;
    for (const b of blocks(section)) {
      if (b.kind === 'out') {
        const printed = last.split('\n').map((l) => l.trimEnd());
        for (const line of b.body.trimEnd().split('\n'))
          expect(printed, line).toContain(line.trimEnd());
        shown++;
        continue;
      }
      last = '';
      for (const line of b.body.split('\n').map((l) => l.replace(/\s+#.*$/, '').trim())) {
        if (!line.startsWith('books ')) continue;
        const args = [...line.slice(6).matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
        const r = await books(args, { cwd: ROOT, env });
        expect(r.exitCode, `${line}\n${r.stderr}`).toBe(0);
        last += r.stdout;
        ran++;
      }
    }
    expect([shown, ran]).toEqual([2, 17]);
  });
});
