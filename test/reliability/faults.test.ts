import { chmodSync, closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { generate } from '../../src/bench/generate.js';
import {
  BIN,
  books,
  expectSameReport,
  serve,
  standardLedger,
  tempDir,
  writeFile,
} from '../support/helpers.js';
import { exec, until, untilWriteLocked } from '../support/ledgers.js';
import { keyFor } from '../support/keys.js';

// The cases of the trust issue that need real processes: kills, a server, pipes, another user.

const count = (ledger: string, where = '1 = 1') => {
  const db = new Database(ledger, { readonly: true });
  try {
    return db
      .prepare(`SELECT COUNT(*) FROM journal_entries WHERE ${where}`)
      .pluck()
      .get() as number;
  } finally {
    db.close();
  }
};

/**
 * An HTTP proxy to a service that lets posts through, except that it keeps the answers of the posts
 * whose ordinals are in `hold` (the service has posted them) and never replies: the client waits, as
 * it would for an answer lost in the network, until it is killed.
 */
async function holdingProxy(
  target: string,
  hold: number,
): Promise<{ url: string; held: () => boolean; close: () => void }> {
  let posts = 0;
  let held = false;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'content-length'),
      ) as Record<string, string>;
      const answer = await fetch(target + req.url, {
        method: req.method!,
        headers,
        ...(req.method === 'POST' ? { body: Buffer.concat(chunks) } : {}),
      });
      const body = Buffer.from(await answer.arrayBuffer());
      if (req.method === 'POST' && hold.includes(++posts)) {
        held = posts;
        return;
      }
      res
        .writeHead(answer.status, {
          'content-type': answer.headers.get('content-type') ?? 'application/json',
        })
        .end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    held: () => held,
    close: () => server.closeAllConnections() && server.close(),
  };
}

describe('a remote import stopped while a request is in flight', () => {
  it('never posts that entry twice: within the hour it asks again; past it, it waits for --settle', async () => {
    const L = await standardLedger();
    const S = await serve(L.ledger);
    // The 3rd post (of the first file) and the 9th (the second file's 2nd) are posted, but their answers never come.
    const proxy = await holdingProxy(S.url, [3, 9]);
    const csv = (name: string, month: string) => {
      const lines = ['entry,entry_date,gl_account_id,debit,credit,memo'];
      for (let i = 1; i <= 6; i++)
        lines.push(`${i},2025-${month}-0${i},rent,${i},,${name}${i}`, `${i},,checking,,${i},`);
      return writeFile(L.dir, `${name}.csv`, lines.join('\n') + '\n');
    };
    const env = {
      BOOKS_CONFIG: join(L.dir, 'config.json'),
      BOOKS_API_KEY: await keyFor(L.run),
      BOOKS_RECEIPTS: join(L.dir, 'receipts.sqlite'),
      BOOKS_RETRY_BACKOFF_MS: '50',
    };
    const remote = (args: string[]) =>
      books(['--profile', 'svc', ...args, '--format', 'json'], { cwd: L.dir, env });
    const killedAt = async (file: string, hold: number) => {
      const importing = execa('node', [BIN, '--profile', 'svc', 'je', 'import', file], {
        cwd: L.dir,
        env: { ...env, NO_COLOR: '1' },
        reject: false,
      });
      await until(() => proxy.held() === hold, `post ${hold} to be held`);
      importing.kill('SIGKILL');
      await importing;
    };
    try {
      expect(
        (await books(['profile', 'add', 'svc', '--url', proxy.url], { cwd: L.dir, env })).exitCode,
      ).toBe(0);
      const first = csv('first', '02');
      await killedAt(first, 3);
      expect(count(L.ledger)).toBe(3);
      // Within the hour: the unanswered request is sent again under its key; the service says it posted it.
      const again = await remote(['je', 'import', first]);
      expect(again.exitCode, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ posted: 3, skipped: 3 });
      expect(count(L.ledger)).toBe(6);
      const second = csv('second', '03');
      await killedAt(second, 9);
      expect(count(L.ledger)).toBe(8);
      // Past the service's hour: it has forgotten the key, and the request is old; books does not guess.
      exec(L.ledger, 'DELETE FROM idempotency_keys');
      exec(env.BOOKS_RECEIPTS, `UPDATE pending SET sent_at_ms = sent_at_ms - 2 * 3600 * 1000`);
      const uncertain = await remote(['je', 'import', second]);
      expect(uncertain.exitCode).toBe(2);
      expect(JSON.parse(uncertain.stdout).error.errors).toEqual([
        expect.objectContaining({ file: second, row: 4, reason: 'uncertain_post' }),
      ]);
      expect(count(L.ledger)).toBe(8);
      const settled = await remote(['je', 'import', second, '--settle', 'posted']);
      expect(settled.exitCode, settled.stderr).toBe(0);
      expect(JSON.parse(settled.stdout)).toMatchObject({ posted: 4, skipped: 2 });
      expect(count(L.ledger)).toBe(12);
    } finally {
      proxy.close();
      await S.stop();
    }
  });
});

