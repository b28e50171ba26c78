import Database from 'better-sqlite3';
import { copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { postEntry, serve, standardLedger } from '../support/helpers.js';
import { copyTemplate } from '../support/ledgers.js';

/** The entries the ledger file holds without its WAL (what the checkpoints have copied into it). */
function inFileAlone(ledger: string, dir: string): number {
  const copy = join(dir, 'file-alone.sqlite');
  copyFileSync(ledger, copy);
  const db = new Database(copy, { readonly: true });
  try {
    return db.prepare('SELECT COUNT(*) FROM journal_entries').pluck().get() as number;
  } finally {
    db.close();
  }
}

// A server copies its WAL into the ledger file on a thread of its own (src/ledger/sqlite/
// checkpointer.ts), not in the COMMIT on its only thread: the file catches up while it serves, well
// before SQLite's own 1,000 pages, and a stop leaves the file whole, without its WAL.
describe('books serve on a ledger file', () => {
  it('copies what it commits into the file while it serves, and leaves no WAL when it stops', async () => {
    const { dir, ledger, run } = await standardLedger();
    const key = (
      await run(['keys', 'create', '--permission', 'customer_api:post_journal_entries'])
    ).stdout.trim();
    const server = await serve(ledger);
    try {
      for (let i = 0; i < 50; i++) {
        const r = await postEntry(server.url, key, `ck-${i}`);
        expect(r.status).toBe(201);
      }
      // Awaited as a state: the thread is asked after each commit, at most every 50 ms.
      const until = Date.now() + 20_000;
      while (inFileAlone(ledger, dir) < 50 && Date.now() < until)
        await new Promise((r) => setTimeout(r, 25));
      expect(inFileAlone(ledger, dir)).toBe(50);
    } finally {
      await server.stop();
    }
    expect(server.child.exitCode).toBe(0);
    expect(existsSync(`${ledger}-wal`)).toBe(false);
    const check = await run(['check']);
    expect(check.exitCode, check.stdout + check.stderr).toBe(0);
  });

  it("leaves the checkpoints to the server's own connection, as SQLite has them, if its thread fails", async () => {
    // The built module: its thread's script is only there (as books serve runs it).
    const { Checkpointer } = (await import(
      new URL('../../dist/ledger/sqlite/checkpointer.js', import.meta.url).href
    )) as typeof import('../../src/ledger/sqlite/checkpointer.js');
    const { ledger } = copyTemplate('standard');
    const db = new Database(ledger);
    try {
      const pages = () => db.pragma('wal_autocheckpoint', { simple: true }) as number;
      // A thread that cannot open its file fails at once.
      const checkpoints = Checkpointer.start(db, join(ledger, 'not-a-ledger'))!;
      expect(checkpoints).not.toBeNull();
      const until = Date.now() + 20_000;
      while (pages() !== 1000 && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
      expect(pages()).toBe(1000);
      checkpoints.committed();
      await checkpoints.stop();
    } finally {
      db.close();
    }
  });
});
