import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { GlEvent, GlPosition } from '../../src/domain/generalLedger.js';
import type { GeneralLedgerQuery } from '../../src/ledger/port.js';
import { TAIL_ENTRIES, TAIL_LINES } from '../../src/ledger/sqlite/glIndex.js';
import { SqliteLedger } from '../../src/ledger/sqlite/ledger.js';
import { cli } from '../support/cli.js';
import { BACK_TO_SCHEMA_12, copyTemplate, exec } from '../support/ledgers.js';

/** Where a line of the general ledger comes from: account, entry and line. */
type Place = [key: number, seq: number, line_no: number];

const WINDOW = { start_date: '2025-01-01', end_date: '2025-12-31', accounts: [] };

/** A small deterministic generator, so that a failure names the same ledger every time. */
function random(seed: number): (n: number) => number {
  let s = seed;
  return (n) => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return Math.floor((s / 2 ** 31) * n);
  };
}

/** Posts entries dated all over 2025 (so new lines fall between indexed ones), some to a customer. */
async function postMany(l: SqliteLedger, count: number, seed: number): Promise<void> {
  const r = random(seed);
  const accounts = ['checking', 'sales', 'rent', 'savings'];
  for (let i = 0; i < count; i++) {
    const amount = 100 + r(10_000);
    const date = `2025-${String(1 + r(12)).padStart(2, '0')}-${String(1 + r(28)).padStart(2, '0')}`;
    const customer = r(3) === 0;
    const lines = [
      customer
        ? {
            gl_account_id: 'ar',
            line_type: 'debit',
            amount_atoms: amount,
            counterparty_type: 'customer',
            counterparty_external_id: r(2) ? 'C001' : 'C002',
          }
        : { gl_account_id: accounts[r(4)]!, line_type: 'debit', amount_atoms: amount },
      { gl_account_id: 'sales', line_type: 'credit', amount_atoms: amount },
    ];
    await l.journal.post({ entry_date: date, lines }, { idempotencyKey: `gl-${seed}-${i}` });
  }
}

async function events(l: SqliteLedger, q: GeneralLedgerQuery, from?: GlPosition | { key: number }) {
  const out: GlEvent[] = [];
  for await (const e of l.reports.generalLedger(q, from)) out.push(e);
  return out;
}

const placesOf = (es: GlEvent[]): Place[] =>
  es.flatMap((e) => (e.kind === 'line' ? [[e.at.key, e.at.seq, e.at.line_no] as Place] : []));

/** The lines of the window straight from the journal, in the general ledger's order within each account. */
function expected(
  file: string,
  keys: number[],
  counterparty?: string,
  window: { start_date: string; end_date: string } = WINDOW,
): Place[] {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db
      .prepare(
        `SELECT l.account_key, l.entry_seq, l.line_no FROM journal_lines l
         LEFT JOIN counterparties c ON c.id = l.counterparty_id
         WHERE l.entry_date BETWEEN ? AND ? AND (? IS NULL OR c.external_id = ?)
         ORDER BY l.entry_date, l.entry_seq, l.line_no`,
      )
      .raw()
      .all(
        window.start_date,
        window.end_date,
        counterparty ?? null,
        counterparty ?? null,
      ) as Place[];
    return keys.flatMap((k) => rows.filter((r) => r[0] === k));
  } finally {
    db.close();
  }
}

const accountOrder = (es: GlEvent[]) => es.flatMap((e) => (e.kind === 'account' ? [e.key] : []));

function mark(file: string): { through: number; last: number } {
  const db = new Database(file, { readonly: true });
  try {
    return {
      through: db.prepare('SELECT through_seq FROM gl_index_state').pluck().get() as number,
      last: db.prepare('SELECT MAX(seq) FROM journal_entries').pluck().get() as number,
    };
  } finally {
    db.close();
  }
}

