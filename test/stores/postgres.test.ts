import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { generate } from '../../src/bench/generate.js';
import { books, ROOT, serve, tempDir } from '../support/helpers.js';
import { psqlPath } from '../../src/bench/cluster.js';
import type { PgLedger } from '../../src/ledger/pg/ledger.js';
import { until } from '../support/ledgers.js';
import { PgStore } from '../../src/ledger/pg/store.js';
import { databaseUrl, fromTemplate, pgFixture, sqliteFixture } from '../support/fixtures.js';

/**
 * The same books on a ledger file and in a PostgreSQL database give the same outputs, byte for byte
 * (but for the ids and creation times each store gives its rows): the close reports, the general ledger, the journal
 * and its hledger export.
 */
describe('a ledger file and a PostgreSQL entity with the same books', () => {
  it('give byte-identical reports, general ledger, journal and export for a 2,000-entry import', async () => {
    const dir = tempDir();
    const { entries } = await generate(dir, { lines: 5_400, startYear: 2024, years: 2, seed: 7 });
    expect(entries).toBeGreaterThanOrEqual(2_000);
    const file = ['--ledger', join(dir, 'books.sqlite')];
    const db = ['--ledger', databaseUrl(), '--entity', 'parity'];
    const run = async (args: string[]) => {
      const outs = [];
      for (const at of [file, db]) {
        const r = await books([...args, ...at], { cwd: dir });
        // Ids are made at random, and stamped with the time, where a row is created: each store's own.
        const out = `exit ${r.exitCode}\n${r.stdout}\n${r.stderr}`;
        outs.push(
          out
            .replace(/\b(acct|je|cp|ent)_[\w-]{21}(?![\w-])/g, '<id>')
            .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<time>')
            .replace(at === file ? file[1]! : `${at[1]!} (entity parity)`, '<ledger>'),
        );
      }
      expect(outs[1], `books ${args.join(' ')}`).toBe(outs[0]);
      return outs[0]!;
    };
    // Created apart: books init names where it created the ledger.
    for (const at of [file, db]) {
      const init = ['init', '--name', 'Parity Ltd', '--first-month', '2024-01'];
      const r = await books([...init, '--chart', join(dir, 'accounts.csv'), ...at], { cwd: dir });
      expect(r.exitCode, r.stderr).toBe(0);
    }
    for (const args of [
      ['counterparties', 'import', join(dir, 'counterparties.csv')],
      ['je', 'import', join(dir, 'entries.csv')],
      ['je', 'reverse', 'JE-5', '--date', '2025-12-30', '--idempotency-key', 'rev-5'],
      ['je', 'reverse', 'JE-5', '--date', '2025-12-30', '--idempotency-key', 'rev-5'],
      ['je', 'reverse', 'JE-6', '--idempotency-key', 'rev-5'],
      ['je', 'reverse', 'JE-5', '--idempotency-key', 'rev-6'],
      ['je', 'show', 'JE-5'],
      ['close', '--through', '2025-11-30'],
      ['entity', 'show'],
      ['report', 'balance-sheet', '--end', '2025-12-31', '--period', 'monthly'],
      [
        'report',
        'balance-sheet',
        '--end',
        '2025-12-31',
        '--period',
        'quarterly',
        '--format',
        'csv',
      ],
      [
        'report',
        'income-statement',
        '--end',
        '2025-12-31',
        '--period',
        'monthly',
        '--format',
        'json',
      ],
      ['report', 'trial-balance', '--as-of', '2025-06-15', '--worksheet'],
      ['report', 'trial-balance', '--as-of', '2025-12-31', '--worksheet', '--format', 'json'],
      [
        'report',
        'general-ledger',
        '--start',
        '2024-01-01',
        '--end',
        '2025-12-31',
        '--format',
        'csv',
      ],
      ['je', 'list', '--format', 'csv'],
      ['je', 'list'],
      ['je', 'list', '--account', 'fixed_asset-top', '--search', 'entry 1', '--format', 'json'],
      [
        'report',
        'general-ledger',
        '--start',
        '2025-01-01',
        '--end',
        '2025-12-31',
        '--format',
        'json',
      ],
      ['export', 'hledger'],
      ['check'],
    ]) {
      const out = await run(args);
      // The three refusals (the same request again, a key used for another, a second reversal).
      expect(out).toMatch(
        args.includes('JE-6') || args.includes('rev-6') || out.includes('already')
          ? /^exit 1\n/
          : /^exit 0\n/,
      );
    }
  });
});

