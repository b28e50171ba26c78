import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isBooksError } from '../../src/domain/errors.js';
import { JeNumbering, MAX_COUNTED_SEQ, type JeSeq } from '../../src/domain/jeNumber.js';
import { SqliteLedger } from '../../src/ledger/sqlite/ledger.js';
import { FIXTURES, fromTemplate } from '../support/fixtures.js';
import { cli } from '../support/cli.js';
import { BACK_TO_SCHEMA_12, copyTemplate, exec, tempDir } from '../support/ledgers.js';

// Whatever numbers callers and files choose, automatic numbering never gives a number twice and never
// stops; a number from a file never steers it.
const LINES = [
  { gl_account_id: 'rent', line_type: 'debit', amount_atoms: 100 },
  { gl_account_id: 'checking', line_type: 'credit', amount_atoms: 100 },
];

const TWO_62 = MAX_COUNTED_SEQ;
// Numbers where collisions live: small ones, those around 2^53 and 2^62, and past 2^63.
const chosen = fc.oneof(
  fc.bigInt({ min: 1n, max: 40n }),
  fc.bigInt({ min: 2n ** 53n - 3n, max: 2n ** 53n + 3n }),
  fc.bigInt({ min: TWO_62 - 3n, max: TWO_62 + 6n }),
  fc.bigInt({ min: 2n ** 63n - 2n, max: 2n ** 64n }),
);
const step = fc.oneof(
  fc.constant({ kind: 'auto' as const }),
  fc.record({ kind: fc.constant('caller' as const), n: chosen }),
  fc.record({ kind: fc.constant('file' as const), n: chosen }),
);

