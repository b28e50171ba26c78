import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyTemplate } from '../support/ledgers.js';
import { books, ROOT, tempDir } from '../support/helpers.js';

/** The tutorial's blocks in order: commands (sh) and what they print (plain). */
function blocks(text: string): { kind: 'sh' | 'out'; body: string }[] {
  return [...text.matchAll(/```(sh|csv)?\n([\s\S]*?)```/g)]
    .filter((m) => m[1] !== 'csv')
    .map((m) => ({ kind: m[1] === 'sh' ? 'sh' : 'out', body: m[2]! }));
}

describe('docs/reconciliation.md', () => {
  it('reconciles two months as written, printing what it shows, and hledger reads the balance', async () => {
    const text = readFileSync(join(ROOT, 'docs/reconciliation.md'), 'utf8');
    const ledger = copyTemplate('demo').ledger;
    const out = join(tempDir(), 'bakery.journal');
    const env = { BOOKS_LEDGER: ledger };
    let last = '';
    let shown = 0;
    for (const b of blocks(text)) {
      if (b.kind === 'out') {
        // Every line shown (but an elision) is a line of what the commands before it printed.
        const printed = last.split('\n').map((l) => l.trimEnd());
        for (const line of b.body
          .trimEnd()
          .split('\n')
          .filter((l) => l.trim() !== '...'))
          expect(printed, line).toContain(line.trimEnd());
        shown++;
        continue;
      }
      last = '';
      for (const line of b.body.split('\n').map((l) => l.trim())) {
        if (!line.startsWith('books ')) continue;
        const args = [...line.slice(6).matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
        const at = args.indexOf('--output');
        if (at >= 0) args[at + 1] = out;
        const r = await books(args, { cwd: ROOT, env });
        expect(r.exitCode, `${line}\n${r.stderr}`).toBe(0);
        last += r.stdout;
      }
    }
    expect(shown).toBeGreaterThanOrEqual(4);
    const bal = execFileSync(
      'hledger',
      ['-f', out, 'bal', 'Operating Checking', '-C', '--end', '2025-03-01'],
      { encoding: 'utf8' },
    );
    expect(bal).toContain('41922.36');
  });
});
