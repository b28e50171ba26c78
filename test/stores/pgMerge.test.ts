import { execFileSync } from 'node:child_process';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { psqlPath } from '../../src/bench/cluster.js';
import { PgStore } from '../../src/ledger/pg/store.js';
import { databaseUrl, fromTemplate, pgFixture, type FixtureLedger } from '../support/fixtures.js';

/**
 * Posts of different entities of one database that a server holds at once share one transaction
 * (src/ledger/pg/merge.ts): their locks and facts in its first round trip, their rows and COMMIT in
 * its last. Each entity's numbers stay gapless, a post the database refuses fails alone, and an
 * entity locked by another transaction holds no other entity's posts.
 */
const entry = (amount: number, account = 'rent') => ({
  entry_date: '2025-03-02',
  lines: [
    { gl_account_id: account, line_type: 'debit', amount_atoms: amount },
    { gl_account_id: 'checking', line_type: 'credit', amount_atoms: amount },
  ],
});

type Ledger = Awaited<ReturnType<PgStore['open']>>;

/** Runs SQL on the test's database as its owner (a fault to inject, or to take away). */
const fault = (sql: string) =>
  execFileSync(psqlPath(), [databaseUrl(), '-qc', sql], { encoding: 'utf8' });

/** Entities made from the standard template, opened in one store (one pool, as a server has). */
async function withEntities(
  n: number,
  test: (ledgers: Ledger[], fixtures: FixtureLedger[], sent: string[]) => Promise<void>,
): Promise<void> {
  const fixtures: FixtureLedger[] = [];
  for (let i = 0; i < n; i++) fixtures.push(await fromTemplate(pgFixture, 'standard'));
  const store = await PgStore.open(databaseUrl(), () => new Date(), 8, false);
  // What every connection was sent, in order.
  const sent: string[] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...a: unknown[]) {
    const first = a[0] as string | { text: string };
    sent.push(typeof first === 'string' ? first : first.text);
    return (query as (...a: unknown[]) => unknown).apply(this, a);
  } as typeof query;
  try {
    const ledgers: Ledger[] = [];
    for (const f of fixtures)
      ledgers.push(await store.open((f.ledger as unknown as { entityId: string }).entityId));
    await test(ledgers, fixtures, sent);
  } finally {
    pg.Client.prototype.query = query;
    await store.close();
    for (const f of fixtures) await f.close();
  }
}

const numbers = async (f: FixtureLedger) => (await f.journal()).map((e) => e.je_number);
/** The simple queries that took several entities' locks. */
const shared = (sent: string[]) => sent.filter((s) => s.split('SKIP LOCKED').length > 2);