describe('JE numbering', () => {
  it('never gives a number twice, whatever callers and files chose (the domain rule)', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const numbering = new JeNumbering(0, () => null);
        const given = new Set<string>();
        let lastAuto = 0n;
        for (const s of steps) {
          const number = s.kind === 'auto' ? null : `JE-${s.n}`;
          // Validation refuses a number already taken: such a step is not posted.
          if (number && given.has(number)) continue;
          const seq = s.kind === 'auto' ? null : s.n < 2n ** 63n ? s.n : null;
          const n = numbering.assign(number, seq, s.kind === 'file');
          expect(given.has(n.je_number), n.je_number).toBe(false);
          given.add(n.je_number);
          if (s.kind === 'auto') {
            const v = BigInt(n.je_number.slice(3));
            expect(v > lastAuto).toBe(true);
            lastAuto = v;
          }
        }
      }),
      { seed: 20261124, numRuns: 500 },
    );
  });

  it.each(FIXTURES.map((f) => [f.name, f] as const))(
    'never collides in a ledger on %s: callers’ numbers, files’ numbers, then automatic posts and an import',
    async (_name, fixture) => {
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), async (steps) => {
          const L = await fromTemplate(fixture, 'standard');
          const l = L.ledger;
          try {
            let i = 0;
            for (const s of steps) {
              const body = {
                entry_date: '2025-02-01',
                lines: LINES,
                ...(s.kind === 'auto' ? {} : { je_number: `JE-${s.n}` }),
              };
              const source = s.kind === 'file' ? 'csv_import' : 'manual_api';
              try {
                await l.journal.post(body, { idempotencyKey: `k${i++}`, source });
              } catch (e) {
                // Only a number already taken may be refused, and only as the caller's mistake.
                expect(isBooksError(e) && e.code === 'CAPI33', String(e)).toBe(true);
                expect((e as { errors: { reason: string }[] }).errors[0]!.reason).toBe(
                  'duplicate_je_number',
                );
              }
            }
            for (let k = 0; k < 3; k++)
              await l.journal.post(
                { entry_date: '2025-02-02', lines: LINES },
                { idempotencyKey: `a${k}` },
              );
            const batch = await l.journal.beginImport({ dryRun: false, allowDuplicates: true });
            const chunk = [0, 1, 2].map((k) => ({
              body: { entry_date: '2025-02-03', lines: LINES },
              fingerprint: `fp${k}`,
              hasRowProblems: false,
              row: k + 2,
            }));
            // A remote batch checks every entry first and posts them at commit.
            const status = l.capabilities.atomicImport ? 'posted' : 'would_post';
            expect(await batch.add(chunk)).toEqual(chunk.map(() => ({ status })));
            await batch.commit();
            expect(await L.check()).toEqual([]);
          } finally {
            await L.close();
          }
        }),
        { seed: 20261124, numRuns: 40 },
      );
    },
    60_000,
  );

  it.each(FIXTURES.map((f) => [f.name, f] as const))(
    'numbers an accrual and its reversal past a number a file took just above them on %s',
    async (_name, fixture) => {
      const L = await fromTemplate(fixture, 'standard');
      try {
        const post = (body: object, key: string, source?: string) =>
          L.ledger.journal.post(
            { entry_date: '2025-02-01', lines: LINES, ...body },
            { idempotencyKey: key, ...(source ? { source } : {}) },
          );
        for (let k = 0; k < 5; k++) await post({}, `p${k}`);
        // JE-7 is the file's: JE-6 is the next free number, JE-8 the one after it.
        await post({ je_number: 'JE-7' }, 'file', 'csv_import');
        const accrual = await post({ auto_reverse_on: '2025-03-01' }, 'accrual');
        const numbers = new Map((await L.journal()).map((e) => [e.je_number, e.memo]));
        expect(accrual.je_number).toBe('JE-6');
        expect([...numbers.keys()].sort()).toEqual(
          ['JE-1', 'JE-2', 'JE-3', 'JE-4', 'JE-5', 'JE-6', 'JE-7', 'JE-8'].sort(),
        );
        expect(await L.check()).toEqual([]);
      } finally {
        await L.close();
      }
    },
  );

  it('a ledger of the previous schema keeps the numbers it holds out of automatic numbering', async () => {
    const { ledger: file } = copyTemplate('standard');
    const l = SqliteLedger.open(file);
    for (const [k, n] of [
      '4611686018427387904',
      '4611686018427387905',
      '99999999999999999999',
    ].entries())
      await l.journal.post(
        { entry_date: '2025-02-01', lines: LINES, je_number: `JE-${n}` },
        { idempotencyKey: `m${k}` },
      );
    await l.close();
    // As schema 6 kept them: a number beyond 2^62 was only text (and no foreign currencies).
    exec(
      file,
      `DROP INDEX journal_entries_je_seq_uncounted;
       ALTER TABLE journal_entries DROP COLUMN je_seq_uncounted;
       DROP TABLE ledger_secrets;
       ${BACK_TO_SCHEMA_12}
       PRAGMA user_version = 6`,
    );
    const again = SqliteLedger.open(file);
    try {
      const e = await again.journal.post(
        { entry_date: '2025-02-02', lines: LINES },
        { idempotencyKey: 'after' },
      );
      expect(e.je_number).toBe('JE-4611686018427387906');
      expect((await again.maintenance.check()).problems).toEqual([]);
    } finally {
      await again.close();
    }
  });

  it('asks the store for numbers taken past the counter only when it reaches them', () => {
    // A ledger holding 200,000 file numbers from 1,000,000 on: posting asks once, not per number.
    const asked: JeSeq[] = [];
    const nextTaken = (from: JeSeq) => {
      asked.push(from);
      return BigInt(from) <= 1_199_999n ? (BigInt(from) < 1_000_000n ? 1_000_000 : from) : null;
    };
    const numbering = new JeNumbering(5, nextTaken);
    for (let i = 0; i < 100; i++) numbering.assign(null, null, false);
    expect(numbering.peek()).toBe('JE-106');
    expect(asked).toHaveLength(1);
    const near = new JeNumbering(999_998, nextTaken);
    expect([0, 1, 2].map(() => near.assign(null, null, false).je_number)).toEqual([
      'JE-999999',
      'JE-1200000',
      'JE-1200001',
    ]);
  });

  it.each(FIXTURES.map((f) => [f.name, f] as const))(
    'a QuickBooks file whose new journal comes before its numbered one imports whole on %s',
    async (_name, fixture) => {
      const L = await fromTemplate(fixture, 'standard');
      try {
        const file = join(tempDir(), 'q.csv');
        writeFileSync(
          file,
          'Journal No.,Journal Date,Memo,Account Name,Debits,Credits\n' +
            ',01/05/2025,Opening cash,Operating Checking,100.00,\n' +
            ",01/05/2025,Opening cash,Owner's Capital,,100.00\n" +
            '1,01/31/2025,Rent,Rent,10.00,\n1,01/31/2025,Rent,Operating Checking,,10.00\n',
        );
        expect(
          (await L.books(['je', 'import', file, '--preset', 'qbo', '--dry-run'])).exitCode,
        ).toBe(0);
        const r = await L.books(['je', 'import', file, '--preset', 'qbo']);
        expect(r.exitCode, r.stderr).toBe(0);
        const numbers: Record<string, string> = {};
        for await (const e of L.store.journal.list({})) numbers[e.memo!] = e.je_number;
        expect(numbers).toEqual({ 'Opening cash': 'JE-2', Rent: 'JE-1' });
        expect(await L.check()).toEqual([]);
      } finally {
        await L.close();
      }
    },
  );
});