describe("the README's PostgreSQL section", () => {
  it('runs as written against a database, two entities apart', async () => {
    const text = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const part = text.slice(text.indexOf('### 10.'), text.indexOf('## Output and exit codes'));
    const block = /```sh\n([\s\S]*?)```/.exec(part)![1]!;
    const steps = block
      .split('\n')
      .map((l) => l.replace(/\s+#.*$/, '').trim())
      .filter((l) => l.startsWith('books ') && !l.startsWith('books serve'))
      .map((l) =>
        [...l.slice(6).matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!),
      );
    expect(steps.length).toBeGreaterThan(5);
    const env = { BOOKS_LEDGER: databaseUrl() };
    const outs: string[] = [];
    for (const args of steps) {
      const r = await books(args, { cwd: ROOT, env });
      expect(r.exitCode, `books ${args.join(' ')}: ${r.stderr}`).toBe(0);
      outs.push(r.stdout);
    }
    expect(outs.join('\n')).toMatch(/harbor\s+Harbor Bakery[\s\S]*|acme\s+Acme Ltd/);
    const acme = await books(['--entity', 'acme', 'je', 'list', '--format', 'json'], {
      cwd: ROOT,
      env,
    });
    expect(JSON.parse(acme.stdout).data).toEqual([]);
    const none = await books(['je', 'list'], { cwd: ROOT, env });
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toMatch(/holds \d+ entities .*; name one with --entity SLUG/);
  });
});

describe('naming a database', () => {
  it('refuses a password in the URL, --entity with a file, and says when the server is not there', async () => {
    const dir = tempDir();
    const withPassword = await books(['je', 'list', '--ledger', 'postgresql://me:secret@/firm'], {
      cwd: dir,
    });
    expect(withPassword.exitCode).toBe(2);
    expect(withPassword.stderr).toMatch(
      /holds a password: leave it out.*PGPASSWORD or ~\/\.pgpass/,
    );
    expect(withPassword.stderr).not.toContain('secret');
    const inQuery = await books(
      ['je', 'list', '--ledger', `postgresql://me@/firm?host=${dir}&password=secret`],
      {
        cwd: dir,
      },
    );
    expect(inQuery.exitCode).toBe(2);
    expect(inQuery.stderr).toMatch(/holds a password/);
    expect(inQuery.stderr).not.toContain('secret');
    const fileEntity = await books(
      ['je', 'list', '--ledger', join(dir, 'b.sqlite'), '--entity', 'acme'],
      {
        cwd: dir,
      },
    );
    expect(fileEntity.exitCode).toBe(2);
    expect(fileEntity.stderr).toMatch(/--entity names an entity of a database/);
    const nowhere = await books(['je', 'list', '--ledger', `postgresql://x@/db?host=${dir}`], {
      cwd: dir,
    });
    expect(nowhere.exitCode, nowhere.stderr).toBe(4);
    expect(nowhere.stderr).toMatch(/cannot reach the database/);
    // A database without books' tables says so (only init and migrate make them)…
    const bare = `${databaseUrl().replace(/\/t_[^?]+\?/, '/postgres?')}`;
    const empty = await books(['je', 'list', '--ledger', bare, '--entity', 'nobody'], { cwd: dir });
    expect(empty.exitCode).toBe(2);
    expect(empty.stderr).toMatch(/has no books tables where its search_path \(.*\) looks/);
    // …and one with them names the entities it holds.
    const init = ['init', '--name', 'Someone', '--ledger', databaseUrl(), '--entity', 'someone'];
    expect((await books(init, { cwd: dir })).exitCode).toBe(0);
    const unknown = await books(['je', 'list', '--ledger', databaseUrl(), '--entity', 'nobody'], {
      cwd: dir,
    });
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toMatch(/no entity 'nobody'/);
  });
});

describe('a password in a database URL, however it is spelled', () => {
  const spelled = [
    'postgresql://me@/firm?host={dir}&%70assword=s3cret',
    'postgresql://me@/firm?host={dir}&connectionString=postgresql://me:s3cret@/firm',
    'postgresql://me:s3/c?r#et@localhost/firm',
    'postgresql://me@/firm?pass%77ord=s3cret&host={dir}',
    'postgresql://me@/firm?host={dir}&PASSWORD=s3cret',
    'postgresql://me:s3cret@localhost/firm',
    'postgresql://me:s3c@ret@localhost/firm',
  ];

  it.each(spelled)('%s is refused by commands and by profile add, and never printed', async (u) => {
    const dir = tempDir();
    const env = { BOOKS_CONFIG: join(dir, 'config.json') };
    const url = u.replace('{dir}', dir);
    for (const args of [
      ['je', 'list', '--ledger', url],
      ['init', '--name', 'Firm', '--ledger', url, '--entity', 'firm'],
      ['profile', 'add', 'firm', '--ledger', url, '--entity', 'firm'],
      ['je', 'list', '--ledger', url, '--format', 'json'],
    ]) {
      const r = await books(args, { cwd: dir, env });
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr + r.stdout).toMatch(/holds a password/);
      expect(r.stderr + r.stdout).not.toMatch(/s3c/);
    }
    expect(existsSync(env.BOOKS_CONFIG)).toBe(false);
  });

  it.each([
    ['a tab', 'pass\tword'],
    ['a line break', 'pass\nword'],
  ])(
    'a key with %s in it is refused, as the parser would drop it and read password',
    async (_what, key) => {
      const dir = tempDir();
      const env = { BOOKS_CONFIG: join(dir, 'config.json') };
      const url = `postgresql://me@/firm?host=${dir}&${key}=s3cret`;
      for (const args of [
        ['je', 'list', '--ledger', url],
        ['profile', 'add', 'firm', '--ledger', url, '--entity', 'firm'],
      ]) {
        const r = await books(args, { cwd: dir, env });
        expect(r.exitCode, r.stderr).toBe(2);
        expect(r.stderr).toMatch(/holds a control character/);
        expect(r.stderr + r.stdout).not.toMatch(/s3c/);
      }
      expect(existsSync(env.BOOKS_CONFIG)).toBe(false);
    },
  );

  it.each(['pass%77ord', 'pass\tword'])(
    'profile list does not show a password (%s) that a config file written by hand holds',
    async (key) => {
      const dir = tempDir();
      const env = { BOOKS_CONFIG: join(dir, 'config.json') };
      const ledger = `postgresql://me@/firm?host=${dir}&${key}=s3cret`;
      writeFileSync(
        env.BOOKS_CONFIG,
        JSON.stringify({ profiles: { firm: { kind: 'local', ledger } } }),
      );
      for (const format of ['table', 'json']) {
        const list = await books(['profile', 'list', '--format', format], { cwd: dir, env });
        expect(list.exitCode, list.stderr).toBe(0);
        expect(list.stdout).toContain('=***');
        expect(list.stdout).not.toContain('s3cret');
      }
      const used = await books(['je', 'list', '--profile', 'firm'], { cwd: dir, env });
      expect(used.exitCode).toBe(2);
      expect(used.stderr).not.toContain('s3cret');
    },
  );

  it('a URL inside the URL (connectionString=, which the client reads over the rest) is refused', async () => {
    const dir = tempDir();
    const url = `postgresql://me@/firm?host=${dir}&connectionString=postgresql://other@/elsewhere`;
    const r = await books(['je', 'list', '--ledger', url], { cwd: dir });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/names another URL \(connectionString=\)/);
  });

  it('a URL that cannot be read is a usage error naming the form, not an internal error', async () => {
    const dir = tempDir();
    for (const url of ['postgresql://localhost:notaport/db', 'postgresql://[bad/db']) {
      const r = await books(['je', 'list', '--ledger', url], { cwd: dir });
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toMatch(
        /^error usage: the database URL '.*' cannot be read: write it postgresql:/,
      );
    }
  });
});

