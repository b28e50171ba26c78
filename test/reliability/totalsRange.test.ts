import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, fromTemplate, type FixtureLedger } from '../support/fixtures.js';
import { tempDir } from '../support/ledgers.js';

/** The largest amount of a line: 2^53 - 1 atoms. 1,024 of them stay 1,023 atoms under 2^63 - 1. */
const MOST = '90071992547409.91';
const HEADER = 'entry,entry_date,gl_account_id,line_type,amount,memo,tag:project';

/** CSV rows of `n` entries on `date`: `debit` debited with the line's tag (if any), `credit` credited. */
function entries(prefix: string, n: number, date: string, tag = '', amount = MOST): string[] {
  const rows: string[] = [];
  for (let i = 1; i <= n; i++)
    rows.push(
      `${prefix}${i},${date},checking,debit,${amount},${prefix} ${i},${tag}`,
      `${prefix}${i},${date},savings,credit,${amount},${prefix} ${i},`,
    );
  return rows;
}

function csv(dir: string, name: string, rows: string[]): string {
  const file = join(dir, name);
  writeFileSync(file, [HEADER, ...rows, ''].join('\n'));
  return file;
}

async function refused(L: FixtureLedger, args: string[]): Promise<void> {
  const r = await L.books(args);
  expect(r.exitCode, r.stderr).toBe(1);
  expect(r.stderr).toContain('CAPI33');
  expect(r.stderr).toContain('would pass 9223372036854775807 atoms');
}

// A month's total of an account, or of a tag on it, is kept as a 64-bit integer. A post that would
// take one past it is refused as bad input and writes nothing: SQLite added the two into an inexact
// real number, which every report and books check then failed on; a batch's own sum failed to bind.
describe.each(FIXTURES.map((f) => [f.name, f] as const))(
  'a total past 2^63 - 1 atoms on %s',
  (name, fixture) => {
    it('is refused (CAPI33, exit 1) by a post, an import and a large import, which write nothing', async () => {
      const L = await fromTemplate(fixture, 'standard');
      try {
        const dir = tempDir();
        const seed = await L.books([
          'je',
          'import',
          csv(dir, 'seed.csv', entries('S', 1024, '2025-03-03')),
        ]);
        expect(seed.exitCode, seed.stderr).toBe(0);
        const before = L.inspect();
        await refused(L, ['je', 'import', csv(dir, 'more.csv', entries('M', 3, '2025-03-04'))]);
        await refused(L, [
          'je',
          'post',
          '--date',
          '2025-03-05',
          '--debit',
          `checking=${MOST}`,
          '--credit',
          `savings=${MOST}`,
        ]);
        // Over a remote profile an import posts entry by entry: a batch's own sum is a local import's.
        if (name !== 'served') {
          const own = entries('O', 1025, '2025-04-01');
          await refused(L, ['je', 'import', csv(dir, 'own.csv', own)]);
          // Over 1 MiB: written on a writer thread (a file) or a pipelined connection (a database).
          const large = [
            ...entries('L', 14_000, '2025-05-01', 'p2', '1.00'),
            ...entries('X', 1, '2025-03-06'),
          ];
          await refused(L, ['je', 'import', csv(dir, 'large.csv', large)]);
        }
        expect(L.inspect()).toBe(before);
        expect(await L.check()).toEqual([]);
      } finally {
        await L.close();
      }
    });

    it('over many months may pass it: check passes and the trial balance says it exactly', async () => {
      const L = await fromTemplate(fixture, 'standard');
      try {
        const dir = tempDir();
        const both = [...entries('A', 1024, '2025-03-03'), ...entries('B', 1024, '2025-04-03')];
        const r = await L.books(['je', 'import', csv(dir, 'both.csv', both)]);
        expect(r.exitCode, r.stderr).toBe(0);
        expect(await L.check()).toEqual([]);
        if (name !== 'served') {
          const checked = await L.books(['check']);
          expect(checked.exitCode, checked.stderr).toBe(0);
        }
        const tb = await L.books(['report', 'tb', '--as-of', '2025-04-30', '--format', 'json']);
        expect(tb.exitCode, tb.stderr).toBe(0);
        const debit = /"debit": (\d+)/.exec(tb.stdout)?.[1];
        expect(BigInt(debit ?? 0)).toBe(2048n * BigInt(MOST.replace('.', '')));
      } finally {
        await L.close();
      }
    });

    it('may pass it along the way: the largest debit and credit on one account check, rebuild and report', async () => {
      const L = await fromTemplate(fixture, 'standard');
      try {
        const dir = tempDir();
        const seed = await L.books([
          'je',
          'import',
          csv(dir, 'seed.csv', entries('S', 1024, '2025-03-03', 'a')),
        ]);
        expect(seed.exitCode, seed.stderr).toBe(0);
        // Nets to nothing on checking and on its tag: a sum of the month's lines passes 2^63 - 1 on the way.
        const both = [
          '--date',
          '2025-03-04',
          '--tag',
          'project=a',
          '--debit',
          `checking=${MOST}`,
          '--credit',
          `checking=${MOST}`,
        ];
        const posted = await L.books(['je', 'post', ...both]);
        expect(posted.exitCode, posted.stderr).toBe(0);
        expect(await L.check()).toEqual([]);
        if (name !== 'served')
          for (const args of [['check'], ['rebuild']]) {
            const r = await L.books(args);
            expect(r.exitCode, r.stderr).toBe(0);
          }
        const most = 1024n * BigInt(MOST.replace('.', ''));
        // The 4th: the month's lines up to it are summed; the 31st: its total is read.
        for (const asOf of ['2025-03-04', '2025-03-31']) {
          const tb = await L.books([
            'report',
            'tb',
            '--as-of',
            asOf,
            '--where',
            'project=a',
            '--format',
            'json',
          ]);
          expect(tb.exitCode, tb.stderr).toBe(0);
          expect(BigInt(/"debit": (\d+)/.exec(tb.stdout)?.[1] ?? 0)).toBe(most);
        }
      } finally {
        await L.close();
      }
    });

    it("is refused where a tag's total passes, though the account's does not", async () => {
      const L = await fromTemplate(fixture, 'standard');
      try {
        const dir = tempDir();
        // Checking's month nets to nothing; its lines tagged p1 add up to 1,024 of the most.
        const back = entries('B', 1024, '2025-03-03').map((r) =>
          r.replace('checking,debit', 'checking,credit').replace('savings,credit', 'savings,debit'),
        );
        const seed = [...entries('S', 1024, '2025-03-03', 'p1'), ...back];
        const seeded = await L.books(['je', 'import', csv(dir, 'seed.csv', seed)]);
        expect(seeded.exitCode, seeded.stderr).toBe(0);
        const before = L.inspect();
        await refused(L, [
          'je',
          'import',
          csv(dir, 'more.csv', entries('M', 1, '2025-03-04', 'p1')),
        ]);
        expect(L.inspect()).toBe(before);
        expect(await L.check()).toEqual([]);
      } finally {
        await L.close();
      }
    });
  },
);
