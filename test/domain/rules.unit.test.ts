import { describe, expect, it } from 'vitest';
import { explainDifference, type Candidate } from '../../src/domain/difference.js';
import { booksStartRule, dateBar, lockRule } from '../../src/domain/entityRules.js';
import { isBooksError } from '../../src/domain/errors.js';
import { keyId, keyPermissions, mintKey } from '../../src/domain/keys.js';
import { rebuildRunning, type Processes } from '../../src/domain/rebuild.js';
import { readCounterpartyRef } from '../../src/domain/reportQueries.js';

/** The code a rule throws, or 'passes'. */
function code(run: () => unknown): string {
  try {
    run();
    return 'passes';
  } catch (e) {
    if (!isBooksError(e)) throw e;
    return e.code;
  }
}

describe('the entity’s dates (domain/entityRules.ts)', () => {
  const entity = { books_start: '2025-01-01', lock_date: '2025-03-31' };

  it('bar posting before the First Month of Books, then through the lock date', () => {
    expect(dateBar(entity, '2024-12-31')).toEqual({
      reason: 'before_books_start',
      books_start: '2025-01-01',
    });
    expect(dateBar(entity, '2025-03-31')).toEqual({
      reason: 'period_closed',
      lock_date: '2025-03-31',
    });
    expect(dateBar(entity, '2025-04-01')).toBeNull();
    expect(dateBar({ books_start: null, lock_date: null }, '1999-01-01')).toBeNull();
  });

  it('start the books only after no entry, and reopen a period only when asked', () => {
    expect(booksStartRule('2025-02', undefined)).toBe('2025-02-01');
    expect(
      code(() => booksStartRule('2025-02', { je_number: 'JE-1', entry_date: '2025-01-09' })),
    ).toBe('CAPI33');
    expect(code(() => lockRule('2025-03-31', '2025-02-28', false))).toBe('usage');
    expect(code(() => lockRule('2025-03-31', '2025-02-28', true))).toBe('passes');
    expect(code(() => lockRule('2025-03-31', '2025-04-30', false))).toBe('passes');
  });
});

describe('a rebuild’s mark (domain/rebuild.ts)', () => {
  const here: Processes = { host: 'h1', alive: (pid) => pid === 42 };
  const now = Date.parse('2025-06-01T12:00:00Z');
  const mark = (owner: string, minutesAgo = 1) => ({
    rebuild_started_at: new Date(now - minutesAgo * 60_000).toISOString(),
    rebuild_owner: owner,
  });

  it('holds while its process on this machine lives, and is taken over once it is dead', () => {
    expect(rebuildRunning(mark('h1:42:7'), now, here)).toBe(true);
    expect(rebuildRunning(mark('h1:43:7'), now, here)).toBe(false);
    expect(rebuildRunning({ rebuild_started_at: null, rebuild_owner: null }, now, here)).toBe(
      false,
    );
  });

  it('from another machine, is believed for ten minutes', () => {
    expect(rebuildRunning(mark('h2:42:7', 9), now, here)).toBe(true);
    expect(rebuildRunning(mark('h2:42:7', 11), now, here)).toBe(false);
  });
});

describe('API keys (domain/keys.ts)', () => {
  it('open with their own secret only, until revoked', () => {
    const { id, key, hash } = mintKey();
    expect(keyId(key)).toBe(id);
    expect(id.startsWith('-')).toBe(false);
    const stored = {
      key_hash: hash,
      permissions: ['customer_api:read' as const],
      revoked_at: null,
    };
    expect(keyPermissions(key, stored)).toEqual(['customer_api:read']);
    expect(keyPermissions(key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A'), stored)).toBeNull();
    expect(keyPermissions(key, { ...stored, revoked_at: '2025-01-01T00:00:00Z' })).toBeNull();
    expect(keyPermissions(key, undefined)).toBeNull();
    expect(keyId('bk.short.x')).toBeNull();
  });
});

describe('what explains a reconciliation’s difference (domain/difference.ts)', () => {
  const c = (name: string, amount: number, date: string): Candidate => ({
    name,
    kind: 'ledger',
    date,
    amount_atoms: amount,
    description: null,
  });

  it('names single lines of the difference and pairs that add up to it, nearest the date first', () => {
    const items = [
      c('JE-1:1', 500, '2025-01-05'),
      c('JE-2:1', 200, '2025-01-20'),
      c('JE-3:1', 300, '2025-01-25'),
      c('JE-4:1', 500, '2025-01-28'),
      c('JE-5:1', 7, '2025-01-30'),
    ];
    const found = explainDifference(500n, items);
    expect(found.singles.map((x) => x.name)).toEqual(['JE-4:1', 'JE-1:1']);
    expect(found.pairs.map(([x, y]) => [x.name, y.name])).toEqual([['JE-3:1', 'JE-2:1']]);
    expect(explainDifference(1n, items)).toEqual({ singles: [], pairs: [] });
  });
});

describe('a counterparty as a filter names it (TYPE:ID)', () => {
  it('reads the three types, an id with colons, and nothing else', () => {
    expect(readCounterpartyRef(' customer:C:001 ')).toEqual({
      type: 'customer',
      external_id: 'C:001',
    });
    expect(readCounterpartyRef('vendor:V1')).toEqual({ type: 'vendor', external_id: 'V1' });
    expect(readCounterpartyRef('client:C1')).toBeNull();
    expect(readCounterpartyRef('customer:')).toBeNull();
  });
});