describe('books check on a database', () => {
  it('names a line that points at no account, and totals that drifted from the lines', async () => {
    const L = await fromTemplate(pgFixture, 'demo');
    try {
      expect(await L.check()).toEqual([]);
      const url = databaseUrl();
      const entity = (L.ledger as PgLedger).entityId;
      execFileSync(psqlPath(), [
        url,
        '-qc',
        `UPDATE journal_lines SET account_key = 9999 WHERE entity_id = '${entity}' AND entry_seq = 3 AND line_no = 1;
         UPDATE account_month_totals SET net_atoms = net_atoms + 1
           WHERE entity_id = '${entity}' AND (account_key, month) IN
             (SELECT account_key, month FROM account_month_totals WHERE entity_id = '${entity}' LIMIT 1)`,
      ]);
      const problems = await L.check();
      expect(problems.map((p) => p.reason)).toEqual(
        expect.arrayContaining(['foreign_key', 'derived_mismatch']),
      );
      expect(problems.find((p) => p.reason === 'foreign_key')!.message).toBe(
        'journal_lines row 3.1 points at a missing accounts row',
      );
      const r = await L.books(['check']);
      expect(r.exitCode).toBe(1);
    } finally {
      await L.close();
    }
  });
});

describe('posting on a database', () => {
  it('shares a transaction among posts requested together; a refused one changes nothing of the others', async () => {
    const L = await fromTemplate(pgFixture, 'standard');
    try {
      const body = (i: number) => ({
        entry_date: '2025-03-02',
        memo: `together ${i}`,
        lines: [
          { gl_account_id: 'rent', line_type: 'debit', amount_atoms: i + 1 },
          {
            gl_account_id: i === 5 ? 'nowhere' : 'checking',
            line_type: 'credit',
            amount_atoms: i + 1,
          },
        ],
      });
      const outcomes = await Promise.allSettled(
        Array.from({ length: 16 }, (_, i) =>
          L.ledger.journal.post(body(i), { idempotencyKey: `t-${i}` }),
        ),
      );
      expect(outcomes.filter((o) => o.status === 'rejected')).toHaveLength(1);
      expect((outcomes[5] as PromiseRejectedResult).reason).toMatchObject({ code: 'CAPI33' });
      const entity = (L.ledger as PgLedger).entityId;
      const [entries, transactions] = execFileSync(
        psqlPath(),
        [
          databaseUrl(),
          '-AtXc',
          `SELECT COUNT(*), COUNT(DISTINCT pg_xact_commit_timestamp(xmin)) FROM journal_entries
           WHERE entity_id = '${entity}'`,
        ],
        { encoding: 'utf8' },
      )
        .trim()
        .split('|')
        .map(Number);
      expect(entries).toBe(15);
      // The first post runs alone; those that came while it ran share the next transactions.
      expect(transactions).toBeLessThanOrEqual(3);
      const numbers = (await L.journal()).map((e) => e.je_number).sort();
      expect(numbers).toEqual(Array.from({ length: 15 }, (_, i) => `JE-${i + 1}`).sort());
      expect(await L.check()).toEqual([]);
    } finally {
      await L.close();
    }
  });
});

