import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/program.js';
import { cli } from '../support/cli.js';
import { copyTemplate, until } from '../support/ledgers.js';
import { databaseUrl } from '../support/fixtures.js';
import { BIN, books, ROOT, tempDir } from '../support/helpers.js';

/** An example line as its words, quotes taken off. */
const words = (line: string) =>
  [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!).slice(1);

describe('the examples in every --help', () => {
  it('every command has examples, and each runs as shown on a fresh standard-chart ledger', async () => {
    const dir = tempDir();
    symlinkSync(join(ROOT, 'fixtures'), join(dir, 'fixtures'));
    const ledger = copyTemplate('standard').ledger;
    const env = { BOOKS_CONFIG: join(dir, 'config.json'), BOOKS_LEDGER: ledger };
    // Commands that need a ledger of another kind: a new file, or one whose books have not started.
    const own: Record<string, string> = {
      init: join(dir, 'new.sqlite'),
      'books-start': copyTemplate('standard-no-start').ledger,
    };
    // Reconciliation's examples are one month's work, in order, on the demo's bank account.
    const bakery = copyTemplate('demo').ledger;
    for (const c of COMMANDS)
      if (c.path.startsWith('reconcile ') || c.path === 'report reconciliation')
        own[c.path] = bakery;
    // books migrate copies a ledger file into this test run's database, as its example shows.
    const copyInto: Record<string, string> = {
      'books.sqlite': copyTemplate('demo').ledger,
      'postgresql://books@/firm?host=/var/run/postgresql': databaseUrl(),
    };
    let keyId = '';
    let ran = 0;
    for (const c of COMMANDS) {
      const spec = (await c.load()).default;
      expect(spec.examples?.length, `books ${c.path} has examples`).toBeGreaterThan(0);
      // Its --help shows them.
      const help = await cli([...c.path.split(' '), '--help'], { cwd: dir, env });
      for (const example of spec.examples!) {
        expect(help.stdout).toContain(example);
        // An anchor is the head of the trail as books audit head printed it, kept elsewhere.
        const head = example.includes('SEQ:HASH')
          ? (await cli(['audit', 'head'], { cwd: dir, env })).stdout.trim()
          : '';
        const args = words(example).map((w) =>
          w === 'KEY_ID' ? keyId : w === 'SEQ:HASH' ? head : (copyInto[w] ?? w),
        );
        const runEnv = { ...env, ...(own[c.path] ? { BOOKS_LEDGER: own[c.path]! } : {}) };
        if (c.path === 'serve') {
          // A server runs until stopped: it must start (on a free port rather than 8080) and stop.
          const port = args.indexOf('--port');
          args[port + 1] = '0';
          const child = execa('node', [BIN, ...args], {
            cwd: dir,
            env: runEnv,
            reject: false,
            all: true,
          });
          let log = '';
          child.all!.on('data', (d: Buffer) => (log += String(d)));
          await until(() => log.includes('listening on'), 'books serve listening');
          child.kill('SIGTERM');
          expect((await child).exitCode, log).toBe(0);
        } else {
          const json = c.path === 'keys create' ? ['--format', 'json'] : [];
          const r = await books([...args, ...json], { cwd: dir, env: runEnv });
          expect(r.exitCode, `${example}\n${r.stderr}`).toBe(0);
          if (c.path === 'keys create') keyId = JSON.parse(r.stdout).id;
        }
        ran++;
      }
    }
    expect(ran).toBeGreaterThan(30);
  });
});
