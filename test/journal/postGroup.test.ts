import { describe, expect, it } from 'vitest';
import { isBooksError } from '../../src/domain/errors.js';
import type { JournalEntry } from '../../src/domain/entry.js';
import {
  FIXTURES,
  fromTemplate,
  pgFixture,
  sqliteFixture,
  type FixtureLedger,
  type LedgerFixture,
} from '../support/fixtures.js';

const LINES = (amount: number) => [
  { gl_account_id: 'rent', line_type: 'debit', amount_atoms: amount },
  { gl_account_id: 'checking', line_type: 'credit', amount_atoms: amount },
];
const entry = (amount: number, date = '2025-03-02', extra: object = {}) => ({
  entry_date: date,
  lines: LINES(amount),
  ...extra,
});

/** How a request ended: its JE number, or its error's code and first reason. */
const ended = (o: PromiseSettledResult<{ je_number: string }>) =>
  o.status === 'fulfilled'
    ? o.value.je_number
    : isBooksError(o.reason)
      ? `${o.reason.code} ${o.reason.errors[0]?.reason ?? ''}`.trim()
      : String(o.reason);

/** Runs a test on a new ledger of the fixture, with a post under a key. */
async function onLedger(
  fixture: LedgerFixture,
  test: (
    L: FixtureLedger,
    post: (body: object, key: string) => Promise<JournalEntry>,
  ) => Promise<void>,
): Promise<void> {
  const L = await fromTemplate(fixture, 'standard');
  try {
    await test(L, (body, key) => L.ledger.journal.post(body, { idempotencyKey: key }));
  } finally {
    await L.close();
  }
}

// Posts requested together on a database are checked against one reading of their facts and written
// in one round trip (journal/postGroup.ts); on every store they must end as posted one by one would.
describe.each(FIXTURES.map((f) => [f.name, f] as const))(
  'posts requested together on %s',
  (_n, fixture) => {
    it('a refused post fails alone, a key given twice posts once, numbers follow the order asked', async () => {
      await onLedger(fixture, async (L, post) => {
        const outcomes = await Promise.allSettled([
          post(entry(100), 'a'),
          post(entry(0), 'b'), // an amount of zero is refused
          post(entry(200), 'c'),
          post(entry(100), 'a'), // the same request again, in the same group
          post(entry(300), 'a'), // another request under the same key
          post(entry(400, '2025-03-03', { tags: { project: 'alpha' } }), 'd'),
          post({ ...entry(500), auto_reverse_on: '2025-04-01' }, 'e'),
          post(entry(600), 'f'),
        ]);
        expect(outcomes.map(ended)).toEqual([
          'JE-1',
          'CAPI33 invalid_amount',
          'JE-2',
          'CAPI34 duplicate_idempotency_key',
          'CAPI34 duplicate_idempotency_key',
          'JE-3',
          'JE-4',
          'JE-6',
        ]);
        const stored = (await L.journal()).map((e) => e.je_number);
        expect(stored).toEqual(['JE-1', 'JE-2', 'JE-3', 'JE-4', 'JE-5', 'JE-6']);
        expect(await L.check()).toEqual([]);
        // A key refused in the group was never recorded: the caller may use it.
        expect((await post(entry(7), 'b')).je_number).toBe('JE-7');
      });
    });

    it('a post that names its number and a reversal keep their place among grouped posts', async () => {
      await onLedger(fixture, async (L, post) => {
        const outcomes = await Promise.allSettled([
          post(entry(1), 'K'),
          post(entry(2, '2025-03-02', { je_number: 'INV-1' }), 'K'),
          post(entry(3), 'L'),
          post(entry(4, '2025-03-02', { je_number: 'JE-2' }), 'M'),
          L.ledger.journal.reverse('JE-1', { idempotencyKey: 'R' }),
          post(entry(5), 'N'),
        ]);
        expect(outcomes.map(ended)).toEqual([
          'JE-1',
          'CAPI34 duplicate_idempotency_key',
          'JE-2',
          'CAPI33 duplicate_je_number',
          'JE-3',
          'JE-4',
        ]);
        expect(await L.check()).toEqual([]);
      });
    });

    it('posts interleaved with an import and a lock-date change end as each alone would', async () => {
      await onLedger(fixture, async (L, post) => {
        const imported = async () => {
          const batch = await L.ledger.journal.beginImport({
            dryRun: false,
            allowDuplicates: false,
          });
          const chunk = [0, 1, 2].map((k) => ({
            body: entry(10 + k, '2025-03-05'),
            fingerprint: `fp${k}`,
            hasRowProblems: false,
            row: k + 2,
          }));
          try {
            await batch.add(chunk);
            await batch.commit();
          } catch (e) {
            // As every caller does: a batch that failed gives its transaction back.
            await batch.rollback();
            throw e;
          }
        };
        const march = Array.from({ length: 6 }, (_, i) => post(entry(1000 + i), `m${i}`));
        const february = Array.from({ length: 4 }, (_, i) =>
          post(entry(2000 + i, '2025-02-10'), `f${i}`),
        );
        const [fileDone, locked, ...rest] = await Promise.allSettled([
          imported(),
          // Through the store: a remote profile does not close the books.
          L.store.entity.closeThrough('2025-02-28', false),
          ...march,
          ...february,
        ]);
        expect(locked!.status, String((locked as PromiseRejectedResult).reason)).toBe('fulfilled');
        const ends = rest.map((o) => ended(o as PromiseSettledResult<{ je_number: string }>));
        // Every March post posted; each February post posted before the lock, or refused by it.
        expect(ends.slice(0, 6).every((e) => /^JE-\d+$/.test(e))).toBe(true);
        for (const e of ends.slice(6)) expect(e).toMatch(/^(JE-\d+|CAPI33 period_closed)$/);
        const stored = await L.journal();
        const posted = ends.filter((e) => e.startsWith('JE-')).length;
        // The import posted whole, or (the lock date moved while it waited) nothing, saying so.
        if (fileDone!.status === 'rejected')
          expect(String(fileDone.reason)).toContain(
            'lock date or the First Month of Books changed',
          );
        expect(stored.length).toBe(posted + (fileDone!.status === 'fulfilled' ? 3 : 0));
        expect(stored.map((e) => e.je_number).sort()).toEqual(
          Array.from({ length: stored.length }, (_, i) => `JE-${i + 1}`).sort(),
        );
        expect(await L.check()).toEqual([]);
      });
    });
  },
);

describe.each([sqliteFixture, pgFixture].map((f) => [f.name, f] as const))(
  'an import refused under the lock on %s',
  (_n, fixture) => {
    it('gives the lock back at once, before its caller rolls back', async () => {
      await onLedger(fixture, async (L) => {
        const batch = await L.ledger.journal.beginImport({ dryRun: false, allowDuplicates: false });
        // The lock date moves between the import's start and its first write.
        await L.ledger.entity.closeThrough('2025-01-31', false);
        const chunk = [{ body: entry(10), fingerprint: 'fp', hasRowProblems: false, row: 2 }];
        await expect(batch.add(chunk)).rejects.toThrow(
          'lock date or the First Month of Books changed',
        );
        // Not rolled back yet: a post goes through all the same.
        expect((await L.ledger.journal.post(entry(5), { idempotencyKey: 'after' })).je_number).toBe(
          'JE-1',
        );
        await batch.rollback();
        expect(await L.check()).toEqual([]);
      });
    });
  },
);