describe('servers whose clocks differ', () => {
  it("agree on an idempotency key's hour: a key used on one is refused on the other, two hours ahead", async () => {
    const L = await fromTemplate(pgFixture, 'standard');
    const ahead = await PgStore.open(databaseUrl(), () => new Date(Date.now() + 2 * 3600_000), 2);
    try {
      const other = await ahead.open((L.ledger as PgLedger).entityId);
      const body = {
        entry_date: '2025-03-02',
        lines: [
          { gl_account_id: 'rent', line_type: 'debit', amount_atoms: 100 },
          { gl_account_id: 'checking', line_type: 'credit', amount_atoms: 100 },
        ],
      };
      const first = await L.ledger.journal.post(body, { idempotencyKey: 'skew-1' });
      await expect(other.journal.post(body, { idempotencyKey: 'skew-1' })).rejects.toMatchObject({
        code: 'CAPI34',
        details: { existing_journal_entry_id: first.id },
      });
      expect(await L.journal()).toHaveLength(1);
    } finally {
      await ahead.close();
      await L.close();
    }
  });
});

describe('books serve over a database', () => {
  it('answers more general-ledger pages than it has connections: a page gives its connection back', async () => {
    const L = await fromTemplate(pgFixture, 'demo');
    try {
      const S = await L.serve();
      let cursor: string | null = null;
      for (let page = 0; page < 12; page++) {
        const q = new URLSearchParams({
          start_date: '2025-01-01',
          end_date: '2025-12-31',
          limit: '2',
        });
        if (cursor) q.set('cursor', cursor);
        const r = await fetch(`${S.url}/v1/reports/general-ledger?${q}`, {
          headers: { Authorization: `Bearer ${S.keys.read}` },
          signal: AbortSignal.timeout(10_000),
        });
        expect(r.status).toBe(200);
        cursor = ((await r.json()) as { next_cursor: string | null }).next_cursor;
        expect(cursor).not.toBeNull();
      }
    } finally {
      await L.close();
    }
  });
});

