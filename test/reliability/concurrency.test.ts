import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { generate } from '../../src/bench/generate.js';
import { BIN, books, serve, tempDir, writeFile } from '../support/helpers.js';
import pg from 'pg';
import type { PgLedger } from '../../src/ledger/pg/ledger.js';
import { databaseUrl, FIXTURES, fromTemplate, pgFixture } from '../support/fixtures.js';
import { until, untilWriteLocked } from '../support/ledgers.js';

describe.each(FIXTURES.map((f) => [f.name, f] as const))(
  'several writers on one ledger at once, on %s',
  (_name, fixture) => {
    it('CLI processes, HTTP clients and an import: nothing lost, JE numbers unique and gapless', async () => {
      const L = await fromTemplate(fixture, 'standard');
      const S = await L.serve();
      const csv = [
        'entry,entry_date,gl_account_id,debit,credit',
        ...Array.from({ length: 30 }, (_, i) => [
          `${i},2025-04-01,rent,${i + 1},`,
          `${i},2025-04-01,checking,,${i + 1}`,
        ]).flat(),
      ].join('\n');
      const file = writeFile(tempDir(), 'batch.csv', csv);
      const failures: string[] = [];
      const cli = async (p: number) => {
        for (let i = 0; i < 10; i++) {
          const r = await L.books([
            'je',
            'post',
            '--date',
            '2025-03-02',
            '--memo',
            `cli ${p}.${i}`,
            '--debit',
            'rent=1',
            '--credit',
            'checking=1',
          ]);
          if (r.exitCode !== 0) failures.push(`cli ${p}.${i}: exit ${r.exitCode} ${r.stderr}`);
        }
      };
      const http = async (c: number) => {
        for (let i = 0; i < 25; i++) {
          const r = await fetch(`${S.url}/v1/journal-entries`, {
            method: 'POST',
            headers: {
              Authorization: `Bearer ${S.keys.post}`,
              'Content-Type': 'application/json',
              'X-Idempotency-Key': `http-${c}-${i}`,
            },
            body: JSON.stringify({
              entry_date: '2025-03-03',
              memo: `http ${c}.${i}`,
              lines: [
                { gl_account_id: 'utilities', line_type: 'debit', amount_atoms: 5 },
                { gl_account_id: 'checking', line_type: 'credit', amount_atoms: 5 },
              ],
            }),
          });
          if (r.status !== 201) failures.push(`http ${c}.${i}: ${r.status} ${await r.text()}`);
          else await r.arrayBuffer();
        }
      };
      const reader = async () => {
        for (let i = 0; i < 5; i++) {
          const r = await L.books([
            'report',
            'balance-sheet',
            '--start',
            '2025-01-01',
            '--end',
            '2025-12-31',
            '--format',
            'json',
          ]);
          if (r.exitCode !== 0) failures.push(`report: exit ${r.exitCode} ${r.stderr}`);
        }
      };
      const importing = L.books(['je', 'import', file]).then((r) => {
        if (r.exitCode !== 0) failures.push(`import: exit ${r.exitCode} ${r.stderr}`);
      });
      try {
        await Promise.all([...[0, 1, 2].map(cli), ...[0, 1, 2, 3].map(http), reader(), importing]);
        expect(failures).toEqual([]);
        const total = 3 * 10 + 4 * 25 + 30;
        const seen = (await L.journal()).map((e) => e.je_number);
        expect(seen).toHaveLength(total);
        expect(new Set(seen)).toEqual(
          new Set(Array.from({ length: total }, (_, i) => `JE-${i + 1}`)),
        );
        expect(await L.check()).toEqual([]);
      } finally {
        await L.close();
      }
    });

    it('two recurring runs and the same accrual posted twice at once: nothing posted twice', async () => {
      const L = await fromTemplate(fixture, 'standard');
      try {
        for (const [name, day] of [
          ['rent', '1'],
          ['depreciation', '31'],
        ]) {
          const r = await L.books([
            ...['recurring', 'add', '--name', name!, '--every', 'month', '--day', day!],
            ...['--start', '2025-01-01', '--debit', `${name}=10`, '--credit', 'checking=10'],
            ...['--memo', name!],
          ]);
          expect(r.exitCode, r.stderr).toBe(0);
        }
        const accrual = [
          ...['je', 'post', '--date', '2025-03-31', '--memo', 'accrual', '--auto-reverse'],
          ...[
            '--idempotency-key',
            'accrual-once',
            '--debit',
            'utilities=5',
            '--credit',
            'payroll-liab=5',
          ],
        ];
        const results = await Promise.all([
          L.books(['recurring', 'run', '--through', '2025-12-31', '--format', 'json']),
          L.books(['recurring', 'run', '--through', '2025-12-31', '--format', 'json']),
          L.books(['recurring', 'run', '--through', '2025-06-30', '--format', 'json']),
          L.books(accrual),
          L.books(accrual),
        ]);
        const runs = results.slice(0, 3);
        for (const r of runs) expect(r.exitCode, r.stderr).toBe(0);
        const posted = runs.reduce((n, r) => n + JSON.parse(r.stdout).posted.length, 0);
        expect(posted).toBe(24);
        const accruals = results.slice(3);
        expect(accruals.map((r) => r.exitCode).sort()).toEqual([0, 1]);
        expect(accruals.find((r) => r.exitCode === 1)!.stderr).toMatch(/CAPI34/);
        const journal = await L.journal();
        expect(journal.filter((e) => e.memo === 'rent')).toHaveLength(12);
        expect(journal.filter((e) => e.memo === 'depreciation')).toHaveLength(12);
        expect(journal.filter((e) => e.memo === 'accrual')).toHaveLength(1);
        expect(journal.filter((e) => e.memo?.startsWith('Reversal of'))).toHaveLength(1);
        const numbers = journal.map((e) => e.je_number);
        expect(new Set(numbers)).toEqual(
          new Set(Array.from({ length: numbers.length }, (_, i) => `JE-${i + 1}`)),
        );
        expect(await L.check()).toEqual([]);
      } finally {
        await L.close();
      }
    });
  },
);

