import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, fromTemplate, sqliteFixture, type FixtureLedger } from '../support/fixtures.js';
import { sayings } from '../support/said.js';

/** What each store said: every store must say the same. */
const SAID = new Map<string, string[]>();
const neutral = (json: string) =>
  json
    .replace(/(je|ent)_[A-Za-z0-9_-]+/g, '$1_…')
    .replace(/"(created_at|updated_at)": "[^"]+"/g, '"$1": "…"');

/**
 * Dates end at 9999-12-31: what reaches past it (a weekly occurrence, a due date, the next month of an
 * accrual) is never written as a date, nor taken for one that sorts first.
 */
describe.each(FIXTURES.map((f) => [f.name, f] as const))(
  'the last date, 9999-12-31, on %s',
  (name, fixture) => {
    let L: FixtureLedger;
    const said: string[] = [];
    SAID.set(name, said);
    const { json, refused } = sayings(() => L, said, neutral);

    beforeAll(async () => {
      L = await fromTemplate(fixture, 'demo');
    }, 120_000);
    afterAll(async () => L?.close());

    it('a weekly recurring entry runs through 9999-12-31 and stops there', async () => {
      const add = await L.books([
        'recurring',
        'add',
        '--name',
        'late rent',
        '--every',
        'week',
        '--start',
        '9999-11-01',
        '--debit',
        'rent=10',
        '--credit',
        'checking=10',
      ]);
      expect(add.exitCode, add.stderr).toBe(0);
      const run = await json(['recurring', 'run', '--through', '9999-12-31']);
      const dates = run.posted.map((p: { date: string }) => p.date);
      // 9999-11-01 is a Monday: every Monday through the year's end, nothing after.
      expect(dates).toEqual(
        ['11-01', '11-08', '11-15', '11-22', '11-29', '12-06', '12-13', '12-20', '12-27'].map(
          (d) => `9999-${d}`,
        ),
      );
      expect((await json(['recurring', 'run', '--through', '9999-12-31'])).already_posted).toBe(9);
    });

    it('a run of more occurrences than one transaction should hold is refused before it starts', async () => {
      const add = await L.books([
        'recurring',
        'add',
        '--name',
        'weekly',
        '--every',
        'week',
        '--start',
        '2025-01-06',
        '--debit',
        'rent=1',
        '--credit',
        'checking=1',
      ]);
      expect(add.exitCode, add.stderr).toBe(0);
      const started = Date.now();
      await refused(
        ['recurring', 'run', '--through', '9999-12-31'],
        2,
        'more than 10,000 occurrences not posted yet (weekly every week from 2025-01-06)',
        'run through an earlier date',
      );
      expect(Date.now() - started).toBeLessThan(20_000);
      const some = await json(['recurring', 'run', '--through', '2025-02-28']);
      expect(some.posted).toHaveLength(8);
      await json(['recurring', 'remove', 'weekly']);
    });

    it('aging has no due date past 9999-12-31: the item is current, its due date blank', async () => {
      const post = await L.books([
        'je',
        'post',
        '--date',
        '9999-12-20',
        '--debit',
        'ar=100@customer:C001',
        '--credit',
        'sales=100',
      ]);
      expect(post.exitCode, post.stderr).toBe(0);
      const report = ['report', 'aging', '--type', 'receivable', '--as-of', '9999-12-31'];
      const args = [...report, '--due-days', '30', '--detail', '--counterparty', 'customer:C001'];
      const aging = await json(args);
      const item = aging.rows[0].items.find(
        (i: { entry_date: string }) => i.entry_date === '9999-12-20',
      );
      expect(item).toMatchObject({ due_date: null, days: -19, bucket: 'current' });
      const csv = await L.books([...args, '--format', 'csv']);
      expect(csv.exitCode, csv.stderr).toBe(0);
      expect(csv.stdout).toMatch(/,9999-12-20,,-19,/);
      expect(csv.stdout).not.toMatch(/\+0100|10000-/);
    });

    it('an accrual of 9999-12 has no next month: --auto-reverse says so, --reverse-on posts it', async () => {
      const args = [
        'je',
        'post',
        '--date',
        '9999-12-15',
        '--debit',
        'rent=5',
        '--credit',
        'accrued=5',
      ];
      await refused(
        [...args, '--auto-reverse'],
        2,
        '--auto-reverse: an entry of 9999-12-15 has no next month to reverse on',
        '--reverse-on',
      );
      const said = await L.books([...args, '--auto-reverse']);
      expect(said.stderr).not.toContain('9999-12-32');
      const posted = await json([...args, '--reverse-on', '9999-12-31']);
      expect(posted.entry_date).toBe('9999-12-15');
    });
  },
);

it('every store says the same at the last date', () => {
  const [first, ...rest] = [...SAID.values()];
  for (const other of rest) expect(other).toEqual(first);
});

describe('the bound of a recurring run', () => {
  it('counts what the run posts, not what posted before: a ledger years into its templates runs on', async () => {
    const L = await fromTemplate(sqliteFixture, 'standard');
    try {
      const lines = [
        { gl_account_id: 'rent', line_type: 'debit', amount_atoms: 100 },
        { gl_account_id: 'checking', line_type: 'credit', amount_atoms: 100 },
      ];
      for (let k = 0; k < 5; k++)
        await L.ledger.recurring.add({
          name: `weekly ${k}`,
          every: 'week',
          start_date: '2025-01-06',
          entry: { lines },
        });
      // 5 × 2,100 weeks posted in runs of a few years each, past 10,000 in all.
      let posted = 0;
      for (const through of ['2044-12-31', '2064-12-31', '2065-04-30'])
        posted += (await L.ledger.recurring.run({ through })).posted.length;
      expect(posted).toBeGreaterThan(10_000);
      const next = await L.ledger.recurring.run({ through: '2065-05-31' });
      expect(next.posted).toHaveLength(20);
      expect(next.already_posted).toBe(posted);
    } finally {
      await L.close();
    }
  }, 120_000);
});