// What callers and files choose, through the command line, in-process (each case reproduced on the
// main of 2026-11-22 before its fix).
function cliLedger() {
  const { dir, ledger } = copyTemplate('standard');
  const run = (args: string[], input?: string) =>
    cli([...args, '--ledger', ledger], { cwd: dir, ...(input !== undefined ? { input } : {}) });
  return { dir, ledger, run };
}

/** A `je post` of one amount from rent to checking, on a date. */
const postOn = (date: string, debit = 'rent=100', credit = 'checking=100', ...extra: string[]) => [
  ...['je', 'post', '--date', date, '--debit', debit, '--credit', credit],
  ...extra,
];

describe('numbers that cannot stop numbering', () => {
  it('numbers on exactly past a caller’s JE-(2^53 - 1), and past a number beyond 2^62', async () => {
    const L = cliLedger();
    expect(
      (
        await L.run(
          postOn('2025-02-01', 'rent=1', 'checking=1', '--je-number', 'JE-9007199254740991'),
        )
      ).exitCode,
    ).toBe(0);
    const numbers: string[] = [];
    for (let i = 0; i < 3; i++)
      numbers.push(
        JSON.parse((await L.run([...postOn('2025-02-02'), '--format', 'json'])).stdout).je_number,
      );
    expect(numbers).toEqual(['JE-9007199254740992', 'JE-9007199254740993', 'JE-9007199254740994']);
    expect(
      (
        await L.run(
          postOn('2025-02-03', 'rent=1', 'checking=1', '--je-number', '99999999999999999999'),
        )
      ).exitCode,
    ).toBe(0);
    expect(
      JSON.parse((await L.run([...postOn('2025-02-04'), '--format', 'json'])).stdout).je_number,
    ).toBe('JE-9007199254740995');
    expect((await L.run(['check'])).exitCode).toBe(0);
  });
});

