import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, fromTemplate, type FixtureLedger } from '../support/fixtures.js';
import { tempDir } from '../support/ledgers.js';

/** The largest amount of a line: 2^53 - 1 atoms. 1,024 of them stay 1,023 atoms under 2^63 - 1. */
const MOST = '90071992547409.91';
const MOST_ATOMS = BigInt(MOST.replace('.', ''));
const HEADER = 'entry,entry_date,gl_account_id,line_type,amount,memo,tag:project';
const PARTIES = 'counterparty_type,external_id,name,is_active';

/** CSV rows of `n` entries on `date`: checking debited with the tag (if any), savings credited. */
function entries(prefix: string, n: number, date: string, tag = '', amount = MOST): string[] {
  const rows: string[] = [];
  for (let i = 1; i <= n; i++)
    rows.push(
      `${prefix}${i},${date},checking,debit,${amount},${prefix} ${i},${tag}`,
      `${prefix}${i},${date},savings,credit,${amount},${prefix} ${i},`,
    );
  return rows;
}

/** A ledger of the standard chart holding `rows` (imported), given to `fn` with a folder for files. */
async function seeded(
  fixture: (typeof FIXTURES)[number],
  rows: string[],
  fn: (
    L: FixtureLedger,
    csv: (name: string, rows: string[], header?: string) => string,
  ) => Promise<void>,
): Promise<void> {
  const L = await fromTemplate(fixture, 'standard');
  try {
    const dir = tempDir();
    const csv = (name: string, rows: string[], header = HEADER) => {
      const file = join(dir, name);
      writeFileSync(file, [header, ...rows, ''].join('\n'));
      return file;
    };
    if (rows.length) await ok(L, ['je', 'import', csv('seed.csv', rows)]);
    await fn(L, csv);
  } finally {
    await L.close();
  }
}

async function ok(L: FixtureLedger, args: string[]): Promise<string> {
  const r = await L.books(args);
  expect(r.exitCode, r.stderr).toBe(0);
  return r.stdout;
}

async function refused(L: FixtureLedger, args: string[]): Promise<void> {
  const r = await L.books(args);
  expect(r.exitCode, r.stderr).toBe(1);
  expect(r.stderr).toContain('CAPI33');
  expect(r.stderr).toContain('would pass 9223372036854775807 atoms');
}

/** The trial balance's total debits as of a date, in atoms. */
async function debits(L: FixtureLedger, asOf: string, where: string[] = []): Promise<bigint> {
  const tb = await ok(L, ['report', 'tb', '--as-of', asOf, ...where, '--format', 'json']);
  return BigInt(/"debit": (\d+)/.exec(tb)?.[1] ?? 0);
}

// A month's total of an account, or of a tag on it, is kept as a 64-bit integer. A post that would
// take one past it is refused as bad input and writes nothing: SQLite added the two into an inexact
// real number, which every report and books check then failed on; a batch's own sum failed to bind.
describe.each(FIXTURES.map((f) => [f.name, f] as const))(
  'a total past 2^63 - 1 atoms on %s',
  (name, fixture) => {
    const post = (date: string, ...more: string[]) => ['je', 'post', '--date', date, ...more];

    it('is refused (CAPI33, exit 1) by a post, an import and a large import, which write nothing', () =>
      seeded(fixture, entries('S', 1024, '2025-03-03'), async (L, csv) => {
        const before = L.inspect();
        await refused(L, ['je', 'import', csv('more.csv', entries('M', 3, '2025-03-04'))]);
        await refused(
          L,
          post('2025-03-05', '--debit', `checking=${MOST}`, '--credit', `savings=${MOST}`),
        );
        // Over a remote profile an import posts entry by entry: a batch's own sum is a local import's.
        if (name !== 'served') {
          await refused(L, ['je', 'import', csv('own.csv', entries('O', 1025, '2025-04-01'))]);
          // Over 1 MiB: written on a writer thread (a file) or a pipelined connection (a database).
          const large = [
            ...entries('L', 14_000, '2025-05-01', 'p2', '1.00'),
            ...entries('X', 1, '2025-03-06'),
          ];
          await refused(L, ['je', 'import', csv('large.csv', large)]);
        }
        expect(L.inspect()).toBe(before);
        expect(await L.check()).toEqual([]);
      }));

    it('over many months may pass it: check passes and the trial balance says it exactly', () =>
      seeded(
        fixture,
        [...entries('A', 1024, '2025-03-03'), ...entries('B', 1024, '2025-04-03')],
        async (L) => {
          expect(await L.check()).toEqual([]);
          if (name !== 'served') await ok(L, ['check']);
          expect(await debits(L, '2025-04-30')).toBe(2048n * MOST_ATOMS);
        },
      ));

    it('may pass it along the way: the largest debit and credit on one account check, rebuild and report', () =>
      seeded(fixture, entries('S', 1024, '2025-03-03', 'a'), async (L) => {
        // Nets to nothing on checking and on its tag: a sum of the month's lines passes 2^63 - 1 on the way.
        await ok(
          L,
          post(
            '2025-03-04',
            '--tag',
            'project=a',
            '--debit',
            `checking=${MOST}`,
            '--credit',
            `checking=${MOST}`,
          ),
        );
        expect(await L.check()).toEqual([]);
        if (name !== 'served') for (const args of [['check'], ['rebuild']]) await ok(L, args);
        // The 4th: the month's lines up to it are summed; the 31st: its total is read.
        for (const asOf of ['2025-03-04', '2025-03-31'])
          expect(await debits(L, asOf, ['--where', 'project=a'])).toBe(1024n * MOST_ATOMS);
      }));

    it("may reach -2^63 by a tag's total: reports without the tag still read it", () => {
      const credits = (p: string, n: number, date: string, tag: string, amount = MOST) =>
        entries(p, n, date, tag, amount).map((r) =>
          r.replace('checking,debit', 'checking,credit').replace('savings,credit', 'savings,debit'),
        );
      return seeded(fixture, credits('C', 1024, '2025-03-05', 'x'), async (L, csv) => {
        // 1,024 atoms more on checking, tagged x: its total and its tag's are -2^63 exactly.
        const last = credits('D', 1, '2025-03-06', 'x', '10.24').map((r) =>
          r.replace('savings,debit', 'rent,debit'),
        );
        await ok(L, ['je', 'import', csv('last.csv', last)]);
        for (const where of ['project!=x', 'project=']) {
          const tb = await ok(L, [
            'report',
            'tb',
            '--as-of',
            '2025-03-31',
            '--where',
            where,
            '--format',
            'csv',
            '--atoms',
          ]);
          expect(tb.split('\n').find((l) => l.includes('Savings'))).toContain(
            String(1024n * MOST_ATOMS),
          );
        }
      });
    });

    it("is refused where a tag's total passes, though the account's does not", () => {
      // Checking's month nets to nothing; its lines tagged p1 add up to 1,024 of the most.
      const back = entries('B', 1024, '2025-03-03').map((r) =>
        r.replace('checking,debit', 'checking,credit').replace('savings,credit', 'savings,debit'),
      );
      return seeded(
        fixture,
        [...entries('S', 1024, '2025-03-03', 'p1'), ...back],
        async (L, csv) => {
          const before = L.inspect();
          await refused(L, ['je', 'import', csv('more.csv', entries('M', 1, '2025-03-04', 'p1'))]);
          expect(L.inspect()).toBe(before);
          expect(await L.check()).toEqual([]);
        },
      );
    });
  },
);

