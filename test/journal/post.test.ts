import { hostname } from 'node:os';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { until } from '../support/ledgers.js';
import {
  books,
  booksJson,
  onTerminal,
  snapshot,
  standardLedger,
  tempDir,
} from '../support/helpers.js';

describe('je post', () => {
  it('numbers entries JE-(largest + 1), normalises given numbers and refuses duplicates', async () => {
    const { run } = await standardLedger();
    const post = (...extra: string[]) =>
      run([
        'je',
        'post',
        '--date',
        '2025-02-03',
        '--debit',
        '1010=12.50',
        '--credit',
        'sales=12.5',
        ...extra,
        '--format',
        'json',
      ]);
    const numbers: string[] = [];
    for (const extra of [
      [],
      [],
      ['--je-number', 'je-0042'],
      [],
      ['--je-number', 'Payroll  march'],
      [],
    ]) {
      const r = await post(...extra);
      expect(r.exitCode, r.stderr).toBe(0);
      numbers.push((JSON.parse(r.stdout) as { je_number: string }).je_number);
    }
    expect(numbers).toEqual(['JE-1', 'JE-2', 'JE-42', 'JE-43', 'PAYROLL MARCH', 'JE-44']);
    for (const dup of ['42', 'JE 42', 'payroll march']) {
      const r = await post('--je-number', dup);
      expect(r.exitCode).toBe(1);
      expect(JSON.parse(r.stdout).error).toMatchObject({
        code: 'CAPI33',
        errors: [{ path: 'je_number', reason: 'duplicate_je_number' }],
      });
    }
  });

  it('returns every response field of docs/api.md, with accounts by number and counterparties', async () => {
    const { run } = await standardLedger();
    const r = await run([
      'je',
      'post',
      '--date',
      '2025-02-03',
      '--memo',
      'Invoice 7',
      '--reason',
      'catch-up',
      '--adjusting',
      '--debit',
      '1100=1,200.00@customer:C001',
      '--credit',
      'sales=1200',
      '--format',
      'json',
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    const e = JSON.parse(r.stdout);
    expect(Object.keys(e).sort()).toEqual(
      [
        'id',
        'object',
        'created_at',
        'updated_at',
        'is_deleted',
        'je_number',
        'entry_date',
        'memo',
        'source',
        'total_debit_atoms',
        'total_credit_atoms',
        'currency',
        'lines',
        'status',
        'manual_entry_reason',
        'policy_key',
        'tags',
        'attachments',
        'is_adjusting',
        'entry_type_label',
        'counterparty_name',
        'source_description',
        'source_svc_object',
        'original_journal_entry_id',
        'original_journal_entry_date',
        'reversed_by_journal_entry_ids',
      ].sort(),
    );
    expect(e).toMatchObject({
      object: 'journal_entry',
      status: 'posted',
      source: 'manual_api',
      total_debit_atoms: 120000,
      total_credit_atoms: 120000,
      currency: 'USD',
      is_adjusting: true,
      memo: 'Invoice 7',
      manual_entry_reason: 'catch-up',
      counterparty_name: 'Harbor Cafe',
    });
    expect(Object.keys(e.lines[0]).sort()).toEqual(
      [
        'id',
        'object',
        'created_at',
        'updated_at',
        'is_deleted',
        'journal_entry_id',
        'account_id',
        'account_number',
        'account_name',
        'account_type',
        'line_type',
        'amount_atoms',
        'memo',
        'counterparty_type',
        'counterparty_external_id',
        'counterparty_name',
      ].sort(),
    );
    expect(e.lines[0]).toMatchObject({
      object: 'journal_entry_line',
      journal_entry_id: e.id,
      account_number: '1100',
      account_name: 'Accounts Receivable',
      account_type: 'accounts_receivable',
      line_type: 'debit',
      amount_atoms: 120000,
      counterparty_type: 'customer',
      counterparty_external_id: 'C001',
      counterparty_name: 'Harbor Cafe',
    });
    const shown = await run(['je', 'show', e.je_number, '--format', 'json']);
    expect(JSON.parse(shown.stdout)).toEqual(e);
  });

  it('posts a JSON body from standard input, and --dry-run posts nothing', async () => {
    const { run, ledger } = await standardLedger();
    const body = JSON.stringify({
      entry_date: '2025-02-03',
      lines: [
        { gl_account_id: 'rent', line_type: 'debit', amount_atoms: 250000 },
        { gl_account_id: 'checking', line_type: 'credit', amount_atoms: 250000 },
      ],
    });
    const before = snapshot(ledger);
    const dry = await run(['je', 'post', '--file', '-', '--dry-run'], body);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('Would post JE-1');
    expect(dry.stdout).toContain('2,500.00');
    expect(snapshot(ledger)).toBe(before);
    const real = await run(['je', 'post', '--file', '-'], body);
    expect(real.exitCode).toBe(0);
    expect(real.stdout).toMatch(/Posted JE-1 \(je_/);
  });

  it('reverses an entry once, linking both ways', async () => {
    const { run } = await standardLedger();
    await run([
      'je',
      'post',
      '--date',
      '2025-02-03',
      '--debit',
      'rent=100',
      '--credit',
      'checking=100',
    ]);
    const rev = await run(['je', 'reverse', 'JE-1', '--date', '2025-02-28', '--format', 'json']);
    expect(rev.exitCode, rev.stderr).toBe(0);
    const r = JSON.parse(rev.stdout);
    expect(r).toMatchObject({
      je_number: 'JE-2',
      entry_date: '2025-02-28',
      original_journal_entry_date: '2025-02-03',
      status: 'posted',
    });
    expect(r.lines.map((l: { line_type: string }) => l.line_type)).toEqual(['credit', 'debit']);
    const orig = JSON.parse((await run(['je', 'show', 'JE-1', '--format', 'json'])).stdout);
    expect(orig).toMatchObject({ status: 'reversed', reversed_by_journal_entry_ids: [r.id] });
    expect(r.original_journal_entry_id).toBe(orig.id);
    const again = await run(['je', 'reverse', orig.id]);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain('error CAPI33: JE-1 is already reversed');
    expect((await run(['check'])).exitCode).toBe(0);
  });

  it('lists entries within dates', async () => {
    const { run } = await standardLedger();
    for (const d of ['2025-01-10', '2025-02-10', '2025-03-10'])
      await run([
        'je',
        'post',
        '--date',
        d,
        '--debit',
        'rent=1',
        '--credit',
        'checking=1',
        '--memo',
        `m ${d}`,
      ]);
    const list = await run(['je', 'list', '--from', '2025-02-01', '--to', '2025-03-31']);
    expect(list.stdout).toContain('m 2025-02-10');
    expect(list.stdout).toContain('m 2025-03-10');
    expect(list.stdout).not.toContain('m 2025-01-10');
    const bad = await run(['je', 'list', '--from', '2025-13-01']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("--from: '2025-13-01' is not a date");
  });
});

describe('where there is no ledger', () => {
  it.each([
    [['je', 'post', '--debit', 'a=1', '--credit', 'b=1']],
    [['je', 'list']],
    [['je', 'import', 'x.csv']],
    [['accounts', 'list']],
    [['counterparties', 'list']],
    [['check']],
    [['close', '--through', '2025-01-31']],
    [['books-start', '2025-01']],
  ])('books %j says how to create one, exit 2', async (args) => {
    const dir = tempDir();
    const r = await books(args, { cwd: dir });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('books init');
    expect(r.stderr).toContain(`${dir}/books.sqlite`);
  });

  it('--ledger and --profile together are a usage error', async () => {
    const r = await books(['je', 'list', '--ledger', 'x.sqlite', '--profile', 'p']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--ledger and --profile');
  });
});

describe('books init', () => {
  it('refuses to overwrite an existing file', async () => {
    const { ledger } = await standardLedger();
    const before = snapshot(ledger);
    const r = await books(['init', '--ledger', ledger]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('already exists');
    expect(snapshot(ledger)).toBe(before);
  });

  it('refuses bad flag values and leaves no file behind', async () => {
    const dir = tempDir();
    for (const [args, text] of [
      [['--currency', 'XYZ'], "--currency: 'XYZ'"],
      [['--first-month', '2025-13'], "--first-month: '2025-13'"],
      [['--fiscal-year-start-month', '13'], '--fiscal-year-start-month'],
      [['--chart', 'nope.csv'], 'cannot read'],
    ] as const) {
      const r = await books(['init', ...args], { cwd: dir });
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toContain(text);
    }
    expect((await books(['check'], { cwd: dir })).exitCode).toBe(2);
  });

  it('creates the entity with the standard chart', async () => {
    const dir = tempDir();
    const r = await booksJson(
      [
        'init',
        '--name',
        'Kiln & Co',
        '--currency',
        'jpy',
        '--first-month',
        '2026-04',
        '--fiscal-year-start-month',
        '4',
        '--chart',
        'standard',
      ],
      { cwd: dir },
    );
    expect(r.exitCode).toBe(0);
    expect(r.body.entity).toMatchObject({
      name: 'Kiln & Co',
      currency: 'JPY',
      books_start: '2026-04-01',
      fiscal_year_start_month: 4,
      lock_date: null,
    });
    expect(r.body.accounts_created).toBeGreaterThan(30);
    const post = await books(
      [
        'je',
        'post',
        '--date',
        '2026-04-01',
        '--debit',
        'checking=1500',
        '--credit',
        'capital=1500',
        '--format',
        'json',
      ],
      { cwd: dir },
    );
    expect(JSON.parse(post.stdout).total_debit_atoms).toBe(1500);
    const frac = await books(
      ['je', 'post', '--date', '2026-04-01', '--debit', 'checking=1.5', '--credit', 'capital=1.5'],
      { cwd: dir },
    );
    expect(frac.exitCode).toBe(1);
    expect(frac.stderr).toContain('JPY has 0');
  });
});

describe('a post that has to wait', () => {
  it('waits for a local rebuild to finish, saying so on a terminal, and then posts once', async () => {
    const { dir, ledger } = await standardLedger();
    const mark = (sql: string, ...p: unknown[]) => {
      const db = new Database(ledger);
      db.prepare(`UPDATE entity SET ${sql}`).run(...p);
      db.close();
    };
    // A rebuild by a process that is alive: this one.
    mark(
      'rebuild_started_at = ?, rebuild_owner = ?',
      new Date().toISOString(),
      `${hostname()}:${process.pid}:`,
    );
    const args = [
      'je',
      'post',
      '--date',
      '2025-02-02',
      '--memo',
      'after the rebuild',
      '--debit',
      'rent=1',
      '--credit',
      'checking=1',
    ];
    const post = onTerminal([...args, '--ledger', ledger], dir);
    await until(
      () => post.seen().includes('waiting for books rebuild to finish'),
      'the waiting message',
    );
    mark('rebuild_started_at = NULL, rebuild_owner = NULL');
    const r = await post.child;
    expect(r.exitCode, post.seen()).toBe(0);
    expect(post.seen()).toContain('Posted JE-1');
    const list = await booksJson(['je', 'list', '--ledger', ledger], { cwd: dir });
    expect(list.body.data.map((e: { memo: string }) => e.memo)).toEqual(['after the rebuild']);
  });

  it('waits for another writer (an import holding the write lock), saying so on a terminal', async () => {
    const { dir, ledger } = await standardLedger();
    const holder = new Database(ledger);
    holder.exec('BEGIN IMMEDIATE');
    try {
      const args = [
        'je',
        'post',
        '--date',
        '2025-02-03',
        '--debit',
        'rent=2',
        '--credit',
        'checking=2',
      ];
      const post = onTerminal([...args, '--ledger', ledger], dir);
      await until(
        () => post.seen().includes('waiting for the ledger: another process is writing to it'),
        'the waiting message',
      );
      holder.exec('COMMIT');
      const r = await post.child;
      expect(r.exitCode, post.seen()).toBe(0);
      expect(post.seen()).toContain('Posted JE-1');
    } finally {
      if (holder.inTransaction) holder.exec('ROLLBACK');
      holder.close();
    }
  });
});
