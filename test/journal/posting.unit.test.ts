import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Entity } from '../../src/domain/accounts.js';
import { isBooksError } from '../../src/domain/errors.js';
import {
  canonicalJson,
  IDEMPOTENCY_WINDOW_MS,
  idempotencyKeyProblem,
  requestHash,
} from '../../src/domain/idempotency.js';
import {
  autoReversalOf,
  importGates,
  reversalBody,
  wantsOf,
  writeGates,
  type Reversible,
  type UsedKey,
} from '../../src/domain/posting.js';
import type { ValidEntry } from '../../src/domain/entry.js';
import { JsonFraction } from '../../src/domain/json.js';

const ENTITY: Entity = {
  id: 'ent_1',
  name: 'Test Co',
  currency: 'USD',
  books_start: '2025-01-01',
  fiscal_year_start_month: 1,
  lock_date: null,
};
const NOW = Date.UTC(2025, 5, 1);
const used = (agoMs: number, hash = 'h1'): UsedKey => ({
  request_hash: hash,
  journal_entry_id: 'je_1',
  created_at_ms: NOW - agoMs,
  je_number: 'JE-7',
});

/** The code and details a gate refuses with, or 'passes'. */
function refusal(run: () => void): string {
  try {
    run();
    return 'passes';
  } catch (e) {
    if (!isBooksError(e)) throw e;
    return [e.code, e.message].join(': ');
  }
}

describe('the checks of a write before its content (writeGates), in their order', () => {
  it('refuses without a First Month of Books first (CAPI67), whatever else is wrong', () => {
    const entity = { ...ENTITY, books_start: null };
    expect(refusal(() => writeGates(entity, true, used(0), 'h1', NOW))).toMatch(/^CAPI67/);
    expect(refusal(() => importGates(entity, true))).toMatch(/^CAPI67/);
  });

  it('then a rebuild under way (CAPI73, retryable), before the key', () => {
    expect(refusal(() => writeGates(ENTITY, true, used(0), 'h1', NOW))).toMatch(/^CAPI73/);
    expect(refusal(() => importGates(ENTITY, true))).toMatch(/^CAPI73/);
  });

  it('then a key used within the hour: the same request is told which entry it posted', () => {
    expect(refusal(() => writeGates(ENTITY, false, used(1000), 'h1', NOW))).toBe(
      'CAPI34: idempotency key already used within the hour: it posted JE-7',
    );
    expect(refusal(() => writeGates(ENTITY, false, used(1000), 'h2', NOW))).toMatch(
      /^CAPI34: .* by JE-7, for a different request/,
    );
  });

  it('forgets a key after the hour, and passes a sound write', () => {
    expect(refusal(() => writeGates(ENTITY, false, used(IDEMPOTENCY_WINDOW_MS), 'h2', NOW))).toBe(
      'passes',
    );
    expect(refusal(() => writeGates(ENTITY, false, undefined, 'h1', NOW))).toBe('passes');
    expect(refusal(() => importGates(ENTITY, false))).toBe('passes');
  });
});

describe('idempotency keys', () => {
  it('are refused missing, blank, too long, or with what a header cannot carry', () => {
    expect(idempotencyKeyProblem(undefined)?.reason).toBe('missing_idempotency_key');
    expect(idempotencyKeyProblem('  ')?.reason).toBe('missing_idempotency_key');
    expect(idempotencyKeyProblem('k'.repeat(129))?.message).toContain('129 characters');
    expect(idempotencyKeyProblem('k'.repeat(128))).toBeNull();
    expect(idempotencyKeyProblem('café')?.reason).toBe('invalid_idempotency_key');
    expect(idempotencyKeyProblem(' lead')?.reason).toBe('invalid_idempotency_key');
    expect(idempotencyKeyProblem('order 42/a')).toBeNull();
  });

  it('tell a repeated request from another by its content, not its key order', () => {
    const a = { memo: 'x', lines: [{ amount_atoms: 5, gl_account_id: 'cash' }] };
    const b = { lines: [{ gl_account_id: 'cash', amount_atoms: 5 }], memo: 'x' };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(requestHash('POST /v1/journal-entries', a)).toBe(
      requestHash('POST /v1/journal-entries', b),
    );
    expect(requestHash('POST /v1/journal-entries', a)).not.toBe(
      requestHash('POST /v1/journal-entries', { ...a, memo: 'y' }),
    );
    expect(requestHash('POST /v1/journal-entries', a)).not.toBe(requestHash('POST /other', a));
  });

  // A key used before an upgrade is still compared within its window: the text and the hash of a
  // body must be what every earlier build made of it (this oracle is how they made it).
  it('hash a body as earlier builds did, whatever its shape', () => {
    const before = (v: unknown): string => {
      if (Array.isArray(v)) return `[${v.map(before).join(',')}]`;
      if (typeof v === 'bigint' || v instanceof JsonFraction) return String(v);
      if (v && typeof v === 'object') {
        const o = v as Record<string, unknown>;
        const keys = Object.keys(o).sort();
        return `{${keys.map((k) => `${JSON.stringify(k)}:${before(o[k])}`).join(',')}}`;
      }
      return JSON.stringify(v) ?? 'null';
    };
    const leaf = fc.oneof(
      fc.jsonValue({ maxDepth: 0 }),
      fc.string({ unit: 'binary' }),
      fc.bigInt(),
      fc.constant(undefined),
      fc.integer().map((n) => new JsonFraction(`${n}.50`)),
    );
    const value = fc.letrec((tie) => ({
      v: fc.oneof(
        { depthSize: 'small' },
        leaf,
        fc.array(tie('v'), { maxLength: 4 }),
        fc.dictionary(fc.string({ unit: 'binary', maxLength: 6 }), tie('v'), { maxKeys: 5 }),
      ),
    })).v;
    fc.assert(
      fc.property(value, (v) => {
        expect(canonicalJson(v)).toBe(before(v));
        const old = createHash('sha256').update('POST /x').update('\0').update(before(v));
        expect(requestHash('POST /x', v)).toBe(old.digest('hex'));
      }),
      { numRuns: 500 },
    );
  });
});

