import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { execa } from 'execa';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { generate } from '../../src/bench/generate.js';
import { BIN, books, FIXTURES as FILES, tempDir } from '../support/helpers.js';
import { databaseUrl } from '../support/fixtures.js';
import { copyTemplate, exec, until } from '../support/ledgers.js';
import type { DumpRecord } from '../../src/domain/dump.js';
import { PgStore } from '../../src/ledger/pg/store.js';
import { SqliteLedger } from '../../src/ledger/sqlite/ledger.js';
import { JANUARY } from '../support/reconcile.js';

/** What a user reads of a ledger: the same on the file and on its copy in the database. */
const READ = [
  ['report', 'balance-sheet', '--start', '2021-01-01', '--end', '2025-12-31', '--format', 'json'],
  ['report', 'pnl', '--start', '2021-01-01', '--end', '2025-12-31', '--period', 'quarterly'],
  ['report', 'tb', '--as-of', '2025-12-31', '--worksheet', '--format', 'json'],
  ['report', 'gl', '--start', '2021-01-01', '--end', '2025-12-31', '--format', 'csv'],
  ['je', 'list', '--format', 'json'],
  ['je', 'list', '--format', 'csv'],
  ['keys', 'list', '--format', 'json'],
  ['accounts', 'list', '--format', 'json'],
  ['counterparties', 'list', '--format', 'json'],
];

const slug = () => `m-${randomBytes(5).toString('hex')}`;

/** Every reading of the file and of the entity it was copied into, side by side. */
async function expectSame(file: string, url: string, entity: string, more: string[][] = []) {
  for (const args of [...READ, ...more]) {
    const [a, b] = await Promise.all([
      books([...args, '--ledger', file]),
      books([...args, '--ledger', url, '--entity', entity]),
    ]);
    expect(a.exitCode, `${args.join(' ')}: ${a.stderr}`).toBe(0);
    expect(b.stdout, args.join(' ')).toBe(a.stdout);
  }
}

