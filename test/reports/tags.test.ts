import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GlAccount } from '../../src/domain/accounts.js';
import type { JournalEntry } from '../../src/domain/entry.js';
import type { IncomeStatement, IncomeStatementNode } from '../../src/domain/incomeStatement.js';
import type { Ledger } from '../../src/ledger/port.js';
import type { TrialBalance } from '../../src/domain/trialBalance.js';
import { entry } from '../support/arbitraries.js';
import { FIXTURES, fromTemplate, type FixtureLedger } from '../support/fixtures.js';

const KEYS = ['project', 'class', 'location'] as const;
const VALUES = ['a', 'b', 'c'];
type Tags = Record<string, string>;
type Condition = { key: string; op: 'eq' | 'none' | 'ne'; value: string | null };

const tags = fc.dictionary(fc.constantFrom(...KEYS), fc.constantFrom(...VALUES), { maxKeys: 3 });
const some = (t: Tags) => Object.keys(t).length > 0;

/** A random balanced entry with random tags on the entry and on its lines. */
const tagged = entry.chain((e) =>
  fc
    .tuple(tags, fc.array(tags, { minLength: e.lines.length, maxLength: e.lines.length }))
    .map(([own, lines]) => ({
      ...e,
      ...(some(own) ? { tags: own } : {}),
      lines: e.lines.map((l, i) => (some(lines[i]!) ? { ...l, tags: lines[i] } : l)),
    })),
);

const condition: fc.Arbitrary<Condition> = fc
  .record({
    key: fc.constantFrom(...KEYS),
    op: fc.constantFrom('eq' as const, 'none' as const, 'ne' as const),
    value: fc.constantFrom(...VALUES),
  })
  .map((c) => (c.op === 'none' ? { ...c, value: null } : c));

/** Whether effective tags meet the conditions, written here apart from the ledger's own. */
const meets = (t: Tags, where: Condition[]) =>
  where.every((w) =>
    w.op === 'eq'
      ? t[w.key] === w.value
      : w.op === 'none'
        ? t[w.key] === undefined
        : t[w.key] !== w.value,
  );

const big = (v: unknown) => BigInt((v as number | bigint | null) ?? 0);

async function journal(store: Ledger): Promise<JournalEntry[]> {
  const out: JournalEntry[] = [];
  for await (const e of store.journal.list({})) out.push(e);
  return out;
}

/** Per account id: debits minus credits of the lines whose effective tags meet `where` (2025 only). */
function netsOf(entries: JournalEntry[], where: Condition[]): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const e of entries)
    for (const l of e.lines) {
      if (!meets({ ...e.tags, ...l.tags }, where)) continue;
      const net = BigInt(l.amount_atoms) * (l.line_type === 'debit' ? 1n : -1n);
      out.set(l.account_id, (out.get(l.account_id) ?? 0n) + net);
    }
  return out;
}

/** A trial balance's rows as debits minus credits by account id (zero rows left out). */
function tbNets(tb: TrialBalance, debit = 'debit', credit = 'credit'): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const r of tb.rows) {
    const net = big(r[debit]) - big(r[credit]);
    if (r.account_id && net !== 0n) out.set(r.account_id, net);
  }
  return out;
}

const nonzero = (m: Map<string, bigint>) => new Map([...m].filter(([, v]) => v !== 0n));

/** An income statement's accounts' own amounts in one column, by account id (nulls left out). */
function isCells(is: IncomeStatement, column: string): Map<string, bigint> {
  const out = new Map<string, bigint>();
  const walk = (n: IncomeStatementNode) => {
    if (n.account_id && n.own_amounts[column] != null)
      out.set(n.account_id, big(n.own_amounts[column]));
    n.children.forEach(walk);
  };
  for (const s of is.sections) s.children.forEach(walk);
  return out;
}

/** The income statement's sign of an account's debits minus credits. */
const sign = (a: GlAccount) => (['income', 'other_income'].includes(a.account_type) ? -1n : 1n);