describe('imports of the same file at once', () => {
  it.each([sqliteFixture, pgFixture].map((f) => [f.name, f] as const))(
    'on %s: one posts it, the others skip it whole, and every one of them ends',
    async (_name, fixture) => {
      const L = await fromTemplate(fixture, 'demo-chart');
      try {
        const file = join(ROOT, 'fixtures/demo/entries.csv');
        const runs = await Promise.all(
          [1, 2, 3, 4].map(() => L.books(['je', 'import', file, '--format', 'json'])),
        );
        for (const r of runs) expect(r.exitCode, r.stderr).toBe(0);
        const counts = runs.map((r) => JSON.parse(r.stdout) as { posted: number; skipped: number });
        const total = counts[0]!.posted + counts[0]!.skipped;
        expect(counts.map((c) => c.posted).sort((a, b) => b - a)).toEqual([total, 0, 0, 0]);
        expect((await L.journal()).length).toBe(total);
        expect(await L.check()).toEqual([]);
      } finally {
        await L.close();
      }
    },
  );
});

/**
 * How a database is reached: a login it refuses, a privilege it lacks, a session that cannot write or
 * cannot see books' tables, a lock held too long. Each is said as what it is, with its exit code
 * (3 for the login and privileges, 2 for a database that cannot serve as the ledger, 4 to retry),
 * never as an internal error.
 */
