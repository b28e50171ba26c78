import { join } from 'node:path';
import Database from 'better-sqlite3';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { generate } from '../../src/bench/generate.js';
import { BIN, books, serve, standardLedger, tempDir } from '../support/helpers.js';
import { FIXTURES, fromTemplate, type FixtureLedger } from '../support/fixtures.js';
import { until } from '../support/ledgers.js';

/** A seeded generator of numbers in [0, 1): every run kills at the same moments, so a failure reproduces. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Reads the ledger file directly (another process may have died holding it: this must still work). */
function query<T>(path: string, sql: string): T[] {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}
const countEntries = (path: string) =>
  query<{ n: number }>(path, 'SELECT COUNT(*) AS n FROM journal_entries')[0]!.n;
const check = async (path: string) => {
  const r = await books(['check', '--ledger', path]);
  expect(r.exitCode, r.stdout + r.stderr).toBe(0);
};

/**
 * Ten kills and re-runs of an import, each with check and a read of the whole journal: on a database
 * server, with the other test worker busy beside it, more than the default limit.
 */
const TRIALS_MS = 300_000;

/** How many entries a fixture's store holds, whatever process died holding it (a count: it is polled). */
const entriesOf = async (L: FixtureLedger) => (await L.store.entity.record()).entry_count;