describe('books serve when SQLite rolls a transaction back on its own (a full disk)', () => {
  it('answers the whole group 503 and goes on serving', async () => {
    const L = await standardLedger();
    const key = await keyFor(L.run);
    const S = await serve(L.ledger);
    try {
      exec(
        L.ledger,
        `CREATE TRIGGER full BEFORE INSERT ON journal_lines WHEN NEW.amount_atoms = 13
         BEGIN SELECT RAISE(ROLLBACK, 'database or disk is full'); END`,
      );
      const post = (amount: number, i: number) =>
        fetch(`${S.url}/v1/journal-entries`, {
          method: 'POST',
          headers: {
            Authorization: `Bearer ${key}`,
            'Content-Type': 'application/json',
            'X-Idempotency-Key': `full-${amount}-${i}`,
          },
          body: JSON.stringify({
            entry_date: '2025-03-02',
            lines: [
              { gl_account_id: 'rent', line_type: 'debit', amount_atoms: amount },
              { gl_account_id: 'checking', line_type: 'credit', amount_atoms: amount },
            ],
          }),
        });
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, i) => post(i % 4 === 0 ? 13 : 7, i)),
      );
      const statuses = answers.map((a) => a.status);
      expect(statuses).toContain(503);
      expect(statuses.every((s) => s === 201 || s === 503)).toBe(true);
      // Every 201 is in the ledger; nothing of a 503.
      expect(count(L.ledger)).toBe(statuses.filter((s) => s === 201).length);
      exec(L.ledger, 'DROP TRIGGER full');
      expect((await post(13, 99)).status).toBe(201);
      expect(S.child.exitCode).toBe(null);
    } finally {
      await S.stop();
    }
    expect((await L.run(['check'])).exitCode).toBe(0);
  });
});