describe('what a post looks up (wantsOf)', () => {
  it('names each account, counterparty and JE number once, and nothing a ledger cannot hold', () => {
    const line = (account: string, id = 'acme') => ({
      gl_account_id: account,
      counterparty_type: 'customer',
      counterparty_external_id: id,
    });
    const wants = wantsOf([
      { je_number: 'je-0012', lines: [line('cash'), line('sales')] },
      { lines: [line('cash', 'a\u0000b'), line('x\u0000y'), 'not a line'] },
      'not an entry',
    ]);
    expect([...wants.accounts]).toEqual(['cash', 'sales']);
    expect([...wants.counterparties]).toEqual(['customer\u0000acme']);
    expect([...wants.jeNumbers]).toEqual(['JE-12']);
  });
});

describe('reversals', () => {
  const original: Reversible = {
    je_number: 'JE-3',
    entry_date: '2025-03-10',
    currency: 'USD',
    is_adjusting: true,
    reversed_by: [],
    lines: [
      {
        gl_account_id: 'cash',
        line_type: 'debit',
        amount_atoms: 500,
        memo: 'in',
        counterparty_type: null,
        counterparty_external_id: null,
      },
      {
        gl_account_id: 'ar',
        line_type: 'credit',
        amount_atoms: 500,
        memo: null,
        counterparty_type: 'customer',
        counterparty_external_id: 'acme',
      },
    ],
  };

  it('swap every side, keep accounts, amounts and counterparties, and name the original', () => {
    expect(reversalBody(original, '2025-04-01')).toEqual({
      entry_date: '2025-04-01',
      currency: 'USD',
      memo: 'Reversal of JE-3',
      is_adjusting: true,
      lines: [
        { gl_account_id: 'cash', line_type: 'credit', amount_atoms: 500, memo: 'in' },
        {
          gl_account_id: 'ar',
          line_type: 'debit',
          amount_atoms: 500,
          counterparty_type: 'customer',
          counterparty_external_id: 'acme',
        },
      ],
    });
  });

  it('are refused for an entry reversed already, or dated before it (CAPI33)', () => {
    expect(refusal(() => reversalBody({ ...original, reversed_by: ['JE-4'] }, undefined))).toMatch(
      /^CAPI33: .*JE-3 is already reversed by JE-4/,
    );
    expect(refusal(() => reversalBody(original, '2025-03-09'))).toMatch(/^CAPI33/);
    expect(refusal(() => reversalBody(original, undefined))).toBe('passes');
  });

  it('of an accrual: on its reversal date, sides swapped, numbered afresh', () => {
    const accrual = {
      entry_date: '2025-03-31',
      auto_reverse_on: '2025-04-01',
      je_number: 'JE-9',
      je_seq: 9n,
      memo: 'accrued rent',
      manual_entry_reason: 'month end',
      lines: [
        { line_type: 'debit', amount_atoms: 7 },
        { line_type: 'credit', amount_atoms: 7 },
      ],
    } as unknown as ValidEntry;
    const r = autoReversalOf(accrual, 'JE-9');
    expect(r).toMatchObject({
      entry_date: '2025-04-01',
      je_number: null,
      je_seq: null,
      memo: 'Reversal of JE-9',
      manual_entry_reason: null,
      auto_reverse_on: null,
    });
    expect(r.lines.map((l) => l.line_type)).toEqual(['credit', 'debit']);
  });
});
