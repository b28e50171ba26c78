import Database from 'better-sqlite3';
import pg from 'pg';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { isBooksError } from '../../src/domain/errors.js';
import { SqliteLedger } from '../../src/ledger/sqlite/ledger.js';
import { snapshot } from '../support/helpers.js';
import { psqlPath } from '../../src/bench/cluster.js';
import { databaseUrl, fromTemplate, pgFixture, type FixtureLedger } from '../support/fixtures.js';
import { copyTemplate, exec } from '../support/ledgers.js';

const entry = (amount: unknown, extra: Record<string, unknown> = {}) => ({
  entry_date: '2025-03-02',
  lines: [
    { gl_account_id: 'rent', line_type: 'debit', amount_atoms: amount },
    { gl_account_id: 'checking', line_type: 'credit', amount_atoms: amount },
  ],
  ...extra,
});

/** Runs a test on a fresh standard ledger, opened in this process. */
async function withLedger(
  test: (ledger: SqliteLedger, path: string) => Promise<void>,
  busyTimeoutMs?: number,
): Promise<void> {
  const { ledger: path } = copyTemplate('standard');
  const ledger = SqliteLedger.open(path, busyTimeoutMs === undefined ? {} : { busyTimeoutMs });
  try {
    await test(ledger, path);
  } finally {
    await ledger.close();
  }
}

const codes = (outcomes: PromiseSettledResult<unknown>[]) =>
  outcomes.map((o) =>
    o.status === 'rejected' && isBooksError(o.reason) ? o.reason.code : o.status,
  );