describe('books migrate', () => {
  it('copies the demo ledger whole, reversals to recurring entries, and refuses a second copy', async () => {
    const { dir, ledger } = copyTemplate('demo', 'demo.sqlite');
    const run = async (...args: string[]) => {
      const r = await books([...args, '--ledger', ledger], { cwd: dir });
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    };
    await run('je', 'reverse', 'JE-1', '--date', '2025-01-05');
    await run('keys', 'create', '--name', 'scripts', '--permission', 'customer_api:read');
    for (const step of JANUARY) await run(...step);
    await run('close', '--through', '2025-01-31');
    await run('budgets', 'import', join(FILES, 'demo/budget-2025.csv'));
    await run(
      ...['recurring', 'add', '--name', 'Rent', '--every', 'month', '--day', '31'],
      ...['--start', '2026-01-31', '--debit', 'rent=3000', '--credit', 'checking=3000'],
    );
    const url = databaseUrl();
    const entity = slug();
    const migrate = ['migrate', '--from', ledger, '--to', url, '--entity', entity];
    const shown = await books(['entity', 'show', '--format', 'json', '--ledger', ledger]);
    const count = JSON.parse(shown.stdout).entry_count as number;
    const r = await books([...migrate, '--format', 'json'], { cwd: dir });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ entity, check: 'ok', counts: { entries: count } });
    await expectSame(ledger, url, entity, [
      ['reconcile', 'list', '--account', 'checking', '--format', 'json'],
      ['budgets', 'list', '--format', 'csv'],
      ['recurring', 'list', '--format', 'json'],
      ['entity', 'show'],
    ]);
    // The lock date came along: a post into January is refused on the copy.
    const late = [
      'je',
      'post',
      '--date',
      '2025-01-15',
      '--debit',
      'rent=1',
      '--credit',
      'checking=1',
    ];
    const refusedThere = await books([...late, '--ledger', url, '--entity', entity]);
    expect(refusedThere.stderr).toContain('closed period');
    // A second copy into the same entity is refused, and the entity stays as it was.
    const listCopy = ['je', 'list', '--format', 'json', '--ledger', url, '--entity', entity];
    const before = await books(listCopy);
    const again = await books(migrate, { cwd: dir });
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain(`error invalid_input: entity '${entity}' of `);
    expect(again.stderr).toContain(`already holds ${count} entries`);
    const after = await books(listCopy);
    expect(after.stdout).toBe(before.stdout);
  }, 120_000);

  it('refuses what it cannot copy from or to, naming the flag (exit 2)', async () => {
    const { ledger } = copyTemplate('standard');
    const url = databaseUrl();
    for (const [args, words] of [
      [['--from', '/nonexistent.sqlite', '--to', url, '--entity', 'x'], '--from: no file'],
      [['--from', ledger, '--to', join(tempDir(), 'b.sqlite'), '--entity', 'x'], '--to:'],
      [['--from', ledger, '--to', url], '--entity'],
      [['--from', url, '--to', url, '--entity', 'x'], '--from:'],
    ] as const) {
      const r = await books(['migrate', ...args]);
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toContain(words);
    }
  });

  it('copies a generated five-year ledger the same; killed mid-copy it leaves nothing; a re-run ends it', async () => {
    const dir = tempDir();
    const { entries } = await generate(dir, { lines: 20_000, startYear: 2021, years: 5 });
    const file = join(dir, 'generated.sqlite');
    for (const args of [
      ['init', '--first-month', '2021-01', '--chart', join(dir, 'accounts.csv')],
      ['counterparties', 'import', join(dir, 'counterparties.csv')],
      ['je', 'import', join(dir, 'entries.csv')],
    ])
      expect((await books([...args, '--ledger', file])).exitCode).toBe(0);
    const url = databaseUrl();
    const entity = slug();
    const migrate = [BIN, 'migrate', '--from', file, '--to', url, '--entity', entity];
    const held = async () => {
      const r = await books([
        'entity',
        'show',
        '--format',
        'json',
        '--ledger',
        url,
        '--entity',
        entity,
      ]);
      return r.exitCode === 0 ? (JSON.parse(r.stdout).entry_count as number) : 0;
    };
    // Kills at once, early, and once the copy's transaction has written: never part of it.
    const watcher = new pg.Client({ connectionString: url });
    await watcher.connect();
    const writing = async () =>
      (
        await watcher.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity
           WHERE datname = current_database() AND backend_xid IS NOT NULL`,
        )
      ).rows[0].n > 0;
    const left: string[] = [];
    for (const moment of [0, 250, 'writing'] as const) {
      const child = execa('node', migrate, { reject: false });
      if (moment === 'writing') {
        const under = async () => child.exitCode !== null || (await writing());
        await until(under, 'the copy under way');
      } else await new Promise((r) => setTimeout(r, moment));
      child.kill('SIGKILL');
      await child;
      const n = await held();
      expect([0, entries]).toContain(n);
      left.push(`${moment}: ${n}`);
    }
    await watcher.end();
    console.info(
      `books migrate of ${entries} entries killed at moments, entries left: ${left.join(', ')}`,
    );
    if ((await held()) === 0) {
      const r = await execa('node', migrate, { reject: false });
      expect(r.exitCode, r.stderr).toBe(0);
    }
    expect(await held()).toBe(entries);
    await expectSame(file, url, entity);
  }, 240_000);

  /** The slugs of the database's entities. */
  const entitiesOf = async (url: string) =>
    (
      JSON.parse((await books(['entities', 'list', '--format', 'json', '--ledger', url])).stdout)
        .data as { slug: string }[]
    ).map((e) => e.slug);

  it.each([
    [
      'a line of no entry',
      `PRAGMA foreign_keys = OFF;
       INSERT INTO journal_lines (entry_seq, line_no, account_key, line_type, amount_atoms, entry_date)
       SELECT 99999, 1, account_key, 'debit', 100, entry_date FROM journal_lines LIMIT 1`,
      'journal_lines',
    ],
    [
      'an entry that does not balance',
      `UPDATE journal_lines SET amount_atoms = amount_atoms + 1 WHERE entry_seq = 5 AND line_no = 1`,
      'JE-5: debits',
    ],
    ['a lock date of garbage', `UPDATE entity SET lock_date = 'garbage'`, 'lock_date is "garbage"'],
    [
      'a fiscal year from month 13',
      `UPDATE entity SET fiscal_year_start_month = 13`,
      'month (1 to 12)',
    ],
  ])('refuses a file with %s, naming it, and makes no entity', async (_what, sql, words) => {
    const { dir, ledger } = copyTemplate('demo', 'damaged.sqlite');
    exec(ledger, sql);
    const url = databaseUrl();
    const entity = slug();
    const r = await books(['migrate', '--from', ledger, '--to', url, '--entity', entity], {
      cwd: dir,
    });
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^error check_failed: ${ledger} fails books check: `));
    expect(r.stderr).toContain(words);
    expect(r.stderr).toContain('nothing was copied');
    expect(await entitiesOf(url)).not.toContain(entity);
  });

  it('refuses a second copy of a file that holds API keys, naming them, and leaves no entity', async () => {
    const { dir, ledger } = copyTemplate('standard', 'keys.sqlite');
    const ids: string[] = [];
    for (const name of ['scripts', 'bank feed']) {
      const at = ['--permission', 'customer_api:read', '--format', 'json', '--ledger', ledger];
      const key = await books(['keys', 'create', '--name', name, ...at]);
      ids.push(JSON.parse(key.stdout).id as string);
    }
    const url = databaseUrl();
    const [first, second] = [slug(), slug()];
    const copy = (entity: string) =>
      books(['migrate', '--from', ledger, '--to', url, '--entity', entity], { cwd: dir });
    expect((await copy(first)).exitCode).toBe(0);
    const again = await copy(second);
    expect(again.exitCode, again.stderr).toBe(1);
    expect(again.stderr).toMatch(
      /^error invalid_input: the ledger's API keys .* are keys of another entity/,
    );
    for (const [id, name] of [
      [ids[0], 'scripts'],
      [ids[1], 'bank feed'],
    ])
      expect(again.stderr).toContain(`${id} (${name}) of '${first}'`);
    expect(await entitiesOf(url)).not.toContain(second);
  });

  it('checks the copy in its own transaction: one that fails check is rolled back with its entity', async () => {
    const { ledger } = copyTemplate('demo');
    const source = SqliteLedger.open(ledger);
    const store = await PgStore.open(databaseUrl(), () => new Date(), 2);
    try {
      // An entry marked reversed that nothing reverses: the dump's reader takes it, check does not.
      let marked = false;
      async function* damaged(): AsyncGenerator<DumpRecord> {
        for await (const r of source.maintenance.dump()) {
          if (r.type === 'entry' && !marked && r.status === 'posted') {
            marked = true;
            yield { ...r, status: 'reversed' };
          } else yield r;
        }
      }
      const entity = slug();
      const init = { name: 'Copy', currency: 'USD', books_start: null, fiscal_year_start_month: 1 };
      await expect(store.createRestored(entity, init, damaged())).rejects.toThrow(
        /^the copy fails books check: JE-\d+ is marked reversed but no entry reverses it; nothing was copied$/,
      );
      expect((await store.entities()).map((e) => e.slug)).not.toContain(entity);
    } finally {
      await source.close();
      await store.close();
    }
  });
});
