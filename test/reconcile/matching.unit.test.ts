import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bestMatching, type LedgerSide, type StatementSide } from '../../src/domain/matching.js';
import { dayNumber } from '../../src/domain/dates.js';
import { hungarianMatching } from '../support/matchingOracle.js';

/** What the criteria weigh of a matching, in their order: pairs, days, references, names. */
function score(s: StatementSide[], l: LedgerSide[], pairs: [number, number][]): number[] {
  let days = 0;
  let refs = 0;
  let names = 0;
  for (const [i, j] of pairs) {
    days += Math.abs(dayNumber(s[i]!.date) - dayNumber(l[j]!.date));
    const ref = s[i]!.reference?.toLowerCase();
    if (ref && l[j]!.texts.some((t) => t?.toLowerCase().includes(ref))) refs++;
    const name = l[j]!.counterparty_name?.toLowerCase();
    if (name && s[i]!.description?.toLowerCase().includes(name)) names++;
  }
  return [pairs.length, 0 - days || 0, refs, names];
}

/** Every matching by brute force: the best score any of them reaches. */
function bruteBest(s: StatementSide[], l: LedgerSide[], window: number): number[] {
  let best: number[] = [0, 0, 0, 0];
  const used = new Array<boolean>(l.length).fill(false);
  const walk = (i: number, pairs: [number, number][]) => {
    if (i === s.length) {
      const sc = score(s, l, pairs);
      if (better(sc, best)) best = sc;
      return;
    }
    walk(i + 1, pairs);
    for (let j = 0; j < l.length; j++) {
      if (used[j] || l[j]!.amount !== s[i]!.amount) continue;
      if (Math.abs(dayNumber(s[i]!.date) - dayNumber(l[j]!.date)) > window) continue;
      used[j] = true;
      walk(i + 1, [...pairs, [i, j]]);
      used[j] = false;
    }
  };
  walk(0, []);
  return best;
}

const better = (a: number[], b: number[]) => {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! > b[i]!;
  return false;
};

const date = fc.integer({ min: 1, max: 20 }).map((d) => `2026-01-${String(d).padStart(2, '0')}`);
const amount = fc.constantFrom(100, 250, -100, 999);
const word = fc.constantFrom('acme', 'globex', 'initech', null);
const statementLine = fc.record({
  date,
  amount,
  reference: fc.constantFrom('1001', '1002', null),
  description: word.map((w) => (w ? `payment ${w} ltd` : null)),
});
const ledgerLine = fc.record({
  date,
  amount,
  texts: fc.tuple(fc.constantFrom('JE-1001', 'JE-7', null), fc.constantFrom('chq 1002', null)),
  counterparty_name: word,
});

describe('automatic matching', () => {
  it('reaches what a brute-force search of every matching finds best, criterion by criterion', () => {
    fc.assert(
      fc.property(
        fc.array(statementLine, { maxLength: 7 }),
        fc.array(ledgerLine, { maxLength: 7 }),
        fc.integer({ min: 0, max: 10 }),
        (s, l, window) => {
          const ledger = l.map((x) => ({ ...x, texts: [...x.texts] }));
          const pairs = bestMatching(s, ledger, window);
          const seenL = new Set(pairs.map((p) => p.ledger));
          expect(seenL.size).toBe(pairs.length);
          for (const p of pairs) {
            expect(s[p.statement]!.amount).toBe(ledger[p.ledger]!.amount);
            expect(p.days).toBeLessThanOrEqual(window);
          }
          const ours = score(
            s,
            ledger,
            pairs.map((p) => [p.statement, p.ledger]),
          );
          expect(ours).toEqual(bruteBest(s, ledger, window));
        },
      ),
      { numRuns: 600 },
    );
  });

  it('reaches what the Hungarian method finds best on groups of tens of lines, ties and all', () => {
    const words = ['acme', 'globex', 'initech', 'acme corp', 'x'];
    const line = <T>(extra: fc.Arbitrary<T>) =>
      fc.record({
        day: fc.integer({ min: 1, max: 12 }),
        amount: fc.constantFrom(100, 100, 100, 250),
        extra,
      });
    const statementLines = fc.array(
      line(fc.tuple(fc.constantFrom('1001', '10', 'corp', null), fc.constantFrom(...words, null))),
      { maxLength: 30 },
    );
    const ledgerLines = fc.array(
      line(fc.tuple(fc.constantFrom('JE-1001', 'chq 10', null), fc.constantFrom(...words, null))),
      { maxLength: 30 },
    );
    const date = (d: number) => `2026-03-${String(d).padStart(2, '0')}`;
    fc.assert(
      fc.property(statementLines, ledgerLines, fc.integer({ min: 0, max: 6 }), (ss, ll, window) => {
        const s = ss.map((x) => ({
          date: date(x.day),
          amount: x.amount,
          reference: x.extra[0],
          description: x.extra[1] && `PAYMENT ${x.extra[1].toUpperCase()} LTD`,
        }));
        const l = ll.map((x) => ({
          date: date(x.day),
          amount: x.amount,
          texts: [x.extra[0], 'memo'],
          counterparty_name: x.extra[1],
        }));
        const ours = bestMatching(s, l, window).map(
          (p) => [p.statement, p.ledger] as [number, number],
        );
        expect(new Set(ours.map(([, j]) => j)).size).toBe(ours.length);
        expect(score(s, l, ours)).toEqual(score(s, l, hungarianMatching(s, l, window)));
      }),
      { numRuns: 300 },
    );
  });

  it('matches thousands of lines of one amount in one week, each with its own name, as well as can be', () => {
    // Every customer pays the same in the same week, and the books have each payment on its day:
    // any pairing within a day has no days, and only the names tell which is whose.
    const n = 2000;
    const day = (i: number) => `2026-03-${String(1 + (i % 7)).padStart(2, '0')}`;
    const s = Array.from({ length: n }, (_, i) => ({
      date: day(i),
      amount: 4900,
      reference: null,
      description: `PAYMENT FROM CUSTOMER ${i} LTD`,
    }));
    const l = Array.from({ length: n }, (_, k) => {
      const i = (k * 7919) % n; // the ledger in another order
      return {
        date: day(i),
        amount: 4900,
        texts: [`JE-${k}`],
        counterparty_name: `customer ${i} ltd`,
      };
    });
    const pairs = bestMatching(s, l, 7).map((p) => [p.statement, p.ledger] as [number, number]);
    expect(score(s, l, pairs)).toEqual([n, 0, 0, n]);
  });

  it('prefers fewer total days over a greedy nearest pick', () => {
    // Greedy by date would pair statement 0 with ledger 0 (1 day) and leave statement 1 unmatched.
    const s = [
      { date: '2026-01-05', amount: 100, reference: null, description: null },
      { date: '2026-01-01', amount: 100, reference: null, description: null },
    ];
    const l = [
      { date: '2026-01-04', amount: 100, texts: [], counterparty_name: null },
      { date: '2026-01-09', amount: 100, texts: [], counterparty_name: null },
    ];
    const pairs = bestMatching(s, l, 4);
    expect(pairs).toEqual([
      { statement: 0, ledger: 1, days: 4 },
      { statement: 1, ledger: 0, days: 3 },
    ]);
  });
});