describe.each(FIXTURES.map((f) => [f.name, f] as const))(
  'tags on %s (property)',
  (_name, fixture) => {
    let L: FixtureLedger;
    beforeAll(async () => {
      L = await fromTemplate(fixture, 'standard');
    });
    afterAll(async () => L?.close());

    it('--where reports only the lines that meet it; --columns-by adds up to the report without it', async () => {
      let key = 0;
      const accounts = await L.ledger.chart.accounts();
      const pl = new Map(
        accounts
          .filter((a) =>
            ['income', 'other_income', 'cost_of_goods_sold', 'expense', 'other_expense'].includes(
              a.account_type,
            ),
          )
          .map((a) => [a.id, a]),
      );
      const year = {
        start_date: '2025-01-01',
        end_date: '2025-12-31',
        period_type: 'yearly' as const,
      };
      await fc.assert(
        fc.asyncProperty(
          fc.array(tagged, { minLength: 1, maxLength: 5 }),
          fc.array(condition, { minLength: 1, maxLength: 2 }),
          fc.constantFrom(...KEYS),
          async (posts, where, by) => {
            for (const e of posts)
              await L.ledger.journal.post(e, { idempotencyKey: `tag-${++key}` });
            const entries = await journal(L.store);
            const [tb, is, all, split, tbSplit, tbAll] = await Promise.all([
              L.ledger.reports.trialBalance({ as_of: '2025-12-31', adjustments: 'include', where }),
              L.ledger.reports.incomeStatement({ ...year, where }),
              L.ledger.reports.incomeStatement(year),
              L.ledger.reports.incomeStatement({ ...year, columns_by: by }),
              L.ledger.reports.trialBalance({
                as_of: '2025-12-31',
                adjustments: 'include',
                columns_by: by,
              }),
              L.ledger.reports.trialBalance({ as_of: '2025-12-31', adjustments: 'include' }),
            ]);
            // --where: every account's balance is that of the lines that meet the conditions.
            expect(tbNets(tb)).toEqual(nonzero(netsOf(entries, where)));
            const expected = new Map(
              [...netsOf(entries, where)]
                .filter(([id]) => pl.has(id))
                .map(([id, net]) => [id, sign(pl.get(id)!) * net]),
            );
            const cells = isCells(is, '2025');
            for (const [id, v] of expected) expect(cells.get(id) ?? 0n).toBe(v);
            for (const id of cells.keys()) expect(expected.has(id)).toBe(true);
            // --columns-by: Total is the statement without it, cell for cell; each value's column is
            // its lines' (and (none) those without the key).
            expect(split.periods.map((p) => p.id).at(-1)).toBe('total');
            expect(isCells(split, 'total')).toEqual(isCells(all, '2025'));
            for (const p of split.periods) {
              if (p.id === 'total') continue;
              const value = p.id.slice(by.length + 1);
              const w: Condition[] =
                value === '(none)'
                  ? [{ key: by, op: 'none', value: null }]
                  : [{ key: by, op: 'eq', value }];
              const want = new Map(
                [...netsOf(entries, w)]
                  .filter(([id]) => pl.has(id))
                  .map(([id, net]) => [id, sign(pl.get(id)!) * net]),
              );
              const got = isCells(split, p.id);
              for (const [id, v] of want) expect(got.get(id) ?? 0n).toBe(v);
            }
            expect(tbNets(tbSplit)).toEqual(tbNets(tbAll));
            expect(tbSplit.totals.debit).toBe(tbAll.totals.debit);
          },
        ),
        { seed: 20261126, numRuns: 15 },
      );
      expect(await L.check()).toEqual([]);
    });

    it('an import keeps its tag:KEY columns, and the totals by tag it adds are the lines’', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'books-tags-'));
      const file = join(dir, 'tagged.csv');
      writeFileSync(
        file,
        'entry,entry_date,gl_account_id,debit,credit,tag:project,tag:location\n' +
          '1,2025-02-10,utilities,80.00,,zeta,nyc\n1,2025-02-10,checking,,80.00,zeta,\n' +
          '2,2025-02-11,rent,10.00,,omega,\n2,2025-02-11,checking,,10.00,,\n',
      );
      const r = await L.books(['je', 'import', file]);
      expect(r.exitCode, r.stderr).toBe(0);
      const tags = await L.ledger.reports.tags();
      const values = (key: string) => tags.find((t) => t.key === key)?.values ?? [];
      expect(values('project').filter((v) => ['zeta', 'omega'].includes(v.value))).toEqual([
        { value: 'omega', lines: 1 },
        { value: 'zeta', lines: 2 },
      ]);
      expect(await L.check()).toEqual([]);
    });

    it('a general-ledger cursor is good for the filter it was given with, and refused under another', async () => {
      const S = await L.serve();
      const get = async (q: string) => {
        const r = await fetch(
          `${S.url}/v1/reports/general-ledger?start_date=2025-01-01&end_date=2025-12-31${q}`,
          {
            headers: { Authorization: `Bearer ${S.keys.read}` },
          },
        );
        return {
          status: r.status,
          body: (await r.json()) as { next_cursor?: string; code?: string },
        };
      };
      const first = await get('&where=project!:a&limit=1');
      expect(first.status).toBe(200);
      const cursor = `&cursor=${encodeURIComponent(first.body.next_cursor!)}`;
      expect((await get(`&where=project!:a&limit=1${cursor}`)).status).toBe(200);
      for (const other of ['', '&where=project:a', '&where=project!:b'])
        expect(await get(`${other}&limit=1${cursor}`)).toMatchObject({
          status: 400,
          body: { code: 'invalid_parameters' },
        });
    });

    it('the general ledger with --where lists exactly the lines that meet it, and its balances', async () => {
      const where: Condition[] = [{ key: 'project', op: 'ne', value: 'a' }];
      const entries = await journal(L.store);
      const want = entries
        .flatMap((e) =>
          e.lines
            .filter((l) => meets({ ...e.tags, ...l.tags }, where))
            .map((l) => `${e.je_number}:${l.amount_atoms}:${l.line_type}`),
        )
        .sort();
      const got: string[] = [];
      for await (const ev of L.ledger.reports.generalLedger({
        start_date: '2025-01-01',
        end_date: '2025-12-31',
        accounts: [],
        counterparty: null,
        where,
      }))
        if (ev.kind === 'line')
          got.push(
            [
              ev.line.je_number,
              big(ev.line.debit ?? ev.line.credit),
              ev.line.debit != null ? 'debit' : 'credit',
            ].join(':'),
          );
      expect(got.sort()).toEqual(want);
      expect(want.length).toBeGreaterThan(0);
    });
  },
);
