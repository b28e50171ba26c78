import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/helpers.js';

describe('the README stands alone', () => {
  const text = readFileSync(join(ROOT, 'README.md'), 'utf8');

  it('links and names only files that are in the repository', () => {
    const links = [...text.matchAll(/\]\(([^)#]+)\)/g)].map((m) => m[1]!);
    const paths = [
      ...text.matchAll(/\b((?:fixtures|docs|src|test)\/[\w./-]+\.(?:csv|md|json|ts))\b/g),
    ].map((m) => m[1]!);
    const named = [...text.matchAll(/`([\w-]+\.md)`/g)].map((m) => m[1]!);
    expect(paths.length).toBeGreaterThan(3);
    for (const p of [...links, ...paths]) expect(existsSync(join(ROOT, p)), p).toBe(true);
    for (const n of named)
      expect(existsSync(join(ROOT, n)) || existsSync(join(ROOT, 'docs', n)), n).toBe(true);
    expect(text).not.toContain('../shared');
  });
});