describe.each(FIXTURES.map((f) => [f.name, f] as const))(
  'a writer killed at random moments (SIGKILL) on %s',
  (_name, fixture) => {
    it(
      'je import: an atomic import is whole or absent, any import completes exactly on a re-run',
      async () => {
        const dir = tempDir();
        // A remote import posts entry by entry: a smaller file keeps the trials short.
        const atomic = (await fromTemplate(fixture, 'standard-no-start').then(async (L) => {
          const c = L.ledger.capabilities.atomicImport;
          await L.close();
          return c;
        })) as boolean;
        // On a database each trial also reads and checks the whole journal through its server: a
        // third of the file keeps its ten trials far from the limit on a busy machine.
        const lines = !atomic ? 1_000 : fixture.name === 'postgresql' ? 10_000 : 30_000;
        const { entries } = await generate(dir, {
          lines,
          startYear: 2021,
          years: 2,
        });
        const template = join(dir, 'template.sqlite');
        for (const args of [
          ['init', '--first-month', '2021-01', '--chart', join(dir, 'accounts.csv')],
          ['counterparties', 'import', join(dir, 'counterparties.csv')],
        ]) {
          expect((await books([...args, '--ledger', template])).exitCode).toBe(0);
        }
        const file = join(dir, 'entries.csv');
        // How long a whole import takes here, to spread the kills over it (start-up, parsing, commit, exit).
        const timed = await fixture.create(template);
        const t = Date.now();
        expect((await timed.books(['je', 'import', file])).exitCode).toBe(0);
        const whole = Date.now() - t;
        await timed.close();
        const next = random(4);
        const outcomes = { none: 0, some: 0, all: 0 };
        // Eight kills at seeded moments over the import; then one at once, and one as soon as the batch
        // is seen committed (the process may still be exiting), so that both ends are always among them.
        const moments: (number | 'committed')[] = [
          ...Array.from({ length: 8 }, () => Math.round(50 + next() * whole * 1.1)),
          0,
          'committed',
        ];
        for (const [trial, moment] of moments.entries()) {
          const L = await fixture.create(template);
          try {
            const p = L.process(['je', 'import', file]);
            const child = execa('node', [BIN, ...p.args], {
              reject: false,
              env: p.env,
              cwd: p.cwd,
            });
            if (moment === 'committed') {
              const seen = async () => child.exitCode !== null || (await entriesOf(L)) === entries;
              await until(seen, 'the batch committed');
            } else await sleep(moment);
            child.kill('SIGKILL');
            const result = await child;
            const n = await entriesOf(L);
            if (atomic) expect([0, entries], `trial ${trial}: killed at ${moment} ms`).toContain(n);
            else expect(n).toBeLessThanOrEqual(entries);
            expect(result.signal === 'SIGKILL' || (result.exitCode === 0 && n === entries)).toBe(
              true,
            );
            outcomes[n === 0 ? 'none' : n === entries ? 'all' : 'some']++;
            expect(await L.check()).toEqual([]);
            const rerun = await L.books(['je', 'import', file, '--format', 'json']);
            expect(rerun.exitCode, rerun.stderr).toBe(0);
            expect(JSON.parse(rerun.stdout)).toMatchObject({ posted: entries - n, skipped: n });
            expect(await entriesOf(L)).toBe(entries);
            const prints = (await L.journal()).flatMap((e) => e.fingerprint ?? []);
            expect(prints.length - new Set(prints).size).toBe(0);
            expect(await L.check()).toEqual([]);
          } finally {
            await L.close();
          }
        }
        // The kills fell both before and after the commit.
        expect(outcomes.none).toBeGreaterThan(0);
        expect(outcomes.all).toBeGreaterThan(0);
        console.info(
          `je import of ${entries} entries on ${fixture.name} (${whole} ms whole) killed ${moments.length} ` +
            `times: ${outcomes.none} left none, ${outcomes.some} some, ${outcomes.all} all`,
        );
      },
      TRIALS_MS,
    );

    it('je post: each entry is in the ledger once or not at all; retrying its key never posts it twice', async () => {
      const L = await fromTemplate(fixture, 'standard');
      try {
        const next = random(7);
        const trials = 12;
        const post = (i: number) => [
          'je',
          'post',
          '--date',
          '2025-03-02',
          '--memo',
          `kill ${i}`,
          '--idempotency-key',
          `kill-${i}`,
          '--debit',
          `rent=${i + 1}`,
          '--credit',
          'checking=' + (i + 1),
        ];
        let landed = 0;
        for (let i = 0; i < trials; i++) {
          const p = L.process(post(i));
          const child = execa('node', [BIN, ...p.args], { reject: false, env: p.env, cwd: p.cwd });
          await sleep(Math.round(next() * 700));
          child.kill('SIGKILL');
          await child;
          const n = (await L.journal()).filter((e) => e.memo === `kill ${i}`).length;
          expect([0, 1]).toContain(n);
          landed += n;
          expect(await L.check()).toEqual([]);
        }
        for (let i = 0; i < trials; i++) {
          const r = await L.books(post(i));
          if (r.exitCode !== 0) {
            expect(r.exitCode).toBe(1);
            expect(r.stderr).toMatch(
              /error CAPI34: idempotency key already used within the hour: it posted JE-\d+/,
            );
          }
        }
        const memos = (await L.journal()).map((e) => e.memo);
        expect(memos).toHaveLength(trials);
        expect(new Set(memos).size).toBe(trials);
        expect(await L.check()).toEqual([]);
        console.info(
          `je post on ${fixture.name} killed ${trials} times: ${landed} had posted, ` +
            `${trials - landed} had not; retries posted the rest once`,
        );
      } finally {
        await L.close();
      }
    });

    it('recurring run and accruals: killed mid-run, nothing half-posted; re-runs post the rest once', async () => {
      const L = await fromTemplate(fixture, 'standard');
      try {
        const next = random(11);
        const trials = 8;
        const months = 12;
        const landed = { run: 0, accrual: 0 };
        const accrual = (i: number) => [
          ...['je', 'post', '--date', '2025-06-30', '--memo', `accrual ${i}`, '--auto-reverse'],
          ...['--idempotency-key', `accrual-${i}`, '--debit', 'utilities=7'],
          ...['--credit', 'payroll-liab=7'],
        ];
        // How long a run takes as a process here, to spread the kills over it.
        const t = Date.now();
        expect(
          (await L.books(['recurring', 'run', '--through', '2025-12-31', '--dry-run'])).exitCode,
        ).toBe(0);
        const whole = Date.now() - t;
        const memos = async () => (await L.journal()).map((e) => e.memo);
        const count = (all: (string | null)[], memo: string) =>
          all.filter((m) => m === memo).length;
        for (let i = 0; i < trials; i++) {
          const add = await L.books([
            ...['recurring', 'add', '--name', `rent ${i}`, '--every', 'month', '--day', '31'],
            ...[
              '--start',
              '2025-01-31',
              '--debit',
              `rent=${i + 1}`,
              '--credit',
              `checking=${i + 1}`,
            ],
            ...['--memo', `rent ${i}`],
          ]);
          expect(add.exitCode, add.stderr).toBe(0);
          const run = L.process(['recurring', 'run', '--through', '2025-12-31']);
          const children = [run, L.process(accrual(i))].map((p) =>
            execa('node', [BIN, ...p.args], { reject: false, env: p.env, cwd: p.cwd }),
          );
          // The first at once, the last once the run is seen posted, the others spread over a run.
          if (i === trials - 1) {
            const posted = async () =>
              children[0]!.exitCode !== null || count(await memos(), `rent ${i}`) === months;
            await until(posted, 'the run posted');
          } else if (i > 0) await sleep(Math.round(next() * whole * 3));
          for (const c of children) c.kill('SIGKILL');
          await Promise.all(children);
          const seen = await memos();
          if (count(seen, `rent ${i}`) === months) landed.run++;
          // Each template's run is whole or absent; an accrual is there with its reversal, or neither.
          for (let t = 0; t <= i; t++) expect([0, months]).toContain(count(seen, `rent ${t}`));
          const entries = await L.journal();
          const acc = entries.filter((e) => e.memo === `accrual ${i}`);
          expect(acc.length).toBeLessThanOrEqual(1);
          const reversals = entries.filter((e) =>
            acc.some((a) => e.memo === `Reversal of ${a.je_number}`),
          );
          expect(reversals).toHaveLength(acc.length);
          landed.accrual += acc.length;
          expect(await L.check()).toEqual([]);
        }
        const runAll = ['recurring', 'run', '--through', '2025-12-31', '--format', 'json'];
        const rerun = await L.books(runAll);
        expect(rerun.exitCode, rerun.stderr).toBe(0);
        const seen = await memos();
        for (let t = 0; t < trials; t++) expect(count(seen, `rent ${t}`)).toBe(months);
        const again = await L.books(runAll);
        expect(JSON.parse(again.stdout).posted).toEqual([]);
        for (let i = 0; i < trials; i++) {
          const r = await L.books(accrual(i));
          if (r.exitCode !== 0) expect(r.stderr).toMatch(/CAPI34: idempotency key already used/);
          expect(count(await memos(), `accrual ${i}`)).toBe(1);
        }
        expect(await L.check()).toEqual([]);
        expect(landed.run).toBeGreaterThan(0);
        expect(landed.run).toBeLessThan(trials);
        console.info(
          `recurring run and accruals on ${fixture.name} killed ${trials} times: ` +
            `${landed.run} runs and ${landed.accrual} accruals had posted, the rest had not`,
        );
      } finally {
        await L.close();
      }
    });
  },
);