// What only a local store reads: sums of lines whose running sum passes 2^63 - 1 (a counterparty's
// history, a month's lines up to a day, a key's values together). A remote profile reads these
// reports from a file's store, which the ledger file's fixture covers.
describe.each(FIXTURES.filter((f) => f.name !== 'served').map((f) => [f.name, f] as const))(
  'sums of lines past 2^63 - 1 atoms on %s',
  (_name, fixture) => {
    it('are reported exactly: by counterparty, up to a day, by a tag value, without a key', () =>
      seeded(fixture, [], async (L, csv) => {
        const M = MOST_ATOMS;
        await ok(L, [
          'counterparties',
          'import',
          csv('parties.csv', ['customer,C1,One,true'], PARTIES),
        ]);
        // The customer's history before March passes 2^63 - 1; no month's total does.
        const sales = (p: string, n: number, date: string) =>
          entries(p, n, date).map((r) =>
            r
              .replace(/,checking,debit,(.*)$/, ',ar,debit,$1,customer,C1')
              .replace(/,savings,credit,(.*)$/, ',sales,credit,$1,,'),
          );
        const rows = [
          ...sales('A', 1024, '2025-01-03'),
          ...sales('B', 2, '2025-02-03'),
          ...sales('C', 1, '2025-03-05'),
        ];
        await ok(L, [
          'je',
          'import',
          csv('sales.csv', rows, `${HEADER},counterparty_type,counterparty_external_id`),
        ]);
        const gl = await ok(L, [
          'report',
          'gl',
          '--start',
          '2025-03-01',
          '--end',
          '2025-03-31',
          '--counterparty',
          'customer:C1',
          '--format',
          'json',
        ]);
        expect(/"opening": (\d+)/.exec(gl)?.[1]).toBe(String(1026n * M));
        expect(/"closing": (\d+)/.exec(gl)?.[1]).toBe(String(1027n * M));
        // March on checking, tagged SUM(1): 1,025 debits on the 3rd, one credit on the 20th. The lines
        // up to the 10th pass 2^63 - 1; the month's total does not.
        const back = (p: string, n: number, date: string, tag = '') =>
          entries(p, n, date, tag).map((r) =>
            r
              .replace('checking,debit', 'checking,credit')
              .replace('savings,credit', 'savings,debit'),
          );
        await ok(L, [
          'je',
          'import',
          csv('march.csv', [
            ...entries('D', 1025, '2025-03-03', 'SUM(1)'),
            ...back('R', 1, '2025-03-20', 'SUM(1)'),
          ]),
        ]);
        expect(await debits(L, '2025-03-10', ['--where', 'project=SUM(1)'])).toBe(1025n * M);
        expect(await debits(L, '2025-03-31', ['--where', 'project=SUM(1)'])).toBe(1024n * M);
        // April on checking: 1,024 debits tagged p1, 1,024 tagged p2, 1,024 credits without a project.
        // The lines without the key are the month's less its tagged ones, which pass 2^63 - 1 together.
        const april = [
          ...entries('P', 1024, '2025-04-03', 'p1'),
          ...entries('Q', 1024, '2025-04-03', 'p2'),
          ...back('U', 1024, '2025-04-03'),
        ];
        await ok(L, ['je', 'import', csv('april.csv', april)]);
        const tb = await ok(L, [
          'report',
          'tb',
          '--as-of',
          '2025-04-30',
          '--where',
          'project=',
          '--format',
          'csv',
          '--atoms',
        ]);
        expect(tb.split('\n').find((l) => l.includes('Operating Checking'))).toContain(
          `,,${1024n * M}`,
        );
      }));
  },
);