describe('posts of several entities at once (PostgreSQL: one transaction for them)', () => {
  it('share a transaction, and number each entity gaplessly', async () => {
    await withEntities(3, async (ledgers, fixtures, sent) => {
      const first = await Promise.all(
        ledgers.map((l, i) => l.journal.post(entry(100 + i), { idempotencyKey: `first-${i}` })),
      );
      expect(first.map((e) => e.je_number)).toEqual(['JE-1', 'JE-1', 'JE-1']);
      expect(shared(sent)).toHaveLength(1);
      // Many at once, on every entity: each entity's numbers have no gap, whatever went together.
      await Promise.all(
        ledgers.flatMap((l, i) =>
          Array.from({ length: 20 }, (_, k) =>
            l.journal.post(entry(1000 + k), { idempotencyKey: `k${i}-${k}` }),
          ),
        ),
      );
      // Their rows, as the connection has prepared them, went with the COMMIT in one simple query.
      expect(sent.some((s) => /; COMMIT$/.test(s) && s.split('EXECUTE').length > 2)).toBe(true);
      for (const f of fixtures) {
        expect(await numbers(f)).toEqual(Array.from({ length: 21 }, (_, k) => `JE-${k + 1}`));
        expect(await f.check()).toEqual([]);
      }
    });
  });

  it.each([
    [
      'in its statement',
      `CREATE FUNCTION merge_fault() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN RAISE EXCEPTION 'simulated fault'; END $$;
       CREATE TRIGGER merge_fault BEFORE INSERT ON journal_lines FOR EACH ROW
         WHEN (NEW.amount_atoms = 777) EXECUTE FUNCTION merge_fault()`,
      777,
      'simulated fault',
    ],
    [
      // A deferred constraint: checked at COMMIT, after every statement of the transaction held.
      'at COMMIT',
      `CREATE FUNCTION merge_fault() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN IF NEW.amount_atoms = 888 THEN RAISE EXCEPTION 'refused at commit'; END IF;
         RETURN NULL; END $$;
       CREATE CONSTRAINT TRIGGER merge_fault AFTER INSERT ON journal_lines
         DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION merge_fault()`,
      888,
      'refused at commit',
    ],
  ])(
    'refuse alone a post that the database refuses %s; the others get their own answers',
    async (_, sql, amount, said) => {
      await withEntities(3, async (ledgers, fixtures, sent) => {
        fault(sql);
        try {
          const outcomes = await Promise.allSettled([
            ledgers[0]!.journal.post(entry(amount), { idempotencyKey: 'refused' }),
            ledgers[1]!.journal.post(entry(100), { idempotencyKey: 'kept' }),
            // Refused by the rules: it wrote nothing, and its answer is its own.
            ledgers[2]!.journal.post(entry(100, 'no-such-account'), { idempotencyKey: 'rule' }),
          ]);
          expect(shared(sent)).toHaveLength(1);
          expect(outcomes[0]).toMatchObject({ status: 'rejected' });
          expect(String((outcomes[0] as PromiseRejectedResult).reason)).toContain(said);
          expect(outcomes[1]).toMatchObject({ status: 'fulfilled', value: { je_number: 'JE-1' } });
          expect(outcomes[2]).toMatchObject({ status: 'rejected', reason: { code: 'CAPI33' } });
        } finally {
          fault(
            'DROP TRIGGER IF EXISTS merge_fault ON journal_lines; DROP FUNCTION IF EXISTS merge_fault()',
          );
        }
        expect(await numbers(fixtures[0]!)).toEqual([]);
        expect(await numbers(fixtures[1]!)).toEqual(['JE-1']);
        const next = await ledgers[0]!.journal.post(entry(100), { idempotencyKey: 'next' });
        expect(next.je_number).toBe('JE-1');
        expect(await numbers(fixtures[2]!)).toEqual([]);
        for (const f of fixtures) expect(await f.check()).toEqual([]);
      });
    },
  );

  it.each([
    ['prepared', {}],
    // A statement shape the connections have not prepared: the rows go in a round trip of their own.
    ['not prepared yet', { tags: { project: 'alpha' } }],
  ])(
    'leave an entity whose rows another transaction holds to wait alone (rows %s): the others post meanwhile',
    async (_, extra) => {
      await withEntities(2, async (ledgers, fixtures) => {
        // Statements prepared on the pool's connections, and the month's totals rows made.
        for (let r = 0; r < 4; r++)
          await Promise.all(
            ledgers.map((l, i) => l.journal.post(entry(1), { idempotencyKey: `w${r}-${i}` })),
          );
        const holder = new pg.Client({ connectionString: databaseUrl() });
        await holder.connect();
        let held: Promise<{ je_number: string }>;
        try {
          // An operator's transaction holds the first entity's totals, not its lock: its post is taken
          // into a shared transaction, whose write then waits for those rows.
          await holder.query('BEGIN');
          const id = (fixtures[0]!.ledger as unknown as { entityId: string }).entityId;
          await holder.query('SELECT 1 FROM account_month_totals WHERE entity_id = $1 FOR UPDATE', [
            id,
          ]);
          let settled = false;
          held = ledgers[0]!.journal.post({ ...entry(5), ...extra }, { idempotencyKey: 'held' });
          void held.finally(() => (settled = true)).catch(() => {});
          const free = await ledgers[1]!.journal.post(
            { ...entry(5), ...extra },
            { idempotencyKey: 'free' },
          );
          expect(free.je_number).toBe('JE-5');
          expect(settled).toBe(false);
          await holder.query('ROLLBACK');
        } finally {
          await holder.end();
        }
        expect(await held).toMatchObject({ je_number: 'JE-5' });
        for (const f of fixtures) expect(await f.check()).toEqual([]);
      });
    },
  );

  it.each([
    ['cold (their facts read in statements of their own)', 0, 'WITH top AS%'],
    ['warm (their facts read with their locks)', 4, '%SKIP LOCKED%'],
  ])(
    'wait together for a table another transaction holds, %s, and both post',
    async (_, rounds, query) => {
      await withEntities(2, async (ledgers, fixtures) => {
        for (let r = 0; r < rounds; r++)
          await Promise.all(
            ledgers.map((l, i) => l.journal.post(entry(1), { idempotencyKey: `w${r}-${i}` })),
          );
        const holder = new pg.Client({ connectionString: databaseUrl() });
        await holder.connect();
        let posts: Promise<PromiseSettledResult<{ je_number: string }>[]>;
        try {
          // An operator holds the chart a moment: every post reads it, and waits, as it would alone.
          await holder.query('BEGIN');
          await holder.query('LOCK TABLE accounts IN ACCESS EXCLUSIVE MODE');
          let done = false;
          posts = Promise.allSettled(
            ledgers.map((l, i) => l.journal.post(entry(5), { idempotencyKey: `p${i}` })),
          );
          void posts.then(() => (done = true));
          // Held until the shared transaction has waited for it a while (a lone post waits 30 s).
          let waiting = 0;
          while (waiting === 0 && !done) {
            await holder.query('SELECT pg_stat_clear_snapshot()');
            const { rows } = await holder.query(
              `SELECT count(*)::int AS n FROM pg_stat_activity
               WHERE wait_event_type = 'Lock' AND datname = current_database() AND query LIKE $1
                 AND clock_timestamp() - query_start > interval '200 ms'`,
              [query],
            );
            waiting = (rows[0] as { n: number }).n;
          }
          expect(waiting).toBeGreaterThan(0);
          await holder.query('ROLLBACK');
        } finally {
          await holder.end();
        }
        expect((await posts).map((o) => o.status === 'fulfilled' && o.value.je_number)).toEqual([
          `JE-${rounds + 1}`,
          `JE-${rounds + 1}`,
        ]);
        for (const f of fixtures) expect(await f.check()).toEqual([]);
      });
    },
  );

  it('leave an entity locked by another transaction to wait alone: the others post meanwhile', async () => {
    await withEntities(2, async (ledgers, fixtures) => {
      const holder = new pg.Client({ connectionString: databaseUrl() });
      await holder.connect();
      let locked: Promise<unknown>;
      try {
        await holder.query('BEGIN');
        const id = (fixtures[0]!.ledger as unknown as { entityId: string }).entityId;
        await holder.query('SELECT 1 FROM entities WHERE entity_id = $1 FOR UPDATE', [id]);
        locked = ledgers[0]!.journal.post(entry(100), { idempotencyKey: 'waits' });
        void locked.catch(() => {});
        // Answered while the other entity's lock is still held.
        const free = await ledgers[1]!.journal.post(entry(200), { idempotencyKey: 'free' });
        expect(free.je_number).toBe('JE-1');
        expect(await numbers(fixtures[0]!)).toEqual([]);
        await holder.query('COMMIT');
      } finally {
        await holder.end();
      }
      const waited = await locked;
      expect(waited).toMatchObject({ je_number: 'JE-1' });
      for (const f of fixtures) expect(await f.check()).toEqual([]);
    });
  });
});
