import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, fromTemplate, type FixtureLedger } from '../support/fixtures.js';
import { tempDir } from '../support/ledgers.js';

/** The largest amount of a line: 2^53 - 1 atoms. 1,024 of them stay 1,023 atoms under 2^63 - 1. */
const MOST = '90071992547409.91';
const MOST_ATOMS = BigInt(MOST.replace('.', ''));
const HEADER = 'entry,entry_date,gl_account_id,line_type,amount,memo,tag:project';

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
  fn: (L: FixtureLedger, csv: (name: string, rows: string[]) => string) => Promise<void>,
): Promise<void> {
  const L = await fromTemplate(fixture, 'standard');
  try {
    const dir = tempDir();
    const csv = (name: string, rows: string[]) => {
      const file = join(dir, name);
      writeFileSync(file, [HEADER, ...rows, ''].join('\n'));
      return file;
    };
    await ok(L, ['je', 'import', csv('seed.csv', rows)]);
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
