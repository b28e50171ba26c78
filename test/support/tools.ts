import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * The path of a program a test needs (hledger, PostgreSQL's binaries). A test that needs one never
 * skips without it: it fails, saying how to install it (.ci/run installs what the tests need).
 */
export function requireTool(name: string, install: string, dirs: string[] = []): string {
  for (const dir of [...dirs, ...(process.env.PATH ?? '').split(delimiter)]) {
    const path = join(dir, name);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not here
    }
  }
  throw new Error(`${name} is needed by this test and is not installed: ${install}`);
}