describe('caller-chosen numbers never stop or steer numbering', () => {
  const numberOf = async (L: ReturnType<typeof ledger>, ...args: string[]) => {
    const r = await L.run([...postOn('2025-02-05'), ...args, '--format', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    return JSON.parse(r.stdout).je_number as string;
  };

  it('2^62 (counted) then 2^62 + 1 (kept): later posts and imports pass over it; check is clean', async () => {
    const L = cliLedger();
    expect(await numberOf(L, '--je-number', 'JE-4611686018427387904')).toBe(
      'JE-4611686018427387904',
    );
    expect(await numberOf(L, '--je-number', 'JE-4611686018427387905')).toBe(
      'JE-4611686018427387905',
    );
    expect(await numberOf(L)).toBe('JE-4611686018427387906');
    const file = join(L.dir, 'more.csv');
    writeFileSync(
      file,
      'entry,entry_date,gl_account_id,debit,credit\n1,2025-02-06,rent,1,\n1,,checking,,1\n',
    );
    const r = await L.run(['je', 'import', file]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(await numberOf(L)).toBe('JE-4611686018427387908');
    expect((await L.run(['check'])).exitCode).toBe(0);
  });

  it('a number from a file is kept and never steers the next one (QuickBooks Journal No. 5001)', async () => {
    const L = cliLedger();
    expect(await numberOf(L)).toBe('JE-1');
    const file = join(L.dir, 'qbo.csv');
    writeFileSync(
      file,
      'Journal No.,Journal Date,Account Name,Debits,Credits\n' +
        '5001,01/31/2025,Rent,10.00,\n5001,01/31/2025,Operating Checking,,10.00\n' +
        '2,01/31/2025,Rent,11.00,\n2,01/31/2025,Operating Checking,,11.00\n',
    );
    const r = await L.run(['je', 'import', file, '--preset', 'qbo']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect((await L.run(['je', 'show', 'JE-5001'])).exitCode).toBe(0);
    // JE-2 is the file's: the next automatic number passes over it.
    expect(await numberOf(L)).toBe('JE-3');
    expect((await L.run(['check'])).exitCode).toBe(0);
  });

  it('a number the file gives stays the file’s: an earlier entry without one is numbered past it', async () => {
    // However the file's chunks fall (the last entry is checked after the others are written), with
    // a dry run first that says the same.
    for (const tail of ['', 'c,,2025-02-01,rent,3,\nc,,2025-02-01,checking,,3\n']) {
      const L = cliLedger();
      const file = join(L.dir, 'mixed.csv');
      writeFileSync(
        file,
        'entry,je_number,entry_date,gl_account_id,debit,credit\n' +
          'a,,2025-02-01,rent,1,\na,,2025-02-01,checking,,1\n' +
          'b,JE-1,2025-02-01,rent,2,\nb,,2025-02-01,checking,,2\n' +
          tail,
      );
      expect((await L.run(['je', 'import', file, '--dry-run'])).exitCode).toBe(0);
      const r = await L.run(['je', 'import', file]);
      expect(r.exitCode, r.stderr).toBe(0);
      const list = await L.run(['je', 'list', '--format', 'csv']);
      const byAmount = new Map(
        list.stdout
          .trim()
          .split('\n')
          .slice(1)
          .map((l) => l.split(','))
          .filter((c) => c[8] !== '')
          .map((c) => [c[8], c[1]]),
      );
      expect(byAmount.get('2.00')).toBe('JE-1');
      expect(byAmount.get('1.00')).toBe('JE-2');
      if (tail) expect(byAmount.get('3.00')).toBe('JE-3');
      expect((await L.run(['check'])).exitCode).toBe(0);
    }
  });

  it('JE-0, given by a caller or a file, is a number like any other: check passes', async () => {
    const L = cliLedger();
    expect(await numberOf(L, '--je-number', '0')).toBe('JE-0');
    const file = join(L.dir, 'zero.csv');
    writeFileSync(
      file,
      'entry,je_number,entry_date,gl_account_id,debit,credit\n' +
        'a,JE-000,2025-02-01,rent,1,\na,,2025-02-01,checking,,1\n',
    );
    expect((await L.run(['je', 'import', file])).stderr).toContain('duplicate_je_number');
    expect(await numberOf(L)).toBe('JE-1');
    expect((await L.run(['check'])).exitCode).toBe(0);
  });

  it('check names a number kept where numbering cannot see it', async () => {
    const L = cliLedger();
    await numberOf(L);
    exec(L.ledger, `UPDATE journal_entries SET je_seq = NULL WHERE je_number = 'JE-1'`);
    const r = await L.run(['check']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('journal_entries[JE-1]: JE-1 is kept for numbering not at all');
  });
});