describe('a ledger removed under a running server', () => {
  it('is not written: posts are answered 503, not 201', async () => {
    const L = await standardLedger();
    const key = await keyFor(L.run);
    const S = await serve(L.ledger);
    const post = (k: string) =>
      fetch(`${S.url}/v1/journal-entries`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${key}`,
          'Content-Type': 'application/json',
          'X-Idempotency-Key': k,
        },
        body: JSON.stringify({
          entry_date: '2025-03-02',
          lines: [
            { gl_account_id: 'rent', line_type: 'debit', amount_atoms: 1 },
            { gl_account_id: 'checking', line_type: 'credit', amount_atoms: 1 },
          ],
        }),
      });
    try {
      expect((await post('before')).status).toBe(201);
      for (const suffix of ['', '-wal', '-shm']) rmSync(L.ledger + suffix, { force: true });
      const after = await post('after');
      expect(after.status).toBe(503);
      expect(((await after.json()) as { detail: string }).detail).toContain(
        'was removed while it was open',
      );
    } finally {
      await S.stop();
    }
  });
});

describe('a killed rebuild', () => {
  it('blocks nothing: a post right after the kill goes through, and check is clean', async () => {
    const dir = tempDir();
    await generate(dir, { lines: 150_000, startYear: 2024, years: 2 });
    const ledger = join(dir, 'big.sqlite');
    for (const args of [
      ['init', '--first-month', '2024-01', '--chart', join(dir, 'accounts.csv')],
      ['counterparties', 'import', join(dir, 'counterparties.csv')],
      ['je', 'import', join(dir, 'entries.csv')],
    ]) {
      expect((await books([...args, '--ledger', ledger])).exitCode).toBe(0);
    }
    const rebuilding = execa('node', [BIN, 'rebuild', '--ledger', ledger], { reject: false });
    await until(() => markSet(ledger), 'the rebuild mark');
    rebuilding.kill('SIGKILL');
    expect((await rebuilding).signal).toBe('SIGKILL');
    expect(markSet(ledger)).toBe(true);
    const r = await books([
      'je',
      'post',
      '--ledger',
      ledger,
      '--date',
      '2025-06-01',
      '--debit',
      'expense-0-0=1',
      '--credit',
      'bank-0-0=1',
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect((await books(['check', '--ledger', ledger])).exitCode).toBe(0);
  });
});

function markSet(ledger: string): boolean {
  const db = new Database(ledger, { readonly: true });
  try {
    return db.prepare('SELECT rebuild_started_at FROM entity').pluck().get() !== null;
  } finally {
    db.close();
  }
}

describe('input that never ends, and the write lock of a failing import', () => {
  it('refuses /dev/zero as an import and as a --file body at their limits', async () => {
    const L = await standardLedger();
    const imported = await L.run(['je', 'import', '/dev/zero']);
    expect(imported.exitCode).toBe(1);
    expect(imported.stderr).toContain(
      '/dev/zero:1: invalid_input malformed_csv: a cell is longer than 65,536 characters',
    );
    const posted = await L.run(['je', 'post', '--file', '/dev/zero']);
    expect(posted.exitCode).toBe(1);
    expect(posted.stderr).toContain('/dev/zero is larger than 2097152 bytes');
  });

  it('gives the write lock back at its first invalid entry: a post meanwhile does not wait for the rest', async () => {
    const { ledger } = await standardLedger();
    // An import from a pipe that stays open: valid entries, which it writes holding the lock; then
    // one that names no account, and the first row of the next entry (which closes that one). The
    // rest of the file has not come yet.
    const importing = execa('node', [BIN, 'je', 'import', '-', '--ledger', ledger], {
      reject: false,
    });
    const entry = (i: number, account: string) =>
      `${i},2025-02-03,${account},debit,1.00\n${i},2025-02-03,checking,credit,1.00\n`;
    let rows = 'entry,entry_date,gl_account_id,line_type,amount\n';
    for (let i = 1; i <= 200; i++) rows += entry(i, 'rent');
    importing.stdin!.write(rows);
    await untilWriteLocked(ledger);
    importing.stdin!.write(entry(201, 'no-such-account') + '202,2025-02-03,rent,debit,1.00\n');
    // While the import still waits for the rest of its file, a post goes through (before: 30 s, exit 4).
    const posted = await books([
      'je',
      'post',
      '--ledger',
      ledger,
      '--date',
      '2025-01-02',
      '--debit',
      'rent=1',
      '--credit',
      'checking=1',
    ]);
    expect(posted.exitCode, posted.stderr).toBe(0);
    expect(importing.exitCode).toBeNull();
    importing.stdin!.end();
    const r = await importing;
    expect(r.exitCode).toBe(1);
    expect(String(r.stderr)).toContain('no-such-account');
    expect(count(ledger)).toBe(1);
  });
});

describe('numbers beyond 2^53 through a remote profile', () => {
  it('arrive exact: the remote report is the local one', async () => {
    const L = await standardLedger();
    const big = String(Number.MAX_SAFE_INTEGER);
    for (let i = 0; i < 3; i++) {
      const body =
        `{"entry_date":"2025-03-0${i + 1}","lines":[` +
        `{"gl_account_id":"checking","line_type":"debit","amount_atoms":${big}},` +
        `{"gl_account_id":"capital","line_type":"credit","amount_atoms":${big}}]}`;
      expect((await L.run(['je', 'post', '--file', '-'], body)).exitCode).toBe(0);
    }
    const key = await keyFor(L.run);
    const S = await serve(L.ledger);
    try {
      const env = { BOOKS_CONFIG: join(L.dir, 'config.json'), BOOKS_API_KEY: key };
      expect(
        (await books(['profile', 'add', 'r', '--url', S.url], { cwd: L.dir, env })).exitCode,
      ).toBe(0);
      const args = ['report', 'balance-sheet', '--start', '2025-03-01', '--end', '2025-03-31'];
      for (const format of [
        ['--format', 'json'],
        ['--format', 'csv', '--atoms'],
        ['--format', 'table'],
      ]) {
        const [remote, local] = [
          await books(['--profile', 'r', ...args, ...format], { cwd: L.dir, env }),
          await L.run([...args, ...format]),
        ];
        expectSameReport(remote.stdout, local.stdout);
      }
      expect((await L.run([...args, '--format', 'json'])).stdout).toContain(
        '"2025-03": 27021597764222973',
      );
    } finally {
      await S.stop();
    }
  });

  it('a key a header cannot carry is refused at once, as locally (CAPI34, exit 1), and never sent', async () => {
    const L = await standardLedger();
    const S = await serve(L.ledger);
    try {
      const env = {
        BOOKS_CONFIG: join(L.dir, 'config.json'),
        BOOKS_API_KEY: await keyFor(L.run),
        BOOKS_RETRY_BACKOFF_MS: '1000',
      };
      expect(
        (await books(['profile', 'add', 'r', '--url', S.url], { cwd: L.dir, env })).exitCode,
      ).toBe(0);
      const args = [
        'je',
        'post',
        '--date',
        '2025-03-02',
        '--debit',
        'rent=1',
        '--credit',
        'checking=1',
        '--idempotency-key',
        'ключ',
      ];
      const [remote, local] = [
        await books(['--profile', 'r', ...args], { cwd: L.dir, env }),
        await L.run(args),
      ];
      expect([remote.exitCode, local.exitCode]).toEqual([1, 1]);
      expect(remote.stderr).toBe(local.stderr);
      expect(S.log()).not.toContain('POST');
    } finally {
      await S.stop();
    }
  });
});

describe('the damaged, the unreadable and the very long', () => {
  it('a damaged ledger: check names the damage (exit 1), and writers refuse it from then on', async () => {
    const L = await standardLedger();
    const rows = ['entry,entry_date,gl_account_id,debit,credit,memo'];
    for (let i = 1; i <= 40; i++)
      rows.push(`${i},2025-02-01,rent,1,,${'x'.repeat(400)}`, `${i},,checking,,1,`);
    expect(
      (await L.run(['je', 'import', writeFile(L.dir, 'forty.csv', rows.join('\n') + '\n')]))
        .exitCode,
    ).toBe(0);
    const db = new Database(L.ledger);
    const page = db
      .prepare(`SELECT rootpage FROM sqlite_master WHERE name = 'journal_entries'`)
      .pluck()
      .get() as number;
    const size = db.pragma('page_size', { simple: true }) as number;
    db.close();
    const fd = openSync(L.ledger, 'r+');
    writeSync(fd, Buffer.alloc(size, 0xa5), 0, size, (page - 1) * size);
    closeSync(fd);
    const check = await L.run(['check']);
    expect(check.exitCode).toBe(1);
    expect(check.stderr).toMatch(/the file is damaged: .*journal_entries/);
    const before = readFileSync(L.ledger);
    const post = await L.run([
      'je',
      'post',
      '--date',
      '2025-02-02',
      '--debit',
      'rent=1',
      '--credit',
      'checking=1',
    ]);
    expect(post.exitCode).toBe(1);
    expect(post.stderr).toContain('error damaged:');
    expect(readFileSync(L.ledger).equals(before)).toBe(true);
  });

  it('a ledger this user may not open: the operating system’s words, not "not a books ledger"', async () => {
    const L = await standardLedger();
    chmodSync(L.ledger, 0o600);
    chmodSync(L.dir, 0o700);
    // As root every file opens: the refusal is then seen as another user.
    const asOther = process.getuid?.() === 0 ? ['runuser', '-u', 'nobody', '--'] : [];
    if (asOther.length === 0) chmodSync(L.ledger, 0o000);
    const r = await execa(
      asOther[0] ?? 'node',
      [
        ...asOther.slice(1),
        ...(asOther.length ? ['node'] : []),
        BIN,
        'report',
        'balance-sheet',
        '--ledger',
        L.ledger,
      ],
      { reject: false, env: { NO_COLOR: '1' } },
    );
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/permission denied/i);
    expect(r.stderr).not.toContain('not a books ledger');
  });

  it('je list of 150,000 entries completes, and a reader closing the pipe is a quiet end', async () => {
    const dir = tempDir();
    await generate(dir, { lines: 400_000, startYear: 2024, years: 2 });
    const ledger = join(dir, 'l.sqlite');
    for (const args of [
      ['init', '--first-month', '2024-01', '--chart', join(dir, 'accounts.csv')],
      ['counterparties', 'import', join(dir, 'counterparties.csv')],
      ['je', 'import', join(dir, 'entries.csv')],
    ]) {
      expect((await books([...args, '--ledger', ledger])).exitCode).toBe(0);
    }
    const all = await books(['je', 'list', '--ledger', ledger]);
    expect(all.exitCode, all.stderr).toBe(0);
    expect(all.stdout.trim().split('\n').length).toBeGreaterThan(150_000);
    for (const format of ['table', 'json']) {
      const line = `node ${BIN} je list --ledger ${ledger} --format ${format} | head -1; echo "exit \${PIPESTATUS[0]}"`;
      const piped = await execa('bash', ['-c', line], { reject: false });
      expect(piped.stderr).toBe('');
      expect(piped.stdout.split('\n')).toEqual([
        format === 'json' ? '{' : expect.stringMatching(/^Date/),
        'exit 0',
      ]);
    }
  });
});