describe("the general ledger's index, kept behind the journal", () => {
  it('reads the indexed lines and the newest ones as one, in order, from any place', async () => {
    const { ledger: file } = copyTemplate('demo', 'demo.sqlite');
    const l = SqliteLedger.open(file);
    try {
      // The import left nothing outside the index; enough posts move a tail in and start another.
      expect(mark(file).through).toBe(mark(file).last);
      await postMany(l, TAIL_ENTRIES + 90, 7);
      const { through, last } = mark(file);
      expect(last - through).toBe(90);
      const all = await events(l, WINDOW);
      const keys = accountOrder(all);
      expect(placesOf(all)).toEqual(expected(file, keys));
      const customer = await events(l, {
        ...WINDOW,
        counterparty: { type: 'customer', external_id: 'C001' },
      });
      expect(placesOf(customer)).toEqual(expected(file, accountOrder(customer), 'C001'));
      expect(placesOf(customer).some((p) => p[1] > through)).toBe(true);
      expect(placesOf(customer).some((p) => p[1] <= through)).toBe(true);
      // Going on after any line gives the rest, whether that line was indexed or not.
      const places = placesOf(all);
      for (const e of all.filter((x) => x.kind === 'line').filter((_, i) => i % 97 === 0)) {
        const at = (e as Extract<GlEvent, { kind: 'line' }>).at;
        const i = places.findIndex(
          (p) => p[0] === at.key && p[1] === at.seq && p[2] === at.line_no,
        );
        expect(placesOf(await events(l, WINDOW, at))).toEqual(places.slice(i + 1));
      }
      // In a window that leaves lines out on both sides, from the start of an account or after a line.
      const narrow = { ...WINDOW, start_date: '2025-03-01', end_date: '2025-10-31' };
      const inside = placesOf(await events(l, narrow));
      expect(inside).toEqual(expected(file, keys, undefined, narrow));
      expect(inside.length).toBeLessThan(places.length);
      for (const key of keys) {
        const first = inside.findIndex((p) => p[0] === key);
        if (first >= 0)
          expect(placesOf(await events(l, narrow, { key }))).toEqual(inside.slice(first));
      }
      expect((await l.maintenance.check()).problems).toEqual([]);
    } finally {
      await l.close();
    }
  });

  it('takes in the newest lines once they are many, however few the entries', async () => {
    const { ledger: file } = copyTemplate('demo', 'demo.sqlite');
    const l = SqliteLedger.open(file);
    try {
      const { through: before } = mark(file);
      const lines = Array.from({ length: 300 }, (_, i) => ({
        gl_account_id: i % 2 ? 'sales' : 'checking',
        line_type: i % 2 ? 'credit' : 'debit',
        amount_atoms: 100 + i - (i % 2),
      }));
      const entries = Math.ceil(TAIL_LINES / lines.length);
      for (let i = 0; i < entries - 1; i++)
        await l.journal.post({ entry_date: '2025-06-01', lines }, { idempotencyKey: `wide-${i}` });
      expect(mark(file).through).toBe(before);
      await l.journal.post({ entry_date: '2025-05-01', lines }, { idempotencyKey: 'wide-last' });
      expect(mark(file).through).toBe(mark(file).last);
      const all = await events(l, WINDOW);
      expect(placesOf(all)).toEqual(expected(file, accountOrder(all)));
      expect((await l.maintenance.check()).problems).toEqual([]);
    } finally {
      await l.close();
    }
  });

  it('is checked against the lines, and books rebuild makes it whole again', async () => {
    const { ledger: file } = copyTemplate('demo', 'demo.sqlite');
    const l = SqliteLedger.open(file);
    try {
      await postMany(l, 20, 11);
      const before = placesOf(await events(l, WINDOW));
      const problems = async () =>
        (await l.maintenance.check()).problems.map((p) => [p.path, p.reason, p.message]);
      exec(file, `DELETE FROM gl_index WHERE entry_seq = 3`);
      exec(file, `INSERT INTO gl_index VALUES (1, '2025-02-02', 99999, 1)`);
      expect(await problems()).toEqual([
        [
          'gl_index',
          'derived_mismatch',
          expect.stringMatching(
            /lacks [1-9]\d* lines and holds 1 that are not lines; books rebuild/,
          ),
        ],
      ]);
      exec(file, `UPDATE gl_index_state SET through_seq = 1000000`);
      expect((await problems()).map((p) => p[0])).toEqual(['gl_index_state']);
      await l.maintenance.rebuild();
      expect(await problems()).toEqual([]);
      expect(mark(file).through).toBe(mark(file).last);
      expect(placesOf(await events(l, WINDOW))).toEqual(before);
    } finally {
      await l.close();
    }
  });

  it('is built when a ledger of the previous schema is opened', async () => {
    const { ledger: file } = copyTemplate('demo', 'demo.sqlite');
    const l = SqliteLedger.open(file);
    await postMany(l, 30, 13);
    const before = placesOf(await events(l, WINDOW));
    await l.close();
    // The schema as migration 5 left it: the lines' own index by account, no gl_index, no column
    // for JE numbers that do not count (migration 7), no foreign currencies (migration 13).
    exec(
      file,
      `DROP TABLE gl_index; DROP TABLE gl_index_state;
       CREATE INDEX journal_lines_account ON journal_lines (account_key, entry_date, entry_seq, line_no);
       DROP INDEX journal_entries_je_seq_uncounted;
       ALTER TABLE journal_entries DROP COLUMN je_seq_uncounted;
       DROP TABLE ledger_secrets;
       ${BACK_TO_SCHEMA_12}
       PRAGMA user_version = 5`,
    );
    const again = SqliteLedger.open(file);
    try {
      expect(mark(file).through).toBe(mark(file).last);
      expect(placesOf(await events(again, WINDOW))).toEqual(before);
      expect((await again.maintenance.check()).problems).toEqual([]);
    } finally {
      await again.close();
    }
  });

  it('takes in what an import writes before the import commits', async () => {
    const { dir, ledger: file } = copyTemplate('demo', 'demo.sqlite');
    const l = SqliteLedger.open(file);
    await postMany(l, 5, 17);
    await l.close();
    const csv = `${dir}/entries.csv`;
    writeFileSync(
      csv,
      'entry,entry_date,gl_account_id,debit,credit\n' +
        'A,2025-02-01,rent,10.00,\nA,2025-02-01,checking,,10.00\n' +
        'B,2025-01-05,rent,20.00,\nB,2025-01-05,checking,,20.00\n',
    );
    expect((await cli(['je', 'import', csv, '--ledger', file], { cwd: dir })).exitCode).toBe(0);
    const { through, last } = mark(file);
    expect(through).toBe(last);
    const l2 = SqliteLedger.open(file);
    try {
      expect((await l2.maintenance.check()).problems).toEqual([]);
    } finally {
      await l2.close();
    }
  });
});