describe('posts requested together (one transaction, a savepoint each)', () => {
  it('answers each on its own: refusals and repeated keys touch nothing else; numbers stay gapless', () =>
    withLedger(async (ledger) => {
      const requests = [
        ledger.journal.post(entry(100), { idempotencyKey: 'a' }),
        ledger.journal.post(entry(0), { idempotencyKey: 'b' }), // invalid amount
        // The key 'a' posted just before, in the same transaction:
        ledger.journal.post(entry(200), { idempotencyKey: 'a' }),
        ledger.journal.post(entry(300, { je_number: 'JE-1' }), { idempotencyKey: 'c' }), // JE-1 is taken by the first
        ledger.journal.post(entry(400), { idempotencyKey: 'd' }),
        ledger.journal.reverse('JE-1', { idempotencyKey: 'e', entryDate: '2025-03-03' }),
      ];
      const outcomes = await Promise.allSettled(requests);
      const summary = outcomes.map((o) =>
        o.status === 'fulfilled'
          ? o.value.je_number
          : isBooksError(o.reason)
            ? `${o.reason.code} ${o.reason.errors.map((p) => p.reason).join(',')}`
            : String(o.reason),
      );
      expect(summary).toEqual([
        'JE-1',
        'CAPI33 invalid_amount,invalid_amount',
        'CAPI34 duplicate_idempotency_key',
        'CAPI33 duplicate_je_number',
        'JE-2',
        'JE-3',
      ]);
      const listed = [];
      for await (const e of ledger.journal.list({}))
        listed.push([e.je_number, e.total_debit_atoms, e.status]);
      expect(listed).toEqual([
        ['JE-1', 100, 'reversed'],
        ['JE-2', 400, 'posted'],
        ['JE-3', 100, 'posted'],
      ]);
      expect((await ledger.maintenance.check()).problems).toEqual([]);
      // The refused key 'b' was never recorded: the caller may retry with it.
      expect((await ledger.journal.post(entry(5), { idempotencyKey: 'b' })).je_number).toBe('JE-4');
    }));

  it('leaves nothing of a lone post that fails half-way through its writes', () =>
    withLedger(async (ledger, path) => {
      // A fault after the entry's row is written and before its lines are (as a full disk would be).
      exec(
        path,
        `CREATE TRIGGER fault BEFORE INSERT ON journal_lines WHEN NEW.amount_atoms = 777
         BEGIN SELECT RAISE(ABORT, 'simulated fault'); END`,
      );
      const before = snapshot(path);
      await expect(ledger.journal.post(entry(777), { idempotencyKey: 'half' })).rejects.toThrow(
        'simulated fault',
      );
      exec(path, 'DROP TRIGGER fault');
      expect(snapshot(path)).toBe(before);
      expect((await ledger.journal.post(entry(5), { idempotencyKey: 'half' })).je_number).toBe(
        'JE-1',
      );
      expect((await ledger.maintenance.check()).problems).toEqual([]);
    }));

  it("sums a group's totals once, without the post that failed after its lines were written", () =>
    withLedger(async (ledger, path) => {
      exec(
        path,
        `CREATE TRIGGER fault BEFORE INSERT ON idempotency_keys WHEN NEW.key = 'b'
         BEGIN SELECT RAISE(ABORT, 'simulated fault'); END`,
      );
      const tagged = (amount: number, project: string) => entry(amount, { tags: { project } });
      const outcomes = await Promise.allSettled([
        ledger.journal.post(tagged(100, 'alpha'), { idempotencyKey: 'a' }),
        ledger.journal.post(tagged(777, 'alpha'), { idempotencyKey: 'b' }),
        ledger.journal.post(tagged(300, 'beta'), { idempotencyKey: 'c' }),
        ledger.journal.reverse('JE-1', { idempotencyKey: 'd', entryDate: '2025-03-02' }),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual([
        'fulfilled',
        'rejected',
        'fulfilled',
        'fulfilled',
      ]);
      const db = new Database(path, { readonly: true });
      const rent = `JOIN accounts a ON a.key = account_key WHERE a.external_id = 'rent'`;
      const totals = db
        .prepare(`SELECT month, net_atoms, line_count FROM account_month_totals ${rent}`)
        .all();
      const byTag = db
        .prepare(`SELECT tag_value, net_atoms, line_count FROM tag_month_totals ${rent} ORDER BY 1`)
        .all();
      db.close();
      // JE-1 (100, alpha), its reversal (-100, alpha) and JE-2 (300, beta): nothing of the 777.
      expect(totals).toEqual([{ month: '2025-03', net_atoms: 300, line_count: 3 }]);
      expect(byTag).toEqual([
        { tag_value: 'alpha', net_atoms: 0, line_count: 2 },
        { tag_value: 'beta', net_atoms: 300, line_count: 1 },
      ]);
      expect((await ledger.maintenance.check()).problems).toEqual([]);
    }));

  it("starts the trail once when a group's first post finds it empty: one event each, in order", () =>
    withLedger(async (ledger, path) => {
      // A ledger whose trail holds nothing yet (as one written before the trail, emptied here).
      exec(
        path,
        `DROP TRIGGER audit_events_kept_on_delete; DELETE FROM audit_events;
         CREATE TRIGGER audit_events_kept_on_delete BEFORE DELETE ON audit_events
         BEGIN SELECT RAISE(ABORT, 'audit events are never deleted'); END`,
      );
      const posted = await Promise.all(
        ['a', 'b', 'c'].map((k) => ledger.journal.post(entry(100), { idempotencyKey: k })),
      );
      expect(posted.map((e) => e.je_number)).toEqual(['JE-1', 'JE-2', 'JE-3']);
      const events = [];
      for await (const e of ledger.audit.list({})) events.push([e.seq, e.action, e.objects.at(-1)]);
      expect(events).toEqual([
        [1, 'entry.posted', 'JE-1'],
        [2, 'entry.posted', 'JE-2'],
        [3, 'entry.posted', 'JE-3'],
      ]);
      expect((await ledger.maintenance.check()).problems).toEqual([]);
    }));

  it('fails every post of a group whose events cannot be inserted, and writes none of them', () =>
    withLedger(async (ledger, path) => {
      const first = (await ledger.journal.post(entry(5), { idempotencyKey: 'first' })).je_number;
      // The group's events go in together, before its COMMIT: a fault on one of them (as a full
      // disk would be) must undo the whole group, not leave its entries without their events.
      const read = new Database(path, { readonly: true });
      const head = read.prepare('SELECT MAX(seq) FROM audit_events').pluck().get() as number;
      read.close();
      exec(
        path,
        `CREATE TRIGGER fault BEFORE INSERT ON audit_events WHEN NEW.seq = ${head + 2}
         BEGIN SELECT RAISE(ABORT, 'simulated fault'); END`,
      );
      const before = snapshot(path);
      const outcomes = await Promise.allSettled(
        ['a', 'b', 'c'].map((k) => ledger.journal.post(entry(100), { idempotencyKey: k })),
      );
      expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
      exec(path, 'DROP TRIGGER fault');
      expect(snapshot(path)).toBe(before);
      const again = await ledger.journal.post(entry(100), { idempotencyKey: 'a' });
      expect([first, again.je_number]).toEqual(['JE-1', 'JE-2']);
      expect((await ledger.maintenance.check()).problems).toEqual([]);
    }));

  it('fails every post of a transaction whose COMMIT fails, and writes none of them', () =>
    withLedger(async (ledger, path) => {
      const before = snapshot(path);
      // A deferred foreign key is checked at COMMIT: an entry of 555 atoms makes the COMMIT itself fail.
      exec(
        path,
        `CREATE TABLE commit_fault (x INTEGER REFERENCES accounts(key) DEFERRABLE INITIALLY DEFERRED);
         CREATE TRIGGER fault AFTER INSERT ON journal_lines WHEN NEW.amount_atoms = 555
         BEGIN INSERT INTO commit_fault VALUES (-1); END`,
      );
      const outcomes = await Promise.allSettled([
        ledger.journal.post(entry(1), { idempotencyKey: 'x' }),
        ledger.journal.post(entry(555), { idempotencyKey: 'y' }),
      ]);
      // The first post's own statements all succeeded: it fails because the transaction did.
      expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
      exec(path, 'DROP TRIGGER fault; DROP TABLE commit_fault');
      expect(snapshot(path)).toBe(before);
      // The ledger goes on: the same keys post now.
      expect((await ledger.journal.post(entry(1), { idempotencyKey: 'x' })).je_number).toBe('JE-1');
    }));

  it('fails every post of a transaction that SQLite rolls back on its own, and goes on', () =>
    withLedger(async (ledger, path) => {
      const before = snapshot(path);
      // RAISE(ROLLBACK) ends the whole transaction, as SQLite does itself on a full disk or an I/O error.
      exec(
        path,
        `CREATE TRIGGER fault BEFORE INSERT ON journal_lines WHEN NEW.amount_atoms = 666
         BEGIN SELECT RAISE(ROLLBACK, 'disk full'); END`,
      );
      const outcomes = await Promise.allSettled([
        ledger.journal.post(entry(1), { idempotencyKey: 'p' }),
        ledger.journal.post(entry(666), { idempotencyKey: 'q' }),
        ledger.journal.post(entry(2), { idempotencyKey: 'r' }),
      ]);
      expect(codes(outcomes)).toEqual(['unavailable', 'unavailable', 'unavailable']);
      exec(path, 'DROP TRIGGER fault');
      expect(snapshot(path)).toBe(before);
      expect((await ledger.journal.post(entry(3), { idempotencyKey: 'p' })).je_number).toBe('JE-1');
      expect((await ledger.maintenance.check()).problems).toEqual([]);
    }));

  it('fails the posts waiting for a lock another writer holds past the busy timeout, and writes none', () =>
    withLedger(async (ledger, path) => {
      const before = snapshot(path);
      const other = new Database(path);
      other.exec('BEGIN IMMEDIATE');
      const outcomes = await Promise.allSettled([
        ledger.journal.post(entry(1), { idempotencyKey: 'x' }),
        ledger.journal.post(entry(2), { idempotencyKey: 'y' }),
      ]);
      other.exec('ROLLBACK');
      other.close();
      expect(codes(outcomes)).toEqual(['unavailable', 'unavailable']);
      expect(snapshot(path)).toBe(before);
    }, 50));
});

describe('one open ledger over many requests (as books serve)', () => {
  it("a dry-run import's JE numbers do not stay taken for the posts after it", () =>
    withLedger(async (ledger) => {
      // The chart and entity the server keeps between requests must not carry one import's numbers.
      const batch = await ledger.journal.beginImport({ dryRun: true, allowDuplicates: false });
      const chunk = [
        {
          body: entry(100, { je_number: 'INV-7' }),
          fingerprint: 'f1',
          hasRowProblems: false,
          row: 2,
        },
      ];
      expect(await batch.add(chunk)).toEqual([{ status: 'would_post' }]);
      await batch.rollback();
      const posted = await ledger.journal.post(entry(100, { je_number: 'INV-7' }), {
        idempotencyKey: 'after-dry-run',
      });
      expect(posted.je_number).toBe('INV-7');
    }));
});

describe('posts requested together on PostgreSQL (one transaction, a savepoint each)', () => {
  const fault = (sql: string) =>
    execFileSync(psqlPath(), [databaseUrl(), '-qc', sql], { encoding: 'utf8' });

  /** Runs a test on a new entity whose lines of 777 atoms the database refuses (a trigger). */
  async function withFault(test: (pg: FixtureLedger) => Promise<void>): Promise<void> {
    const pg = await fromTemplate(pgFixture, 'standard');
    try {
      fault(`CREATE FUNCTION fault() RETURNS trigger LANGUAGE plpgsql AS $$
               BEGIN RAISE EXCEPTION 'simulated fault'; END $$;
             CREATE TRIGGER fault BEFORE INSERT ON journal_lines FOR EACH ROW
               WHEN (NEW.amount_atoms = 777) EXECUTE FUNCTION fault()`);
      await test(pg);
    } finally {
      fault('DROP TRIGGER IF EXISTS fault ON journal_lines; DROP FUNCTION IF EXISTS fault()');
      await pg.close();
    }
  }

  it('keeps every post of a group whose last or middle one fails in the database, and none of the failed', async () => {
    await withFault(async (pg) => {
      // The first post runs alone; the others wait for its transaction and share the next one.
      for (const amounts of [
        [1, 2, 3, 777],
        [4, 5, 777, 6],
      ]) {
        const outcomes = await Promise.allSettled(
          amounts.map((a, i) => pg.ledger.journal.post(entry(a), { idempotencyKey: `${a}-${i}` })),
        );
        expect(
          outcomes.map((o) => (o.status === 'fulfilled' ? 'posted' : String(o.reason))),
        ).toEqual(
          amounts.map((a) => (a === 777 ? expect.stringContaining('simulated fault') : 'posted')),
        );
      }
      const listed = (await pg.journal()).map((e) => e.je_number);
      expect(listed).toEqual(['JE-1', 'JE-2', 'JE-3', 'JE-4', 'JE-5', 'JE-6']);
      expect(await pg.check()).toEqual([]);
    });
  });

  it("writes the group's sums outside a failed write's savepoint when another kind of write follows", async () => {
    await withFault(async (pg) => {
      // Posts that name their numbers are written one by one in the group commit, each in a
      // savepoint; a refused one (in the rules, then in the database) is followed by a budget import.
      const budget = (amount: number) =>
        pg.ledger.budgets.import({
          rows: [{ gl_account_id: 'rent', period: '2025-03', amount_atoms: amount }],
        });
      const rounds: (() => Promise<unknown>[])[] = [
        () => [
          pg.ledger.journal.post(entry(1, { je_number: 'JE-1' }), { idempotencyKey: 'a0' }),
          pg.ledger.journal.post(entry(100, { je_number: 'JE-2', tags: { project: 'alpha' } }), {
            idempotencyKey: 'a1',
          }),
          pg.ledger.journal.post(entry(0, { je_number: 'JE-3' }), { idempotencyKey: 'a2' }),
          budget(5),
        ],
        () => [
          pg.ledger.journal.post(entry(2, { je_number: 'JE-3' }), { idempotencyKey: 'b0' }),
          pg.ledger.journal.post(entry(200, { je_number: 'JE-4', tags: { project: 'alpha' } }), {
            idempotencyKey: 'b1',
          }),
          pg.ledger.journal.post(entry(777, { je_number: 'JE-5' }), { idempotencyKey: 'b2' }),
          budget(6),
        ],
      ];
      for (const requests of rounds)
        expect((await Promise.allSettled(requests())).map((o) => o.status)).toEqual([
          'fulfilled',
          'fulfilled',
          'rejected',
          'fulfilled',
        ]);
      expect(await pg.check()).toEqual([]);
    });
  });

  it('refuses as locked, after one lock wait, every write that queued behind a held lock', async () => {
    const L = await fromTemplate(pgFixture, 'standard');
    const holder = new pg.Client({ connectionString: databaseUrl() });
    await holder.connect();
    try {
      await L.ledger.journal.post(entry(5), { idempotencyKey: 'first' });
      const { entityId } = L.ledger as unknown as { entityId: string };
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM entities WHERE entity_id = $1 FOR UPDATE', [entityId]);
      // The lock is given back after 40 s: a write still waiting then would post.
      const release = setTimeout(() => void holder.query('ROLLBACK'), 40_000);
      const outcomes = await Promise.allSettled([
        L.ledger.journal.reverse('JE-1', { idempotencyKey: 'r' }),
        L.ledger.journal.post(entry(6, { je_number: 'INV-1' }), { idempotencyKey: 'n' }),
        L.ledger.journal.post(entry(7), { idempotencyKey: 'p' }),
      ]);
      clearTimeout(release);
      // As on a ledger file: each waited one lock wait at most, not one for each write ahead of it.
      expect(codes(outcomes)).toEqual(['unavailable', 'unavailable', 'unavailable']);
    } finally {
      await holder.query('ROLLBACK').catch(() => {});
      await holder.end();
      await L.close();
    }
  }, 60_000);

  it('answers writes still queued when the ledger closes as unavailable, to retry', async () => {
    const L = await fromTemplate(pgFixture, 'standard');
    const queued = [
      L.ledger.journal.post(entry(1), { idempotencyKey: 'a' }),
      L.ledger.journal.post(entry(2, { je_number: 'INV-1' }), { idempotencyKey: 'b' }),
    ];
    await L.close();
    expect(codes(await Promise.allSettled(queued))).toEqual(['unavailable', 'unavailable']);
  });
});