describe('books serve killed at a random moment (SIGKILL)', () => {
  it('books serve: after a kill in a burst of posts, retrying every request posts each entry once', async () => {
    const { ledger, run } = await standardLedger();
    const key = JSON.parse(
      (
        await run([
          'keys',
          'create',
          '--permission',
          'customer_api:post_journal_entries',
          '--format',
          'json',
        ])
      ).stdout,
    ).key as string;
    const total = 300;
    const body = (i: number) =>
      JSON.stringify({
        entry_date: '2025-03-02',
        memo: `burst ${i}`,
        lines: [
          { gl_account_id: 'rent', line_type: 'debit', amount_atoms: i + 1 },
          { gl_account_id: 'checking', line_type: 'credit', amount_atoms: i + 1 },
        ],
      });
    const send = (url: string, i: number) =>
      fetch(`${url}/v1/journal-entries`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${key}`,
          'Content-Type': 'application/json',
          'X-Idempotency-Key': `burst-${i}`,
        },
        body: body(i),
      });
    const first = await serve(ledger);
    const acknowledged = new Set<number>();
    let nextRequest = 0;
    let answered = 0;
    const client = async () => {
      while (nextRequest < total) {
        const i = nextRequest++;
        try {
          const r = await send(first.url, i);
          await r.arrayBuffer();
          answered++;
          if (r.status === 201) acknowledged.add(i);
        } catch {
          // The server died under this request.
        }
      }
    };
    const clients = Promise.all(Array.from({ length: 16 }, client));
    while (answered < 80) await sleep(5);
    first.child.kill('SIGKILL');
    await clients;
    await first.child.catch(() => undefined);
    expect(acknowledged.size).toBeGreaterThanOrEqual(80);
    const before = countEntries(ledger);
    // Every acknowledged entry survived the kill; some unanswered ones may have committed too.
    expect(before).toBeGreaterThanOrEqual(acknowledged.size);
    expect(before).toBeLessThan(total);
    await check(ledger);
    const second = await serve(ledger);
    try {
      const statuses = { created: 0, alreadyPosted: 0 };
      for (let i = 0; i < total; i++) {
        const r = await send(second.url, i);
        const reply = (await r.json()) as { code?: string; existing_journal_entry_id?: string };
        if (acknowledged.has(i)) expect(r.status).toBe(409);
        if (r.status === 409) {
          expect(reply).toMatchObject({
            code: 'CAPI34',
            existing_journal_entry_id: expect.stringMatching(/^je_/),
          });
          statuses.alreadyPosted++;
        } else {
          expect(r.status).toBe(201);
          statuses.created++;
        }
      }
      expect(statuses.alreadyPosted).toBe(before);
      const memos = query<{ n: number }>(
        ledger,
        `SELECT COUNT(*) AS n FROM journal_entries GROUP BY memo`,
      );
      expect(memos).toHaveLength(total);
      expect(memos.every((m) => m.n === 1)).toBe(true);
      await check(ledger);
      console.info(
        `books serve killed after ${answered} of ${total} answers: ${acknowledged.size} acknowledged, ` +
          `${before} in the ledger; retries created ${statuses.created}, ` +
          `found ${statuses.alreadyPosted} already posted`,
      );
    } finally {
      await second.stop();
    }
  });
});