describe('a long import beside readers', () => {
  it('answers reads from the CLI and the server while a long import holds the write lock', async () => {
    const dir = tempDir();
    await generate(dir, { lines: 200_000, startYear: 2021, years: 2 });
    const ledger = join(dir, 'big.sqlite');
    for (const args of [
      ['init', '--first-month', '2021-01', '--chart', join(dir, 'accounts.csv')],
      ['counterparties', 'import', join(dir, 'counterparties.csv')],
    ]) {
      expect((await books([...args, '--ledger', ledger])).exitCode).toBe(0);
    }
    const key = JSON.parse(
      (
        await books([
          'keys',
          'create',
          '--ledger',
          ledger,
          '--permission',
          'customer_api:read',
          '--format',
          'json',
        ])
      ).stdout,
    ).key as string;
    const S = await serve(ledger);
    try {
      const importing = execa(
        'node',
        [BIN, 'je', 'import', join(dir, 'entries.csv'), '--ledger', ledger],
        { reject: false },
      );
      let importDone = false;
      void importing.then(() => (importDone = true));
      // Once the import holds the write lock, read.
      await untilWriteLocked(ledger);
      expect(importDone).toBe(false);
      const reads = await Promise.all([
        books([
          'report',
          'balance-sheet',
          '--ledger',
          ledger,
          '--start',
          '2021-01-01',
          '--end',
          '2022-12-31',
          '--format',
          'json',
        ]),
        books(['je', 'list', '--ledger', ledger, '--from', '2021-01-01', '--to', '2021-01-31']),
        books(['accounts', 'list', '--ledger', ledger]),
        fetch(`${S.url}/v1/reports/balance-sheet?start_date=2021-01-01&end_date=2021-12-31`, {
          headers: { Authorization: `Bearer ${key}` },
        }).then(async (r) => ({
          exitCode: r.status === 200 ? 0 : r.status,
          stderr: await r.text(),
        })),
      ]);
      const finishedFirst = !importDone;
      for (const r of reads) expect(r.exitCode, r.stderr).toBe(0);
      expect(finishedFirst).toBe(true);
      const done = await importing;
      expect(done.exitCode, String(done.stderr)).toBe(0);
    } finally {
      await S.stop();
    }
  });
});

describe('two reconcile undo at once (PostgreSQL: both wait on the entity lock after reading)', () => {
  it('undo the month each read as the latest: one undoes it, the other is refused', async () => {
    const L = await fromTemplate(pgFixture, 'standard');
    const holder = new pg.Client({ connectionString: databaseUrl() });
    try {
      const dir = tempDir();
      const statement = writeFile(
        dir,
        'statement.csv',
        'Date,Description,Amount\n2025-01-10,RENT,-100.00\n2025-02-10,RENT,-50.00\n',
      );
      const acct = ['--account', 'checking'];
      for (const args of [
        ['je', 'post', '--date', '2025-01-10', '--debit', 'rent=100', '--credit', 'checking=100'],
        ['je', 'post', '--date', '2025-02-10', '--debit', 'rent=50', '--credit', 'checking=50'],
        ['reconcile', 'import', statement, ...acct],
        ['reconcile', 'match', ...acct],
        [
          'reconcile',
          'finish',
          ...acct,
          '--statement-date',
          '2025-01-31',
          '--statement-balance',
          '-100',
        ],
        [
          'reconcile',
          'finish',
          ...acct,
          '--statement-date',
          '2025-02-28',
          '--statement-balance',
          '-150',
        ],
      ]) {
        const r = await L.books(args);
        expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      }
      // The entity's write lock held here: both undos read the list, then wait to write.
      await holder.connect();
      const entity = (L.store as PgLedger).entityId;
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM entities WHERE entity_id = $1 FOR UPDATE', [entity]);
      const undos = [0, 1].map(() => {
        const p = L.process(['reconcile', 'undo', ...acct]);
        return execa('node', [BIN, ...p.args], {
          env: p.env,
          cwd: p.cwd,
          reject: false,
          stdin: 'ignore',
        });
      });
      // In a transaction the activity view is read once; each look clears that snapshot.
      const waiting = async () => {
        await holder.query('SELECT pg_stat_clear_snapshot()');
        const { rows } = await holder.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity
           WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        return rows[0].n === 2;
      };
      await until(waiting, 'both undos waiting on the entity lock');
      await holder.query('ROLLBACK');
      const [a, b] = await Promise.all(undos);
      const outcomes = [a!, b!].map((r) => r.exitCode).sort();
      expect(outcomes, `${a!.stderr}\n${b!.stderr}`).toEqual([0, 1]);
      const refused = [a!, b!].find((r) => r.exitCode === 1)!;
      expect(String(refused.stderr)).toMatch(
        /^error reconcile_refused: reconciliation \S+ is not the account's latest/,
      );
      const left = await L.books(['reconcile', 'list', ...acct, '--format', 'json']);
      expect(
        JSON.parse(left.stdout).map((r: { statement_date: string }) => r.statement_date),
      ).toEqual(['2025-01-31']);
    } finally {
      await holder.end();
      await L.close();
    }
  });
});
