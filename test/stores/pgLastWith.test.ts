import { describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import { PgDb, prepared } from '../../src/ledger/pg/db.js';
import { PgStore } from '../../src/ledger/pg/store.js';
import { LOCK_WAIT_MS } from '../../src/ledger/journal/store.js';
import { until } from '../support/ledgers.js';
import { databaseUrl, fromTemplate, pgFixture } from '../support/fixtures.js';

// A group of posts sends its rows with the COMMIT in one simple query (EXECUTE with the values as
// literals): the values must arrive as bound parameters would, and a failure must undo the whole
// transaction.
/** A plain two-line post under `key`, through an entity's ledger of a store. */
const postOn = (ledger: Awaited<ReturnType<PgStore['open']>>, key: string) =>
  ledger.journal.post(
    {
      entry_date: '2025-03-02',
      lines: [
        { gl_account_id: 'rent', line_type: 'debit', amount_atoms: 100 },
        { gl_account_id: 'checking', line_type: 'credit', amount_atoms: 100 },
      ],
    },
    { idempotencyKey: key },
  );

describe('a write transaction whose last statement goes with its COMMIT (PostgreSQL)', () => {
  const TRICKY = `it's a "quote", a \\ backslash, {braces}, a comma,\nZürich — 東京 😀`;
  const ARRAY = [TRICKY, '', 'NULL', null, '\\"', 'a,b'];
  const NUMBERS = [9007199254740993n, -2, null, 0];

  it('sends the values exactly, commits, and undoes the transaction when the statement fails', async () => {
    // One connection, so the statement prepared by the first transaction is the one EXECUTE names.
    const db = new PgDb(databaseUrl(), () => new Date(), 1);
    const sent: string[] = [];
    db.pool.on('connect', (client: pg.PoolClient) => {
      const query = client.query.bind(client) as (...a: unknown[]) => unknown;
      (client as unknown as { query: unknown }).query = (...a: unknown[]) => {
        const first = a[0] as string | { text: string };
        sent.push(typeof first === 'string' ? first : first.text);
        return query(...a);
      };
    });
    const table = `last_with_${process.pid}`;
    const INSERT = prepared(
      `INSERT INTO ${table} SELECT $1::int, $2::text, $3::text[], $4::int8[], $5::boolean`,
    );
    try {
      await db.query(
        `CREATE TABLE ${table} (id int PRIMARY KEY, t text, a text[], n int8[], b boolean)`,
      );
      await db.tx(async (q) => {
        await q(INSERT, [1, 'first', [], [], false]);
      });
      await db.tx(async (q) => {
        await q(INSERT, [2, 'second', ['x'], [1], null]);
        await q.lastWith!(INSERT, [3, TRICKY, ARRAY, NUMBERS, true]);
        await expect(q('SELECT 1')).rejects.toThrow('after the transaction’s COMMIT');
      });
      expect(sent.some((s) => /^EXECUTE books_\d+\(.*\); COMMIT$/s.test(s))).toBe(true);
      // The key of row 1 again: the statement fails, and row 4 before it is rolled back with it.
      await expect(
        db.tx(async (q) => {
          await q(INSERT, [4, 'fourth', [], [], false]);
          await q.lastWith!(INSERT, [1, 'again', [], [], false]);
        }),
      ).rejects.toThrow(/duplicate key/);
      const rows = await db.query<{ id: number; t: string; a: string[]; n: unknown[]; b: boolean }>(
        `SELECT id, t, a, n, b FROM ${table} ORDER BY id`,
      );
      expect(rows).toEqual([
        { id: 1, t: 'first', a: [], n: [], b: false },
        { id: 2, t: 'second', a: ['x'], n: ['1'], b: null },
        { id: 3, t: TRICKY, a: ARRAY, n: ['9007199254740993', '-2', null, '0'], b: true },
      ]);
    } finally {
      await db.query(`DROP TABLE IF EXISTS ${table}`);
      await db.close();
    }
  });
});

describe('a group of posts whose COMMIT is sent with its rows, the answer lost (PostgreSQL)', () => {
  it('answers each post "retry" (unavailable), not a refusal, and the retry names what was posted', async () => {
    const L = await fromTemplate(pgFixture, 'standard');
    // A server of its own over the entity, one connection, whose answers to EXECUTE can be lost.
    const store = await PgStore.open(databaseUrl(), () => new Date(), 1, false);
    let lose = false;
    let lost = 0;
    // Its connection is open already (the store read the schema's version): it is wrapped as is.
    const { pool } = (store as unknown as { db: PgDb }).db;
    for (const client of (pool as unknown as { _clients: pg.PoolClient[] })._clients) {
      const query = client.query.bind(client) as (...a: unknown[]) => Promise<unknown>;
      (client as unknown as { query: unknown }).query = (...a: unknown[]) => {
        const run = query(...a);
        const text = (a[0] as { text?: string }).text ?? a[0];
        if (!lose || typeof text !== 'string' || !text.startsWith('EXECUTE ')) return run;
        lose = false;
        lost++;
        // Committed, and the answer never arrives.
        return run.then(() => {
          throw new Error('Connection terminated unexpectedly');
        });
      };
    }
    const { entityId } = L.ledger as unknown as { entityId: string };
    const ledger = await store.open(entityId);
    try {
      const post = (key: string) => postOn(ledger, key);
      // One after the other: the connection prepares the insert, then sends it as EXECUTE.
      for (let i = 0; i < 3; i++) await post(`warm-${i}`);
      lose = true;
      const outcomes = await Promise.allSettled([post('a'), post('b'), post('c')]);
      expect(lost).toBe(1);
      const codes = outcomes.map((o) =>
        o.status === 'rejected' ? (o.reason as { code?: string }).code : 'posted',
      );
      // Asked together, the three are one group: committed, each answered "retry".
      expect(codes).toEqual(['unavailable', 'unavailable', 'unavailable']);
      // What was committed is there once; a retry under the same key names it.
      expect((await L.journal()).length).toBe(6);
      await expect(post('a')).rejects.toMatchObject({
        code: 'CAPI34',
        errors: [expect.objectContaining({ reason: 'duplicate_idempotency_key' })],
      });
      expect(await L.check()).toEqual([]);
    } finally {
      await store.close();
      await L.close();
    }
  });
});

describe('lone posts from two servers on one entity (PostgreSQL)', () => {
  it('read their facts with the lock, in its round trip, and number gaplessly without a refusal', async () => {
    const L = await fromTemplate(pgFixture, 'standard');
    const { entityId } = L.ledger as unknown as { entityId: string };
    // Two servers of one connection each, whose statements are recorded.
    const sent: string[] = [];
    const server = async () => {
      const store = await PgStore.open(databaseUrl(), () => new Date(), 1, false);
      const { pool } = (store as unknown as { db: PgDb }).db;
      for (const client of (pool as unknown as { _clients: pg.PoolClient[] })._clients) {
        const query = client.query.bind(client) as (...a: unknown[]) => Promise<unknown>;
        (client as unknown as { query: unknown }).query = (...a: unknown[]) => {
          const first = a[0] as string | { text: string };
          sent.push(typeof first === 'string' ? first : first.text);
          return query(...a);
        };
      }
      return { store, ledger: await store.open(entityId) };
    };
    const servers = [await server(), await server()];
    try {
      // Each server posts one at a time: every post is a lone group, taken before its lock.
      await Promise.all(
        servers.map(async ({ ledger }, s) => {
          for (let i = 0; i < 40; i++) await postOn(ledger, `s${s}-${i}`);
        }),
      );
      const withLock = sent.filter((t) => /FOR UPDATE; EXECUTE books_\d+\(/.test(t));
      // The first post of each connection prepares the reading; the rest send it with the lock.
      expect(withLock.length).toBeGreaterThanOrEqual(76);
      // A reading taken before the other server's commit would have numbered over its entries:
      // the database would have refused the rows, and the transaction been rolled back.
      expect(sent.filter((t) => t === 'ROLLBACK')).toEqual([]);
      const numbers = (await L.journal()).map((e) => e.je_number).sort();
      expect(numbers).toEqual(Array.from({ length: 80 }, (_, i) => `JE-${i + 1}`).sort());
      expect(await L.check()).toEqual([]);
    } finally {
      for (const s of servers) await s.store.close();
      await L.close();
    }
  });
});

describe('a lone post taken before its lock, whose wait in all outlasts a writer’s (PostgreSQL)', () => {
  it('is refused as locked, and nothing of it is written', async () => {
    const L = await fromTemplate(pgFixture, 'standard');
    const { entityId } = L.ledger as unknown as { entityId: string };
    const store = await PgStore.open(databaseUrl(), () => new Date(), 1, false);
    const holder = new pg.Client({ connectionString: databaseUrl() });
    await holder.connect();
    // The queue's clock, moved on by the test: the database's own lock wait stays short.
    let now = Date.now();
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => now);
    try {
      const ledger = await store.open(entityId);
      // Its connection prepares the reading first, so that the next sends it with the lock.
      await postOn(ledger, 'warm');
      const before = (await L.journal()).length;
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM entities WHERE entity_id = $1 FOR UPDATE', [entityId]);
      const waited = postOn(ledger, 'late').then(
        () => 'posted',
        (e: { code?: string }) => e.code,
      );
      await until(async () => {
        await holder.query('SELECT pg_stat_clear_snapshot()');
        const { rows } = await holder.query<{ n: string }>(
          `SELECT count(*) AS n FROM pg_stat_activity
           WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        return Number(rows[0]!.n) === 1;
      }, 'the post to wait for the lock');
      now += LOCK_WAIT_MS + 1;
      await holder.query('ROLLBACK');
      // Answered "retry" (the ledger is locked), as a post whose lock wait alone was as long.
      expect(await waited).toBe('unavailable');
      expect((await L.journal()).length).toBe(before);
      // Its retry posts it, once.
      await postOn(ledger, 'late');
      expect((await L.journal()).length).toBe(before + 1);
      expect(await L.check()).toEqual([]);
    } finally {
      clock.mockRestore();
      await holder.end();
      await store.close();
      await L.close();
    }
  });
});
