import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import type { TemplateName } from './globalSetup.js';

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'books-test-'));
}

/** A fresh copy of a template ledger (built once per run by the global setup), in a folder of its own. */
export function copyTemplate(
  name: TemplateName,
  file = 'books.sqlite',
): { dir: string; ledger: string } {
  const dir = tempDir();
  const ledger = join(dir, file);
  copyFileSync(join(inject('templates'), `${name}.sqlite`), ledger);
  return { dir, ledger };
}
