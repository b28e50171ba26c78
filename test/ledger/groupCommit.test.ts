import { describe, expect, it } from 'vitest';
import { isBooksError } from '../../src/domain/errors.js';
import { SqliteLedger } from '../../src/ledger/sqlite/ledger.js';
import { snapshot, standardLedger } from '../e2e/helpers.js';

const entry = (amount: unknown, extra: Record<string, unknown> = {}) => ({
  entry_date: '2025-03-02',
  lines: [
    { gl_account_id: 'rent', line_type: 'debit', amount_atoms: amount },
    { gl_account_id: 'checking', line_type: 'credit', amount_atoms: amount },
  ],
  ...extra,
});

/** Runs a test on a fresh standard ledger, opened in this process. */
async function withLedger(
  test: (ledger: SqliteLedger, path: string) => Promise<void>,
): Promise<void> {
  const { ledger: path } = await standardLedger();
  const ledger = SqliteLedger.open(path);
  try {
    await test(ledger, path);
  } finally {
    await ledger.close();
  }
}

describe('posts requested together (one transaction, a savepoint each)', () => {
  it('answers each on its own: refusals and repeated keys touch nothing else; numbers stay gapless', () =>
    withLedger(async (ledger) => {
      const requests = [
        ledger.post(entry(100), { idempotencyKey: 'a' }),
        ledger.post(entry(0), { idempotencyKey: 'b' }), // invalid amount
        ledger.post(entry(200), { idempotencyKey: 'a' }), // the key 'a' posted just before, in the same transaction
        ledger.post(entry(300, { je_number: 'JE-1' }), { idempotencyKey: 'c' }), // JE-1 is taken by the first
        ledger.post(entry(400), { idempotencyKey: 'd' }),
        ledger.reverse('JE-1', { idempotencyKey: 'e', entryDate: '2025-03-03' }),
      ];
      const outcomes = await Promise.allSettled(requests);
      const summary = outcomes.map((o) =>
        o.status === 'fulfilled'
          ? o.value.je_number
          : isBooksError(o.reason)
            ? `${o.reason.code} ${o.reason.errors.map((p) => p.reason).join(',')}`
            : String(o.reason),
      );
      expect(summary).toEqual([
        'JE-1',
        'CAPI33 invalid_amount,invalid_amount',
        'CAPI34 duplicate_idempotency_key',
        'CAPI33 duplicate_je_number',
        'JE-2',
        'JE-3',
      ]);
      const listed = await ledger.listEntries({});
      expect(listed.map((e) => [e.je_number, e.total_debit_atoms, e.status])).toEqual([
        ['JE-1', 100, 'reversed'],
        ['JE-2', 400, 'posted'],
        ['JE-3', 100, 'posted'],
      ]);
      expect(ledger.checkInvariants()).toEqual([]);
      // The refused key 'b' was never recorded: the caller may retry with it.
      expect((await ledger.post(entry(5), { idempotencyKey: 'b' })).je_number).toBe('JE-4');
    }));

  it('leaves nothing of a lone post that fails half-way through its writes', () =>
    withLedger(async (ledger, path) => {
      // A fault after the entry's row is written and before its lines are (as a full disk would be).
      ledger.db.exec(
        `CREATE TRIGGER fault BEFORE INSERT ON journal_lines WHEN NEW.amount_atoms = 777 BEGIN SELECT RAISE(ABORT, 'simulated fault'); END`,
      );
      const before = snapshot(path);
      await expect(ledger.post(entry(777), { idempotencyKey: 'half' })).rejects.toThrow(
        'simulated fault',
      );
      ledger.db.exec('DROP TRIGGER fault');
      expect(snapshot(path)).toBe(before);
      expect((await ledger.post(entry(5), { idempotencyKey: 'half' })).je_number).toBe('JE-1');
      expect(ledger.checkInvariants()).toEqual([]);
    }));

  it('fails every post of a transaction that cannot commit, and writes none of them', () =>
    withLedger(async (ledger, path) => {
      const before = snapshot(path);
      // A reader that holds the whole file cannot stop a WAL commit; a second writer holding the
      // write lock can. Taking it here makes the group's BEGIN wait, then fail.
      const other = SqliteLedger.open(path);
      other.db.pragma('busy_timeout = 0');
      other.db.exec('BEGIN IMMEDIATE');
      ledger.db.pragma('busy_timeout = 50');
      const outcomes = await Promise.allSettled([
        ledger.post(entry(1), { idempotencyKey: 'x' }),
        ledger.post(entry(2), { idempotencyKey: 'y' }),
      ]);
      other.db.exec('ROLLBACK');
      await other.close();
      expect(
        outcomes.map((o) =>
          o.status === 'rejected' && isBooksError(o.reason) ? o.reason.code : o.status,
        ),
      ).toEqual(['unavailable', 'unavailable']);
      expect(snapshot(path)).toBe(before);
    }));
});
