import { describe, expect, it } from 'vitest';
import { isBooksError } from '../../src/domain/errors.js';
import { bestMatching } from '../../src/domain/matching.js';
import { firstRules } from '../../src/ledger/reconcile/ruleWorker.js';
import {
  callOnThread,
  RUNNING,
  RUNNING_EACH,
  WAITING,
  WAITING_EACH,
} from '../../src/ledger/runtime/threads.js';

/** (?:aa|a)+b as a class of strings: a pattern that runs until its thread is stopped. */
const SLOW = '/[\\q{aa|a}]+b/v';

describe('threads for long work (rule runs, automatic matches)', () => {
  it('run a bounded number at once, queue a bounded number, and refuse the rest at once, to retry', async () => {
    // Each from a ledger of its own: only the pool's own bounds apply.
    const runs = Array.from({ length: RUNNING + WAITING }, () =>
      firstRules([SLOW], ['a'.repeat(60)], 300, {}).catch((e: unknown) => e),
    );
    const started = Date.now();
    const refused = await firstRules(['x'], ['x'], 3000, {}).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(250);
    expect(isBooksError(refused) && refused.code).toBe('unavailable');
    expect(isBooksError(refused) && refused.details).toMatchObject({ retry_after: 1 });
    for (const r of await Promise.all(runs)) expect(String(r)).toContain('took more than 0.3 s');
    // Once they are done, there is room again.
    expect(await firstRules(['x'], ['x'], 3000, {})).toEqual([0]);
  });

  it("give one ledger no more than its share: another ledger's work still runs meanwhile", async () => {
    const greedy = {};
    const runs = Array.from({ length: RUNNING_EACH + WAITING_EACH }, () =>
      firstRules([SLOW], ['a'.repeat(60)], 500, greedy).catch((e: unknown) => e),
    );
    const more = await firstRules(['x'], ['x'], 3000, greedy).catch((e: unknown) => e);
    expect(isBooksError(more) && more.code).toBe('unavailable');
    // Another ledger's rules are read while the greedy one's slow patterns still run.
    const started = Date.now();
    expect(await firstRules(['x'], ['x'], 3000, {})).toEqual([0]);
    expect(Date.now() - started).toBeLessThan(1000);
    for (const r of await Promise.all(runs)) expect(String(r)).toContain('took more than 0.5 s');
  }, 60_000);

  it('work out a match off the event loop: the process goes on answering meanwhile', async () => {
    // The built module (npm test builds first), as books serve loads it.
    const module = new URL('../../dist/domain/matching.js', import.meta.url);
    const n = 8_000;
    const day = (i: number) => `2026-03-${String(1 + (i % 7)).padStart(2, '0')}`;
    const s = Array.from({ length: n }, (_, i) => ({
      date: day(i),
      amount: 4900,
      reference: `ref ${i}`,
      description: `PAYMENT FROM CUSTOMER ${i} LTD`,
    }));
    const l = Array.from({ length: n }, (_, i) => ({
      date: day(i * 3),
      amount: 4900,
      texts: [`JE-${i}`, `ref ${(i * 7) % n}`],
      counterparty_name: `customer ${(i * 11) % n} ltd`,
    }));
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    const started = Date.now();
    let pairs: unknown[];
    try {
      const never = () => new Error('no limit expected');
      pairs = await callOnThread({}, module, 'bestMatching', bestMatching, [s, l, 7] as const, {
        ms: 60_000,
        tooSlow: never,
        tooLarge: never,
      });
    } finally {
      clearInterval(timer);
    }
    const took = Date.now() - started;
    expect(pairs).toHaveLength(n);
    // A blocked loop would tick once at the end; a free one about every 10 ms.
    expect(ticks).toBeGreaterThan(took / 10 / 5);
  });
});