describe('what the database refuses, said as such', () => {
  const run = randomBytes(3).toString('hex');
  const roles = { scram: `scram_${run}`, md5: `md5_${run}`, low: `low_${run}` };
  let home: string;
  const urlAs = (user: string) =>
    databaseUrl().replace(/^postgresql:\/\/[^@]*@/, `postgresql://${user}@`);
  const env = (extra: Record<string, string> = {}) => ({
    HOME: home,
    PGPASSWORD: undefined as unknown as string,
    PGOPTIONS: undefined as unknown as string,
    ...extra,
  });
  let entity: string;

  beforeAll(async () => {
    home = tempDir();
    const { dir } = inject('pg');
    const hba = join(dir, 'data', 'pg_hba.conf');
    // First match wins: these roles log in with a password, every other as before.
    writeFileSync(
      hba,
      `local all ${roles.scram} scram-sha-256\nlocal all ${roles.md5} md5\n` +
        readFileSync(hba, 'utf8'),
    );
    const admin = urlAs(inject('pg').user);
    execFileSync(psqlPath(), [
      admin,
      '-qc',
      `SET password_encryption = 'scram-sha-256'; CREATE ROLE ${roles.scram} LOGIN SUPERUSER PASSWORD 'secret';
       SET password_encryption = 'md5'; CREATE ROLE ${roles.md5} LOGIN SUPERUSER PASSWORD 'secret';
       CREATE ROLE ${roles.low} LOGIN; CREATE SCHEMA IF NOT EXISTS other; SELECT pg_reload_conf();`,
    ]);
    entity = `reach-${run}`;
    const init = await books([
      'init',
      '--name',
      'Reach',
      '--first-month',
      '2025-01',
      '--chart',
      'standard',
      '--ledger',
      databaseUrl(),
      '--entity',
      entity,
    ]);
    expect(init.exitCode, init.stderr).toBe(0);
  });

  /** A post to the entity as its own session would make it (the environment's settings). */
  const post = (extra: Record<string, string> = {}) => {
    const lines = ['--debit', 'rent=1', '--credit', 'checking=1'];
    const at = ['--ledger', databaseUrl(), '--entity', entity];
    return books(['je', 'post', '--date', '2025-02-01', ...lines, ...at], { env: env(extra) });
  };
  const show = (user: string, extra: Record<string, string> = {}) =>
    books(['entity', 'show', '--ledger', urlAs(user), '--entity', entity], { env: env(extra) });

  it.each(['scram', 'md5'] as const)(
    'a %s login: no password given, a wrong one, the right one',
    async (kind) => {
      const none = await show(roles[kind]);
      expect(none.exitCode, none.stderr).toBe(3);
      expect(none.stderr).toMatch(
        new RegExp(
          `^error database_auth: the database at .* asks for the password of user '${roles[kind]}', ` +
            'and none is given: set PGPASSWORD, or add it to ~/.pgpass',
        ),
      );
      // An empty PGPASSWORD is none, as libpq reads it.
      const empty = await show(roles[kind], { PGPASSWORD: '' });
      expect(empty.exitCode, empty.stderr).toBe(3);
      expect(empty.stderr).toMatch(/^error database_auth: .* and none is given/);
      const wrong = await show(roles[kind], { PGPASSWORD: 'wrong' });
      expect(wrong.exitCode, wrong.stderr).toBe(3);
      expect(wrong.stderr).toMatch(/^error database_auth: the database at .* refused the login: /);
      const right = await show(roles[kind], { PGPASSWORD: 'secret' });
      expect(right.exitCode, right.stderr).toBe(0);
    },
  );

  it("takes a password from ~/.pgpass without the client's deprecation warning", async () => {
    const pgpass = join(home, '.pgpass');
    writeFileSync(pgpass, `*:*:*:${roles.scram}:secret\n`, { mode: 0o600 });
    try {
      const r = await show(roles.scram);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
    } finally {
      rmSync(pgpass);
    }
  });

  it('a role without the privileges books needs is refused as such (exit 3)', async () => {
    const r = await show(roles.low);
    expect(r.exitCode, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/^error database_auth: the database at .* refused: permission denied/);
  });

  it('a read-only session (a standby) refuses a post as a database that cannot be written (exit 2)', async () => {
    const r = await post({ PGOPTIONS: '-c default_transaction_read_only=on' });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/^error no_ledger: cannot write .*: the database is read-only/);
  });

  it("a search_path without books' schema is said, and no command creates tables there", async () => {
    for (const path of ['nosuch', 'other']) {
      const r = await books(['entity', 'show', '--ledger', databaseUrl(), '--entity', entity], {
        env: env({ PGOPTIONS: `-c search_path=${path}` }),
      });
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toContain(`has no books tables where its search_path (${path}) looks`);
    }
    const made = execFileSync(psqlPath(), [
      databaseUrl(),
      '-Atc',
      "SELECT count(*) FROM pg_tables WHERE schemaname = 'other'",
    ]).toString();
    expect(made.trim()).toBe('0');
  });

  it('a post waits for the entity lock as long as on a ledger file, then says it is locked (exit 4)', async () => {
    const holder = new pg.Client({ connectionString: databaseUrl() });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM entities WHERE slug = $1 FOR UPDATE', [entity]);
      const started = Date.now();
      const r = await post();
      const waited = Date.now() - started;
      expect(r.exitCode, r.stderr).toBe(4);
      expect(r.stderr).toMatch(
        /^error unavailable: the ledger is locked by another writer; try again shortly/,
      );
      expect(waited).toBeGreaterThanOrEqual(29_000);
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
  });

  it("books serve goes on when the database ends a request's connection: that request is 503", async () => {
    const keyArgs = [
      '--permission',
      'customer_api:post_journal_entries',
      '--permission',
      'customer_api:read',
    ];
    const at = ['--ledger', databaseUrl(), '--entity', entity];
    const key = (await books(['keys', 'create', ...keyArgs, ...at], { env: env() })).stdout.trim();
    const server = await serve(databaseUrl());
    const holder = new pg.Client({ connectionString: databaseUrl() });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM entities WHERE slug = $1 FOR UPDATE', [entity]);
      const posted = fetch(`${server.url}/v1/journal-entries`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${key}`,
          'Content-Type': 'application/json',
          'X-Idempotency-Key': 'ended',
        },
        body: JSON.stringify({
          entry_date: '2025-02-01',
          lines: [
            { gl_account_id: 'rent', line_type: 'debit', amount_atoms: 100 },
            { gl_account_id: 'checking', line_type: 'credit', amount_atoms: 100 },
          ],
        }),
      });
      // The server's connection waits for the entity's lock; an operator ends it.
      const ended = async () => {
        await holder.query('SELECT pg_stat_clear_snapshot()');
        const { rows } = await holder.query(
          `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
           WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        return rows[0].n > 0;
      };
      await until(ended, "the server's connection waiting for the lock");
      expect((await posted).status).toBe(503);
      await holder.query('ROLLBACK');
      const after = await fetch(`${server.url}/v1/entity`, {
        headers: { Authorization: `Bearer ${key}` },
      });
      expect(after.status).toBe(200);
    } finally {
      await holder.end();
      await server.stop();
    }
  });
});
